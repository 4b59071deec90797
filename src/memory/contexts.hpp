// The two places MemoryGraph's operations (operations.hpp) run: the committed graph, where each
// call is a unit of its own, and a transaction. Each context says how a call reads, writes and
// touches the schema; the operations themselves are written once over either.
//
// A context has:
//   read(op, fn)            fn(view) -> the answer; view is CommittedView or TxView
//   read_adjacency(op, fn)  the same, for calls that follow adjacency (edges linked first)
//   write(op, change, result)
//                           change(overlay, TxView) records the write and returns what it did;
//                           result(view, what it did) builds the answer after the write is
//                           visible to the caller (committed: after commit; transaction: at once)
//   schema(op, check, fn)   catalog and schema calls: check() the arguments, then fn(lsn) on the
//                           committed graph; a transaction refuses them (InvalidArgument) first
//   state()                 the GraphState, for the catalog and the index tables
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "memory/graph_state.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/errors.hpp"
#include "propgraph/memory/memory_graph.hpp"

/// The contexts' read and write steps are folded into each operation's body, as if written there
/// (an operation is a few calls deep; GCC would otherwise keep this step apart and pay a call
/// and a copy of the answer on every lookup).
#define PROPGRAPH_CONTEXT_INLINE [[gnu::always_inline]] inline
#define PROPGRAPH_CONTEXT_LAMBDA_INLINE __attribute__((always_inline))

namespace propgraph::detail {

/// Outside a transaction: reads take the shared lock, each write enters the writer gate, builds
/// its Overlay and commits it at once.
class CommittedContext : public GraphState {
 public:
  using GraphState::GraphState;

  [[nodiscard]] GraphState& state() noexcept { return *this; }

  /// fn(committed view) under the shared lock, after a deadline check; returned once what it
  /// saw is durable (after_seen_durable). With kAdjacency (calls that follow adjacency) the
  /// store's edges are linked first.
  template <bool kAdjacency = false, typename Fn>
  PROPGRAPH_CONTEXT_INLINE decltype(auto) read(std::string_view operation, Fn&& fn) {
    check_deadline(operation);
    return after_seen_durable(operation, SeenWait::read, [&](std::uint64_t& seen) PROPGRAPH_CONTEXT_LAMBDA_INLINE {
      auto lock = kAdjacency ? lock_linked() : std::shared_lock(mutex);
      seen = seen_lsn();
      return fn(view());
    });
  }
  template <typename Fn>
  PROPGRAPH_CONTEXT_INLINE decltype(auto) read_adjacency(std::string_view operation, Fn&& fn) {
    return read<true>(operation, std::forward<Fn>(fn));
  }

  /// fn(lsn) inside the writer gate; returned once what it saw and logged is durable, waiting
  /// outside the gate (concurrent commits share one sync). fn returns its record's lsn through
  /// its argument (0: none).
  template <typename Fn>
  PROPGRAPH_CONTEXT_INLINE auto gated(std::string_view operation, Fn&& fn) {
    return after_seen_durable(operation, SeenWait::write, [&](std::uint64_t& seen) {
      enter_gate(operation);
      GateGuard guard(gate);
      seen = seen_lsn();
      std::uint64_t logged = 0;
      auto answer = fn(logged);
      seen = std::max(seen, logged);
      return answer;
    });
  }

  /// One write as a transaction of its own: change(overlay, tx view) records it, commit applies
  /// it, then result(committed view, what change returned) builds the answer while this writer
  /// still holds the gate (the store cannot change under it).
  template <typename Change, typename Result>
  PROPGRAPH_CONTEXT_INLINE auto write(std::string_view operation, Change&& change, Result&& result) {
    return gated(operation, [&](std::uint64_t& logged) {
      Overlay overlay(store);
      auto changed = change(overlay, TxView(overlay, prefix));
      logged = commit(overlay);
      return result(view(), changed);
    });
  }

  /// Catalog and schema calls: check() before anything is locked, then fn(lsn) inside the writer
  /// gate, holding the durable graph's schema mutex (what a checkpoint copies besides records).
  template <typename Check, typename Fn>
  auto schema(std::string_view operation, Check&& check, Fn&& fn) {
    check();
    auto schema_lock = durability ? std::unique_lock(durability->schema_mutex) : std::unique_lock<std::mutex>();
    return gated(operation, std::forward<Fn>(fn));
  }
};

/// Inside a transaction (see MemoryTransaction for the isolation it gives).
///
/// Until its first write it reads the committed graph under the shared lock, remembering the
/// store's version: a read that finds another version throws TransactionConflict. The first
/// write enters the writer gate (waiting for other writers, Timeout at the deadline) and
/// checks that version once more; from then on the transaction is the only writer, its writes
/// go to an Overlay and its reads see the graph through it (TxView). commit() applies the
/// overlay under the exclusive lock; end() drops it. Either way the gate is left.
class TransactionContext {
 public:
  explicit TransactionContext(GraphState& graph) noexcept : graph_(graph) {}
  ~TransactionContext() { end(); }
  TransactionContext(const TransactionContext&) = delete;
  TransactionContext& operator=(const TransactionContext&) = delete;

  [[nodiscard]] GraphState& state() noexcept { return graph_; }
  [[nodiscard]] bool is_open() const noexcept { return open_; }

  /// fn(view): the committed view (version-checked) before the first write, the TxView after.
  template <typename Fn>
  PROPGRAPH_CONTEXT_INLINE decltype(auto) read(std::string_view operation, Fn&& fn) {
    ensure_open(operation);
    check_deadline(operation);
    if (overlay_) return fn(TxView(*overlay_, graph_.prefix));  // this transaction is the only writer
    return graph_.after_seen_durable(operation, GraphState::SeenWait::read, [&](std::uint64_t& seen) {
      auto lock = graph_.lock_linked();  // the reads of a transaction see one linked store
      seen = graph_.seen_lsn();
      if (!read_version_) {
        read_version_ = graph_.store.version;
      } else if (*read_version_ != graph_.store.version) {
        throw_conflict(operation);
      }
      return fn(graph_.view());
    });
  }
  /// Every read of a transaction sees a linked store.
  template <typename Fn>
  PROPGRAPH_CONTEXT_INLINE decltype(auto) read_adjacency(std::string_view operation, Fn&& fn) {
    return read(operation, std::forward<Fn>(fn));
  }

  /// change(overlay, view) after entering the gate on the first write; result(view, changed)
  /// at once (the transaction sees its own writes).
  template <typename Change, typename Result>
  PROPGRAPH_CONTEXT_INLINE auto write(std::string_view operation, Change&& change, Result&& result) {
    ensure_open(operation);
    check_deadline(operation);  // a write to the overlay is quick, but a passed deadline refuses every call
    if (!overlay_) start_writing(operation);
    const TxView view(*overlay_, graph_.prefix);
    auto changed = change(*overlay_, view);
    return result(view, changed);
  }

  /// Catalog and schema calls are not transactional: InvalidArgument, whatever the arguments.
  template <typename Check, typename Fn>
  bool schema(std::string_view operation, Check&&, Fn&&) {
    not_transactional(operation);
  }

  /// Applies the writes (logged first for a durable graph) and ends the transaction; returns
  /// once they, and what the transaction saw, are as durable as the sync policy makes them.
  void commit();
  /// Ends the transaction: drops its writes (burning their ids) and leaves the gate.
  void end() noexcept;

 private:
  void ensure_open(std::string_view operation) const;
  [[noreturn]] void not_transactional(std::string_view operation) const;
  [[noreturn]] static void throw_conflict(std::string_view operation);
  /// Enters the gate, checks the version read so far, and opens the overlay.
  void start_writing(std::string_view operation);

  GraphState& graph_;
  bool open_ = true;
  std::optional<std::uint64_t> read_version_;  // the store's version at the first read
  std::unique_ptr<Overlay> overlay_;            // from the first write; the gate is held meanwhile
  std::uint64_t seen_ = 0;                      // GraphState::seen_lsn() on entering the gate
};

}  // namespace propgraph::detail

namespace propgraph {
/// MemoryGraph's private state: the committed graph.
struct MemoryGraph::Impl : detail::CommittedContext {
  using CommittedContext::CommittedContext;
};
}  // namespace propgraph
