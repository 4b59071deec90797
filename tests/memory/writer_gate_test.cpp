// MemoryGraph's waiting primitives: ThreadFiberCondition (plain threads block, fibers suspend),
// the WriterGate built on it, and the ReaderWriterLock around the store.
#include "memory/writer_gate.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

#include <boost/fiber/all.hpp>
#include <gtest/gtest.h>

#include "memory/reader_writer_lock.hpp"
#include "memory/thread_fiber_condition.hpp"

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
  boost::fibers::fiber([&] {
    on_fiber = condition.wait_until([] { return false; }, DeadlineClock::now() + 5ms);
  }).join();
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

// Holding the lock for longer than the spin budget makes the other side sleep: a lost wake-up
// hangs these tests, a broken exclusion fails them.
constexpr auto kBeyondSpin = 10 * ReaderWriterLock::spin_budget;

TEST(ReaderWriterLock, ReadersNeverSeeAHalfDoneWrite) {
  ReaderWriterLock lock;
  std::uint64_t first = 0;  // plain: only the lock orders them
  std::uint64_t second = 0;
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> reads{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&, r] {
      for (std::uint64_t i = 0; !done.load(); ++i) {
        std::shared_lock shared(lock);
        EXPECT_EQ(first, second);
        if ((i + r) % 2000 == 0) std::this_thread::sleep_for(kBeyondSpin);  // the writer sleeps
        ++reads;
      }
    });
  }
  std::thread writer([&] {
    for (int round = 0; round < 3000; ++round) {
      std::unique_lock exclusive(lock);
      ++first;
      if (round % 200 == 0) std::this_thread::sleep_for(kBeyondSpin);  // waiting readers sleep
      ++second;
    }
    done = true;
  });
  writer.join();
  for (auto& t : readers) t.join();
  EXPECT_EQ(first, 3000U);
  EXPECT_EQ(second, 3000U);
  EXPECT_GT(reads.load(), 0U);
}

TEST(ReaderWriterLock, AWriterWaitsForAReaderThatHoldsItBeyondTheSpin) {
  ReaderWriterLock lock;
  std::atomic<bool> holding{false};
  std::atomic<bool> released{false};
  std::thread reader([&] {
    std::shared_lock shared(lock);
    holding = true;
    std::this_thread::sleep_for(5 * kBeyondSpin);
    released = true;
  });
  while (!holding.load()) std::this_thread::yield();
  lock.lock();
  EXPECT_TRUE(released.load());
  lock.unlock();
  reader.join();
}

TEST(ReaderWriterLock, ReadersWaitForAWriterThatHoldsItBeyondTheSpin) {
  ReaderWriterLock lock;
  std::atomic<bool> written{false};
  std::atomic<int> inside{0};
  lock.lock();
  std::vector<std::thread> readers;
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&] {
      std::shared_lock shared(lock);
      EXPECT_TRUE(written.load());
      ++inside;
    });
  }
  std::this_thread::sleep_for(5 * kBeyondSpin);
  EXPECT_EQ(inside.load(), 0);
  written = true;
  lock.unlock();
  for (auto& t : readers) t.join();
  EXPECT_EQ(inside.load(), 4);
}

}  // namespace
}  // namespace propgraph::detail
