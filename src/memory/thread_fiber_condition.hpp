// A condition that plain threads and fibers wait on together.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>

#include <boost/fiber/condition_variable.hpp>
#include <boost/fiber/context.hpp>
#include <boost/fiber/mutex.hpp>
#include <boost/fiber/type.hpp>

#include "propgraph/deadline.hpp"

namespace propgraph::detail {

/// Waiting for a state that other threads change, for callers on plain threads and on fibers
/// alike. A caller on a thread's main context (code not started as a fiber) blocks its thread
/// on a std::condition_variable; a caller on a fiber suspends only that fiber (its thread runs
/// its other fibers) on a Boost.Fiber condition variable.
///
/// Why not Boost.Fiber's mutex and condition variable for both: between threads, their internal
/// spinlocks busy-wait. With more waiting threads than cores (16 writers on 2 cores) the
/// spinning threads take the CPU from the thread that is to wake them, and waiting costs more
/// than the wait itself.
///
/// The state is the caller's, read by `pred` (atomics, seq_cst). The changer stores the new
/// state, then calls notify_one() or notify_all(); a waiter that sees the old state is then
/// always woken (the waiter counts itself in before it reads the state, the changer reads the
/// counts after it stored: one of them sees the other).
class ThreadFiberCondition {
 public:
  /// Returns once pred() holds (true) or `deadline` passed with pred() still false (false).
  /// pred() may be called with an internal lock held: it must not block (it may take what it
  /// waits for, with a compare-and-swap).
  template <class Pred>
  bool wait_until(Pred pred, std::optional<DeadlineClock::time_point> deadline = std::nullopt) {
    if (pred()) return true;
    if (on_fiber()) return wait_on(fiber_, pred, deadline);
    return wait_on(thread_, pred, deadline);
  }

  /// Wakes every waiter.
  void notify_all() noexcept {
    if (thread_.waiters.load() > 0) {
      { std::lock_guard lock(thread_.mutex); }
      thread_.cv.notify_all();
    }
    if (fiber_.waiters.load() > 0) {
      { std::lock_guard lock(fiber_.mutex); }
      fiber_.cv.notify_all();
    }
  }

  /// Wakes at least one waiter, if there is one: one thread and one fiber when both kinds wait.
  void notify_one() noexcept {
    if (thread_.waiters.load() > 0) {
      { std::lock_guard lock(thread_.mutex); }
      thread_.cv.notify_one();
    }
    if (fiber_.waiters.load() > 0) {
      { std::lock_guard lock(fiber_.mutex); }
      fiber_.cv.notify_one();
    }
  }

 private:
  template <class Mutex, class Cv>
  struct Side {
    Mutex mutex;
    Cv cv;
    std::atomic<int> waiters{0};
  };

  static bool on_fiber() noexcept {
    return !boost::fibers::context::active()->is_context(boost::fibers::type::main_context);
  }

  template <class S, class Pred>
  bool wait_on(S& side, Pred& pred, const std::optional<DeadlineClock::time_point>& deadline) {
    std::unique_lock lock(side.mutex);
    side.waiters.fetch_add(1);
    bool done;
    while (!(done = pred())) {
      if (!deadline) {
        side.cv.wait(lock);
      } else if (side.cv.wait_until(lock, *deadline) == timeout_of(side.cv)) {
        done = pred();
        break;
      }
    }
    side.waiters.fetch_sub(1);
    lock.unlock();
    // A timed-out waiter may have taken a notify_one() meant for another: pass it on.
    if (!done) notify_one();
    return done;
  }

  static constexpr std::cv_status timeout_of(const std::condition_variable&) noexcept { return std::cv_status::timeout; }
  static constexpr boost::fibers::cv_status timeout_of(const boost::fibers::condition_variable&) noexcept {
    return boost::fibers::cv_status::timeout;
  }

  Side<std::mutex, std::condition_variable> thread_;
  Side<boost::fibers::mutex, boost::fibers::condition_variable> fiber_;
};

}  // namespace propgraph::detail
