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
  if (fiber_detail::thread_io_wait == this) fiber_detail::thread_io_wait = nullptr;
  ::close(event_fd_);
  ::close(epoll_fd_);
}

void IoPoller::install() noexcept { fiber_detail::thread_io_wait = this; }

IoPoller::Result IoPoller::wait(int fd, std::uint32_t epoll_events, std::optional<Clock::time_point> deadline) {
  Waiter w;
  w.ctx = boost::fibers::context::active();
  w.fd = fd;
  w.deadline = deadline;
  epoll_event ev{};
  ev.events = epoll_events | EPOLLONESHOT;
  ev.data.ptr = &w;
  // Re-arm the one-shot registration; the first wait on an fd (or on a new socket that reuses a
  // closed one's number) adds it.
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0) {
    if (errno != ENOENT || ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) return Result::error;
  }
  ++waiting_;
  if (deadline) timed_.push_back(&w);
  // scheduler::suspend() calls pick_next() once on this fiber's stack, then switches; the
  // flag keeps that one pick_next from polling (poll_due).
  switching_out_ = true;
  w.ctx->suspend();  // until wake(&w), from poll() on this thread
  return w.timed_out ? Result::timed_out : Result::ready;
}

void IoPoller::wake(Waiter* w) noexcept {
  if (w->ctx == boost::fibers::context::active()) std::abort();  // see poll_due()
  --waiting_;
  if (w->deadline) timed_.erase(std::find(timed_.begin(), timed_.end(), w));
  boost::fibers::context::active()->schedule(w->ctx);
}

void IoPoller::poll(Clock::time_point deadline) noexcept {
  for (const Waiter* w : timed_) deadline = std::min(deadline, *w->deadline);
  epoll_event events[64];
  timespec storage{};
  int n = ::epoll_pwait2(epoll_fd_, events, 64, timeout_until(deadline, storage), nullptr);
  if (n < 0 && errno == ENOSYS) {  // Linux < 5.11: millisecond timeouts, rounded up
    int ms = -1;
    if (deadline != Clock::time_point::max()) {
      const auto now = Clock::now();
      ms = deadline <= now ? 0
                           : static_cast<int>(std::min<long long>(
                                 std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count(), 1'000'000));
    }
    n = ::epoll_wait(epoll_fd_, events, 64, ms);
  }
  for (int i = 0; i < n; ++i) {
    auto* w = static_cast<Waiter*>(events[i].data.ptr);
    if (w == nullptr) {
      // Drain first, then clear the flag: an interrupt() in between finds the flag still set
      // and does not write, which is fine since this poll returns anyway; one after it writes.
      std::uint64_t count = 0;
      [[maybe_unused]] auto r = ::read(event_fd_, &count, sizeof count);
      interrupt_pending_.store(false);
      continue;
    }
    wake(w);
  }
  if (!timed_.empty()) {
    const auto now = Clock::now();
    std::vector<Waiter*> expired;
    for (Waiter* w : timed_) {
      if (*w->deadline <= now) expired.push_back(w);
    }
    for (Waiter* w : expired) {
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, w->fd, nullptr);  // its event can no longer arrive
      w->timed_out = true;
      wake(w);
    }
  }
}

void IoPoller::interrupt() noexcept {
  if (interrupt_pending_.exchange(true)) return;
  const std::uint64_t one = 1;
  [[maybe_unused]] auto r = ::write(event_fd_, &one, sizeof one);
}

}  // namespace propgraph::detail
