// use_io_scheduler(): the I/O-aware round robin must keep everything else a scheduler does:
// precise timers, wake-ups from other threads, fibers that were ready before the switch.
#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include <boost/fiber/fiber.hpp>
#include <boost/fiber/future/promise.hpp>
#include <boost/fiber/operations.hpp>
#include <gtest/gtest.h>

#include "propgraph/fiber.hpp"

namespace propgraph {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

/// Runs `body` on a fresh thread whose scheduler is the I/O-aware one.
template <class Body>
void on_io_thread(Body body) {
  std::thread([&] {
    use_io_scheduler();
    use_io_scheduler();  // a second call changes nothing
    body();
  }).join();
}

TEST(IoScheduler, SleepsEndOnTimeNotOnAMillisecondGrid) {
  on_io_thread([] {
    std::vector<Clock::duration> took;
    boost::fibers::fiber sleeper([&] {
      for (int i = 0; i < 20; ++i) {
        const auto start = Clock::now();
        boost::this_fiber::sleep_for(200us);
        took.push_back(Clock::now() - start);
      }
    });
    sleeper.join();
    std::sort(took.begin(), took.end());
    EXPECT_GE(took.front(), 200us);
    EXPECT_LT(took[took.size() / 2], 900us) << "the idle thread slept past the timer";
  });
}

TEST(IoScheduler, FibersWokenFromAnotherThreadRun) {
  on_io_thread([] {
    boost::fibers::promise<int> promise;
    auto future = promise.get_future();
    int got = 0;
    boost::fibers::fiber waiter([&] { got = future.get(); });
    std::thread setter([&] {
      std::this_thread::sleep_for(20ms);  // the io thread is asleep in epoll by then
      promise.set_value(42);
    });
    waiter.join();
    setter.join();
    EXPECT_EQ(got, 42);
  });
}

TEST(IoScheduler, ReadyFibersMoveOverAndManyFibersTakeTurns) {
  std::thread([] {
    int ran = 0;
    boost::fibers::fiber early([&] { ++ran; });  // ready under Boost's round robin
    use_io_scheduler();
    std::vector<boost::fibers::fiber> fibers;
    for (int i = 0; i < 100; ++i) {
      fibers.emplace_back([&] {
        for (int k = 0; k < 10; ++k) boost::this_fiber::yield();
        ++ran;
      });
    }
    early.join();
    for (auto& f : fibers) f.join();
    EXPECT_EQ(ran, 101);
  }).join();
}

}  // namespace
}  // namespace propgraph
