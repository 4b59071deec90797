// FiberPool: submission from plain threads and from fibers, fibers spread over the pool's
// threads, draining shutdown, refusal afterwards.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <future>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/fiber/operations.hpp>

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

TEST(FiberPool, IdlePoolDoesNotSpin) {
  FiberPool pool(2);
  (void)pool.submit([] {}).get();
  // Idle threads sleep on a condition variable: over 200 ms of idling the process uses far
  // less CPU than two spinning threads would (400 ms).
  const std::clock_t before = std::clock();
  std::this_thread::sleep_for(200ms);
  const double cpu_ms = 1000.0 * static_cast<double>(std::clock() - before) / CLOCKS_PER_SEC;
  EXPECT_LT(cpu_ms, 100.0);
}

}  // namespace
}  // namespace propgraph::fiber_test
