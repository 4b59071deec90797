// The conformance suite run against the in-memory backend.
#include <memory>

#include "conformance_suite.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace {

struct MemoryGraphFactory {
  static std::unique_ptr<propgraph::GraphOperations> make() {
    return std::make_unique<propgraph::MemoryGraph>();
  }
};

}  // namespace

namespace propgraph::conformance {
INSTANTIATE_TYPED_TEST_SUITE_P(Memory, GraphConformance, ::testing::Types<MemoryGraphFactory>);
}  // namespace propgraph::conformance
