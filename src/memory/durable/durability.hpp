// What makes a MemoryGraph durable: its data directory, write-ahead log, recovery and
// checkpoints (docs/durability.md).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "memory/durable/files.hpp"
#include "memory/durable/records.hpp"
#include "memory/durable/wal.hpp"

namespace propgraph::detail {
struct GraphState;
}

namespace propgraph::detail::durable {

class Durability {
 public:
  /// Opens (or creates) options.data_dir and recovers it into `state`: store, id prefix,
  /// catalog. StorageError as MemoryGraph's constructor says.
  Durability(GraphState& state, const MemoryOptions& options);
  /// Stops background checkpoints; the log writes and syncs what it still holds.
  ~Durability();
  Durability(const Durability&) = delete;
  Durability& operator=(const Durability&) = delete;

  /// Logs a record (the caller is the graph's one writer, before it applies the change).
  /// Returns the lsn to wait() for once the writer gate is left. StorageError: not logged.
  std::uint64_t log(RecordType type, const std::string& payload) { return wal_->append(type, payload); }
  /// Returns once record `lsn` is as durable as the sync policy makes it: true, or false when
  /// `deadline` passed first. StorageError when the log failed before it was synced.
  bool wait(std::uint64_t lsn, std::optional<DeadlineClock::time_point> deadline = std::nullopt) {
    return wal_->wait(lsn, deadline);
  }
  /// The lsn of the last record logged.
  [[nodiscard]] std::uint64_t last_lsn() const noexcept { return wal_->last_lsn(); }
  /// Whether wait(lsn) would return at once.
  [[nodiscard]] bool is_durable(std::uint64_t lsn) const noexcept { return wal_->is_durable(lsn); }
  /// See MemoryGraph::checkpoint.
  void checkpoint();
  /// A fresh id prefix for a durable graph: random, so that ids of different data directories
  /// do not collide.
  static std::string new_prefix();

  /// Held by checkpoint() and by the calls that change what a snapshot's meta and schema blocks
  /// hold (drop_graph, create_graph, indexes): those wait for a running checkpoint.
  std::mutex schema_mutex;

 private:
  void checkpointer();

  GraphState& state_;
  DataDir dir_;
  std::optional<WalWriter> wal_;
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  bool wanted_ = false;
  bool stop_ = false;
  std::thread checkpointer_;
};

}  // namespace propgraph::detail::durable
