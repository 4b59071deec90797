// The one-writer-at-a-time gate of MemoryGraph.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>

#include <boost/fiber/condition_variable.hpp>
#include <boost/fiber/mutex.hpp>

#include "propgraph/deadline.hpp"

namespace propgraph::detail {

/// Admits one writer at a time: a single write for its duration, a transaction from its first
/// write until it ends. Unlike a mutex it is not owned by a thread or fiber (a transaction may
/// be driven from several fibers one after another), and waiting is fiber-aware: a fiber that
/// waits suspends, its thread runs other fibers. Uncontended: one compare-and-swap to enter,
/// one store and one load to leave.
class WriterGate {
 public:
  /// Enters, waiting as long as needed or until `deadline`; returns false when the deadline
  /// passed first (the gate was not entered).
  [[nodiscard]] bool enter(std::optional<DeadlineClock::time_point> deadline) {
    if (try_enter()) return true;
    std::unique_lock lock(mutex_);
    waiters_.fetch_add(1);
    bool entered = true;
    while (!try_enter()) {
      if (!deadline) {
        free_.wait(lock);
      } else if (free_.wait_until(lock, *deadline) == boost::fibers::cv_status::timeout && !try_enter()) {
        entered = false;
        break;
      }
    }
    waiters_.fetch_sub(1);
    return entered;
  }
  void leave() noexcept {
    busy_.store(false);
    if (waiters_.load() > 0) {
      std::lock_guard lock(mutex_);
      free_.notify_one();
    }
  }

 private:
  bool try_enter() noexcept {
    bool expected = false;
    return busy_.compare_exchange_strong(expected, true);
  }

  // seq_cst on busy_ and waiters_: either leave() sees a waiter, or the waiter sees the gate free.
  std::atomic<bool> busy_{false};
  std::atomic<int> waiters_{0};
  boost::fibers::mutex mutex_;
  boost::fibers::condition_variable free_;
};

}  // namespace propgraph::detail
