// The README's durable graph: writes survive a restart, ids stay the same.
#include <filesystem>

#include <fmt/core.h>
#include <propgraph/propgraph.hpp>

int main() {
  const auto dir = std::filesystem::temp_directory_path() / "propgraph-example-durable";
  std::filesystem::remove_all(dir);
  propgraph::ElementId alice_id;
  {
    propgraph::MemoryGraph graph({.data_dir = dir});  // every write is synced before it returns
    graph.create_index("Person", "email", {.unique = true});
    alice_id = graph.create_vertex("Person", {{"name", "Alice"}, {"email", "alice@example.com"}}).id;
  }  // closed; or killed: what was acknowledged is on disk
  propgraph::MemoryGraph graph({.data_dir = dir});  // recovers the snapshot and the log
  fmt::print("after a restart: {}\n", *graph.find_vertex(alice_id));
  std::filesystem::remove_all(dir);
}
