// FiberPool: N threads that share one queue of ready fibers.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include <boost/fiber/future/future.hpp>
#include <boost/fiber/future/promise.hpp>

#include "propgraph/errors.hpp"
#include "propgraph/fiber/spawn.hpp"
#include "propgraph/fiber/stack_allocator.hpp"

namespace propgraph {

/// Thrown by FiberPool::submit() once the pool has been shut down. The task was not run.
class PoolClosed : public Error {
 public:
  using Error::Error;
};

namespace detail {
/// A submitted call: runs once, on a pool fiber, and fulfils its promise.
class PoolTask {
 public:
  virtual ~PoolTask() = default;
  virtual void run() noexcept = 0;
};

template <class R, class Fn>
class PoolTaskFor final : public PoolTask {
 public:
  PoolTaskFor(boost::fibers::promise<R> promise, Fn fn)
      : promise_(std::move(promise)), fn_(std::move(fn)) {}
  void run() noexcept override { fulfil(promise_, fn_); }

 private:
  boost::fibers::promise<R> promise_;
  Fn fn_;
};

struct PoolState;
}  // namespace detail

/// A pool of `threads` OS threads running fibers from one shared ready queue.
///
/// - Scheduling: every pool thread runs a work-sharing scheduler (the policy of Boost.Fiber's
///   algo::shared_work) whose queue belongs to this pool, so several pools may coexist and
///   threads outside the pool are unaffected. A fiber made ready on one pool thread may resume
///   on any of them. An idle pool thread sleeps in epoll (no spinning) and is woken when a
///   fiber becomes ready, a task is submitted or a socket one of its fibers waits for is ready:
///   the scheduler is I/O-aware like use_io_scheduler()'s, so PostgresGraph calls on pool
///   fibers are woken by the pool thread itself, not by a reactor thread.
/// - Submission is thread-safe from anywhere: a plain thread, a fiber on another thread, or a
///   fiber of this pool; it needs no Boost.Fiber scheduler on the submitting thread (so a
///   static pool may even be shut down during process exit). Waiting on the returned future
///   with get() from a plain thread gives that thread Boost.Fiber's default scheduler, as any
///   Boost.Fiber wait does; waiting from a fiber suspends only that fiber.
/// - Order: tasks start in submission order (FIFO); they may finish in any order.
/// - Fibers may move between pool threads at any suspension point: do not keep thread_local
///   state, or a std::mutex lock, across a fiber-aware wait inside a task.
/// - Waiting inside tasks must be fiber-aware (see run_on_fiber); a std::mutex or blocking call
///   holds one pool thread for its duration.
/// - Shutdown: shutdown() (also run by the destructor) refuses new work, lets every task already
///   submitted run to completion (including tasks that were still queued), then joins the
///   threads. Fibers that tasks start themselves must be joined by those tasks (wait on their
///   futures): ones still running when the last task ends are not waited for.
class FiberPool {
 public:
  /// Starts `threads` threads (0 counts as 1). Task fibers use `stack` and are recycled within
  /// each pool thread (see FiberOptions::recycle); each thread installs its own scheduler, so
  /// the calling thread's scheduler is untouched.
  explicit FiberPool(std::size_t threads, StackAllocator stack = {});
  /// Runs shutdown(). Must not run on one of the pool's own threads (std::terminate).
  ~FiberPool();
  FiberPool(const FiberPool&) = delete;
  FiberPool& operator=(const FiberPool&) = delete;

  /// Queues `fn()` to run on a pool fiber; the future yields its result or rethrows its
  /// exception unchanged. `fn` is decay-copied. Throws PoolClosed after shutdown() began.
  /// O(1) plus one allocation.
  template <class Fn>
  [[nodiscard]] Future<std::invoke_result_t<std::decay_t<Fn>&>> submit(Fn&& fn) {
    using R = std::invoke_result_t<std::decay_t<Fn>&>;
    boost::fibers::promise<R> promise = detail::make_promise<R>();
    Future<R> future = promise.get_future();
    enqueue(std::make_unique<detail::PoolTaskFor<R, std::decay_t<Fn>>>(
        std::move(promise), std::decay_t<Fn>(std::forward<Fn>(fn))));
    return future;
  }

  /// Stops accepting work, waits until every submitted task has finished, and joins the
  /// threads. Idempotent; concurrent callers all return after the join. Blocks the calling
  /// thread. Throws InvalidArgument when called from one of the pool's own threads.
  void shutdown();

  /// True once shutdown() has begun.
  [[nodiscard]] bool closed() const noexcept;
  /// Number of pool threads.
  [[nodiscard]] std::size_t thread_count() const noexcept;

 private:
  void enqueue(std::unique_ptr<detail::PoolTask> task);

  std::unique_ptr<detail::PoolState> state_;
};

}  // namespace propgraph
