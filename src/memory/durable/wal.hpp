// The write-ahead log of a durable MemoryGraph: segment files of checksummed, numbered records.
//
// Segment wal-<lsn>.log (format in docs/durability.md):
//   header  "PGWAL001" u32 version=3 u32 0 u64 first_lsn u64 xxh3(first 24 bytes)
//           2 x mark: u64 synced_size u32 flags u32 0 u64 xxh3(first_lsn, the 16 bytes before)
//   records u32 payload_size u8 type u8[3] 0 u64 lsn payload u64 xxh3(all before)
// Records carry consecutive lsns (log sequence numbers) across segments. A segment is started
// at every checkpoint and every opening; the segments before the checkpoint's lsn are deleted
// once its snapshot is durable. The marks (version 3 on) say how much of the segment is known
// to be synced, and whether the log goes on in a next segment: damage below that size, or a
// missing next segment, is damage, not a torn tail. Versions 1 and 2 had the header without
// the marks and are read as before.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "memory/durable/files.hpp"
#include "memory/durable/records.hpp"
#include "memory/thread_fiber_condition.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace propgraph::detail::durable {

/// The header's fixed part (every version) and, from version 3 on, with its two marks.
inline constexpr std::size_t kSegmentHeaderSize = 32;
inline constexpr std::size_t kMarkSize = 24;
inline constexpr std::size_t kMarkedHeaderSize = kSegmentHeaderSize + 2 * kMarkSize;
inline constexpr std::size_t kRecordHeaderSize = 16;
inline constexpr std::size_t kRecordTrailerSize = 8;

/// Appends records and makes them as durable as the policy says, on a syncer thread that
/// groups the syncs of concurrent commits (group commit).
///
/// - every_commit: append() writes the record to the file at once; wait() returns once a sync
///   that started after the write has finished. The syncer syncs whenever records were written
///   since its last sync, so one sync covers every record written while the one before ran.
/// - interval: append() buffers; the syncer writes and syncs the buffer every sync_interval.
/// - none: append() buffers; the syncer writes it every sync_interval and never syncs.
/// A failed sync closes the log for good: every later append() throws StorageError (after a
/// failed fdatasync what the file holds on disk is unknown, and a later sync that succeeds
/// would not say so; only reopening, which reads the files, finds out). So does a failed
/// write of buffered records (interval, none) and one that cannot be cut back. A failed
/// every_commit append is cut back off the file and only that append fails.
///
/// Each sync also updates a mark in the segment's header to the size the sync before made
/// durable (written before the sync, so the sync takes it along; no sync of its own), and
/// closing or ending a segment marks all of it: opening refuses damage below the marked size
/// instead of taking it for a torn tail. Ending a segment (rotate(), and opening, for the
/// newest segment found) marks it as followed by the next one.
class WalWriter {
 public:
  /// Starts a new segment at `next_lsn` (the lsn of the next record). `previous`: the newest
  /// segment there is (its records end before next_lsn), which is synced and marked as ended.
  WalWriter(const DataDir& dir, std::uint64_t next_lsn, SyncPolicy policy, std::chrono::nanoseconds interval,
            const std::optional<std::pair<std::uint64_t, fs::path>>& previous = std::nullopt);
  /// Writes and syncs what is buffered (any policy) and marks it all synced, then stops the
  /// syncer. Errors are lost.
  ~WalWriter();
  WalWriter(const WalWriter&) = delete;
  WalWriter& operator=(const WalWriter&) = delete;

  /// Appends one record; the caller is MemoryGraph's one writer, so records go in commit order.
  /// Returns its lsn. StorageError when the log is closed or (every_commit) the write fails;
  /// then nothing was appended.
  std::uint64_t append(RecordType type, std::string_view payload);
  /// The lsn of the last record appended (0 before the first).
  [[nodiscard]] std::uint64_t last_lsn() const noexcept { return appended_lsn_.load(); }
  /// Whether wait(lsn) would return at once (without a failure).
  [[nodiscard]] bool is_durable(std::uint64_t lsn) const noexcept {
    return policy_ != SyncPolicy::every_commit || durable_lsn_.load() >= lsn;
  }
  /// Returns once record `lsn` is as durable as the policy makes it (every_commit: synced;
  /// otherwise at once): true, or false when `deadline` passed first. Fiber-aware (only the
  /// calling fiber waits). StorageError when the log failed before `lsn` was synced.
  bool wait(std::uint64_t lsn, std::optional<DeadlineClock::time_point> deadline = std::nullopt);
  /// Writes and syncs everything so far (checkpoint, close).
  void flush();
  /// Ends the current segment (written and synced) and starts one at the next lsn, which it
  /// returns. Caller is the one writer. StorageError when the new segment cannot be made (then
  /// none is left behind and the log goes on in the current one) or a sync fails (then the log
  /// is closed).
  std::uint64_t rotate();
  /// Deletes the segments whose records all come before `lsn`.
  void trim(std::uint64_t lsn);
  /// Bytes appended since the last rotate().
  [[nodiscard]] std::uint64_t bytes_since_rotation() const noexcept { return since_rotation_.load(); }
  /// Set when the log has grown past this many bytes since the last rotation (the owner's cue
  /// to checkpoint); 0 turns it off.
  void set_rotation_hint(std::uint64_t bytes, std::function<void()> hint);

 private:
  /// A new segment starting at `first_lsn`: its header written and synced under a temporary
  /// name, then renamed into place (and the directory synced). On failure nothing is left.
  [[nodiscard]] File create_segment(std::uint64_t first_lsn) const;
  /// Syncs file_ (drained up to `size` bytes); before it, marks what the sync before made
  /// durable. Caller holds sync_mutex_.
  void sync_file(std::uint64_t size);
  /// Writes the older of file_'s two marks: `size` bytes synced, `ended` when a next segment
  /// follows. A failed write is ignored (the other mark still holds, and says less).
  void mark(std::uint64_t size, bool ended) noexcept;
  void syncer();
  /// Writes the buffer out (caller holds file_mutex_), or drops it once the log failed;
  /// returns the last lsn now in the file.
  std::uint64_t drain_buffer();
  /// Records that every lsn up to `lsn` is durable and wakes who waits for it.
  void made_durable(std::uint64_t lsn) noexcept;
  /// Closes the log for good after a failed write or sync and wakes every waiter.
  void fail(const std::string& error) noexcept;
  [[noreturn]] void closed() const;

  const DataDir& dir_;
  const SyncPolicy policy_;
  const std::chrono::nanoseconds interval_;

  std::uint64_t next_lsn_;                 // the writer's only
  std::atomic<std::uint64_t> appended_lsn_;
  std::string record_;                     // the writer's scratch
  std::atomic<std::uint64_t> since_rotation_{0};
  std::uint64_t hint_bytes_ = 0;
  std::function<void()> hint_;
  bool hinted_ = false;

  // The segment file. Writes (and rotation) hold file_mutex_; syncs hold only sync_mutex_, so
  // that commits keep appending while a sync is under way: that is what groups them. Rotation
  // holds both, so a sync never sees its file closed.
  std::mutex sync_mutex_;
  std::mutex file_mutex_;
  File file_;
  std::uint64_t first_lsn_ = 0;    // file_'s
  std::uint64_t synced_size_ = 0;  // bytes of file_ a sync made durable (sync_mutex_)
  std::uint64_t marked_size_ = 0;  // what file_'s marks say (sync_mutex_)
  unsigned marks_ = 0;             // marks written to file_: the next goes to slot marks_ % 2
  std::mutex buffer_mutex_;  // interval / none: records not yet written
  std::string buffer_;
  std::uint64_t buffered_lsn_ = 0;  // last lsn in buffer_
  std::atomic<std::uint64_t> written_lsn_{0};  // last lsn in the file

  std::mutex syncer_mutex_;
  std::condition_variable syncer_wake_;
  bool work_ = false;
  bool stop_ = false;
  std::thread syncer_thread_;

  // seq_cst, read by the waiters' predicate (see ThreadFiberCondition).
  std::atomic<std::uint64_t> durable_lsn_;
  std::atomic<bool> failed_{false};  // the log is closed; failure_ says why
  mutable std::mutex failure_mutex_;
  std::string failure_;
  ThreadFiberCondition durable_;
};

/// What reading the log found.
struct WalScan {
  std::uint64_t next_lsn = 0;  // the lsn after the last record replayed
  std::uint64_t records = 0;
  bool torn_tail = false;  // a partial last record was dropped
  std::string damage;      // with RecoveryMode::truncate_at_damage: what was cut off
  /// The newest segment with marks (version 3 on), its first lsn and path: for the next
  /// writer to mark as ended.
  std::optional<std::pair<std::uint64_t, fs::path>> newest;
};

/// Calls fn(type, payload, file, offset) for every record from `from_lsn` on, in order. A torn
/// last record (an append cut short by a crash, past the size its segment's marks say was
/// synced) is dropped and the segment truncated before it. Damage anywhere else throws
/// StorageError naming the file and offset, unless `mode` is truncate_at_damage: then the log
/// is cut at the damage (later records and segments deleted) and the scan says so. Damage
/// includes a segment that is missing: the one a snapshot at `from_lsn` goes on in
/// (`snapshot`), and the one after a segment marked as ended. A record whose checksum holds
/// but that fn rejects (DecodeError) always throws. Segments from before from_lsn are skipped.
WalScan scan_wal(const DataDir& dir, std::uint64_t from_lsn, bool snapshot, RecoveryMode mode,
                 const std::function<void(RecordType, ByteReader&, const fs::path&, std::uint64_t)>& fn);

}  // namespace propgraph::detail::durable
