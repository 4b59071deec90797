// The README's usage example: keep the two identical in substance.
#include <propgraph/propgraph.hpp>

#include <fmt/core.h>

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
}
