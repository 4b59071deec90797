// Files of a durable MemoryGraph: the data directory, its lock, and file writes that report
// failures as StorageError (with a hook through which tests inject disk errors).
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace propgraph::detail::durable {

namespace fs = std::filesystem;

/// The operations a fault injector may fail.
enum class FileOp { write, sync, create, rename, truncate };

/// What a fault injector makes of one operation.
struct Fault {
  /// Fail with this errno (ENOSPC, EIO, ...); 0: the operation goes on.
  int error = 0;
  /// Writes: how many of the bytes asked for reach the file. With `error`, those written before
  /// the failure (a disk that fills up part-way through a write; none when unset); without, a
  /// short write of this many (the writer's loop writes the rest; all when unset).
  std::optional<std::size_t> bytes;
};

/// Called before each file operation of durable graphs in this process with the operation, the
/// file (the directory, for a directory sync) and, for a write, the number of bytes about to be
/// written in one call (0 for the others). Empty by default. For tests; set it only while no
/// durable graph is in use.
using FaultInjector = std::function<Fault(FileOp op, const fs::path& path, std::size_t size)>;
void set_disk_faults(FaultInjector injector);

/// The simple form of set_disk_faults: a non-zero result fails that operation with that errno
/// before any byte is written. Replaces the injector set_disk_faults set, and the other way round.
void set_fault_injector(std::function<int(FileOp, const fs::path&)> injector);

/// An open file; every failure throws StorageError naming the file (and offset, for writes).
class File {
 public:
  File() = default;
  /// Opens an existing file for writing in place (its size as found).
  static File open(const fs::path& path);
  /// Creates a new file (truncating any old one) for writing.
  static File create(const fs::path& path);
  File(File&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)), size_(other.size_), broken_(other.broken_) {}
  File& operator=(File&& other) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File();

  [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
  [[nodiscard]] const fs::path& path() const noexcept { return path_; }
  /// Bytes in the file (as written through this object).
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
  /// Writes all of `data` at size() (pwrite at explicit offsets: the kernel's file offset plays
  /// no part). On failure (a full disk part-way, EIO) the file is truncated back to its size
  /// before the call, so a failed append leaves no partial record and the next write goes where
  /// this one began; StorageError is thrown. When even that truncation fails the file is broken()
  /// and every later write throws.
  void write(const void* data, std::size_t size);
  /// Overwrites bytes before size() in place (a header field); size() is unchanged. May run
  /// while another thread write()s at the end. StorageError when it fails (the bytes there are
  /// then unknown).
  void write_at(std::uint64_t offset, const void* data, std::size_t size);
  /// fdatasync. StorageError when it fails: what the file holds on disk is then unknown (the
  /// kernel may have dropped the pages it could not write), and a later sync that succeeds
  /// does not say otherwise.
  void sync();
  /// Says that the file was renamed to `path` (for the messages and the fault injector).
  void renamed(fs::path path) { path_ = std::move(path); }
  /// Whether a failed write could not be undone: the file holds part of a record at its end.
  [[nodiscard]] bool broken() const noexcept { return broken_; }
  void close() noexcept;

 private:
  int fd_ = -1;
  fs::path path_;
  std::uint64_t size_ = 0;
  bool broken_ = false;
};

/// Makes a rename or a file creation in `dir` durable.
void sync_directory(const fs::path& dir);
/// Renames atomically (the directory not synced).
void rename_file(const fs::path& from, const fs::path& to);
/// Renames atomically and syncs the directory.
void rename_durably(const fs::path& from, const fs::path& to);
/// The whole file; StorageError when it cannot be read.
std::vector<std::byte> read_file(const fs::path& path);

/// A data directory, held by one process at a time (an exclusive lock on its LOCK file).
///   snapshot-<lsn>.snap   the graph as of the records before <lsn> (fuzzy, see checkpoint.cpp)
///   wal-<lsn>.log         log records from <lsn> on
class DataDir {
 public:
  /// Creates the directory when missing and takes its lock; StorageError when another process
  /// holds it (naming its pid when known) or the directory cannot be used.
  explicit DataDir(fs::path dir);
  ~DataDir();
  DataDir(const DataDir&) = delete;
  DataDir& operator=(const DataDir&) = delete;

  [[nodiscard]] const fs::path& path() const noexcept { return dir_; }
  [[nodiscard]] fs::path snapshot_path(std::uint64_t lsn) const;
  [[nodiscard]] fs::path wal_path(std::uint64_t lsn) const;
  /// Files of each kind by their lsn, ascending. Temporary files are not listed.
  [[nodiscard]] std::vector<std::pair<std::uint64_t, fs::path>> snapshots() const;
  [[nodiscard]] std::vector<std::pair<std::uint64_t, fs::path>> wal_segments() const;

 private:
  fs::path dir_;
  int lock_fd_ = -1;
};

}  // namespace propgraph::detail::durable
