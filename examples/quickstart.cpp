// The README's usage example: keep the two identical in substance.
#include <fmt/core.h>
#include <propgraph/propgraph.hpp>

int main() {
  using propgraph::Properties;
  propgraph::MemoryGraph graph;
  auto alice = graph.create_vertex("Person", Properties{{"name", "Alice"}, {"age", 30}});
  auto bob = graph.create_vertex("Person", Properties{{"name", "Bob"}, {"age", 25}});
  auto dave = graph.create_vertex("Person", Properties{{"name", "Dave"}, {"age", 35}});
  graph.create_edge(alice.id, bob.id, "KNOWS", Properties{{"since", 2020}});
  graph.create_edge(bob.id, dave.id, "KNOWS", Properties{{"since", 2021}});

  auto path = graph.shortest_path(alice.id, dave.id, {.edge_label = "KNOWS", .max_depth = 4});
  if (path) fmt::print("{}\n", *path);
  for (const auto& friend_ : graph.neighbors(alice.id)) fmt::print("{}\n", friend_);
  for (const auto& score : graph.page_rank({.top_k = 2})) fmt::print("{}\n", score);

  // Whom does Bob know, and since when? His edges, in both directions.
  for (const auto& edge : graph.incident_edges(bob.id, {.edge_label = "KNOWS"})) fmt::print("{}\n", edge);
  // Everyone, two at a time: each page starts after the last id of the one before.
  propgraph::Page page{.limit = 2};
  for (auto people = graph.find_vertices_by_label("Person", {}, page); !people.empty();
       people = graph.find_vertices_by_label("Person", {}, page)) {
    fmt::print("page of {}: {} .. {}\n", people.size(), people.front().id, people.back().id);
    page.after = people.back().id;
  }
  // Several writes as one unit: all of them or none, seen by others all at once.
  propgraph::transact(graph, [&](propgraph::Transaction& tx) {
    auto carol = tx.create_vertex("Person", Properties{{"name", "Carol"}});
    tx.create_edge(carol.id, alice.id, "KNOWS", Properties{{"since", 2024}});
  });
}
