// FiberPool: N threads running fibers, each with its own ready queue, fed by one intake queue.
#pragma once

#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "propgraph/errors.hpp"
#include "propgraph/fiber/future.hpp"
#include "propgraph/fiber/spawn.hpp"
#include "propgraph/fiber/stack_allocator.hpp"

namespace propgraph {

/// Thrown by FiberPool::submit() and post() once the pool has been shut down. The task was not run.
class PoolClosed : public Error {
 public:
  using Error::Error;
};

/// How a FiberPool runs.
struct FiberPoolOptions {
  /// Pool threads (0 counts as 1).
  std::size_t threads = 1;
  /// Stacks of the task fibers; see StackAllocator.
  StackAllocator stack{};
  /// How long a pool thread that ran out of work keeps looking for more before it sleeps in
  /// epoll (at most one thread of the pool looks at a time). Work that arrives meanwhile starts
  /// within about a microsecond instead of paying a thread wake-up (tens of microseconds on a
  /// virtual machine). 0: sleep at once.
  std::chrono::nanoseconds idle_spin = std::chrono::microseconds(50);
  /// How long a plain thread (not a fiber) waiting in Future::get()/wait() for a submitted call
  /// spins before it blocks. Fibers never spin: they suspend at once. 0: block at once.
  std::chrono::nanoseconds join_spin = std::chrono::microseconds(20);
  /// Receives the exception of a post()ed task, on the pool fiber that ran it. Must not throw
  /// (std::terminate). Empty: the exception is reported on stderr (its what(), when it is a
  /// std::exception).
  std::function<void(std::exception_ptr)> on_error{};
};

namespace detail {
struct PoolState;
/// Queues `job`; throws PoolClosed after shutdown().
void enqueue(PoolState& pool, Job& job);
/// The pool's on_error, or the stderr report.
void report_post_error(PoolState& pool, std::exception_ptr error) noexcept;

/// A posted task: no result; an exception goes to report_post_error().
template <class Fn>
class PostJob final : public Job {
 public:
  template <class F>
  [[nodiscard]] static PostJob* make(F&& fn, PoolState& pool) {
    return construct_in_block(sizeof(PostJob),
                              [&](void* block) { return ::new (block) PostJob(std::forward<F>(fn), pool); });
  }
  void discard() noexcept { destroy(this); }

 private:
  template <class F>
  PostJob(F&& fn, PoolState& pool) : fn_(std::forward<F>(fn)), pool_(&pool) {
    this->run = &run_post;
  }
  static void run_post(Job* job) noexcept {
    auto* self = static_cast<PostJob*>(job);
    try {
      self->fn_();
    } catch (...) {
      report_post_error(*self->pool_, std::current_exception());
    }
    destroy(self);
  }
  static void destroy(PostJob* self) noexcept {
    self->~PostJob();
    free_block(self, sizeof(PostJob));
  }

  Fn fn_;
  PoolState* pool_;
};
}  // namespace detail

/// A pool of OS threads running fibers: calls submitted from anywhere, run on the pool's fibers.
///
/// - Scheduling: each pool thread runs its own ready queue (FIFO). A task starts on whichever
///   pool thread takes it from the pool's intake queue, and its fiber normally stays on that
///   thread: timers, socket readiness and wake-ups from other fibers of the thread make it ready
///   there, with no lock and no cross-thread traffic. When one thread has several ready fibers
///   while another is idle, the busy one hands half of them over, so fibers may still move
///   between pool threads at any suspension point: do not keep thread_local state, or a
///   std::mutex lock, across a fiber-aware wait inside a task.
/// - Idle threads: a thread that runs out of work looks for more for FiberPoolOptions::idle_spin
///   (one thread of the pool at a time), then sleeps in epoll and is woken when a task is
///   queued, a fiber of that thread is made ready from elsewhere, a timer is due or a socket one
///   of its fibers waits for is ready (so PostgresGraph calls on pool fibers are woken by the
///   pool thread itself, not by a reactor thread).
/// - Timers: propgraph::wait_for / wait_until and socket deadlines on pool fibers use the
///   thread's own timer queue (O(1) for deadlines that arrive in order, as equal waits do,
///   O(log n) otherwise; no allocation per wait once warm). boost::this_fiber::sleep_for works
///   too, through Boost's sleep queue.
/// - Submission is thread-safe from anywhere: a plain thread, a fiber on another thread, or a
///   fiber of this pool; it needs no Boost.Fiber scheduler on the submitting thread (so a
///   static pool may even be shut down during process exit).
/// - Order: tasks start in submission order (FIFO); they may finish in any order.
/// - Waiting inside tasks must be fiber-aware (see run_on_fiber); a std::mutex or blocking call
///   holds one pool thread for its duration.
/// - Shutdown: shutdown() (also run by the destructor) refuses new work, lets every task already
///   submitted or posted run to completion (including tasks that were still queued), then joins
///   the threads. Fibers that tasks start themselves must be joined by those tasks (wait on their
///   futures): ones still running when the last task ends are not waited for.
class FiberPool {
 public:
  /// Starts `threads` threads (0 counts as 1) with default options otherwise.
  explicit FiberPool(std::size_t threads, StackAllocator stack = {});
  /// Starts the pool described by `options`. Task fibers are recycled within each pool thread
  /// (see FiberOptions::recycle); each thread installs its own scheduler, so the calling
  /// thread's scheduler is untouched.
  explicit FiberPool(FiberPoolOptions options);
  /// Runs shutdown(). Must not run on one of the pool's own threads (std::terminate).
  ~FiberPool();
  FiberPool(const FiberPool&) = delete;
  FiberPool& operator=(const FiberPool&) = delete;

  /// Queues `fn()` to run on a pool fiber; the future yields its result or rethrows its
  /// exception unchanged. `fn` is decay-copied once, into the block that also holds the result.
  /// Throws PoolClosed after shutdown() began (the task is not run). O(1); one block from a
  /// per-thread free list.
  template <class Fn>
  [[nodiscard]] Future<std::invoke_result_t<std::decay_t<Fn>&>> submit(Fn&& fn) {
    using R = std::invoke_result_t<std::decay_t<Fn>&>;
    using Call = detail::CallJob<R, std::decay_t<Fn>>;
    Call* job = Call::make(std::forward<Fn>(fn), join_spin_);
    Future<R> future = detail::make_future<R>(job);
    try {
      detail::enqueue(*state_, *job);
    } catch (...) {
      job->discard();
      throw;
    }
    return future;
  }

  /// Queues `fn()` to run on a pool fiber, fire and forget: nothing waits for it, and an
  /// exception it throws goes to FiberPoolOptions::on_error (default: reported on stderr), never
  /// silently dropped. Same order, cost and PoolClosed rule as submit(); shutdown() waits for
  /// posted tasks too.
  template <class Fn>
  void post(Fn&& fn) {
    using Post = detail::PostJob<std::decay_t<Fn>>;
    Post* job = Post::make(std::forward<Fn>(fn), *state_);
    try {
      detail::enqueue(*state_, *job);
    } catch (...) {
      job->discard();
      throw;
    }
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
  std::unique_ptr<detail::PoolState> state_;
  std::chrono::nanoseconds join_spin_;
};

}  // namespace propgraph
