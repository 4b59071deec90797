// IoPoller: the epoll set of one thread's I/O-aware fiber scheduler (fiber_io.hpp).
#pragma once

#include <sys/epoll.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

#include "fiber/fiber_io.hpp"

namespace propgraph::detail {

/// Owned by a scheduling algorithm and used only on its thread, except interrupt().
///
/// A waiting fiber registers its fd (one-shot, pointing at a Waiter on its own stack) and
/// suspends; poll() wakes it exactly once: on readiness, or on its deadline (then the fd is
/// removed from the set first, so a late event cannot reach a finished wait). The algorithm
/// calls poll(now) every few picks while fibers wait, and poll(deadline) instead of sleeping.
class IoPoller final : public fiber_detail::ThreadIoWait {
 public:
  using Clock = std::chrono::steady_clock;

  IoPoller();
  ~IoPoller() override;
  IoPoller(const IoPoller&) = delete;
  IoPoller& operator=(const IoPoller&) = delete;

  Result wait(int fd, std::uint32_t epoll_events, std::optional<Clock::time_point> deadline) override;

  /// Fibers suspended in wait().
  [[nodiscard]] std::size_t waiting() const noexcept { return waiting_; }

  /// For algorithm::pick_next: true every `every`-th call while fibers wait, so the algorithm
  /// polls then. Never in the pick_next of a wait() that is switching its fiber out: a socket
  /// found ready there would schedule a fiber that is still running.
  [[nodiscard]] bool poll_due(unsigned every) noexcept {
    if (switching_out_) {
      switching_out_ = false;
      return false;
    }
    return waiting_ != 0 && ++picks_ % every == 0;
  }

  /// Waits in epoll until an fd is ready, interrupt() is called, `deadline` or the earliest
  /// waiter's deadline passes (a deadline in the past: just looks), then schedules the fibers
  /// whose waits ended. Must run inside the scheduler (algorithm::pick_next/suspend_until).
  void poll(Clock::time_point deadline) noexcept;

  /// Ends a poll() in progress or the next one early. Any thread; cheap when already pending.
  void interrupt() noexcept;

  /// Makes this poller the thread's fiber_detail::thread_io_wait (the algorithm's constructor
  /// calls it on its thread); undone by the destructor.
  void install() noexcept;

 private:
  struct Waiter {
    boost::fibers::context* ctx = nullptr;
    int fd = -1;
    std::optional<Clock::time_point> deadline;
    bool timed_out = false;
  };
  void wake(Waiter* w) noexcept;

  int epoll_fd_ = -1;
  int event_fd_ = -1;                      // interrupt(); registered with data.ptr == nullptr
  std::atomic<bool> interrupt_pending_{false};
  std::size_t waiting_ = 0;
  unsigned picks_ = 0;
  bool switching_out_ = false;             // wait() is in context::suspend(), before its pick_next
  std::vector<Waiter*> timed_;             // waiters with a deadline (few: connection set-up)
};

}  // namespace propgraph::detail
