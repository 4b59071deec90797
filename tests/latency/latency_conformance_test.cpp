// The conformance suite through LatencyGraph(MemoryGraph): the decorator changes nothing but time.
#include <chrono>
#include <memory>

#include "conformance_suite.hpp"
#include "propgraph/latency/latency_graph.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace {

/// A 1 µs wait keeps the suite fast while every call still goes through the wait.
struct LatencyMemoryGraphFactory {
  static std::unique_ptr<propgraph::GraphOperations> make() {
    return std::make_unique<propgraph::LatencyGraph>(std::make_shared<propgraph::MemoryGraph>(),
                                                     propgraph::LatencyOptions::fixed(std::chrono::microseconds(1)));
  }
};

}  // namespace

namespace propgraph::conformance {
INSTANTIATE_TEST_SUITE_P(Latency, GraphConformance,
                         ::testing::Values(backend<LatencyMemoryGraphFactory>("LatencyMemoryGraph")), backend_name);
}  // namespace propgraph::conformance
