// MemoryGraph's operations, written once over a context (contexts.hpp): MemoryGraph runs them on
// the committed graph (CommittedContext), its transactions on theirs (TransactionContext). Reads
// are reads.hpp and the algorithms over the context's view, writes are writes.cpp on an Overlay.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "propgraph/operation_list.hpp"
#include "propgraph/operations.hpp"

namespace propgraph::detail {

/// Every GraphOperations call (begin() excepted) over `Context`; a short-lived value. `self` is
/// the graph or transaction the call came to (queries run their steps through it).
template <class Context>
class MemoryOperations {
 public:
  MemoryOperations(Context& context, GraphOperations& self) noexcept : context_(context), self_(self) {}

// Each body is folded into the override that calls it (memory_graph.cpp, transaction.cpp), as
// when it was written there.
#define PROPGRAPH_DETAIL_DECLARE(name, result, parameters, arguments) \
  [[gnu::always_inline]] inline result name parameters;
  PROPGRAPH_GRAPH_OPERATIONS(PROPGRAPH_DETAIL_DECLARE, PROPGRAPH_DETAIL_DECLARE, PROPGRAPH_NO_DEFAULT_ARG)
#undef PROPGRAPH_DETAIL_DECLARE

 private:
  Context& context_;
  GraphOperations& self_;
};

}  // namespace propgraph::detail
