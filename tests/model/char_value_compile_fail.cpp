// Compile-fail check: a char is not a property value (it used to become the bool true).
// tests/CMakeLists.txt compiles this file once per PROPGRAPH_CHAR_CASE: cases 1 to 3 must be
// refused by the compiler naming Value's deleted constructor; case 0, the same calls with
// strings, must compile, which shows that the refusals come from the characters alone.
#include "propgraph/operations.hpp"

propgraph::Vertex use(propgraph::GraphOperations& g) {
#if PROPGRAPH_CHAR_CASE == 1
  const propgraph::Value value = 'A';
  const propgraph::Properties entry{{"initial", "B"}};
  return g.create_vertex("Person", {{"grade", "C"}, {"initial", value}, {"entry", entry["initial"]}});
#elif PROPGRAPH_CHAR_CASE == 2
  const propgraph::Value value = "A";
  const propgraph::Properties entry{{"initial", 'B'}};
  return g.create_vertex("Person", {{"grade", "C"}, {"initial", value}, {"entry", entry["initial"]}});
#elif PROPGRAPH_CHAR_CASE == 3
  const propgraph::Value value = "A";
  const propgraph::Properties entry{{"initial", "B"}};
  return g.create_vertex("Person", {{"grade", 'C'}, {"initial", value}, {"entry", entry["initial"]}});
#else
  const propgraph::Value value = "A";
  const propgraph::Properties entry{{"initial", "B"}};
  return g.create_vertex("Person", {{"grade", "C"}, {"initial", value}, {"entry", entry["initial"]}});
#endif
}
