// IoPoller: the epoll set and wake-up eventfd of one thread's fiber scheduler (fiber_thread.hpp).
#pragma once

#include <sys/epoll.h>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace propgraph::detail {

/// Owned by a scheduling algorithm and used only on its thread, except interrupt().
class IoPoller {
 public:
  using Clock = std::chrono::steady_clock;

  IoPoller();
  ~IoPoller();
  IoPoller(const IoPoller&) = delete;
  IoPoller& operator=(const IoPoller&) = delete;

  /// Arms a one-shot registration of `fd` for `events` that reports `token` (never nullptr).
  /// False when epoll_ctl failed (errno says why).
  bool arm(int fd, std::uint32_t events, void* token) noexcept;
  /// Removes `fd` from the set, so an event armed for it can no longer be reported.
  void disarm(int fd) noexcept;

  /// Waits until an armed fd is ready, interrupt() is called or `deadline` passes (a deadline
  /// in the past, e.g. time_point::min(): just looks), then calls `ready(token)` for each ready
  /// fd. Timeouts have nanosecond resolution (epoll_pwait2; millisecond epoll_wait before Linux
  /// 5.11).
  template <class Ready>
  void poll(Clock::time_point deadline, Ready&& ready) noexcept {
    epoll_event events[kBatch];
    const int n = wait(deadline, events);
    for (int i = 0; i < n; ++i) {
      if (events[i].data.ptr == nullptr) {
        drain();
      } else {
        ready(events[i].data.ptr);
      }
    }
  }

  /// Ends a poll() in progress or the next one early. Any thread; cheap when already pending.
  void interrupt() noexcept;

 private:
  static constexpr int kBatch = 64;
  int wait(Clock::time_point deadline, epoll_event* events) noexcept;
  void drain() noexcept;

  int epoll_fd_ = -1;
  int event_fd_ = -1;  // interrupt(); registered with data.ptr == nullptr
  std::atomic<bool> interrupt_pending_{false};
};

}  // namespace propgraph::detail
