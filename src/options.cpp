// Option and argument validation: one wording per error, shared by every backend.
#include "propgraph/options.hpp"

#include <fmt/format.h>

#include "propgraph/errors.hpp"

namespace propgraph {

namespace {
void check_depth(int depth) {
  if (depth < 0) throw InvalidArgument(fmt::format("max_depth must be >= 0, got {}", depth));
}
}  // namespace

void validate(const NeighborOptions& options) {
  if (options.max_depth < 1) throw InvalidArgument("neighbors max_depth must be >= 1");
}

void validate(const PathOptions& options) { check_depth(options.max_depth); }

void validate(const TraversalOptions& options) { check_depth(options.max_depth); }

void validate(const CycleOptions& options) { check_depth(options.max_depth); }

void validate(const PageRankOptions& options) {
  if (options.iterations < 1) throw InvalidArgument("page_rank iterations must be >= 1");
  if (!(options.damping >= 0.0 && options.damping <= 1.0)) {
    throw InvalidArgument(fmt::format("page_rank damping must be in [0, 1], got {}", options.damping));
  }
}

void validate(const TransactOptions& options) {
  if (options.max_attempts < 1) {
    throw InvalidArgument(fmt::format("TransactOptions::max_attempts must be >= 1, got {}", options.max_attempts));
  }
}

void validate_index_key(std::string_view key, std::string_view operation) {
  if (key.empty()) throw InvalidArgument(fmt::format("{}: the property key is empty", operation));
}

}  // namespace propgraph
