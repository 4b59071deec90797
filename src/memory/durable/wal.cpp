#include "memory/durable/wal.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "propgraph/errors.hpp"

namespace propgraph::detail::durable {

namespace {

constexpr char kMagic[8] = {'P', 'G', 'W', 'A', 'L', '0', '0', '1'};
// Version 2 property maps may hold 4-byte doubles (packed_properties.hpp); version 3 adds the
// header's two marks. This build reads segments of versions 1 to 3 and writes 3.
constexpr std::uint32_t kVersion = 3;
constexpr std::uint32_t kOldestReadableVersion = 1;
constexpr std::uint32_t kFirstMarkedVersion = 3;
/// A mark's flag: the segment ended, the log goes on in the next one.
constexpr std::uint32_t kEnded = 1;

/// The fixed part of a segment's header.
std::string segment_header(std::uint64_t first_lsn, std::uint32_t version = kVersion) {
  std::string out;
  ByteWriter w(out);
  out.append(kMagic, sizeof kMagic);
  w.u32(version);
  w.u32(0);
  w.u64(first_lsn);
  w.u64(checksum(out.data(), out.size()));
  return out;
}

/// A mark of the segment starting at `first_lsn` (its checksum covers first_lsn too, so that a
/// mark copied from another segment does not hold).
std::string segment_mark(std::uint64_t first_lsn, std::uint64_t synced_size, std::uint32_t flags) {
  std::string out;
  ByteWriter w(out);
  w.u64(first_lsn);
  w.u64(synced_size);
  w.u32(flags);
  w.u32(0);
  const std::uint64_t sum = checksum(out.data(), out.size());
  out.erase(0, 8);
  w.u64(sum);
  return out;
}

constexpr std::uint64_t mark_offset(unsigned slot) { return kSegmentHeaderSize + std::uint64_t{slot} * kMarkSize; }

}  // namespace

WalWriter::WalWriter(const DataDir& dir, std::uint64_t next_lsn, SyncPolicy policy, std::chrono::nanoseconds interval,
                     const std::optional<std::pair<std::uint64_t, fs::path>>& previous)
    : dir_(dir),
      policy_(policy),
      interval_(interval),
      next_lsn_(next_lsn),
      appended_lsn_(next_lsn - 1),
      durable_lsn_(next_lsn - 1) {
  if (interval_.count() <= 0 && policy_ != SyncPolicy::every_commit) {
    throw InvalidArgument("MemoryOptions::sync_interval must be positive");
  }
  written_lsn_ = next_lsn - 1;
  buffered_lsn_ = next_lsn - 1;
  file_ = create_segment(next_lsn);
  first_lsn_ = next_lsn;
  synced_size_ = marked_size_ = file_.size();
  if (previous && previous->first < next_lsn) {
    // The segment before: what it holds (read by the opening, perhaps never synced by the
    // process that wrote it) is made durable, then marked so, and as followed by this one.
    // Either mark may be overwritten: both say what was true when written.
    File before = File::open(previous->second);
    before.sync();
    const std::string ended = segment_mark(previous->first, before.size(), kEnded);
    bool marked = true;
    try {
      before.write_at(mark_offset(0), ended.data(), ended.size());
    } catch (const StorageError&) {
      marked = false;  // only the checks that need the mark are lost
    }
    if (marked) before.sync();
  }
  syncer_thread_ = std::thread([this] { syncer(); });
}

WalWriter::~WalWriter() {
  {
    std::lock_guard lock(syncer_mutex_);
    stop_ = true;
  }
  syncer_wake_.notify_one();
  syncer_thread_.join();  // the syncer writes, syncs and marks what is left before it ends
}

File WalWriter::create_segment(std::uint64_t first_lsn) const {
  const fs::path path = dir_.wal_path(first_lsn);
  fs::path temp = path;
  temp += ".tmp";
  bool renamed = false;
  try {
    File next = File::create(temp);
    std::string header = segment_header(first_lsn);
    header += segment_mark(first_lsn, kMarkedHeaderSize, 0);
    header += segment_mark(first_lsn, kMarkedHeaderSize, 0);
    next.write(header.data(), header.size());
    next.sync();
    // Only a whole header, synced, takes the segment's name: a failure leaves no empty or
    // half-written segment for opening to take for damage.
    rename_file(temp, path);
    renamed = true;
    next.renamed(path);
    sync_directory(dir_.path());
    return next;
  } catch (...) {
    std::error_code ec;
    fs::remove(temp, ec);
    if (renamed) {
      fs::remove(path, ec);  // its header is whole and synced: should it come back, it is harmless
      try {
        sync_directory(dir_.path());
      } catch (const StorageError&) {
      }
    }
    throw;
  }
}

void WalWriter::mark(std::uint64_t size, bool ended) noexcept {
  const std::string m = segment_mark(first_lsn_, size, ended ? kEnded : 0);
  try {
    file_.write_at(mark_offset(marks_ % 2), m.data(), m.size());
  } catch (const StorageError&) {
    return;  // that slot may be torn now: the next mark goes to it again
  }
  ++marks_;
  marked_size_ = size;
}

void WalWriter::sync_file(std::uint64_t size) {
  // Never after a failed sync: what the file holds on disk is unknown since.
  if (!failed_.load() && synced_size_ > marked_size_) mark(synced_size_, false);
  file_.sync();
  synced_size_ = size;
}

void WalWriter::closed() const {
  std::string failure;
  {
    std::lock_guard lock(failure_mutex_);
    failure = failure_;
  }
  throw StorageError(fmt::format("the graph's log in {} failed earlier ({}); until it is opened again the graph takes "
                                 "no writes and, with SyncPolicy::every_commit, answers no reads (its memory may hold "
                                 "writes the disk does not)",
                                 dir_.path().string(), failure),
                     dir_.path().string());
}

void WalWriter::made_durable(std::uint64_t lsn) noexcept {
  std::uint64_t old = durable_lsn_.load();
  while (old < lsn && !durable_lsn_.compare_exchange_weak(old, lsn)) {
  }
  durable_.notify_all();
}

void WalWriter::fail(const std::string& error) noexcept {
  {
    std::lock_guard lock(failure_mutex_);
    if (failure_.empty()) failure_ = error;
  }
  failed_.store(true);
  durable_.notify_all();
}

std::uint64_t WalWriter::append(RecordType type, std::string_view payload) {
  if (failed_.load()) closed();
  if (payload.size() > UINT32_MAX - 64) throw StorageError("a log record is larger than 4 GiB", dir_.path().string());
  const std::uint64_t lsn = next_lsn_;
  record_.clear();
  ByteWriter w(record_);
  w.u32(static_cast<std::uint32_t>(payload.size()));
  w.u8(static_cast<std::uint8_t>(type));
  w.u8(0);
  w.u8(0);
  w.u8(0);
  w.u64(lsn);
  record_.append(payload);
  w.u64(checksum(record_.data(), record_.size()));
  if (policy_ == SyncPolicy::every_commit) {
    {
      // The lsns under the lock the syncer reads them with: a sync that starts after this
      // write covers it.
      std::lock_guard lock(file_mutex_);
      try {
        file_.write(record_.data(), record_.size());  // throws, leaving nothing behind...
      } catch (const StorageError& e) {
        if (file_.broken()) fail(e.what());  // ...unless the part written could not be cut off
        throw;
      }
      written_lsn_.store(lsn);
      appended_lsn_.store(lsn);
    }
    {
      std::lock_guard lock(syncer_mutex_);
      work_ = true;
    }
    syncer_wake_.notify_one();
  } else {
    std::lock_guard lock(buffer_mutex_);
    buffer_.append(record_);
    buffered_lsn_ = lsn;
    appended_lsn_.store(lsn);
  }
  ++next_lsn_;
  since_rotation_ += record_.size();
  if (hint_bytes_ != 0 && !hinted_ && since_rotation_.load() >= hint_bytes_) {
    hinted_ = true;
    hint_();
  }
  return lsn;
}

bool WalWriter::wait(std::uint64_t lsn, std::optional<DeadlineClock::time_point> deadline) {
  if (policy_ != SyncPolicy::every_commit) return true;
  if (!durable_.wait_until([&] { return durable_lsn_.load() >= lsn || failed_.load(); }, deadline)) return false;
  if (durable_lsn_.load() < lsn) closed();
  return true;
}

std::uint64_t WalWriter::drain_buffer() {
  std::string pending;
  std::uint64_t last;
  {
    std::lock_guard lock(buffer_mutex_);
    pending.swap(buffer_);
    last = buffered_lsn_;
  }
  // After a failed write or sync the log takes nothing more: these records would follow one
  // that never reached the file (or whose place on disk is unknown). They are dropped.
  if (failed_.load()) return written_lsn_.load();
  if (!pending.empty()) {
    file_.write(pending.data(), pending.size());
    written_lsn_.store(last);
  }
  return written_lsn_.load();
}

void WalWriter::syncer() {
  auto next_tick = std::chrono::steady_clock::now() + interval_;
  // every_commit: the records the next sync should gather (the commits the last one released
  // and those that waited behind it: the committers seen at work), and how long it took.
  std::uint64_t gather = 1;
  std::chrono::steady_clock::duration last_sync{};
  for (;;) {
    bool stopping;
    {
      std::unique_lock lock(syncer_mutex_);
      if (policy_ == SyncPolicy::every_commit) {
        syncer_wake_.wait(lock, [&] { return work_ || stop_; });
        // Committers just released by the last sync are writing their next records: wait for
        // them, up to half a sync, so that they share this sync instead of waiting for the
        // next one (a lone committer never waits).
        if (gather > 1 && !stop_) {
          syncer_wake_.wait_until(lock, std::chrono::steady_clock::now() + last_sync / 2,
                                  [&] { return stop_ || appended_lsn_.load() - durable_lsn_.load() >= gather; });
        }
      } else {
        syncer_wake_.wait_until(lock, next_tick, [&] { return stop_; });
      }
      work_ = false;
      stopping = stop_;
    }
    if (policy_ != SyncPolicy::every_commit) next_tick = std::chrono::steady_clock::now() + interval_;
    std::uint64_t done = 0;
    const std::uint64_t durable_before = durable_lsn_.load();
    std::string error;
    {
      std::lock_guard sync_lock(sync_mutex_);
      try {
        std::uint64_t size;
        {
          std::lock_guard lock(file_mutex_);
          done = drain_buffer();
          size = file_.size();
        }
        // Without file_mutex_: commits go on appending meanwhile and share the next sync. Nothing
        // written since the last sync (a wake-up for records that sync already took): no sync.
        if (stopping || (policy_ != SyncPolicy::none && done > durable_before)) {
          const auto start = std::chrono::steady_clock::now();
          sync_file(size);
          last_sync = std::chrono::steady_clock::now() - start;
        }
        if (stopping && !failed_.load() && synced_size_ > marked_size_) {
          // Closing: all of the segment is synced, and its mark says so (one more sync).
          mark(synced_size_, false);
          file_.sync();
        }
      } catch (const StorageError& e) {
        error = e.what();
      }
    }
    if (error.empty()) {
      made_durable(done);
      if (done > durable_before) {
        const std::uint64_t appended = appended_lsn_.load();
        gather = std::min<std::uint64_t>((done - durable_before) + (appended > done ? appended - done : 0), 4096);
      }
    } else {
      fail(error);
    }
    if (stopping) return;
  }
}

void WalWriter::flush() {
  std::uint64_t done;
  {
    std::lock_guard sync_lock(sync_mutex_);
    std::lock_guard lock(file_mutex_);
    try {
      done = drain_buffer();
      sync_file(file_.size());
    } catch (const StorageError& e) {
      fail(e.what());
      throw;
    }
  }
  made_durable(done);
}

std::uint64_t WalWriter::rotate() {
  if (failed_.load()) closed();
  flush();
  {
    std::lock_guard sync_lock(sync_mutex_);
    std::lock_guard lock(file_mutex_);
    // Throws when the new segment cannot be made: none is left behind, the log goes on here.
    File next = create_segment(next_lsn_);
    // This segment is all written and synced (flush): marked so, and as followed by the next.
    mark(file_.size(), true);
    try {
      file_.sync();
    } catch (const StorageError& e) {
      fail(e.what());
      throw;
    }
    file_ = std::move(next);
    first_lsn_ = next_lsn_;
    synced_size_ = marked_size_ = file_.size();
    marks_ = 0;
  }
  since_rotation_ = 0;
  hinted_ = false;
  return next_lsn_;
}

void WalWriter::trim(std::uint64_t lsn) {
  const auto segments = dir_.wal_segments();
  for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
    // A segment ends where the next one starts.
    if (segments[i + 1].first <= lsn) {
      std::error_code ec;
      fs::remove(segments[i].second, ec);  // a leftover segment is replayed past harmlessly
    }
  }
}

void WalWriter::set_rotation_hint(std::uint64_t bytes, std::function<void()> hint) {
  hint_bytes_ = bytes;
  hint_ = std::move(hint);
}

// -- reading --------------------------------------------------------------------------------------

namespace {

struct SegmentRecord {
  RecordType type;
  std::uint64_t lsn;
  std::span<const std::byte> payload;
  std::size_t size;  // header + payload + trailer
};

enum class Parse { ok, short_read, bad };

/// The record at `offset`, if one is there whole and its checksum holds.
Parse parse_record(std::span<const std::byte> bytes, std::size_t offset, SegmentRecord& out) {
  if (bytes.size() - offset < kRecordHeaderSize + kRecordTrailerSize) return Parse::short_read;
  ByteReader head(bytes.subspan(offset, kRecordHeaderSize));
  const std::uint32_t size = head.u32();
  const auto type = head.u8();
  head.u8();
  head.u8();
  head.u8();
  const std::uint64_t lsn = head.u64();
  const std::size_t total = kRecordHeaderSize + std::size_t{size} + kRecordTrailerSize;
  if (bytes.size() - offset < total) return Parse::short_read;
  std::uint64_t stored;
  std::memcpy(&stored, bytes.data() + offset + total - kRecordTrailerSize, sizeof stored);
  if (checksum(bytes.data() + offset, total - kRecordTrailerSize) != stored) return Parse::bad;
  out = SegmentRecord{static_cast<RecordType>(type), lsn, bytes.subspan(offset + kRecordHeaderSize, size), total};
  return Parse::ok;
}

/// Whether a whole, valid record starts anywhere after `offset` (damage rather than a torn tail).
bool valid_record_after(std::span<const std::byte> bytes, std::size_t offset) {
  SegmentRecord r;
  for (std::size_t at = offset + 1; at + kRecordHeaderSize + kRecordTrailerSize <= bytes.size(); ++at) {
    if (parse_record(bytes, at, r) == Parse::ok) return true;
  }
  return false;
}

void truncate_file(const fs::path& path, std::uint64_t size) {
  if (::truncate(path.c_str(), static_cast<off_t>(size)) != 0) {
    throw StorageError(fmt::format("cannot truncate {} to {} bytes: {}", path.string(), size, std::strerror(errno)),
                       path.string(), size);
  }
}

/// What a segment's marks say (version 3 on).
struct Marks {
  bool valid = false;       // at least one mark holds
  std::uint64_t synced = 0;  // the larger size of those that hold
  bool ended = false;       // one that holds says a next segment follows
};

Marks read_marks(std::span<const std::byte> bytes, std::uint64_t first_lsn) {
  Marks marks;
  for (unsigned slot = 0; slot < 2; ++slot) {
    const auto at = mark_offset(slot);
    ByteReader r(bytes.subspan(at, kMarkSize));
    const std::uint64_t size = r.u64();
    const std::uint32_t flags = r.u32();
    if (std::memcmp(bytes.data() + at, segment_mark(first_lsn, size, flags).data(), kMarkSize) != 0) continue;
    marks.valid = true;
    marks.synced = std::max(marks.synced, size);
    marks.ended = marks.ended || (flags & kEnded) != 0;
  }
  return marks;
}

/// Sets both marks of a segment that was cut at `size` (truncate_at_damage) to that size, not
/// ended: a later opening takes what is left as all there is. One after the other, each synced.
void remark(const fs::path& path, std::uint64_t first_lsn, std::uint64_t size) {
  File f = File::open(path);
  const std::string mark = segment_mark(first_lsn, size, 0);
  for (unsigned slot = 0; slot < 2; ++slot) {
    f.write_at(mark_offset(slot), mark.data(), mark.size());
    f.sync();
  }
}

}  // namespace

WalScan scan_wal(const DataDir& dir, std::uint64_t from_lsn, bool snapshot, RecoveryMode mode,
                 const std::function<void(RecordType, ByteReader&, const fs::path&, std::uint64_t)>& fn) {
  WalScan scan;
  scan.next_lsn = from_lsn;
  const auto segments = dir.wal_segments();
  // A log file that is not there: refused, or (truncate_at_damage) noted, with what it held lost.
  auto missing = [&](const fs::path& path, const std::string& why) {
    const std::string what = fmt::format("log file {} is missing: {}", path.string(), why);
    if (mode != RecoveryMode::truncate_at_damage) throw StorageError(what, path.string(), 0);
    if (scan.damage.empty()) scan.damage = what + " (the records it held are lost)";
  };
  if (snapshot && std::none_of(segments.begin(), segments.end(), [&](const auto& s) { return s.first == from_lsn; })) {
    // The segment a checkpoint starts is synced before its snapshot is written, and only the
    // segments before it are ever deleted.
    missing(dir.wal_path(from_lsn), fmt::format("the snapshot of lsn {} goes on in it", from_lsn));
  }
  bool cut = false;          // damage was cut off: later segments go
  bool after_marked = false;  // the segment before has marks (version 3 on)
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const auto& [first_lsn, path] = segments[i];
    if (cut) {
      fs::remove(path);
      continue;
    }
    const bool last = i + 1 == segments.size();
    if (!last && segments[i + 1].first <= from_lsn) continue;  // entirely before the snapshot
    const std::vector<std::byte> bytes = read_file(path);
    std::size_t header_size = kSegmentHeaderSize;
    Marks marks;
    auto damaged = [&](std::uint64_t offset, std::string what) {
      if (mode != RecoveryMode::truncate_at_damage) {
        throw StorageError(fmt::format("damaged log file {} at offset {}: {}", path.string(), offset, what),
                           path.string(), offset);
      }
      if (offset < header_size) {
        fs::remove(path);  // nothing of it is usable; the next writer starts a segment of that name
      } else {
        truncate_file(path, offset);
        if (marks.valid) remark(path, first_lsn, offset);
      }
      scan.damage = fmt::format("{} at offset {}: {} (the log was cut there)", path.string(), offset, what);
      cut = true;
    };
    if (bytes.size() < kSegmentHeaderSize) {
      // A build before format version 3 could leave a segment without its whole header, when
      // a crash or a full disk cut its creation short. It holds no records: records go to a
      // segment only once its header is synced, so the log goes on in the segment before
      // (or, the newest, in none yet), and the lsn checks below see any gap. Not so for the
      // segment a snapshot goes on in (synced before the snapshot was written) or one after a
      // segment with marks (such segments are made whole under a temporary name).
      if ((snapshot && first_lsn == from_lsn) || after_marked) {
        damaged(0, "segment header cut short");
      } else if (last) {
        scan.torn_tail = true;  // the next writer's segment replaces it, or the next checkpoint drops it
      }
      continue;
    }
    std::uint32_t version = 0;
    for (auto v = kOldestReadableVersion; v <= kVersion && version == 0; ++v) {
      if (std::memcmp(bytes.data(), segment_header(first_lsn, v).data(), kSegmentHeaderSize) == 0) version = v;
    }
    if (version == 0) {
      damaged(0, "bad segment header");
      continue;
    }
    if (version >= kFirstMarkedVersion) {
      header_size = kMarkedHeaderSize;
      if (bytes.size() < kMarkedHeaderSize) {
        damaged(kSegmentHeaderSize, "segment header cut short");
        continue;
      }
      marks = read_marks(bytes, first_lsn);
      if (!marks.valid) {
        damaged(kSegmentHeaderSize, "both marks of the synced size damaged");
        continue;
      }
    }
    after_marked = marks.valid;
    const std::uint64_t synced = marks.synced;  // 0 without marks: any tail may be torn
    std::size_t offset = header_size;
    std::uint64_t lsn = first_lsn;
    bool whole = true;  // read to the end without a torn tail or damage
    while (offset < bytes.size()) {
      SegmentRecord r;
      const Parse p = parse_record(bytes, offset, r);
      if (p != Parse::ok) {
        whole = false;
        if (last && offset >= synced && !valid_record_after(bytes, offset)) {
          truncate_file(path, offset);  // a torn tail: the append a crash cut short
          scan.torn_tail = true;
        } else {
          damaged(offset, fmt::format("{}{}", p == Parse::short_read ? "record cut short" : "checksum mismatch",
                                      offset < synced ? fmt::format(" (the log says {} bytes were synced)", synced)
                                                      : std::string()));
        }
        break;
      }
      if (r.lsn != lsn) {
        whole = false;
        damaged(offset, fmt::format("record number {} where {} was expected", r.lsn, lsn));
        break;
      }
      if (lsn >= from_lsn) {
        if (lsn != scan.next_lsn) {
          whole = false;
          damaged(offset, fmt::format("records {} to {} are missing", scan.next_lsn, lsn - 1));
          break;
        }
        ByteReader payload(r.payload);
        try {
          fn(r.type, payload, path, offset);
        } catch (const DecodeError& e) {
          // Its checksum holds, yet it does not fit the graph: never cut, always refuse.
          const std::uint64_t at = offset + kRecordHeaderSize + e.offset;
          throw StorageError(fmt::format("log file {} at offset {}: record {} does not fit the graph: {}",
                                         path.string(), at, lsn, e.what),
                             path.string(), at);
        }
        scan.next_lsn = lsn + 1;
        ++scan.records;
      }
      ++lsn;
      offset += r.size;
    }
    if (whole && bytes.size() < synced) {
      damaged(bytes.size(), fmt::format("the file ends there, but the log says {} bytes were synced", synced));
    }
    if ((last || cut) && version >= kFirstMarkedVersion && fs::exists(path)) scan.newest.emplace(first_lsn, path);
    if (last && !cut && marks.ended) {
      missing(dir.wal_path(lsn), fmt::format("the log goes on in it after {}", path.string()));
    }
  }
  return scan;
}

}  // namespace propgraph::detail::durable
