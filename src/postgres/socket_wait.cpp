#include "postgres/socket_wait.hpp"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include <boost/fiber/context.hpp>
#include <boost/fiber/future/future.hpp>
#include <boost/fiber/future/promise.hpp>
#include <fmt/format.h>

#include "propgraph/errors.hpp"

namespace propgraph::postgres_detail {

namespace {

[[noreturn]] void throw_system_error(std::string_view what) {
  throw ConnectionError(fmt::format("{}: {}", what, std::strerror(errno)));
}

std::uint32_t to_epoll(unsigned events) {
  std::uint32_t e = EPOLLONESHOT;
  if (events & readable) e |= EPOLLIN;
  if (events & writable) e |= EPOLLOUT;
  return e;
}

}  // namespace

struct Reactor::Waiter {
  boost::fibers::promise<void> ready;
};

Reactor::Reactor() {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) throw_system_error("epoll_create1");
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    ::close(epoll_fd_);
    throw_system_error("eventfd");
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  thread_ = std::thread([this] { run(); });
}

Reactor::~Reactor() {
  const std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof one);
  thread_.join();
  ::close(wake_fd_);
  ::close(epoll_fd_);
}

std::shared_ptr<Reactor> Reactor::shared() {
  static std::mutex mutex;
  static std::weak_ptr<Reactor> current;
  std::lock_guard lock(mutex);
  auto reactor = current.lock();
  if (!reactor) {
    reactor = std::make_shared<Reactor>();
    current = reactor;
  }
  return reactor;
}

void Reactor::run() {
  epoll_event events[64];
  while (true) {
    const int n = ::epoll_wait(epoll_fd_, events, 64, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // only on a broken epoll fd; waiters would hang, but this cannot happen in use
    }
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == wake_fd_) return;
      std::shared_ptr<Waiter> waiter;
      {
        std::lock_guard lock(mutex_);
        auto it = waiters_.find(fd);
        if (it == waiters_.end()) continue;  // its waiter timed out
        waiter = std::move(it->second);
        waiters_.erase(it);
      }
      waiter->ready.set_value();
    }
  }
}

bool Reactor::wait(int fd, unsigned events, std::optional<Clock::time_point> deadline) {
  auto waiter = std::make_shared<Waiter>();
  auto ready = waiter->ready.get_future();
  {
    std::lock_guard lock(mutex_);
    waiters_[fd] = waiter;
  }
  epoll_event ev{};
  ev.events = to_epoll(events);
  ev.data.fd = fd;
  // Re-arm the one-shot registration; the first wait on a socket (or on a new socket that
  // reuses a closed one's number) adds it.
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0) {
    if (errno != ENOENT || ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
      std::lock_guard lock(mutex_);
      waiters_.erase(fd);
      throw_system_error("epoll_ctl");
    }
  }
  if (!deadline) {
    ready.get();
    return true;
  }
  if (ready.wait_until(*deadline) == boost::fibers::future_status::ready) return true;
  std::lock_guard lock(mutex_);
  auto it = waiters_.find(fd);
  if (it != waiters_.end() && it->second == waiter) waiters_.erase(it);
  return false;
}

bool wait_socket(Reactor& reactor, int fd, unsigned events, std::optional<Clock::time_point> deadline) {
  if (running_on_fiber()) {
    if (fiber_detail::ThreadIoWait* own = fiber_detail::thread_io_wait) {
      switch (own->wait(fd, to_epoll(events) & ~static_cast<std::uint32_t>(EPOLLONESHOT), deadline)) {
        case fiber_detail::ThreadIoWait::Result::ready: return true;
        case fiber_detail::ThreadIoWait::Result::timed_out: return false;
        case fiber_detail::ThreadIoWait::Result::error: throw_system_error("epoll_ctl");
      }
    }
    return reactor.wait(fd, events, deadline);
  }
  pollfd p{};
  p.fd = fd;
  if (events & readable) p.events |= POLLIN;
  if (events & writable) p.events |= POLLOUT;
  while (true) {
    int timeout_ms = -1;
    if (deadline) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now());
      timeout_ms = left.count() > 0 ? static_cast<int>(left.count()) : 0;
    }
    const int n = ::poll(&p, 1, timeout_ms);
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) throw_system_error("poll");
  }
}

}  // namespace propgraph::postgres_detail
