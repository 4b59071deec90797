// A bounded pool of libpq connections whose waits suit fibers and threads alike.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <boost/fiber/condition_variable.hpp>

#include "postgres/connection.hpp"

namespace propgraph::postgres_detail {

struct PoolSettings {
  std::string conninfo;
  std::size_t max_size = 8;
  std::chrono::milliseconds acquire_timeout{5000};
  std::chrono::milliseconds connect_timeout{10000};
};

/// At most max_size connections, opened on demand and reused most-recent first.
///
/// acquire() hands out an idle connection (after a cheap liveness check), opens a new one while
/// under the limit, or else queues up to acquire_timeout and then throws ConnectionError.
/// Fairness: a released connection normally goes back to the idle list and wakes the first
/// waiter, and whoever asks first gets it (a caller that releases and re-acquires keeps its
/// momentum: no thread switch). Once the first waiter has waited longer than kHandOffAfter the
/// pool switches to direct hand-off in queue order until that waiter is served, so no caller
/// starves.
///
/// Waiting: a fiber waits on a Boost.Fiber condition variable (only that fiber is suspended), a
/// plain thread on a std::condition_variable. (Boost.Fiber's primitives also work for plain
/// threads, but measured 70x slower than std's when threads queue for connections while others
/// block in I/O.) The pool's own std::mutex guards only short bookkeeping, never a wait.
///
/// Failures: an idle connection is checked before it is lent (cheaply: anything the server
/// sent while it sat idle means goodbye). Once one connection is found broken, every
/// connection idle at that moment is suspect (they usually share the cause, a server restart)
/// and is closed too. A connection returned broken or inside a transaction is closed and its
/// slot passed on for a fresh connection, so the pool recovers by itself after a restart.
/// Lease::reused() tells whether a connection had sat idle: a read that fails on such a
/// connection may be retried once on a fresh one (the caller decides; writes never are).
///
/// Deadlines: acquire() honours the caller's DeadlineScope (Timeout instead of waiting or
/// connecting past it).
class ConnectionPool {
 public:
  ConnectionPool(PoolSettings settings, std::shared_ptr<Reactor> reactor);
  ~ConnectionPool();
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  /// A connection on loan; returns to the pool when destroyed.
  class Lease {
   public:
    Lease(ConnectionPool* pool, std::unique_ptr<Connection> conn, bool reused)
        : pool_(pool), conn_(std::move(conn)), reused_(reused) {}
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (conn_) pool_->release(std::move(conn_));
    }
    Connection* operator->() const noexcept { return conn_.get(); }
    Connection& operator*() const noexcept { return *conn_; }
    /// True when the connection had sat idle in the pool (rather than being opened for this
    /// lease).
    [[nodiscard]] bool reused() const noexcept { return reused_; }

   private:
    ConnectionPool* pool_;
    std::unique_ptr<Connection> conn_;
    bool reused_;
  };

  [[nodiscard]] Lease acquire();

  struct Status {
    std::size_t open = 0;     // idle + on loan + being opened
    std::size_t idle = 0;
    std::size_t waiting = 0;  // callers waiting for a connection
    std::uint64_t opened = 0;  // connections opened since construction
  };
  [[nodiscard]] Status status();

  [[nodiscard]] const PoolSettings& settings() const noexcept { return settings_; }
  [[nodiscard]] Reactor& reactor() const noexcept { return *reactor_; }

 private:
  /// How long the first waiter may be passed over before releases hand off to it directly.
  static constexpr std::chrono::milliseconds kHandOffAfter{1};

  /// A queued acquire(); served by handing it a connection or a free slot.
  struct Waiter {
    Clock::time_point since;
    bool on_fiber = false;
    std::condition_variable thread_cv;
    boost::fibers::condition_variable_any fiber_cv;
    std::unique_ptr<Connection> conn;
    bool may_open = false;  // a slot was passed on: open a connection in it

    [[nodiscard]] bool served() const noexcept { return conn != nullptr || may_open; }
    void wake() {
      if (on_fiber) {
        fiber_cv.notify_one();
      } else {
        thread_cv.notify_one();
      }
    }
    /// False when the deadline passed.
    bool wait_until(std::unique_lock<std::mutex>& lock, Clock::time_point deadline) {
      if (on_fiber) return fiber_cv.wait_until(lock, deadline) == boost::fibers::cv_status::no_timeout;
      return thread_cv.wait_until(lock, deadline) == std::cv_status::no_timeout;
    }
  };

  void release(std::unique_ptr<Connection> conn);
  /// A usable idle connection, dropping stale ones (which frees their slots); else nullptr.
  /// Caller holds mutex_.
  std::unique_ptr<Connection> take_idle();
  /// Closes every idle connection (one was found broken, the others are suspect) and wakes as
  /// many waiters to use the freed slots. Caller holds mutex_.
  void drop_idle();
  /// Opens a connection in a slot already counted in open_; on failure passes the slot on.
  Lease open_in_slot();
  /// Gives a freed slot to the first waiter, or forgets it. Caller holds mutex_.
  void pass_on_slot();

  PoolSettings settings_;
  std::shared_ptr<Reactor> reactor_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Connection>> idle_;
  std::deque<Waiter*> waiters_;
  std::size_t open_ = 0;
  std::uint64_t opened_ = 0;
};

}  // namespace propgraph::postgres_detail
