#include "fiber/io_poller.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace propgraph::detail {

namespace {

/// Until `deadline`, for epoll_pwait2; nullptr: no limit.
const timespec* timeout_until(IoPoller::Clock::time_point deadline, timespec& storage) {
  if (deadline == IoPoller::Clock::time_point::max()) return nullptr;
  const auto now = IoPoller::Clock::now();
  if (deadline <= now) {  // compared, not subtracted: time_point::min() means "just look"
    storage = {0, 0};
  } else {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - now).count();
    storage.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
    storage.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  }
  return &storage;
}

}  // namespace

IoPoller::IoPoller() {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  event_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = nullptr;
  if (epoll_fd_ < 0 || event_fd_ < 0 || ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, event_fd_, &ev) != 0) {
    // A scheduler cannot report errors (algorithms are noexcept); without these it could not sleep.
    std::perror("propgraph: fiber I/O poller");
    std::abort();
  }
}

IoPoller::~IoPoller() {
  ::close(event_fd_);
  ::close(epoll_fd_);
}

bool IoPoller::arm(int fd, std::uint32_t events, void* token) noexcept {
  epoll_event ev{};
  ev.events = events | EPOLLONESHOT;
  ev.data.ptr = token;
  // Re-arm the one-shot registration; the first wait on an fd (or on a new socket that reuses a
  // closed one's number) adds it.
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) == 0) return true;
  return errno == ENOENT && ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) == 0;
}

void IoPoller::disarm(int fd) noexcept { ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr); }

int IoPoller::wait(Clock::time_point deadline, epoll_event* events) noexcept {
  timespec storage{};
  int n = ::epoll_pwait2(epoll_fd_, events, kBatch, timeout_until(deadline, storage), nullptr);
  if (n < 0 && errno == ENOSYS) {  // Linux < 5.11: millisecond timeouts, rounded up
    int ms = -1;
    if (deadline != Clock::time_point::max()) {
      const auto now = Clock::now();
      ms = deadline <= now ? 0
                           : static_cast<int>(std::min<long long>(
                                 std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count(), 1'000'000));
    }
    n = ::epoll_wait(epoll_fd_, events, kBatch, ms);
  }
  return std::max(n, 0);  // EINTR: nothing ready, the scheduler looks again
}

void IoPoller::drain() noexcept {
  // Drain first, then clear the flag: an interrupt() in between finds the flag still set and does
  // not write, which is fine since this poll returns anyway; one after it writes.
  std::uint64_t count = 0;
  [[maybe_unused]] auto r = ::read(event_fd_, &count, sizeof count);
  interrupt_pending_.store(false);
}

void IoPoller::interrupt() noexcept {
  if (interrupt_pending_.exchange(true)) return;
  const std::uint64_t one = 1;
  [[maybe_unused]] auto r = ::write(event_fd_, &one, sizeof one);
}

}  // namespace propgraph::detail
