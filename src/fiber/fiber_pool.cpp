// FiberPool: threads with a work-sharing scheduler over a pool-owned ready queue.
#include "propgraph/fiber/fiber_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <boost/fiber/algo/algorithm.hpp>
#include <boost/fiber/context.hpp>
#include <boost/fiber/operations.hpp>
#include <boost/fiber/scheduler.hpp>
#include <boost/fiber/type.hpp>

#include "fiber/io_poller.hpp"

namespace propgraph::detail {

class PoolAlgorithm;

struct PoolState {
  // -- shared ready queue (guarded by ready_mutex; never held across a context switch) ------
  std::mutex ready_mutex;
  std::deque<boost::fibers::context*> ready;
  std::vector<PoolAlgorithm*> sleepers;  // pool threads waiting in suspend_until()

  // -- task intake (guarded by intake_mutex: short critical sections, never across a switch) --
  std::mutex intake_mutex;
  std::deque<std::unique_ptr<PoolTask>> tasks;
  std::vector<boost::fibers::context*> idle_mains;  // pool threads' main fibers waiting for tasks
  bool stopping = false;
  std::atomic<bool> stopping_flag{false};  // mirror of stopping, read lock-free by finished tasks
  std::atomic<std::size_t> live{0};        // submitted and not yet finished (queued or running)

  StackAllocator stack;
  std::vector<std::thread> threads;
  std::mutex shutdown_mutex;

  /// Makes a parked main fiber ready again. Callable from any thread, including one without a
  /// Boost.Fiber scheduler (a plain submitter, or a thread whose scheduler is already gone at
  /// process exit): it only touches the pool thread's scheduler. Each parked main is taken
  /// out of idle_mains by exactly one waker, so it is scheduled once per suspension.
  static void wake(boost::fibers::context* main) noexcept { main->get_scheduler()->schedule_from_remote(main); }

  void wake_all_idle() noexcept {
    std::vector<boost::fibers::context*> mains;
    {
      std::lock_guard lock(intake_mutex);
      mains.swap(idle_mains);
    }
    for (auto* main : mains) wake(main);
  }

  void task_finished() noexcept {
    // seq_cst pairs with shutdown(): either this sees stopping_flag, or a pool thread sees
    // live == 0 when it re-checks after stopping was set.
    if (live.fetch_sub(1) == 1 && stopping_flag.load()) wake_all_idle();
  }
};

namespace {
constinit thread_local PoolState* tl_pool = nullptr;  // the pool this thread belongs to
}

/// Work sharing over PoolState::ready. Pinned contexts (the thread's main and dispatcher
/// fibers) stay in a local queue; every other ready fiber goes to the pool queue, from which any
/// pool thread may take it. Unlike Boost's algo::shared_work the queue is per pool (not one
/// process-wide static) and a push wakes one sleeping pool thread.
///
/// Each pool thread is I/O-aware (fiber_io.hpp): a fiber that waits for a socket registers it in
/// its thread's IoPoller; the thread polls it every few picks while such waits are pending and
/// sleeps in it (epoll) instead of on a condition variable.
class PoolAlgorithm final : public boost::fibers::algo::algorithm {
 public:
  explicit PoolAlgorithm(PoolState& pool) : pool_(pool) { poller_.install(); }

  void awakened(boost::fibers::context* ctx) noexcept override {
    if (ctx->is_context(boost::fibers::type::pinned_context)) {
      local_.push_back(*ctx);
      return;
    }
    ctx->detach();
    std::lock_guard lock(pool_.ready_mutex);
    pool_.ready.push_back(ctx);
    if (!pool_.sleepers.empty()) {
      PoolAlgorithm* sleeper = pool_.sleepers.back();
      pool_.sleepers.pop_back();
      sleeper->woken_ = true;
      sleeper->poller_.interrupt();  // under the lock: the sleeper cannot have gone away
    }
  }

  boost::fibers::context* pick_next() noexcept override {
    // Socket waits end here while fibers keep this thread busy (before taking ready_mutex:
    // waking a fiber calls awakened()).
    if (poller_.poll_due(kIoPollEvery)) poller_.poll(IoPoller::Clock::time_point::min());
    // Prefer pool fibers, but give the local queue (this thread's dispatcher and main fiber)
    // a turn every few picks so that a pool queue that never drains cannot starve them.
    const bool local_turn = (++picks_ % 8 == 0) && !local_.empty();
    if (!local_turn) {
      std::unique_lock lock(pool_.ready_mutex);
      if (!pool_.ready.empty()) {
        boost::fibers::context* ctx = pool_.ready.front();
        pool_.ready.pop_front();
        lock.unlock();
        boost::fibers::context::active()->attach(ctx);
        return ctx;
      }
    }
    if (!local_.empty()) {
      boost::fibers::context* ctx = &local_.front();
      local_.pop_front();
      return ctx;
    }
    return nullptr;
  }

  bool has_ready_fibers() const noexcept override {
    if (!local_.empty()) return true;
    std::lock_guard lock(pool_.ready_mutex);
    return !pool_.ready.empty();
  }

  void suspend_until(std::chrono::steady_clock::time_point const& deadline) noexcept override {
    std::unique_lock lock(pool_.ready_mutex);
    if (woken_ || !pool_.ready.empty()) {
      woken_ = false;
      return;
    }
    pool_.sleepers.push_back(this);
    lock.unlock();
    // Returns on socket readiness, on interrupt() (a push to the pool queue, notify()) or at the
    // deadline; a wake-up that finds nothing to run just brings the scheduler back here.
    poller_.poll(deadline);
    lock.lock();
    woken_ = false;
    auto& sleepers = pool_.sleepers;
    sleepers.erase(std::remove(sleepers.begin(), sleepers.end(), this), sleepers.end());
  }

  void notify() noexcept override {
    std::lock_guard lock(pool_.ready_mutex);
    woken_ = true;
    poller_.interrupt();
  }

 private:
  /// Picks between two looks at the sockets while fibers are ready to run.
  static constexpr unsigned kIoPollEvery = 8;

  PoolState& pool_;
  boost::fibers::scheduler::ready_queue_type local_;
  IoPoller poller_;             // this thread's sockets; interrupt() ends its sleep
  bool woken_ = false;          // guarded by pool_.ready_mutex
  unsigned picks_ = 0;
};

namespace {

void pool_thread(PoolState& pool) {
  boost::fibers::use_scheduling_algorithm<PoolAlgorithm>(pool);
  tl_pool = &pool;
  // dispatch: a task runs until it first waits before the intake takes the next one. With post,
  // a burst of submissions became as many live fibers at once (100k submitted events: +1 GiB
  // and 7.4 µs CPU each, against +12 MiB and 1.2 µs with dispatch; propgraph-concurrency).
  const FiberOptions options{
      .launch = boost::fibers::launch::dispatch, .stack = pool.stack, .recycle = true};
  boost::fibers::context* self = boost::fibers::context::active();  // this thread's main fiber
  std::unique_lock lock(pool.intake_mutex);
  for (;;) {
    if (!pool.tasks.empty()) {
      std::unique_ptr<PoolTask> task = std::move(pool.tasks.front());
      pool.tasks.pop_front();
      lock.unlock();
      start_task(
          [task = std::move(task), &pool]() mutable noexcept {
            task->run();
            task.reset();
            pool.task_finished();
          },
          options);
      lock.lock();
      continue;
    }
    if (pool.stopping && pool.live == 0) break;  // every submitted task has finished
    // Park until a submitter (or shutdown) wakes us; meanwhile this thread runs task fibers.
    pool.idle_mains.push_back(self);
    lock.unlock();
    self->suspend();
    lock.lock();
  }
  lock.unlock();
  pool.wake_all_idle();  // the other pool threads re-check the exit condition
  tl_pool = nullptr;
  // Thread exit: parked recycled fibers end (spawn.cpp), then the scheduler is destroyed.
}

}  // namespace
}  // namespace propgraph::detail

namespace propgraph {

FiberPool::FiberPool(std::size_t threads, StackAllocator stack)
    : state_(std::make_unique<detail::PoolState>()) {
  state_->stack = std::move(stack);
  threads = std::max<std::size_t>(threads, 1);
  state_->threads.reserve(threads);
  try {
    for (std::size_t i = 0; i < threads; ++i) {
      state_->threads.emplace_back(detail::pool_thread, std::ref(*state_));
    }
  } catch (...) {
    shutdown();
    throw;
  }
}

FiberPool::~FiberPool() {
  try {
    shutdown();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "propgraph::FiberPool destroyed from its own thread: %s\n", e.what());
    std::terminate();
  }
}

void FiberPool::enqueue(std::unique_ptr<detail::PoolTask> task) {
  detail::PoolState& pool = *state_;
  boost::fibers::context* idle = nullptr;
  {
    std::lock_guard lock(pool.intake_mutex);
    if (pool.stopping) {
      throw PoolClosed("propgraph::FiberPool: submit() after shutdown(); the task was not run");
    }
    pool.tasks.push_back(std::move(task));
    ++pool.live;
    if (!pool.idle_mains.empty()) {
      idle = pool.idle_mains.back();
      pool.idle_mains.pop_back();
    }
  }
  if (idle != nullptr) detail::PoolState::wake(idle);
}

void FiberPool::shutdown() {
  detail::PoolState& pool = *state_;
  if (detail::tl_pool == &pool) {
    throw InvalidArgument("propgraph::FiberPool::shutdown() called from one of the pool's own threads");
  }
  std::lock_guard serial(pool.shutdown_mutex);
  {
    std::lock_guard lock(pool.intake_mutex);
    pool.stopping = true;
    pool.stopping_flag = true;
  }
  pool.wake_all_idle();
  for (auto& thread : pool.threads) {
    if (thread.joinable()) thread.join();
  }
}

bool FiberPool::closed() const noexcept {
  return state_->stopping_flag.load(std::memory_order_acquire);
}

std::size_t FiberPool::thread_count() const noexcept { return state_->threads.size(); }

}  // namespace propgraph
