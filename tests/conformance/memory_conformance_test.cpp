// The conformance suite run against the in-memory backend, in memory and durable.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "conformance_suite.hpp"
#include "propgraph/decorator.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace {

namespace fs = std::filesystem;

struct MemoryGraphFactory {
  static std::unique_ptr<propgraph::GraphOperations> make() { return std::make_unique<propgraph::MemoryGraph>(); }
};

/// The graph a DurableMemoryGraph forwards to, constructed before its GraphDecorator base.
struct DurableGraphHolder {
  explicit DurableGraphHolder(const fs::path& where) : dir(where) {
    fs::remove_all(dir);
    graph = std::make_unique<propgraph::MemoryGraph>(propgraph::MemoryOptions{.data_dir = dir});
  }
  fs::path dir;
  std::unique_ptr<propgraph::MemoryGraph> graph;
};

/// A durable MemoryGraph in a directory of its own, removed when the graph goes; every answer
/// must be what the in-memory graph gives, with the log written (and synced) underneath.
class DurableMemoryGraph final : private DurableGraphHolder, public propgraph::GraphDecorator {
 public:
  explicit DurableMemoryGraph(const fs::path& where) : DurableGraphHolder(where), GraphDecorator(*graph) {}
  ~DurableMemoryGraph() override {
    graph.reset();
    fs::remove_all(dir);
  }
};

struct DurableMemoryGraphFactory {
  static std::unique_ptr<propgraph::GraphOperations> make() {
    static std::atomic<int> counter{0};
    return std::make_unique<DurableMemoryGraph>(fs::temp_directory_path() /
                                                fmt::format("propgraph-conformance-{}-{}", ::getpid(), counter++));
  }
};

}  // namespace

namespace propgraph::conformance {
INSTANTIATE_TEST_SUITE_P(Memory, GraphConformance, ::testing::Values(backend<MemoryGraphFactory>("MemoryGraph")),
                         backend_name);
INSTANTIATE_TEST_SUITE_P(DurableMemory, GraphConformance,
                         ::testing::Values(backend<DurableMemoryGraphFactory>("DurableMemoryGraph")), backend_name);
}  // namespace propgraph::conformance
