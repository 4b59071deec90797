// The README's fiber facade sample: the same calls as quickstart.cpp, each returning a
// propgraph::Future (used like boost::fibers::future). Keep the two identical in substance.
#include <fmt/core.h>
#include <propgraph/fiber.hpp>
#include <propgraph/propgraph.hpp>

int main() {
  using propgraph::Properties;
  propgraph::MemoryGraph graph;
  auto alice = graph.create_vertex("Person", Properties{{"name", "Alice"}, {"age", 30}});

  auto fibers = propgraph::as_fiber(graph);
  auto v = fibers.find_vertex_by_id_async("Person", alice.id).get();
  if (!v) return 1;
  fmt::print("{}\n", *v);
}
