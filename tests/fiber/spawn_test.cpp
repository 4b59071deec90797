// run_on_fiber: where and when the fiber runs, recycling, stack allocators, thread exit.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <gtest/gtest.h>

#include "propgraph/fiber.hpp"

namespace propgraph::fiber_test {
namespace {

using namespace std::chrono_literals;
using boost::fibers::launch;

TEST(RunOnFiber, RunsOnTheCallingThreadAndReturnsTheValue) {
  const auto caller = std::this_thread::get_id();
  EXPECT_EQ(run_on_fiber([] { return std::this_thread::get_id(); }).get(), caller);
  EXPECT_EQ(run_on_fiber([] { return 41 + 1; }).get(), 42);
}

TEST(RunOnFiber, DispatchRunsAtOncePostRunsWhenTheCallerWaits) {
  bool ran = false;
  auto dispatched = run_on_fiber([&ran] { ran = true; }, {.launch = launch::dispatch});
  EXPECT_TRUE(ran);  // up to its first suspension before run_on_fiber returned
  dispatched.get();

  ran = false;
  auto posted = run_on_fiber([&ran] { ran = true; }, {.launch = launch::post});
  EXPECT_FALSE(ran);  // queued: the caller has not blocked or yielded yet
  posted.get();
  EXPECT_TRUE(ran);
}

TEST(RunOnFiber, RunsOnAFiberNotTheCallersContext) {
  const auto caller_fiber = boost::this_fiber::get_id();
  EXPECT_NE(run_on_fiber([] { return boost::this_fiber::get_id(); }).get(), caller_fiber);
}

TEST(RunOnFiber, RecyclingReusesTheFinishedFiber) {
  if (!fiber_recycling_enabled) GTEST_SKIP() << "AddressSanitizer build: fibers are not recycled";
  const auto first = run_on_fiber([] { return boost::this_fiber::get_id(); }).get();
  boost::this_fiber::yield();
  const auto second = run_on_fiber([] { return boost::this_fiber::get_id(); }).get();
  EXPECT_EQ(first, second);
}

TEST(RunOnFiber, ExceptionObjectIsTheOneThrown) {
  const std::runtime_error* thrown = nullptr;
  auto future = run_on_fiber([&thrown]() -> int {
    static const std::runtime_error error("exactly this one");
    thrown = &error;
    throw error;
  });
  try {
    (void)future.get();
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "exactly this one");
  }
}

TEST(RunOnFiber, ManyConcurrentFibersOnOneThread) {
  std::vector<Future<int>> futures;
  for (int i = 0; i < 500; ++i) {
    futures.push_back(run_on_fiber(
        [i] {
          boost::this_fiber::sleep_for(std::chrono::milliseconds(i % 5));
          return i;
        },
        {.launch = i % 2 == 0 ? launch::dispatch : launch::post}));
  }
  for (int i = 0; i < 500; ++i) EXPECT_EQ(futures[i].get(), i);
}

TEST(RunOnFiber, LargeCapturesStillWork) {
  std::vector<int> big(1000, 7);
  struct Huge {
    char bytes[2048];
  } huge{};
  huge.bytes[2047] = 9;
  for (int round = 0; round < 3; ++round) {  // later rounds run on recycled fibers
    EXPECT_EQ(run_on_fiber([big, huge] { return big[999] + huge.bytes[2047]; }).get(), 16);
  }
}

// -- stacks ------------------------------------------------------------------------------------

/// Touches `bytes` of stack in one frame.
int use_stack(std::size_t bytes) {
  std::vector<char> sink;  // keeps the compiler from dropping the array
  auto* block = static_cast<volatile char*>(alloca(bytes));
  for (std::size_t i = 0; i < bytes; i += 512) block[i] = static_cast<char>(i);
  return block[bytes / 2];
}

TEST(StackAllocator, EveryKindRunsAFiberUsingMostOfItsStack) {
  for (StackAllocator stack : {StackAllocator::cached(64 * 1024), StackAllocator::pooled(64 * 1024),
                               StackAllocator::fixedsize(64 * 1024), StackAllocator::protected_fixedsize(64 * 1024)}) {
    for (bool recycle : {false, true}) {
      EXPECT_EQ(run_on_fiber([] { return use_stack(40 * 1024) >= -128; }, {.stack = stack, .recycle = recycle}).get(),
                true);
    }
  }
  EXPECT_EQ(StackAllocator{}.size(), StackAllocator::default_stack_size);
  EXPECT_EQ(StackAllocator::cached(), StackAllocator{});
  EXPECT_NE(StackAllocator::cached(), StackAllocator::fixedsize());
  const StackAllocator pool = StackAllocator::pooled(64 * 1024);
  EXPECT_EQ(pool, StackAllocator(pool));                     // copies share the pool
  EXPECT_NE(pool, StackAllocator::pooled(64 * 1024));        // each pooled() call is a pool of its own
  EXPECT_EQ(pool.size(), 64U * 1024);
}

// The cached kind puts a guard page under each stack: running off the end faults at once
// instead of overwriting whatever lies below.
[[gnu::noinline]] int recurse(int depth) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(depth);
  return depth == 0 ? frame[0] : recurse(depth - 1) + frame[0];
}

TEST(StackAllocatorDeathTest, CachedStackOverflowHitsTheGuardPage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto overflow = [] {
    (void)run_on_fiber([] { return recurse(64); }, {.stack = StackAllocator::cached(16 * 1024)}).get();
    std::exit(0);
  };
#ifdef PROPGRAPH_FIBER_ASAN
  EXPECT_DEATH(overflow(), "");  // ASan catches the fault and reports a stack-overflow
#else
  EXPECT_EXIT(overflow(), ::testing::KilledBySignal(SIGSEGV), "");
#endif
}

struct CountingStack {
  std::atomic<int>* allocations;
  std::atomic<int>* releases;
  boost::context::stack_context allocate() {
    ++*allocations;
    return boost::context::fixedsize_stack(32 * 1024).allocate();
  }
  void deallocate(boost::context::stack_context& sctx) noexcept {
    ++*releases;
    boost::context::fixedsize_stack(32 * 1024).deallocate(sctx);
  }
};

// Many fibers alive at once from one pooled allocator, then a second wave: it runs on the stacks
// the first one gave back (the pool grows to the peak and recycles), each page-aligned at the top.
TEST(StackAllocator, PooledStacksAreRecycledAcrossWaves) {
  constexpr int kFibers = 3000;
  const StackAllocator pool = StackAllocator::pooled(16 * 1024);
  const auto wave = [&](std::set<std::uintptr_t>& regions) {
    std::vector<Future<std::uintptr_t>> fibers;
    for (int i = 0; i < kFibers; ++i) {
      fibers.push_back(run_on_fiber(
          [] {
            boost::this_fiber::yield();  // all of them alive at once
            int local = 0;
            return reinterpret_cast<std::uintptr_t>(&local) / (16 * 1024);  // the stack it lies in
          },
          {.launch = launch::post, .stack = pool, .recycle = false}));
    }
    for (auto& f : fibers) regions.insert(f.get());
    boost::this_fiber::yield();  // let the scheduler release the finished fibers
  };
  std::set<std::uintptr_t> first, second;
  wave(first);
  wave(second);
  EXPECT_EQ(first.size(), static_cast<std::size_t>(kFibers));
  std::size_t reused = 0;
  for (auto r : second) reused += first.count(r);
  EXPECT_EQ(reused, second.size()) << "the second wave got stacks the first one never used";
}

TEST(StackAllocator, WrappedAllocatorIsUsedAndEveryStackReturned) {
  std::atomic<int> allocations{0};
  std::atomic<int> releases{0};
  {
    const StackAllocator counting = StackAllocator::wrap(CountingStack{&allocations, &releases});
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(run_on_fiber([i] { return i; }, {.stack = counting, .recycle = false}).get(), i);
    }
    boost::this_fiber::yield();  // the scheduler frees finished fibers
    EXPECT_EQ(allocations.load(), 5);
    EXPECT_EQ(releases.load(), 5);
    // Recycled fibers only reuse fibers whose stacks came from the same allocator.
    std::thread([&] {
      for (int i = 0; i < 5; ++i) (void)run_on_fiber([] {}, {.stack = counting}).get();
      (void)run_on_fiber([] {}).get();  // default allocator: not a recycled counting fiber
    }).join();
    const int expected = fiber_recycling_enabled ? 6 : 10;  // one fiber, recycled four times
    EXPECT_EQ(allocations.load(), expected);
    EXPECT_EQ(releases.load(), expected);  // the recycled one ended when its thread exited
  }
}

// -- thread exit -------------------------------------------------------------------------------

TEST(RunOnFiber, ThreadExitWithParkedAndPendingFibersDoesNotHang) {
  std::atomic<int> ran{0};
  for (int round = 0; round < 20; ++round) {
    std::thread([&ran] {
      for (int i = 0; i < 20; ++i) (void)run_on_fiber([&ran] { ++ran; }).get();  // parks fibers
      // Started, never waited on: runs while the thread exits.
      (void)run_on_fiber(
          [&ran] {
            boost::this_fiber::sleep_for(1ms);
            ++ran;
          },
          {.launch = launch::post});
    }).join();
  }
  EXPECT_EQ(ran.load(), 20 * 21);
}

// A thread whose first facade call comes from a fiber that is still running while the thread
// exits: the call must not leave a parked fiber behind for the exiting scheduler to wait on.
TEST(RunOnFiber, FirstCallDuringThreadExitDoesNotHang) {
  std::atomic<int> ran{0};
  std::thread([&ran] {
    boost::fibers::fiber([&ran] {
      boost::this_fiber::sleep_for(2ms);  // still sleeping when the thread function returns
      (void)run_on_fiber([&ran] { ++ran; }).get();
      (void)run_on_fiber([&ran] { ++ran; }).get();
    }).detach();
  }).join();
  EXPECT_EQ(ran.load(), 2);
}

}  // namespace
}  // namespace propgraph::fiber_test
