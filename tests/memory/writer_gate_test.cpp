// MemoryGraph's waiting primitives: ThreadFiberCondition (plain threads block, fibers suspend)
// and the WriterGate built on it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <boost/fiber/all.hpp>

#include "memory/thread_fiber_condition.hpp"
#include "memory/writer_gate.hpp"

namespace propgraph::detail {
namespace {

using namespace std::chrono_literals;

TEST(ThreadFiberCondition, NotifyAllWakesWaitingThreadsAndFibers) {
  ThreadFiberCondition condition;
  std::atomic<bool> ready{false};
  std::atomic<int> woken{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      EXPECT_TRUE(condition.wait_until([&] { return ready.load(); }));
      ++woken;
    });
  }
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      std::vector<boost::fibers::fiber> fibers;
      for (int i = 0; i < 4; ++i) {
        fibers.emplace_back([&] {
          EXPECT_TRUE(condition.wait_until([&] { return ready.load(); }));
          ++woken;
        });
      }
      for (auto& f : fibers) f.join();
    });
  }
  std::this_thread::sleep_for(20ms);  // let most of them wait (the others see ready at once)
  EXPECT_EQ(woken.load(), 0);
  ready = true;
  condition.notify_all();
  for (auto& t : threads) t.join();
  EXPECT_EQ(woken.load(), 16);
}

TEST(ThreadFiberCondition, AWaitingFiberLetsTheOtherFibersOfItsThreadRun) {
  // The fiber that sets the state runs on the waiter's own thread: a wait that blocked the
  // thread would never return.
  ThreadFiberCondition condition;
  std::atomic<bool> ready{false};
  bool waited = false;
  boost::fibers::fiber waiter([&] { waited = condition.wait_until([&] { return ready.load(); }); });
  boost::fibers::fiber setter([&] {
    boost::this_fiber::sleep_for(5ms);
    ready = true;
    condition.notify_all();
  });
  waiter.join();
  setter.join();
  EXPECT_TRUE(waited);
}

TEST(ThreadFiberCondition, ADeadlineEndsTheWaitWithFalse) {
  ThreadFiberCondition condition;
  EXPECT_FALSE(condition.wait_until([] { return false; }, DeadlineClock::now() + 5ms));
  bool on_fiber = true;
  boost::fibers::fiber([&] { on_fiber = condition.wait_until([] { return false; }, DeadlineClock::now() + 5ms); }).join();
  EXPECT_FALSE(on_fiber);
  EXPECT_TRUE(condition.wait_until([] { return true; }, DeadlineClock::now() - 1s));  // holds already
}

TEST(WriterGate, AdmitsOneAtATimeFromThreadsAndFibers) {
  WriterGate gate;
  long inside = 0;  // not atomic: the gate alone orders it
  std::atomic<int> overlaps{0};
  std::atomic<bool> busy{false};
  constexpr int kRounds = 2000;
  auto pass = [&] {
    ASSERT_TRUE(gate.enter(std::nullopt));
    if (busy.exchange(true)) ++overlaps;
    ++inside;
    busy = false;
    gate.leave();
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRounds; ++i) pass();
    });
  }
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      std::vector<boost::fibers::fiber> fibers;
      for (int f = 0; f < 4; ++f) {
        fibers.emplace_back([&] {
          for (int i = 0; i < kRounds; ++i) {
            pass();
            if (i % 16 == 0) boost::this_fiber::yield();
          }
        });
      }
      for (auto& f : fibers) f.join();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(inside, 16L * kRounds);
}

TEST(WriterGate, AWaiterWhoseDeadlinePassesDoesNotEnterAndTheNextOneStillDoes) {
  WriterGate gate;
  ASSERT_TRUE(gate.enter(std::nullopt));
  EXPECT_FALSE(gate.enter(DeadlineClock::now() + 5ms));
  std::atomic<bool> entered{false};
  std::thread patient([&] {
    EXPECT_TRUE(gate.enter(std::nullopt));
    entered = true;
    gate.leave();
  });
  std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(entered.load());
  gate.leave();
  patient.join();
  EXPECT_TRUE(entered.load());
}

}  // namespace
}  // namespace propgraph::detail
