// PoolState: what the threads of one FiberPool share.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <boost/fiber/context.hpp>

#include "propgraph/fiber/fiber_pool.hpp"

namespace propgraph::detail {

class FiberThread;

struct PoolState {
  explicit PoolState(FiberPoolOptions pool_options) : options(std::move(pool_options)) {}

  FiberPoolOptions options;

  // -- intake: FIFO of queued jobs (guarded by intake_mutex, never held across a switch) ------
  std::mutex intake_mutex;
  Job* intake_head = nullptr;
  Job* intake_tail = nullptr;
  bool stopping = false;
  std::atomic<std::size_t> queued{0};      // jobs in the intake; read without the lock
  std::atomic<bool> stopping_flag{false};  // mirror of stopping, read without the lock
  std::atomic<std::size_t> live{0};        // queued or running jobs

  // -- threads --------------------------------------------------------------------------------
  std::mutex workers_mutex;
  std::vector<FiberThread*> workers;  // registered schedulers (guarded by workers_mutex)
  std::atomic<int> spinning{0};       // threads looking for work before they sleep (0 or 1)
  std::atomic<int> idle{0};           // threads with nothing to run (looking or asleep)

  // -- fibers handed over by a busy thread to idle ones --------------------------------------
  std::mutex shared_mutex;
  std::deque<boost::fibers::context*> shared;  // detached, ready
  std::atomic<std::size_t> shared_count{0};

  std::vector<std::thread> threads;
  std::mutex shutdown_mutex;

  /// The oldest queued job, or nullptr.
  Job* take_job() noexcept {
    if (queued.load(std::memory_order_relaxed) == 0) return nullptr;
    std::lock_guard lock(intake_mutex);
    Job* job = intake_head;
    if (job == nullptr) return nullptr;
    intake_head = job->next;
    if (intake_head == nullptr) intake_tail = nullptr;
    job->next = nullptr;
    queued.fetch_sub(1, std::memory_order_relaxed);
    return job;
  }
  /// A parked intake loop has something to do: a job, or the pool may stop.
  [[nodiscard]] bool intake_has_work() const noexcept {
    return queued.load(std::memory_order_seq_cst) != 0 ||
           (stopping_flag.load(std::memory_order_seq_cst) && live.load(std::memory_order_seq_cst) == 0);
  }
  [[nodiscard]] bool may_stop() const noexcept { return stopping_flag.load() && live.load() == 0; }
  /// Unless a thread is looking for work already, wakes one sleeping thread. Any thread.
  void wake_one() noexcept;
  /// Wakes every sleeping thread (shutdown).
  void wake_all() noexcept;
  void task_finished() noexcept {
    // seq_cst pairs with shutdown(): either this sees stopping_flag, or a pool thread sees
    // live == 0 when it re-checks after stopping was set.
    if (live.fetch_sub(1) == 1 && stopping_flag.load()) wake_all();
  }
};

}  // namespace propgraph::detail
