// What MemoryGraph and its transactions share: the store, its locks and the commit step.
#pragma once

#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>

#include <fmt/format.h>

#include "memory/durable/durability.hpp"
#include "memory/overlay.hpp"
#include "memory/reader_writer_lock.hpp"
#include "memory/store.hpp"
#include "memory/view.hpp"
#include "memory/writer_gate.hpp"
#include "propgraph/errors.hpp"

namespace propgraph::detail {

/// Concurrency: readers hold `mutex` shared for a whole call. The one writer (through `gate`)
/// prepares its change in an Overlay without any lock (nobody else changes the store) and takes
/// `mutex` exclusively only to apply it, so readers wait only for that apply.
struct GraphState {
  std::string graph_name;
  std::set<std::string, std::less<>> catalog;
  std::string prefix;  // "g<tag>:"
  mutable ReaderWriterLock mutex;
  WriterGate gate;
  Store store;
  /// Set for a durable graph (options.data_dir).
  std::unique_ptr<durable::Durability> durability;

  /// Opens the graph: in memory, or recovered from options.data_dir.
  explicit GraphState(const MemoryOptions& options);
  ~GraphState();

  /// Gives a new id prefix: ids issued before stay unknown.
  void renew_prefix();

  /// The committed graph, for reads (caller holds `mutex` shared, or is the writer).
  [[nodiscard]] CommittedView view() const noexcept { return {store, prefix}; }

  /// Links the store's waiting edges (Store::link, under the exclusive lock) unless they are
  /// linked already. Readers of adjacency do this when they find edges waiting; a writer does
  /// it before a change that reads adjacency, and then no edge waits while it holds the gate
  /// (only gate holders add edges). Linking is safe while a writer prepares a change: writers
  /// that did not link first read no adjacency.
  void ensure_linked() {
    {
      std::shared_lock lock(mutex);
      if (store.linked()) return;
    }
    std::unique_lock lock(mutex);
    store.link();
  }

  /// Enters the writer gate, honouring the caller's deadline (Timeout when it passes first).
  void enter_gate(std::string_view operation);

  /// Logs the overlay (durable graphs), then applies it to the store under the exclusive lock
  /// (caller is the writer). Returns the lsn to pass to wait_durable() once the gate is left
  /// (0 for nothing). StorageError when it cannot be logged: nothing changed.
  std::uint64_t commit(Overlay& overlay);
  /// Discards the overlay, burning the slots it handed out (caller is the writer). Durable
  /// graphs log the burn as best they can.
  void discard(Overlay& overlay) noexcept;
  /// Logs a schema or catalog record (durable graphs; caller is the writer): returns the lsn
  /// for wait_durable(), or 0.
  std::uint64_t log(durable::RecordType type, const std::string& payload);
  /// Returns once `lsn` is as durable as the sync policy makes it (call after leaving the
  /// gate, so that concurrent commits share a sync).
  void wait_durable(std::uint64_t lsn) {
    if (lsn != 0) durability->wait(lsn);
  }
};

/// Leaves the gate when it goes out of scope.
class GateGuard {
 public:
  explicit GateGuard(WriterGate& gate) noexcept : gate_(&gate) {}
  GateGuard(const GateGuard&) = delete;
  GateGuard& operator=(const GateGuard&) = delete;
  ~GateGuard() {
    if (gate_ != nullptr) gate_->leave();
  }

 private:
  WriterGate* gate_;
};

}  // namespace propgraph::detail
