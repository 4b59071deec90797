#include "postgres/connection_pool.hpp"

#include <algorithm>
#include <mutex>

#include <fmt/format.h>

#include "propgraph/deadline.hpp"

namespace propgraph::postgres_detail {

ConnectionPool::ConnectionPool(PoolSettings settings, std::shared_ptr<Reactor> reactor)
    : settings_(std::move(settings)), reactor_(std::move(reactor)) {}

ConnectionPool::~ConnectionPool() = default;

std::unique_ptr<Connection> ConnectionPool::take_idle() {
  if (idle_.empty()) return nullptr;
  std::unique_ptr<Connection> conn = std::move(idle_.back());
  idle_.pop_back();
  if (conn->still_usable()) return conn;
  // Stale (e.g. the server restarted): drop it and, as suspects, the others idle with it.
  --open_;
  drop_idle();
  return nullptr;
}

void ConnectionPool::drop_idle() {
  const std::size_t n = idle_.size();
  idle_.clear();
  open_ -= n;
  // Waiters re-check when woken: each finds a free slot to open a connection in.
  for (std::size_t i = 0; i < n && i < waiters_.size(); ++i) waiters_[i]->wake();
}

ConnectionPool::Lease ConnectionPool::acquire() {
  const auto now = Clock::now();
  const auto call_deadline = current_deadline();
  if (call_deadline && now >= *call_deadline) throw_deadline("before a connection was taken");
  const auto pool_deadline = now + settings_.acquire_timeout;
  const bool call_first = call_deadline && *call_deadline < pool_deadline;
  const auto deadline = call_first ? *call_deadline : pool_deadline;
  std::unique_lock lock(mutex_);
  // Take directly unless the first waiter has waited too long (then queue behind it).
  if (waiters_.empty() || now - waiters_.front()->since < kHandOffAfter) {
    if (auto conn = take_idle()) return Lease(this, std::move(conn), true);
    if (open_ < settings_.max_size) {
      ++open_;
      lock.unlock();
      return open_in_slot();
    }
  }
  Waiter me;
  me.since = now;
  me.on_fiber = running_on_fiber();
  waiters_.push_back(&me);
  const auto leave_queue = [&] { waiters_.erase(std::find(waiters_.begin(), waiters_.end(), &me)); };
  while (!me.served()) {
    const bool timed_out = !me.wait_until(lock, deadline);
    if (me.served()) break;
    // Woken by a release that put its connection back to the idle list.
    if (auto conn = take_idle()) {
      leave_queue();
      return Lease(this, std::move(conn), true);
    }
    if (open_ < settings_.max_size) {  // stale idle connections were dropped: a slot is free
      leave_queue();
      ++open_;
      lock.unlock();
      return open_in_slot();
    }
    if (timed_out) {
      leave_queue();
      if (call_first) throw_deadline("while waiting for a pool connection");
      throw ConnectionError(fmt::format("connection pool exhausted: waited {} ms for one of {} connections",
                                        settings_.acquire_timeout.count(), settings_.max_size));
    }
  }
  if (me.conn && me.conn->still_usable()) return Lease(this, std::move(me.conn), true);
  // Handed a slot, or a connection that went stale meanwhile: open a fresh one in its place.
  lock.unlock();
  me.conn.reset();
  return open_in_slot();
}

ConnectionPool::Lease ConnectionPool::open_in_slot() {
  try {
    auto conn = Connection::open(settings_.conninfo, *reactor_, settings_.connect_timeout);
    {
      std::lock_guard lock(mutex_);
      ++opened_;
    }
    return Lease(this, std::move(conn), false);
  } catch (...) {
    std::lock_guard lock(mutex_);
    pass_on_slot();
    throw;
  }
}

void ConnectionPool::pass_on_slot() {
  if (waiters_.empty()) {
    --open_;
    return;
  }
  Waiter* next = waiters_.front();
  waiters_.pop_front();
  next->may_open = true;
  next->wake();
}

void ConnectionPool::release(std::unique_ptr<Connection> conn) {
  // A connection left inside a transaction (a call failed between BEGIN and COMMIT) or broken
  // is closed; closing rolls back whatever it had not committed.
  const bool broken = conn->broken();
  const bool reusable = !broken && conn->idle_in_no_transaction();
  if (!reusable) conn.reset();
  std::lock_guard lock(mutex_);
  if (!reusable) {
    // A broken connection makes the idle ones suspect: whatever broke it likely broke them.
    if (broken) drop_idle();
    pass_on_slot();
    return;
  }
  if (waiters_.empty()) {
    idle_.push_back(std::move(conn));
    return;
  }
  Waiter* first = waiters_.front();
  if (Clock::now() - first->since >= kHandOffAfter) {
    waiters_.pop_front();
    first->conn = std::move(conn);
  } else {
    idle_.push_back(std::move(conn));
  }
  first->wake();
}

ConnectionPool::Status ConnectionPool::status() {
  std::lock_guard lock(mutex_);
  return Status{open_, idle_.size(), waiters_.size(), opened_};
}

}  // namespace propgraph::postgres_detail
