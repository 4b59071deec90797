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

  /// The shared lock, taken once the store's edges are linked (linking them first, under the
  /// exclusive lock, when some wait): what a read that follows adjacency holds.
  [[nodiscard, gnu::always_inline]] inline std::shared_lock<ReaderWriterLock> lock_linked() {
    std::shared_lock lock(mutex);
    while (!store.linked()) {
      lock.unlock();
      ensure_linked();
      lock.lock();
    }
    return lock;
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
  void wait_durable(std::uint64_t lsn) const {
    if (lsn != 0) durability->wait(lsn);
  }

  /// The lsn of the last record logged (durable graphs; 0 otherwise). Taken while a caller holds
  /// the shared lock or the gate, it covers every write the caller can see: a write is logged
  /// before it is applied.
  [[nodiscard]] std::uint64_t seen_lsn() const noexcept { return durability ? durability->last_lsn() : 0; }

  /// How after_seen_durable() waits. (SyncPolicy::every_commit promises that no caller learns
  /// of a write before the write is synced; the other policies never wait.)
  enum class SeenWait {
    read,   // honours the caller's deadline (Timeout: the read had no effect)
    write,  // waits for as long as it takes: the write has happened
  };

  /// Runs fn(seen) and hands its result, or its exception, to the caller only once every write
  /// it could have observed is as durable as the sync policy makes it. fn sets `seen` to
  /// seen_lsn() as soon as it holds the shared lock or the gate, and a writer raises it to its
  /// own record's lsn. StorageError when the log failed before those writes were synced (then
  /// neither result nor exception is delivered); Timeout (SeenWait::read) at the deadline.
  template <class Fn>
  [[gnu::always_inline]] inline auto after_seen_durable(std::string_view operation, SeenWait kind, Fn&& fn) const
      -> decltype(fn(std::declval<std::uint64_t&>())) {
    if (!durability) {
      std::uint64_t seen = 0;
      return fn(seen);
    }
    return durable_after_seen(operation, kind, fn);
  }

 private:
  // Apart, with one return of one local, so that the result is built in the caller's place
  // (no copy or move of what a read returns).
  template <class Fn>
  auto durable_after_seen(std::string_view operation, SeenWait kind, Fn& fn) const
      -> decltype(fn(std::declval<std::uint64_t&>())) {
    std::uint64_t seen = 0;
    auto result = [&] {
      try {
        return fn(seen);
      } catch (...) {
        wait_seen(operation, kind, seen);  // may throw instead
        throw;
      }
    }();
    wait_seen(operation, kind, seen);
    return result;
  }

  void wait_seen(std::string_view operation, SeenWait kind, std::uint64_t seen) const {
    if (seen == 0 || durability->is_durable(seen)) return;
    if (!durability->wait(seen, kind == SeenWait::read ? current_deadline() : std::nullopt)) throw_timeout(operation);
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
