#include "memory/durable/files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <mutex>

#include <fmt/format.h>

#include "propgraph/errors.hpp"

namespace propgraph::detail::durable {

namespace {

std::mutex injector_mutex;
FaultInjector& injector() {
  static FaultInjector f;
  return f;
}

/// The injected fault for this operation (none by default).
Fault injected(FileOp op, const fs::path& path, std::size_t size = 0) {
  std::lock_guard lock(injector_mutex);
  return injector() ? injector()(op, path, size) : Fault{};
}

[[noreturn]] void fail(std::string_view what, const fs::path& path, int err, std::optional<std::uint64_t> offset = {}) {
  std::string message = offset ? fmt::format("{} {} at offset {}: {}", what, path.string(), *offset, std::strerror(err))
                               : fmt::format("{} {}: {}", what, path.string(), std::strerror(err));
  throw StorageError(message, path.string(), offset);
}

int open_checked(const fs::path& path, int flags) {
  if (int err = injected(FileOp::create, path).error) fail("cannot open", path, err);
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot open", path, errno);
  return fd;
}

/// The lsn in "<prefix><lsn><suffix>", or nullopt.
std::optional<std::uint64_t> lsn_of(const std::string& name, std::string_view prefix, std::string_view suffix) {
  if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix)) {
    return std::nullopt;
  }
  std::uint64_t lsn = 0;
  const char* first = name.data() + prefix.size();
  const char* last = name.data() + name.size() - suffix.size();
  auto [ptr, ec] = std::from_chars(first, last, lsn);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return lsn;
}

}  // namespace

void set_disk_faults(FaultInjector f) {
  std::lock_guard lock(injector_mutex);
  injector() = std::move(f);
}

void set_fault_injector(std::function<int(FileOp, const fs::path&)> f) {
  if (!f) return set_disk_faults({});
  set_disk_faults(
      [f = std::move(f)](FileOp op, const fs::path& path, std::size_t) { return Fault{.error = f(op, path)}; });
}

File File::open(const fs::path& path) {
  File f;
  f.fd_ = open_checked(path, O_WRONLY);
  f.path_ = path;
  struct stat st {};
  if (::fstat(f.fd_, &st) != 0) fail("cannot stat", path, errno);
  f.size_ = static_cast<std::uint64_t>(st.st_size);
  return f;
}

File File::create(const fs::path& path) {
  File f;
  f.fd_ = open_checked(path, O_WRONLY | O_CREAT | O_TRUNC);
  f.path_ = path;
  return f;
}

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    size_ = other.size_;
    broken_ = other.broken_;
  }
  return *this;
}

File::~File() { close(); }

void File::close() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

namespace {

/// pwrite of all of `data` at `offset`, through the fault injector: the bytes written before a
/// failure in `written`, the errno of the failure or 0.
int write_all_at(int fd, const fs::path& path, std::uint64_t offset, const void* data, std::size_t size,
                 std::size_t& written) {
  const auto* p = static_cast<const char*>(data);
  written = 0;
  while (written < size) {
    std::size_t ask = size - written;
    const Fault fault = injected(FileOp::write, path, ask);
    if (fault.error != 0) ask = std::min(ask, fault.bytes.value_or(0));
    if (fault.bytes) ask = std::min(ask, *fault.bytes);
    ssize_t n = 0;
    if (ask > 0) {
      n = ::pwrite(fd, p + written, ask, static_cast<off_t>(offset + written));
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno;
      }
      written += static_cast<std::size_t>(n);
    }
    if (fault.error != 0) return fault.error;
    if (n == 0 && ask > 0) return EIO;  // pwrite wrote nothing and said no error: give up
  }
  return 0;
}

}  // namespace

void File::write(const void* data, std::size_t size) {
  const std::uint64_t start = size_;
  if (broken_) {
    throw StorageError(
        fmt::format("cannot write {} at offset {}: a failed write before could not be undone", path_.string(), start),
        path_.string(), start);
  }
  std::size_t written = 0;
  const int err = write_all_at(fd_, path_, start, data, size, written);
  if (err == 0) {
    size_ = start + size;
    return;
  }
  if (written > 0) {
    // Cut the part that reached the file (the next write goes to `start` either way: writes
    // name their offset). Should the cut fail, the file ends in a partial record: broken.
    const Fault fault = injected(FileOp::truncate, path_);
    if (fault.error != 0 || ::ftruncate(fd_, static_cast<off_t>(start)) != 0) broken_ = true;
  }
  fail("cannot write", path_, err, start);
}

void File::write_at(std::uint64_t offset, const void* data, std::size_t size) {
  std::size_t written = 0;
  if (const int err = write_all_at(fd_, path_, offset, data, size, written)) fail("cannot write", path_, err, offset);
}

void File::sync() {
  if (int err = injected(FileOp::sync, path_).error) fail("cannot sync", path_, err);
  if (::fdatasync(fd_) != 0) fail("cannot sync", path_, errno);
}

void sync_directory(const fs::path& dir) {
  if (int err = injected(FileOp::sync, dir).error) fail("cannot sync directory", dir, err);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail("cannot open directory", dir, errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) fail("cannot sync directory", dir, err);
}

void rename_file(const fs::path& from, const fs::path& to) {
  if (int err = injected(FileOp::rename, to).error) fail("cannot rename to", to, err);
  if (::rename(from.c_str(), to.c_str()) != 0) fail("cannot rename to", to, errno);
}

void rename_durably(const fs::path& from, const fs::path& to) {
  rename_file(from, to);
  sync_directory(to.parent_path());
}

std::vector<std::byte> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail("cannot read", path, errno != 0 ? errno : EIO);
  const auto size = static_cast<std::size_t>(in.tellg());
  std::vector<std::byte> bytes(size);
  in.seekg(0);
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size))) {
    fail("cannot read", path, EIO);
  }
  return bytes;
}

DataDir::DataDir(fs::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) fail("cannot create data directory", dir_, ec.value());
  const fs::path lock = dir_ / "LOCK";
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) fail("cannot open the lock file", lock, errno);
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char buf[32] = {};
    const ssize_t n = ::pread(lock_fd_, buf, sizeof buf - 1, 0);
    ::close(lock_fd_);
    lock_fd_ = -1;
    if (err == EWOULDBLOCK) {
      throw StorageError(
          fmt::format("data directory {} is in use by another process{}", dir_.string(),
                      n > 0 ? fmt::format(" (pid {})", std::string_view(buf, static_cast<std::size_t>(n))) : ""),
          lock.string());
    }
    fail("cannot lock", lock, err);
  }
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, pid.data(), pid.size(), 0) < 0) {
    // The pid is only a hint for the error above; the lock itself is held.
  }
}

DataDir::~DataDir() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the lock
}

fs::path DataDir::snapshot_path(std::uint64_t lsn) const { return dir_ / fmt::format("snapshot-{:020}.snap", lsn); }
fs::path DataDir::wal_path(std::uint64_t lsn) const { return dir_ / fmt::format("wal-{:020}.log", lsn); }

namespace {
std::vector<std::pair<std::uint64_t, fs::path>> list(const fs::path& dir, std::string_view prefix,
                                                     std::string_view suffix) {
  std::vector<std::pair<std::uint64_t, fs::path>> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (auto lsn = lsn_of(entry.path().filename().string(), prefix, suffix)) out.emplace_back(*lsn, entry.path());
  }
  if (ec) fail("cannot list", dir, ec.value());
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

std::vector<std::pair<std::uint64_t, fs::path>> DataDir::snapshots() const { return list(dir_, "snapshot-", ".snap"); }
std::vector<std::pair<std::uint64_t, fs::path>> DataDir::wal_segments() const { return list(dir_, "wal-", ".log"); }

}  // namespace propgraph::detail::durable
