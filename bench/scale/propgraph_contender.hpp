// propgraph's MemoryGraph as a contender of propgraph-scale, through GraphOperations.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "contender.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace propgraph::scale {

/// Resident-memory growth of a load in two phases (vertices, then edges), in bytes: the peak
/// during each phase and what stays after it once the allocator has returned freed memory,
/// both over the RSS before that phase.
struct PhaseMemory {
  double vertex_peak = 0;
  double vertex_kept = 0;
  double edge_peak = 0;
  double edge_kept = 0;
};

class PropgraphContender final : public Contender {
 public:
  /// Loads with `options` (labels, properties); results go through GraphOperations.
  explicit PropgraphContender(generate::LoadOptions options);
  ~PropgraphContender() override;

  [[nodiscard]] std::string_view name() const override { return "propgraph"; }
  [[nodiscard]] std::string version() const override;
  [[nodiscard]] bool runs(Operation) const override { return true; }
  void load(const generate::EdgeList& list) override;
  void clear() override;
  void run(Operation op, const PathQuery& query) override;
  [[nodiscard]] std::string result(Operation op) const override;

  /// load(), vertices first and then edges, measuring the memory of each phase (peak RSS reset
  /// before each; /proc/self/clear_refs).
  PhaseMemory load_measured(const generate::EdgeList& list);

  /// The loaded graph and its vertex ids by vertex number.
  [[nodiscard]] MemoryGraph& graph() { return *graph_; }
  [[nodiscard]] const std::vector<ElementId>& ids() const { return ids_; }
  [[nodiscard]] double harness_bytes() const override {
    return static_cast<double>(ids_.capacity() * sizeof(ElementId));  // ids this short are inline
  }

 private:
  generate::LoadOptions options_;
  std::unique_ptr<MemoryGraph> graph_;
  std::vector<ElementId> ids_;
  std::vector<Visit> visits_;
  std::vector<Component> components_;
  std::vector<PageRankScore> ranks_;
  std::optional<Path> path_;
};

}  // namespace propgraph::scale
