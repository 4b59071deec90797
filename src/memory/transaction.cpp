// MemoryGraph's transactions: TransactionContext, and MemoryTransaction's calls (operations_impl.hpp's
// operations over the transaction's context).
#include "memory/transaction.hpp"

#include "memory/contexts.hpp"
#include "memory/operations_impl.hpp"

namespace propgraph::detail {

void TransactionContext::end() noexcept {
  open_ = false;
  if (overlay_) {
    graph_.discard(*overlay_);  // spent after commit; otherwise its ids are burned
    overlay_.reset();
    graph_.gate.leave();
  }
}

void TransactionContext::ensure_open(std::string_view operation) const {
  if (!open_) throw InvalidArgument(fmt::format("{}: the transaction has ended (committed or rolled back)", operation));
}

void TransactionContext::not_transactional(std::string_view operation) const {
  ensure_open(operation);
  throw InvalidArgument(fmt::format("{} is not transactional: call it outside the transaction", operation));
}

void TransactionContext::throw_conflict(std::string_view operation) {
  throw TransactionConflict(
      fmt::format("{}: the graph changed since this transaction's first read; run the transaction again", operation));
}

void TransactionContext::start_writing(std::string_view operation) {
  graph_.enter_gate(operation);
  if (read_version_ && *read_version_ != graph_.store.version) {
    graph_.gate.leave();
    throw_conflict(operation);
  }
  graph_.ensure_linked();  // no edge waits while this transaction holds the gate
  overlay_ = std::make_unique<Overlay>(graph_.store);
  seen_ = graph_.seen_lsn();
}

void TransactionContext::commit() {
  ensure_open("commit");
  std::uint64_t lsn = 0;
  if (overlay_) {
    try {
      check_deadline("commit");
      lsn = graph_.commit(*overlay_);
    } catch (...) {
      end();
      throw;
    }
  }
  end();
  graph_.wait_durable(std::max(lsn, seen_));  // after leaving the gate: concurrent commits share one sync
}

template class MemoryOperations<TransactionContext>;

#define PROPGRAPH_DETAIL_OVERRIDE(name, result, parameters, arguments)           \
  result MemoryTransaction::name parameters {                                    \
    return MemoryOperations<TransactionContext>(context_, *this).name arguments; \
  }
PROPGRAPH_GRAPH_OPERATIONS(PROPGRAPH_DETAIL_OVERRIDE, PROPGRAPH_DETAIL_OVERRIDE, PROPGRAPH_NO_DEFAULT_ARG)
#undef PROPGRAPH_DETAIL_OVERRIDE

}  // namespace propgraph::detail
