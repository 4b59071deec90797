// A condition that plain threads and fibers wait on together.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include <boost/fiber/condition_variable.hpp>
#include <boost/fiber/context.hpp>
#include <boost/fiber/mutex.hpp>
#include <boost/fiber/type.hpp>

#include "propgraph/deadline.hpp"

namespace propgraph::detail {

/// Waiting for a state that other threads change, for callers on plain threads and on fibers
/// alike. A caller on a thread's main context (code not started as a fiber) blocks its thread
/// on a std::condition_variable. A caller on a fiber suspends only that fiber (its thread runs
/// its other fibers), on a Boost.Fiber condition variable of its own that the notifier signals.
///
/// Why not one Boost.Fiber mutex and condition variable for all: between threads, their internal
/// spinlocks busy-wait, and notifying holds one while it wakes each waiter's thread. With more
/// waiting threads than cores (16 writers on 2 cores) the spinning threads take the CPU from
/// the thread that is to wake them. Here each fiber's lock is shared by two parties only (the
/// fiber and whoever wakes it), and the list of waiting fibers is guarded by a std::mutex held
/// for a few instructions (it may block a fiber's thread for that long).
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
    const bool done = on_fiber() ? fiber_wait(pred, deadline) : thread_wait(pred, deadline);
    // A waiter that gives up may have taken a notify_one() meant for another: pass it on.
    if (!done) notify_one();
    return done;
  }

  /// Wakes every waiter.
  void notify_all() noexcept {
    if (thread_waiters_.load() > 0) {
      {
        std::lock_guard lock(thread_mutex_);
      }
      thread_cv_.notify_all();
    }
    if (fiber_waiters_.load() > 0) {
      std::vector<std::shared_ptr<FiberWaiter>> woken;
      {
        std::lock_guard lock(fibers_mutex_);
        woken.swap(fibers_);
      }
      for (const auto& w : woken) w->wake();
    }
  }

  /// Wakes at least one waiter, if there is one: one thread and one fiber when both kinds wait.
  void notify_one() noexcept {
    if (thread_waiters_.load() > 0) {
      {
        std::lock_guard lock(thread_mutex_);
      }
      thread_cv_.notify_one();
    }
    if (fiber_waiters_.load() > 0) {
      std::shared_ptr<FiberWaiter> first;
      {
        std::lock_guard lock(fibers_mutex_);
        if (fibers_.empty()) return;
        first = std::move(fibers_.front());
        fibers_.erase(fibers_.begin());
      }
      first->wake();
    }
  }

 private:
  /// One waiting fiber. Shared, so that a notifier that took it from the list may still signal
  /// it after the fiber stopped waiting.
  struct FiberWaiter {
    boost::fibers::mutex mutex;
    boost::fibers::condition_variable cv;
    bool woken = false;  // under mutex

    void wake() noexcept {
      {
        std::lock_guard lock(mutex);
        woken = true;
      }
      // Outside the lock: waking a fiber of another thread makes a system call, and the woken
      // fiber would spin for the lock meanwhile.
      cv.notify_one();
    }
  };

  static bool on_fiber() noexcept {
    return !boost::fibers::context::active()->is_context(boost::fibers::type::main_context);
  }

  template <class Pred>
  bool thread_wait(Pred& pred, const std::optional<DeadlineClock::time_point>& deadline) {
    std::unique_lock lock(thread_mutex_);
    thread_waiters_.fetch_add(1);
    bool done;
    while (!(done = pred())) {
      if (!deadline) {
        thread_cv_.wait(lock);
      } else if (thread_cv_.wait_until(lock, *deadline) == std::cv_status::timeout) {
        done = pred();
        break;
      }
    }
    thread_waiters_.fetch_sub(1);
    return done;
  }

  template <class Pred>
  bool fiber_wait(Pred& pred, const std::optional<DeadlineClock::time_point>& deadline) {
    const auto me = std::make_shared<FiberWaiter>();
    fiber_waiters_.fetch_add(1);
    bool done;
    for (;;) {
      {
        std::lock_guard lock(fibers_mutex_);
        fibers_.push_back(me);  // not listed: new, or taken off by the notifier that woke it
      }
      if ((done = pred())) break;
      std::unique_lock lock(me->mutex);
      if (!deadline) {
        me->cv.wait(lock, [&] { return me->woken; });
      } else if (!me->cv.wait_until(lock, *deadline, [&] { return me->woken; })) {
        lock.unlock();
        done = pred();
        break;
      }
      me->woken = false;
      lock.unlock();
      if ((done = pred())) break;
    }
    {
      std::lock_guard lock(fibers_mutex_);
      std::erase(fibers_, me);
    }
    fiber_waiters_.fetch_sub(1);
    return done;
  }

  std::atomic<int> thread_waiters_{0};
  std::mutex thread_mutex_;
  std::condition_variable thread_cv_;

  std::atomic<int> fiber_waiters_{0};
  std::mutex fibers_mutex_;
  std::vector<std::shared_ptr<FiberWaiter>> fibers_;  // waiting, in arrival order
};

}  // namespace propgraph::detail
