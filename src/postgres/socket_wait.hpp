// Waiting for a socket without blocking other fibers.
//
// A fiber that waits for its database socket must not block the thread it runs on: the other
// fibers of that thread would stall. SocketWaiter gives one synchronous call that serves both
// kinds of caller:
// - on a fiber whose thread has an I/O-aware scheduler (FiberPool threads, use_io_scheduler();
//   see src/fiber/fiber_io.hpp), the socket goes into that thread's own epoll set and the
//   fiber suspends; the thread wakes it when it next polls or sleeps, with no other thread
//   involved;
// - on a fiber of any other thread, the socket is handed to a reactor thread (epoll, one-shot
//   registrations) and the fiber waits on a boost::fibers::future that the reactor fulfils;
//   either way only that fiber is suspended and its thread runs other fibers meanwhile;
// - on a thread's main context (a plain thread), it blocks in poll(2) as any blocking call.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "fiber/fiber_io.hpp"

namespace propgraph::postgres_detail {

using Clock = std::chrono::steady_clock;

/// Readiness a caller waits for; combinable.
enum SocketEvents : unsigned { readable = 1, writable = 2 };

using fiber_detail::running_on_fiber;

/// One epoll thread that wakes the fibers waiting on sockets. Shared by every PostgresGraph of
/// the process (Reactor::shared()); it stops when the last user lets go of it.
class Reactor {
 public:
  Reactor();
  ~Reactor();
  Reactor(const Reactor&) = delete;
  Reactor& operator=(const Reactor&) = delete;

  /// The process-wide reactor, started on first use.
  [[nodiscard]] static std::shared_ptr<Reactor> shared();

  /// Suspends the calling fiber until `fd` is ready for `events` (or has an error or hang-up).
  /// Returns false when `deadline` passed first. One waiter per fd at a time.
  bool wait(int fd, unsigned events, std::optional<Clock::time_point> deadline);

 private:
  struct Waiter;
  void run();

  int epoll_fd_ = -1;
  int wake_fd_ = -1;  // eventfd that stops run()
  std::mutex mutex_;  // guards waiters_; held only for map updates, never across a wait
  std::unordered_map<int, std::shared_ptr<Waiter>> waiters_;
  std::thread thread_;
};

/// Waits for a socket: fiber-aware through the thread's own scheduler or else the reactor, or
/// poll(2) on a plain thread.
/// Returns false when the deadline passed first. Throws ConnectionError on a system error.
bool wait_socket(Reactor& reactor, int fd, unsigned events, std::optional<Clock::time_point> deadline = std::nullopt);

}  // namespace propgraph::postgres_detail
