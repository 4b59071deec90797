// Files of a durable MemoryGraph: the data directory, its lock, and file writes that report
// failures as StorageError (with a hook through which tests inject disk errors).
#pragma once

#include <cerrno>
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
enum class FileOp { write, sync, create, rename };

/// Called before each file operation of durable graphs in this process; a non-zero result is
/// taken as that operation failing with that errno (ENOSPC, EIO, ...). Empty by default. For
/// tests; set it only while no durable graph is in use.
void set_fault_injector(std::function<int(FileOp, const fs::path&)> injector);

/// An open file; every failure throws StorageError naming the file (and offset, for writes).
class File {
 public:
  File() = default;
  /// Opens for appending, creating it when missing (and syncing the directory then).
  static File append(const fs::path& path);
  /// Creates a new file (truncating any old one) for writing.
  static File create(const fs::path& path);
  File(File&& other) noexcept : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)), size_(other.size_) {}
  File& operator=(File&& other) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File();

  [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
  [[nodiscard]] const fs::path& path() const noexcept { return path_; }
  /// Bytes in the file (as written through this object).
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
  /// Writes all of `data` at the end. On failure the file is truncated back to its size
  /// before the call (so a failed append leaves no partial record) and StorageError is thrown.
  void write(const void* data, std::size_t size);
  /// fdatasync.
  void sync();
  void close() noexcept;

 private:
  int fd_ = -1;
  fs::path path_;
  std::uint64_t size_ = 0;
};

/// Makes a rename or a file creation in `dir` durable.
void sync_directory(const fs::path& dir);
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
