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
std::function<int(FileOp, const fs::path&)>& injector() {
  static std::function<int(FileOp, const fs::path&)> f;
  return f;
}

/// The injected errno for this operation, or 0.
int injected(FileOp op, const fs::path& path) {
  std::lock_guard lock(injector_mutex);
  return injector() ? injector()(op, path) : 0;
}

[[noreturn]] void fail(std::string_view what, const fs::path& path, int err, std::optional<std::uint64_t> offset = {}) {
  std::string message = offset ? fmt::format("{} {} at offset {}: {}", what, path.string(), *offset, std::strerror(err))
                               : fmt::format("{} {}: {}", what, path.string(), std::strerror(err));
  throw StorageError(message, path.string(), offset);
}

int open_checked(const fs::path& path, int flags) {
  if (int err = injected(FileOp::create, path)) fail("cannot open", path, err);
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

void set_fault_injector(std::function<int(FileOp, const fs::path&)> f) {
  std::lock_guard lock(injector_mutex);
  injector() = std::move(f);
}

File File::append(const fs::path& path) {
  const bool existed = fs::exists(path);
  File f;
  f.fd_ = open_checked(path, O_WRONLY | O_CREAT | O_APPEND);
  f.path_ = path;
  struct stat st {};
  if (::fstat(f.fd_, &st) != 0) fail("cannot stat", path, errno);
  f.size_ = static_cast<std::uint64_t>(st.st_size);
  if (!existed) sync_directory(path.parent_path());
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
  }
  return *this;
}

File::~File() { close(); }

void File::close() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void File::write(const void* data, std::size_t size) {
  const std::uint64_t start = size_;
  auto undo_and_fail = [&](int err) {
    if (::ftruncate(fd_, static_cast<off_t>(start)) == 0) size_ = start;
    fail("cannot write", path_, err, start);
  };
  if (int err = injected(FileOp::write, path_)) undo_and_fail(err);
  const auto* p = static_cast<const char*>(data);
  std::size_t left = size;
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      undo_and_fail(errno);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
    size_ += static_cast<std::uint64_t>(n);
  }
}

void File::sync() {
  if (int err = injected(FileOp::sync, path_)) fail("cannot sync", path_, err);
  if (::fdatasync(fd_) != 0) fail("cannot sync", path_, errno);
}

void sync_directory(const fs::path& dir) {
  if (int err = injected(FileOp::sync, dir)) fail("cannot sync directory", dir, err);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail("cannot open directory", dir, errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) fail("cannot sync directory", dir, err);
}

void rename_durably(const fs::path& from, const fs::path& to) {
  if (int err = injected(FileOp::rename, to)) fail("cannot rename to", to, err);
  if (::rename(from.c_str(), to.c_str()) != 0) fail("cannot rename to", to, errno);
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
