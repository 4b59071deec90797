// Future: the boost::fibers::future-like surface (get, wait, wait_for, valid, exceptions), and
// wake-ups with no lost or double resumption when results arrive from other threads while
// waiters time out.
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/fiber/operations.hpp>
#include <gtest/gtest.h>

#include "propgraph/fiber.hpp"
#include "propgraph/latency/wait.hpp"

namespace propgraph::fiber_test {
namespace {

using namespace std::chrono_literals;
using boost::fibers::future_status;

TEST(Future, DefaultConstructedIsInvalidAndGetThrows) {
  Future<int> none;
  EXPECT_FALSE(none.valid());
  EXPECT_THROW((void)none.get(), boost::fibers::future_uninitialized);
  EXPECT_THROW(none.wait(), boost::fibers::future_uninitialized);
}

TEST(Future, GetConsumesMoveTransfers) {
  Future<std::string> a = run_on_fiber([] { return std::string(100, 'x'); });
  ASSERT_TRUE(a.valid());
  Future<std::string> b = std::move(a);
  EXPECT_FALSE(a.valid());  // NOLINT(bugprone-use-after-move): moved-from state is specified
  EXPECT_EQ(b.get(), std::string(100, 'x'));
  EXPECT_FALSE(b.valid());
}

TEST(Future, VoidAndReferenceResults) {
  int target = 5;
  Future<int&> ref = run_on_fiber([&target]() -> int& { return target; });
  int& got = ref.get();
  EXPECT_EQ(&got, &target);
  bool ran = false;
  Future<void> nothing = run_on_fiber([&ran] { ran = true; });
  nothing.get();
  EXPECT_TRUE(ran);
}

TEST(Future, WaitDoesNotConsumeAndExceptionPtrIsTheStoredOne) {
  auto failing = run_on_fiber([]() -> int { throw std::out_of_range("far away"); });
  failing.wait();
  EXPECT_TRUE(failing.valid());
  const std::exception_ptr error = failing.get_exception_ptr();
  ASSERT_TRUE(error);
  EXPECT_TRUE(failing.valid());
  EXPECT_THROW((void)failing.get(), std::out_of_range);

  auto fine = run_on_fiber([] { return 3; });
  EXPECT_FALSE(fine.get_exception_ptr());
  EXPECT_EQ(fine.get(), 3);
}

// The conversion to boost::fibers::future<T> (what the design promises `_async` returns).
TEST(FutureToBoostFuture, AReadyValueIsThereAtOnce) {
  detail::Promise<std::string> promise;
  Future<std::string> ready = promise.get_future();
  promise.set_value(std::string(40, 'v'));
  boost::fibers::future<std::string> converted = std::move(ready);
  EXPECT_FALSE(ready.valid());  // NOLINT(bugprone-use-after-move): the conversion consumes it
  ASSERT_TRUE(converted.valid());
  EXPECT_EQ(converted.wait_for(0ms), future_status::ready);
  EXPECT_EQ(converted.get(), std::string(40, 'v'));
}

TEST(FutureToBoostFuture, APendingValueFromAPoolArrivesLater) {
  FiberPool pool(1);
  std::atomic<bool> release{false};
  boost::fibers::future<int> converted = pool.submit([&release] {
    while (!release.load()) wait_for(100us);
    return 42;
  });
  EXPECT_EQ(converted.wait_for(2ms), future_status::timeout);
  release = true;
  EXPECT_EQ(converted.get(), 42);
}

TEST(FutureToBoostFuture, ExceptionsArriveUnchangedReadyOrPending) {
  boost::fibers::future<int> ready = run_on_fiber([]() -> int { throw std::out_of_range("ready"); });
  EXPECT_EQ(ready.wait_for(0ms), future_status::ready);
  try {
    (void)ready.get();
    ADD_FAILURE() << "no exception";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "ready");
  }
  FiberPool pool(1);
  std::atomic<bool> release{false};
  boost::fibers::future<int> pending = pool.submit([&release]() -> int {
    while (!release.load()) wait_for(100us);
    throw std::invalid_argument("pending");
  });
  release = true;
  try {
    (void)pending.get();
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "pending");
  }
}

TEST(FutureToBoostFuture, VoidResultsAndVectorsOfBoostFutures) {
  FiberPool pool(2);
  std::atomic<int> ran{0};
  std::vector<boost::fibers::future<void>> calls;
  for (int i = 0; i < 8; ++i) {
    calls.push_back(pool.submit([&ran] {
      wait_for(200us);
      ++ran;
    }));
  }
  calls.push_back(run_on_fiber([&ran] { ++ran; }));
  for (auto& call : calls) call.get();
  EXPECT_EQ(ran.load(), 9);
  boost::fibers::future<void> failing = pool.submit([] { throw std::runtime_error("void failed"); });
  EXPECT_THROW(failing.get(), std::runtime_error);
}

TEST(FutureToBoostFuture, ConvertingAnInvalidFutureThrows) {
  Future<int> none;
  EXPECT_THROW((void)static_cast<boost::fibers::future<int>>(std::move(none)), boost::fibers::future_uninitialized);
}

TEST(Future, TimedWaitsOnAPlainThread) {
  FiberPool pool(1);
  std::atomic<bool> release{false};
  auto slow = pool.submit([&release] {
    while (!release.load()) wait_for(200us);
    return 7;
  });
  EXPECT_EQ(slow.wait_for(0ms), future_status::timeout);
  EXPECT_EQ(slow.wait_for(2ms), future_status::timeout);
  EXPECT_EQ(slow.wait_until(std::chrono::system_clock::now() + 1ms), future_status::timeout);
  release = true;
  EXPECT_EQ(slow.wait_for(60s), future_status::ready);
  EXPECT_EQ(slow.wait_for(0ms), future_status::ready);
  EXPECT_EQ(slow.get(), 7);
}

TEST(Future, TimedWaitsOnAFiberSuspendOnlyThatFiber) {
  FiberPool pool(1);
  std::atomic<bool> release{false};
  auto slow = pool.submit([&release] {
    while (!release.load()) wait_for(100us);
    return 1;
  });
  // A fiber of this thread waits with timeouts while another fiber of the thread keeps running.
  std::atomic<int> ticks{0};
  auto ticker = run_on_fiber(
      [&ticks, &release] {
        while (!release.load()) {
          ++ticks;
          boost::this_fiber::yield();
        }
      },
      {.launch = boost::fibers::launch::post});
  auto waiter = run_on_fiber([&slow, &release] {
    int timeouts = 0;
    while (slow.wait_for(1ms) == future_status::timeout) {
      if (++timeouts == 5) release = true;
    }
    return std::pair{slow.get(), timeouts};
  });
  // Five timeouts release the result; on a loaded machine its arrival may take another one.
  const auto [value, timeouts] = waiter.get();
  EXPECT_EQ(value, 1);
  EXPECT_GE(timeouts, 5);
  ticker.get();
  EXPECT_GT(ticks.load(), 0) << "the waiting fiber blocked its thread";
}

// Results arrive from pool fibers on other threads while the waiters (fibers of a second pool
// and plain threads) keep timing out with short deadlines: every waiter sees its value exactly
// once and resumes exactly once (a lost wake-up hangs, a double one corrupts or crashes).
TEST(Future, RacingCompletionsAndTimeoutsLoseNoWakeUpAndResumeNoWaiterTwice) {
  constexpr int kPairs = 3000;
  FiberPool producers(2);
  FiberPool waiters(2);
  std::vector<std::atomic<int>> seen(kPairs);
  std::atomic<long> timeouts{0};

  std::vector<Future<void>> done;
  done.reserve(kPairs);
  for (int i = 0; i < kPairs; ++i) {
    Future<int> result = producers.submit([i] {
      if (i % 3 != 0) wait_for(std::chrono::microseconds(i % 50));
      return i;
    });
    done.push_back(waiters.submit([&, i, result = std::move(result)]() mutable {
      const auto step = std::chrono::microseconds(1 + i % 40);
      while (result.wait_for(step) == future_status::timeout) ++timeouts;
      seen[result.get()].fetch_add(1);
    }));
  }
  // Plain threads racing the same way.
  std::vector<std::thread> plain;
  std::atomic<int> plain_ok{0};
  for (int t = 0; t < 4; ++t) {
    plain.emplace_back([&, t] {
      for (int k = 0; k < 200; ++k) {
        Future<int> r = producers.submit([k] {
          wait_for(std::chrono::microseconds(k % 30));
          return k;
        });
        while (r.wait_for(std::chrono::microseconds(1 + (k + t) % 25)) == future_status::timeout) {
        }
        if (r.get() == k) ++plain_ok;
      }
    });
  }
  for (auto& d : done) d.get();
  for (auto& t : plain) t.join();
  for (int i = 0; i < kPairs; ++i) ASSERT_EQ(seen[i].load(), 1) << "result " << i;
  EXPECT_EQ(plain_ok.load(), 4 * 200);
}

// A thread that keeps joining dispatched calls (which return to it directly) still lets its other
// fibers run now and then.
TEST(Future, ImmediatelyJoinedCallsLeaveOtherFibersOfTheThreadATurn) {
  std::atomic<int> turns{0};
  std::atomic<bool> stop{false};
  auto background = run_on_fiber(
      [&] {
        while (!stop.load()) {
          ++turns;
          boost::this_fiber::yield();
        }
      },
      {.launch = boost::fibers::launch::post});
  long sum = 0;
  for (int i = 0; i < 1000; ++i) sum += run_on_fiber([i] { return i; }).get();
  EXPECT_EQ(sum, 999L * 1000 / 2);
  EXPECT_GT(turns.load(), 0);
  stop = true;
  background.get();
}

}  // namespace
}  // namespace propgraph::fiber_test
