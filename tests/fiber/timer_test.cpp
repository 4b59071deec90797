// Timers of propgraph's schedulers (FiberPool threads, use_io_scheduler()): propgraph::wait_for /
// wait_until on their fibers go to the thread's own timer queue. Many sleepers wake in deadline
// order, never early, exactly once, on one thread or several.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include <boost/fiber/condition_variable.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/mutex.hpp>
#include <boost/fiber/operations.hpp>
#include <gtest/gtest.h>

#include "propgraph/fiber.hpp"
#include "propgraph/latency/wait.hpp"

namespace propgraph::fiber_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

/// Sleepers that record the order they woke in, whether any woke before its deadline, and whether
/// any found its deadline already past when it went to sleep (then it returns at once, which a
/// preempted test thread can cause; such a round says nothing about the order and is repeated).
struct WakeLog {
  std::mutex mutex;
  std::vector<std::size_t> order;
  std::vector<std::size_t> queued;  // queued[who]: position in which `who` went to sleep
  std::size_t early = 0;
  std::size_t late_sleepers = 0;

  explicit WakeLog(std::size_t sleepers) : queued(sleepers) {}

  void sleep(std::size_t who, Clock::time_point deadline) {
    const bool late = Clock::now() >= deadline;
    {
      std::lock_guard lock(mutex);
      queued[who] = next_queued++;
    }
    wait_until(deadline);
    const bool too_early = Clock::now() < deadline;
    std::lock_guard lock(mutex);
    order.push_back(who);
    if (too_early) ++early;
    if (late) ++late_sleepers;
  }

 private:
  std::size_t next_queued = 0;
};

/// Runs `round(log, head_start)` (which fills a fresh WakeLog, its first deadline `head_start`
/// after it starts queueing) until no sleeper was late going to sleep, at most five times, and
/// returns that log. The head start doubles after each late round (50 ms to 800 ms), so a slow
/// build (sanitizers) on a loaded machine still gets a valid round.
template <class Round>
std::unique_ptr<WakeLog> valid_round(std::size_t sleepers, Round round) {
  std::chrono::milliseconds head_start = 50ms;
  for (int attempt = 0; attempt < 5; ++attempt, head_start *= 2) {
    auto log = std::make_unique<WakeLog>(sleepers);
    round(*log, head_start);
    if (log->late_sleepers == 0) return log;
  }
  ADD_FAILURE() << "five rounds in a row had sleepers whose deadline passed before they slept";
  return std::make_unique<WakeLog>(sleepers);
}

// One pool thread: sleepers queued out of deadline order (the heap), in order (the ring) and
// with equal deadlines (ties) all wake in deadline order, ties in the order they were queued.
TEST(Timers, ManySleepersOnOneThreadWakeInDeadlineOrder) {
  constexpr std::size_t kSleepers = 3000;
  std::vector<std::size_t> rank(kSleepers);  // sleeper i's deadline is base + rank[i] * 20 µs
  for (std::size_t i = 0; i < kSleepers; ++i) rank[i] = i;
  std::mt19937 random(17);
  std::shuffle(rank.begin(), rank.begin() + 1000, random);  // first 1000: random order
  // next 1000: ascending (already); last 1000: ten groups of equal deadlines
  for (std::size_t i = 2000; i < kSleepers; ++i) rank[i] = 2000 + (i - 2000) / 100 * 100;

  FiberPool pool(1);
  const auto log = valid_round(kSleepers, [&](WakeLog& round, std::chrono::milliseconds head_start) {
    pool.submit([&] {
          // Every sleeper fiber exists before the first one takes its deadline (creating 3000
          // fibers takes a while); then they queue their timers one after the other.
          boost::fibers::mutex mutex;
          boost::fibers::condition_variable opened;
          bool open = false;
          Clock::time_point base;
          std::vector<Future<void>> sleepers;
          sleepers.reserve(kSleepers);
          for (std::size_t i = 0; i < kSleepers; ++i) {
            sleepers.push_back(run_on_fiber([&, i] {
              {
                std::unique_lock lock(mutex);
                opened.wait(lock, [&] { return open; });
              }
              round.sleep(i, base + rank[i] * 20us);
            }));
          }
          {
            std::lock_guard lock(mutex);
            base = Clock::now() + head_start;
            open = true;
          }
          opened.notify_all();
          for (auto& s : sleepers) s.get();
        })
        .get();
  });

  ASSERT_EQ(log->order.size(), kSleepers);
  EXPECT_EQ(log->early, 0U) << "a sleeper woke before its deadline";
  for (std::size_t k = 1; k < kSleepers; ++k) {
    const std::size_t a = log->order[k - 1], b = log->order[k];
    ASSERT_TRUE(rank[a] < rank[b] || (rank[a] == rank[b] && log->queued[a] < log->queued[b]))
        << "sleeper " << b << " (rank " << rank[b] << ") woke after " << a << " (rank " << rank[a] << ")";
  }
}

// Several pool threads, tasks submitted from outside, each sleeping several times: every sleeper
// wakes once per sleep, never early, and the work spreads over the threads.
TEST(Timers, SleepersOnSeveralPoolThreads) {
  constexpr int kTasks = 600;
  constexpr int kSleeps = 5;
  FiberPool pool(3);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::atomic<int> early{0};
  std::atomic<int> wakes{0};
  std::vector<Future<int>> tasks;
  for (int t = 0; t < kTasks; ++t) {
    tasks.push_back(pool.submit([&, t] {
      for (int s = 0; s < kSleeps; ++s) {
        const auto deadline = Clock::now() + std::chrono::microseconds(100 + (t * 37 + s * 11) % 900);
        wait_until(deadline);
        if (Clock::now() < deadline) ++early;
        ++wakes;
        std::lock_guard lock(mutex);
        threads.insert(std::this_thread::get_id());
      }
      return t;
    }));
  }
  for (int t = 0; t < kTasks; ++t) EXPECT_EQ(tasks[t].get(), t);
  EXPECT_EQ(wakes.load(), kTasks * kSleeps);
  EXPECT_EQ(early.load(), 0);
  EXPECT_GE(threads.size(), 2U) << "the sleepers did not spread over the pool's threads";
}

// The same on a thread that called use_io_scheduler(): its own timer queue, not Boost's.
TEST(Timers, SleepersOnAnIoSchedulerThread) {
  std::thread([] {
    constexpr std::size_t kSleepers = 500;
    use_io_scheduler();
    const auto log = valid_round(kSleepers, [](WakeLog& round, std::chrono::milliseconds head_start) {
      const Clock::time_point base = Clock::now() + head_start;
      std::vector<boost::fibers::fiber> fibers;
      for (std::size_t i = 0; i < kSleepers; ++i) {
        const auto deadline = base + (kSleepers - i) * 30us;  // queued latest first
        fibers.emplace_back([&round, i, deadline] { round.sleep(i, deadline); });
      }
      for (auto& f : fibers) f.join();
    });
    ASSERT_EQ(log->order.size(), kSleepers);
    EXPECT_EQ(log->early, 0U);
    for (std::size_t k = 1; k < kSleepers; ++k) EXPECT_GT(log->order[k - 1], log->order[k]);
  }).join();
}

// Sleepers mixed with fibers that keep the thread busy: timers are looked at between fibers, so
// the sleepers still wake (after their deadline) while the busy fibers run.
TEST(Timers, SleepersWakeWhileOtherFibersKeepTheThreadBusy) {
  FiberPool pool(1);
  std::atomic<bool> stop{false};
  std::atomic<long> spins{0};
  auto busy = pool.submit([&] {
    while (!stop.load()) {
      ++spins;
      boost::this_fiber::yield();
    }
  });
  auto sleepers = pool.submit([] {
    int woke = 0;
    for (int i = 0; i < 50; ++i) {
      const auto deadline = Clock::now() + 200us;
      wait_until(deadline);
      if (Clock::now() >= deadline) ++woke;
    }
    return woke;
  });
  EXPECT_EQ(sleepers.get(), 50);
  stop = true;
  busy.get();
  EXPECT_GT(spins.load(), 0);
}

// Boost's own sleep (this_fiber::sleep_for) still works on pool threads, next to ours.
TEST(Timers, BoostSleepersAndOursTogether) {
  FiberPool pool(2);
  std::vector<Future<bool>> all;
  for (int i = 0; i < 200; ++i) {
    all.push_back(pool.submit([i] {
      const auto deadline = Clock::now() + std::chrono::microseconds(50 * (i % 20));
      if (i % 2 == 0) {
        boost::this_fiber::sleep_until(deadline);
      } else {
        wait_until(deadline);
      }
      return Clock::now() >= deadline;
    }));
  }
  for (auto& f : all) EXPECT_TRUE(f.get());
}

}  // namespace
}  // namespace propgraph::fiber_test
