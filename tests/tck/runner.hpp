// Runs one TCK scenario on a fresh MemoryGraph and classifies it: passed, failed (with the
// reason) or outside the property-graph model (the engine's `OutsideModel: <reason>` errors,
// and procedures, which propgraph does not have).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "gherkin.hpp"
#include "propgraph/operations.hpp"

namespace propgraph::tck {

enum class Outcome { passed, failed, outside };

[[nodiscard]] std::string_view to_string(Outcome outcome) noexcept;

struct ScenarioResult {
  Outcome outcome = Outcome::failed;
  /// Why it failed, or the outside-the-model reason class; empty when passed.
  std::string reason;
};

struct RunOptions {
  /// The TCK root (holding features/ and graphs/).
  std::filesystem::path tck_dir;
  /// Deadline for the whole scenario (a DeadlineScope): a query still running then fails.
  std::chrono::milliseconds budget{5000};
};

/// Runs every step of `scenario` on a new MemoryGraph. Never throws: an exception of any step
/// becomes a failure (or, for OutsideModel, the outside outcome).
[[nodiscard]] ScenarioResult run_scenario(const Scenario& scenario, const RunOptions& options);

/// The graph as the TCK observes side effects (README.adoc, "Side effects"): node and
/// relationship ids, (element, key, value) property triples, and the distinct node labels.
struct GraphSnapshot {
  std::set<std::string> nodes;
  std::set<std::string> relationships;
  std::set<std::string> properties;
  std::set<std::string> labels;  // the stored label of unlabeled nodes is no label
};

[[nodiscard]] GraphSnapshot snapshot(GraphOperations& graph);

/// +nodes, -nodes, +relationships, -relationships, +properties, -properties, +labels, -labels
/// from `before` to `after`; every name is present (0 when nothing changed).
[[nodiscard]] std::map<std::string, std::int64_t> side_effects(const GraphSnapshot& before, const GraphSnapshot& after);

}  // namespace propgraph::tck
