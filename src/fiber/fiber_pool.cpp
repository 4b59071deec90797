// FiberPool: threads whose FiberThread schedulers share one intake queue of jobs.
#include "propgraph/fiber/fiber_pool.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#include <boost/fiber/context.hpp>
#include <boost/fiber/operations.hpp>

#include "fiber/fiber_thread.hpp"
#include "fiber/pool_state.hpp"

namespace propgraph::detail {

namespace {
constinit thread_local PoolState* tl_pool = nullptr;  // the pool this thread belongs to

void pool_thread(PoolState& pool) {
  boost::fibers::use_scheduling_algorithm<FiberThread>(&pool);
  FiberThread& self = *FiberThread::current();
  tl_pool = &pool;
  // dispatch: a job runs until it first waits before the intake takes the next one. With post,
  // a burst of submissions became as many live fibers at once (100k submitted events: +1 GiB
  // and 7.4 µs CPU each, against +12 MiB and 1.2 µs with dispatch; propgraph-concurrency).
  const FiberOptions options{.launch = boost::fibers::launch::dispatch, .stack = pool.options.stack, .recycle = true};
  for (;;) {
    if (Job* job = pool.take_job()) {
      // More queued and nobody looking for it: get another thread going.
      if (pool.queued.load(std::memory_order_relaxed) != 0) pool.wake_one();
      try {
        start_task(
            [job, &pool]() noexcept {
              job->run(job);
              pool.task_finished();
            },
            options);
      } catch (...) {  // no stack for a new fiber: run the job on this thread's main fiber
        job->run(job);
        pool.task_finished();
      }
      continue;
    }
    if (pool.may_stop()) break;  // every submitted job has finished
    self.park_main();            // until a job is queued or the pool may stop
  }
  pool.wake_all();  // the other pool threads re-check the exit condition
  self.adopt_shared();
  tl_pool = nullptr;
  // Thread exit: parked recycled fibers end (spawn.cpp), then the scheduler runs what is left
  // and is destroyed.
}

}  // namespace

void PoolState::wake_one() noexcept {
  if (spinning.load() != 0) return;  // that thread will find the work
  std::lock_guard lock(workers_mutex);
  for (FiberThread* worker : workers) {
    if (worker->wake_if_sleeping()) return;
  }
}

void PoolState::wake_all() noexcept {
  std::lock_guard lock(workers_mutex);
  for (FiberThread* worker : workers) worker->notify();
}

void enqueue(PoolState& pool, Job& job) {
  {
    std::lock_guard lock(pool.intake_mutex);
    if (pool.stopping) {
      throw PoolClosed("propgraph::FiberPool: submit() or post() after shutdown(); the task was not run");
    }
    if (pool.intake_tail == nullptr) {
      pool.intake_head = &job;
    } else {
      pool.intake_tail->next = &job;
    }
    pool.intake_tail = &job;
    pool.live.fetch_add(1, std::memory_order_relaxed);
    pool.queued.fetch_add(1);  // seq_cst: pairs with an idle thread's last look before it sleeps
  }
  pool.wake_one();
}

void report_post_error(PoolState& pool, std::exception_ptr error) noexcept {
  if (pool.options.on_error) {
    pool.options.on_error(std::move(error));  // noexcept context: a throwing handler terminates
    return;
  }
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "propgraph::FiberPool: a posted task threw: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "propgraph::FiberPool: a posted task threw an exception not derived from std::exception\n");
  }
}

}  // namespace propgraph::detail

namespace propgraph {

FiberPool::FiberPool(std::size_t threads, StackAllocator stack)
    : FiberPool(FiberPoolOptions{.threads = threads, .stack = std::move(stack)}) {}

FiberPool::FiberPool(FiberPoolOptions options)
    : state_(std::make_unique<detail::PoolState>(std::move(options))), join_spin_(state_->options.join_spin) {
  const std::size_t threads = std::max<std::size_t>(state_->options.threads, 1);
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
  pool.wake_all();
  for (auto& thread : pool.threads) {
    if (thread.joinable()) thread.join();
  }
}

bool FiberPool::closed() const noexcept { return state_->stopping_flag.load(std::memory_order_acquire); }

std::size_t FiberPool::thread_count() const noexcept { return state_->threads.size(); }

}  // namespace propgraph
