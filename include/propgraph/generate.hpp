// Graph generators for benchmarks and tests: seeded, deterministic edge lists and a bulk loader
// that turns them into vertices and edges of any backend.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "propgraph/model.hpp"

namespace propgraph {
class GraphOperations;
}

namespace propgraph::generate {

/// A directed multigraph over vertices 0..vertex_count-1. Edges keep generation order; the
/// same generator, sizes and seed give the same list on every platform (Boost.Random engines
/// and distributions, not the standard library's implementation-defined ones).
struct EdgeList {
  std::uint32_t vertex_count = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
};

/// Erdős–Rényi G(n, p) without self-loops, p chosen so that about `expected_edges` edges come
/// out (Boost.Graph's sorted_erdos_renyi_iterator). Edges are sorted by source.
/// O(n + edges) time.
[[nodiscard]] EdgeList random_graph(std::uint32_t vertices, std::uint64_t expected_edges, std::uint64_t seed);

/// R-MAT quadrant probabilities; they must sum to 1. The defaults are Graph500's (a power-law
/// degree distribution with a few very high-degree hubs).
struct RmatParameters {
  double a = 0.57;
  double b = 0.19;
  double c = 0.19;
  double d = 0.05;
};

/// Chakrabarti's R-MAT power-law graph with exactly `edges` edges (Boost.Graph's
/// rmat_iterator, vertex numbers permuted). Self-loops and parallel edges may occur.
/// Throws InvalidArgument when the parameters do not sum to 1 or edges exceed 2^31 - 1.
[[nodiscard]] EdgeList rmat_graph(std::uint32_t vertices, std::uint64_t edges, std::uint64_t seed,
                                  const RmatParameters& parameters = {});

/// How load() labels the elements and which properties it gives them.
struct LoadOptions {
  std::string vertex_label = "Node";
  std::string edge_label = "LINK";
  /// Properties of vertex i (none when empty).
  std::function<Properties(std::uint32_t)> vertex_properties;
  /// Properties of the edge at position i of EdgeList::edges (none when empty).
  std::function<Properties(std::uint64_t)> edge_properties;
  /// Elements per create_vertices/create_edges call; bounds the loader's transient memory.
  std::size_t batch = 65536;
};

/// Creates the vertices, then the edges, through the bulk calls; returns the vertex ids by
/// vertex number. Each batch is all or nothing; an error leaves earlier batches in place.
std::vector<ElementId> load(GraphOperations& graph, const EdgeList& list, const LoadOptions& options = {});

}  // namespace propgraph::generate
