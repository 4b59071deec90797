// The reference benchmark fixture (design.md, bluetape4k-graph GraphBenchmarkState) and the
// reference's published figures, in one place for every propgraph benchmark.
#pragma once

#include <array>
#include <string_view>

#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/operations.hpp"

namespace propgraph::bench {

/// Person Alice 30, Bob 25, Charlie 28, Dave 35; KNOWS Alice->Bob (since 2020), Bob->Charlie
/// (2021), Charlie->Dave (2022); FOLLOWS Alice->Charlie (2019), created in that order in the
/// given backend (propgraph-bench uses a MemoryGraph), which must start empty.
struct ReferenceFixture {
  explicit ReferenceFixture(GraphOperations& backend) : graph(backend) {
    alice = graph.create_vertex("Person", {{"name", "Alice"}, {"age", 30}}).id;
    bob = graph.create_vertex("Person", {{"name", "Bob"}, {"age", 25}}).id;
    charlie = graph.create_vertex("Person", {{"name", "Charlie"}, {"age", 28}}).id;
    dave = graph.create_vertex("Person", {{"name", "Dave"}, {"age", 35}}).id;
    graph.create_edge(alice, bob, "KNOWS", {{"since", 2020}});
    graph.create_edge(bob, charlie, "KNOWS", {{"since", 2021}});
    graph.create_edge(charlie, dave, "KNOWS", {{"since", 2022}});
    graph.create_edge(alice, charlie, "FOLLOWS", {{"since", 2019}});
  }

  GraphOperations& graph;
  ElementId alice, bob, charlie, dave;
};

/// shortest_path and all_paths run Alice -> Dave with this; the other operations use defaults.
inline constexpr int reference_path_max_depth = 4;

/// One row of the reference table: JMH AverageTime, µs/op, JVM + TinkerGraph (design.md).
struct ReferenceFigure {
  std::string_view operation;  // propgraph name
  std::string_view reference;  // bluetape4k-graph name
  double sync_us;
  double virtual_thread_us;
};

/// The eight reference operations, in the reference table's order.
inline constexpr std::array<ReferenceFigure, 8> reference_figures{{
    {"find_vertex_by_id", "findVertexById", 1.758, 8.055},
    {"find_vertices_by_label", "findVerticesByLabel", 2.485, 8.679},
    {"neighbors", "neighbors", 2.985, 10.595},
    {"shortest_path", "shortestPath", 22.031, 31.540},
    {"all_paths", "allPaths", 21.045, 32.882},
    {"bfs", "bfs", 4.216, 12.588},
    {"dfs", "dfs", 4.277, 12.115},
    {"page_rank", "pageRank", 7.270, 15.257},
}};

}  // namespace propgraph::bench
