// MemoryGraph's transactions.
#pragma once

#include "memory/contexts.hpp"
#include "propgraph/operation_list.hpp"
#include "propgraph/operations.hpp"

namespace propgraph::detail {

/// A transaction over a MemoryGraph (see MemoryGraph's documentation for the isolation, and
/// TransactionContext for how it reads and writes). Its calls are MemoryGraph's operations
/// (operations.hpp) over its TransactionContext.
///
/// Durable graphs with SyncPolicy::every_commit: reads before the first write return once what
/// they saw is synced, like MemoryGraph's reads. From the first write on, calls return at once
/// (the transaction holds the gate; waiting there would hold up every writer for a sync), and
/// commit() returns once the writes the transaction saw when it entered the gate, and its own,
/// are synced.
class MemoryTransaction final : public Transaction {
 public:
  explicit MemoryTransaction(GraphState& graph) noexcept : context_(graph) {}
  ~MemoryTransaction() override = default;  // the context rolls back when still open
  MemoryTransaction(const MemoryTransaction&) = delete;
  MemoryTransaction& operator=(const MemoryTransaction&) = delete;

  void commit() override { context_.commit(); }
  void rollback() override { context_.end(); }
  [[nodiscard]] bool is_open() const noexcept override { return context_.is_open(); }

  PROPGRAPH_DECLARE_GRAPH_OPERATIONS()

 private:
  TransactionContext context_;
};

}  // namespace propgraph::detail
