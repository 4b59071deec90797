// Uses an installed propgraph: builds the reference fixture in a MemoryGraph and checks two
// shortest paths, through the fiber facade when built with CONSUMER_USE_FIBER, and checks a path's
// JSON when built with CONSUMER_USE_JSON. Exits non-zero when a result is wrong.
#include <propgraph/propgraph.hpp>
#if CONSUMER_USE_FIBER
#include <propgraph/fiber.hpp>
#endif
#if CONSUMER_USE_JSON
#include <propgraph/json.hpp>
#endif

#include <string>
#include <vector>

#include <fmt/format.h>

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    fmt::print(stderr, "consumer: FAILED: {}\n", what);
    ++failures;
  }
}

std::vector<propgraph::ElementId> ids(const propgraph::Path& path) {
  std::vector<propgraph::ElementId> out;
  for (const auto& v : path.vertices) out.push_back(v.id);
  return out;
}

}  // namespace

int main() {
  using propgraph::Properties;
  propgraph::MemoryGraph graph;
  auto alice = graph.create_vertex("Person", Properties{{"name", "Alice"}, {"age", 30}});
  auto bob = graph.create_vertex("Person", Properties{{"name", "Bob"}, {"age", 25}});
  auto charlie = graph.create_vertex("Person", Properties{{"name", "Charlie"}, {"age", 28}});
  auto dave = graph.create_vertex("Person", Properties{{"name", "Dave"}, {"age", 35}});
  graph.create_edge(alice.id, bob.id, "KNOWS", Properties{{"since", 2020}});
  graph.create_edge(bob.id, charlie.id, "KNOWS", Properties{{"since", 2021}});
  graph.create_edge(charlie.id, dave.id, "KNOWS", Properties{{"since", 2022}});
  graph.create_edge(alice.id, charlie.id, "FOLLOWS", Properties{{"since", 2019}});

#if CONSUMER_USE_FIBER
  auto fibers = propgraph::as_fiber(graph);
  auto shortest_path = [&](auto&&... args) { return fibers.shortest_path_async(args...).get(); };
  const char* mode = "fiber";
#else
  auto shortest_path = [&](auto&&... args) { return graph.shortest_path(args...); };
  const char* mode = "sync";
#endif

  auto any = shortest_path(alice.id, dave.id, propgraph::PathOptions{.max_depth = 4});
  check(any.has_value(), "a path Alice -> Dave exists");
  if (any) {
    fmt::print("shortest path: {}\n", *any);
    check(ids(*any) == std::vector{alice.id, charlie.id, dave.id}, "Alice -FOLLOWS-> Charlie -KNOWS-> Dave");
#if CONSUMER_USE_JSON
    const nlohmann::json json = *any;
    check(json["length"] == 2 && json.get<propgraph::Path>() == *any, "the path through JSON");
#endif
  }

  auto knows = shortest_path(alice.id, dave.id, propgraph::PathOptions{.edge_label = "KNOWS", .max_depth = 4});
  check(knows.has_value(), "a KNOWS path Alice -> Dave exists");
  if (knows) {
    fmt::print("KNOWS only:    {}\n", *knows);
    check(ids(*knows) == std::vector{alice.id, bob.id, charlie.id, dave.id}, "Alice -> Bob -> Charlie -> Dave");
  }

  check(!shortest_path(dave.id, alice.id, propgraph::PathOptions{.direction = propgraph::Direction::out}),
        "no outgoing path Dave -> Alice");
  check(graph.count_vertices("Person") == 4 && graph.count_edges("KNOWS") == 3, "element counts");

  fmt::print("consumer ({}): propgraph {} {}\n", mode, propgraph::version_string, failures == 0 ? "OK" : "FAILED");
  return failures == 0 ? 0 : 1;
}
