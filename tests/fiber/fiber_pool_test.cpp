// FiberPool: submission from plain threads and from fibers, fibers spread over the pool's
// threads, draining shutdown, refusal afterwards.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <exception>
#include <future>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/fiber/operations.hpp>
#include <gtest/gtest.h>

#include "propgraph/fiber.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace propgraph::fiber_test {
namespace {

using namespace std::chrono_literals;

TEST(FiberPool, PlainThreadSubmitsAndWaits) {
  FiberPool pool(1);
  EXPECT_EQ(pool.thread_count(), 1U);
  EXPECT_FALSE(pool.closed());
  auto answer = pool.submit([] { return 6 * 7; });
  EXPECT_EQ(answer.get(), 42);
  auto nothing = pool.submit([] {});
  nothing.get();
  const auto caller = std::this_thread::get_id();
  EXPECT_NE(pool.submit([] { return std::this_thread::get_id(); }).get(), caller);
}

TEST(FiberPool, ZeroThreadsMeansOne) {
  FiberPool pool(0);
  EXPECT_EQ(pool.thread_count(), 1U);
  EXPECT_EQ(pool.submit([] { return 1; }).get(), 1);
}

TEST(FiberPool, ExceptionsPropagateUnchanged) {
  FiberPool pool(2);
  auto failing = pool.submit([]() -> int { throw NotFound("no such thing"); });
  try {
    (void)failing.get();
    FAIL();
  } catch (const NotFound& e) {
    EXPECT_STREQ(e.what(), "no such thing");
  }
}

// Many fibers on several pool threads, submitted from several plain threads; each task waits
// (fiber-aware) and also holds its thread briefly, so the work must spread over the threads.
TEST(FiberPool, FuturesFromManyFibersOnSeveralThreadsComplete) {
  constexpr int kSubmitters = 4;
  constexpr int kPerSubmitter = 100;
  FiberPool pool(3);
  std::mutex mutex;
  std::set<std::thread::id> pool_threads;
  std::atomic<int> done{0};

  std::vector<std::thread> submitters;
  for (int s = 0; s < kSubmitters; ++s) {
    submitters.emplace_back([&, s] {
      std::vector<Future<int>> futures;
      for (int i = 0; i < kPerSubmitter; ++i) {
        futures.push_back(pool.submit([&, value = s * 1000 + i] {
          boost::this_fiber::sleep_for(1ms);                   // fiber-aware: thread free
          std::this_thread::sleep_for(std::chrono::microseconds(200));  // holds the thread
          {
            std::lock_guard lock(mutex);
            pool_threads.insert(std::this_thread::get_id());
          }
          boost::this_fiber::yield();
          return value;
        }));
      }
      for (int i = 0; i < kPerSubmitter; ++i) {
        EXPECT_EQ(futures[i].get(), s * 1000 + i);
        ++done;
      }
    });
  }
  for (auto& t : submitters) t.join();
  EXPECT_EQ(done.load(), kSubmitters * kPerSubmitter);
  EXPECT_GE(pool_threads.size(), 2U) << "work did not spread over the pool's threads";
  EXPECT_LE(pool_threads.size(), 3U);
}

// Tasks that start more work on the pool and wait for it: a fiber waiting on a future from
// another pool fiber (maybe on another thread) must not deadlock the pool.
TEST(FiberPool, TasksCanWaitOnOtherPoolTasks) {
  FiberPool pool(2);
  std::vector<Future<int>> outer;
  for (int i = 0; i < 50; ++i) {
    outer.push_back(pool.submit([&pool, i] {
      auto a = pool.submit([i] {
        boost::this_fiber::sleep_for(1ms);
        return i;
      });
      auto b = pool.submit([i] { return 2 * i; });
      return a.get() + b.get();
    }));
  }
  for (int i = 0; i < 50; ++i) EXPECT_EQ(outer[i].get(), 3 * i);
}

TEST(FiberPool, FacadeOnThePoolMatchesSync) {
  MemoryGraph graph;
  const Vertex a = graph.create_vertex("Person", {{"name", "A"}});
  const Vertex b = graph.create_vertex("Person", {{"name", "B"}});
  graph.create_edge(a.id, b.id, "KNOWS", {});
  FiberPool pool(2);
  const FiberOperations ops = as_fiber(graph, pool);
  std::vector<Future<std::vector<Vertex>>> futures;
  for (int i = 0; i < 200; ++i) futures.push_back(ops.neighbors_async(a.id));
  const auto expected = graph.neighbors(a.id);
  for (auto& f : futures) EXPECT_EQ(f.get(), expected);
}

TEST(FiberPool, ShutdownRunsEveryQueuedTaskThenRefusesWork) {
  FiberPool pool(2);
  std::atomic<int> ran{0};
  std::vector<Future<int>> futures;
  for (int i = 0; i < 200; ++i) {
    futures.push_back(pool.submit([&ran, i] {
      boost::this_fiber::sleep_for(2ms);
      ++ran;
      return i;
    }));
  }
  pool.shutdown();  // returns only when all 200 have finished
  EXPECT_TRUE(pool.closed());
  EXPECT_EQ(ran.load(), 200);
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(futures[i].wait_for(0ms), boost::fibers::future_status::ready);
    EXPECT_EQ(futures[i].get(), i);
  }

  try {
    (void)pool.submit([] { return 1; });
    FAIL() << "submit after shutdown must throw";
  } catch (const PoolClosed& e) {
    EXPECT_NE(std::string(e.what()).find("after shutdown"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)pool.submit([] {}), Error);  // PoolClosed is a propgraph::Error
  pool.shutdown();  // idempotent
}

TEST(FiberPool, DestructorDrainsToo) {
  std::atomic<int> ran{0};
  std::vector<Future<void>> futures;
  {
    FiberPool pool(1);
    for (int i = 0; i < 50; ++i) {
      futures.push_back(pool.submit([&ran] {
        boost::this_fiber::sleep_for(1ms);
        ++ran;
      }));
    }
  }
  EXPECT_EQ(ran.load(), 50);
  for (auto& f : futures) EXPECT_EQ(f.wait_for(0ms), boost::fibers::future_status::ready);
}

TEST(FiberPool, ConcurrentShutdownCallsAllReturn) {
  FiberPool pool(2);
  std::atomic<int> ran{0};
  for (int i = 0; i < 20; ++i) {
    (void)pool.submit([&ran] {
      boost::this_fiber::sleep_for(5ms);
      ++ran;
    });
  }
  std::thread other([&] { pool.shutdown(); });
  pool.shutdown();
  other.join();
  EXPECT_EQ(ran.load(), 20);
}

TEST(FiberPool, ShutdownFromInsideThePoolIsRefused) {
  FiberPool pool(1);
  auto attempt = pool.submit([&pool] {
    try {
      pool.shutdown();
      return std::string("no error");
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
  });
  EXPECT_NE(attempt.get().find("own threads"), std::string::npos);
  EXPECT_FALSE(pool.closed());
}

TEST(FiberPool, SeveralPoolsCoexist) {
  FiberPool first(2);
  FiberPool second(2);
  auto a = first.submit([] { return std::this_thread::get_id(); });
  auto b = second.submit([] { return std::this_thread::get_id(); });
  EXPECT_NE(a.get(), b.get());
  // A task on one pool waits on a task of the other.
  auto chained = first.submit([&second] { return second.submit([] { return 5; }).get() + 1; });
  EXPECT_EQ(chained.get(), 6);
}

// -- post: fire and forget --------------------------------------------------------------------

TEST(FiberPool, PostRunsTasksAndShutdownWaitsForThem) {
  std::atomic<int> ran{0};
  {
    FiberPool pool(2);
    for (int i = 0; i < 300; ++i) {
      pool.post([&ran, i] {
        if (i % 3 == 0) boost::this_fiber::sleep_for(1ms);
        ++ran;
      });
    }
    pool.shutdown();
    EXPECT_EQ(ran.load(), 300);
    EXPECT_THROW(pool.post([] {}), PoolClosed);
  }
  EXPECT_EQ(ran.load(), 300);
}

TEST(FiberPool, PostedExceptionsReachTheHandler) {
  std::mutex mutex;
  std::vector<std::string> messages;
  int not_std = 0;
  {
    FiberPool pool(FiberPoolOptions{.threads = 2, .on_error = [&](std::exception_ptr error) {
                                      std::lock_guard lock(mutex);
                                      try {
                                        std::rethrow_exception(error);
                                      } catch (const NotFound& e) {
                                        messages.emplace_back(e.what());
                                      } catch (...) {
                                        ++not_std;
                                      }
                                    }});
    for (int i = 0; i < 20; ++i) {
      pool.post([i] {
        boost::this_fiber::yield();
        throw NotFound("lost item " + std::to_string(i));
      });
    }
    pool.post([] { throw 42; });
    pool.post([] {});  // no error, no call
  }  // the destructor drains the pool
  ASSERT_EQ(messages.size(), 20U);
  std::sort(messages.begin(), messages.end());
  EXPECT_NE(std::find(messages.begin(), messages.end(), "lost item 7"), messages.end());
  EXPECT_EQ(not_std, 1);
}

TEST(FiberPool, PostedExceptionsGoToStderrByDefault) {
  testing::internal::CaptureStderr();
  {
    FiberPool pool(1);
    pool.post([] { throw std::runtime_error("disk on fire"); });
    pool.post([] { throw 7; });
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("disk on fire"), std::string::npos) << err;
  EXPECT_NE(err.find("not derived from std::exception"), std::string::npos) << err;
}

// -- stress: many plain submitters against a pool whose threads keep going to sleep ---------------

// 8 plain threads submit (and join) and post in bursts separated by pauses longer than the pool's
// idle spin, so the pool threads sleep in epoll and must be woken again and again. Nothing may be
// lost and nothing may hang (the test's ctest timeout bounds the wall time); no timing asserted.
void stress(FiberPoolOptions options) {
  constexpr int kSubmitters = 8;
  constexpr int kRounds = 150;
  constexpr int kPerRound = 6;
  FiberPool pool(std::move(options));
  std::atomic<long> posted_ran{0};
  std::atomic<long> joined_ok{0};
  std::vector<std::thread> submitters;
  for (int s = 0; s < kSubmitters; ++s) {
    submitters.emplace_back([&, s] {
      std::vector<Future<long>> pending;
      for (int round = 0; round < kRounds; ++round) {
        for (int k = 0; k < kPerRound; ++k) {
          const long value = static_cast<long>(s) * 1'000'000 + round * 100 + k;
          if (k % 3 == 0) {
            pool.post([&posted_ran] { ++posted_ran; });
          } else if (k % 3 == 1) {
            if (pool.submit([value] { return value; }).get() == value) ++joined_ok;  // joined at once
          } else {
            pending.push_back(pool.submit([value] {
              if (value % 2 == 0) boost::this_fiber::yield();
              return value;
            }));
          }
        }
        if (round % 10 == 0) {
          for (auto& f : pending) {
            const long v = f.get();
            if (v / 1'000'000 == s) ++joined_ok;
          }
          pending.clear();
        }
        // Let the pool run dry and (with some idle_spin) fall asleep.
        if (round % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(100 + 37 * s));
      }
      for (auto& f : pending) {
        if (f.get() / 1'000'000 == s) ++joined_ok;
      }
    });
  }
  for (auto& t : submitters) t.join();
  pool.shutdown();
  EXPECT_EQ(posted_ran.load(), kSubmitters * kRounds * (kPerRound / 3));
  EXPECT_EQ(joined_ok.load(), kSubmitters * kRounds * (kPerRound - kPerRound / 3));
}

TEST(FiberPool, StressSubmittersAgainstAPoolThatKeepsFallingAsleep) { stress({.threads = 2}); }

TEST(FiberPool, StressWithoutIdleSpinningEveryHandOffWakesASleeper) {
  stress({.threads = 3, .idle_spin = std::chrono::nanoseconds::zero(), .join_spin = std::chrono::nanoseconds::zero()});
}

TEST(FiberPool, IdlePoolDoesNotSpin) {
  FiberPool pool(2);
  (void)pool.submit([] {}).get();
  // Idle threads look for work for idle_spin (50 µs), then sleep in epoll: over 200 ms of
  // idling the process uses far less CPU than two spinning threads would (400 ms).
  const std::clock_t before = std::clock();
  std::this_thread::sleep_for(200ms);
  const double cpu_ms = 1000.0 * static_cast<double>(std::clock() - before) / CLOCKS_PER_SEC;
  EXPECT_LT(cpu_ms, 100.0);
}

}  // namespace
}  // namespace propgraph::fiber_test
