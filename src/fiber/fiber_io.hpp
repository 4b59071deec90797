// Internal, header-only: what the libraries that wait (propgraph::latency, propgraph::postgres)
// need to know about the fiber runtime, without linking propgraph::fiber.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include <boost/fiber/context.hpp>
#include <boost/fiber/type.hpp>

namespace propgraph::fiber_detail {

/// True when the caller runs on a fiber other than its thread's main context. (On a thread that
/// never used fibers, context::active() sets up its scheduler: the caller is in the main context.)
[[nodiscard]] inline bool running_on_fiber() noexcept {
  const boost::fibers::context* active = boost::fibers::context::active();
  return active != nullptr && !active->is_context(boost::fibers::type::main_context);
}

/// Waits served by the calling thread's own fiber scheduler (propgraph's: FiberPool threads and
/// threads that called use_io_scheduler()): socket readiness and timers. The scheduler polls its
/// epoll set and its timer queue between fibers and sleeps in epoll_pwait2 when no fiber is
/// ready, so a fiber's wait costs no hand-off to another thread.
class ThreadIoWait {
 public:
  enum class Result { ready, timed_out, error };

  virtual ~ThreadIoWait() = default;
  /// Suspends the calling fiber, which must run on this thread, until `fd` is ready for
  /// `epoll_events` (EPOLLIN / EPOLLOUT; error and hang-up count as ready) or `deadline` passed.
  /// One waiter per fd at a time. `error`: a system call failed, errno says why.
  virtual Result wait(int fd, std::uint32_t epoll_events,
                      std::optional<std::chrono::steady_clock::time_point> deadline) = 0;
  /// Suspends `self`, the calling fiber of this thread (not its main context), until `deadline`.
  /// Never returns earlier; no allocation once the timer queue has grown.
  virtual void sleep_until(boost::fibers::context* self, std::chrono::steady_clock::time_point deadline) = 0;
};

/// This thread's I/O-aware scheduler, or nullptr when its scheduler is another one (Boost's
/// default round robin, or one the application installed): then socket waiters use a reactor
/// thread and sleepers Boost's sleep queue.
inline constinit thread_local ThreadIoWait* thread_io_wait = nullptr;

}  // namespace propgraph::fiber_detail
