// The fiber-aware wait: suspends a fiber, blocks a plain thread.
#include "propgraph/latency/wait.hpp"

#include <chrono>

#include <boost/fiber/fiber.hpp>
#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST(Wait, TellsFibersFromTheMainContext) {
  EXPECT_FALSE(propgraph::running_on_fiber());
  bool inside = false;
  boost::fibers::fiber([&] { inside = propgraph::running_on_fiber(); }).join();
  EXPECT_TRUE(inside);
  EXPECT_FALSE(propgraph::running_on_fiber());
}

TEST(Wait, WaitsAtLeastTheDurationOnAPlainThread) {
  const auto start = Clock::now();
  propgraph::wait_for(20ms);
  EXPECT_GE(Clock::now() - start, 20ms);
}

TEST(Wait, WaitsAtLeastTheDurationOnAFiber) {
  Clock::duration elapsed{};
  boost::fibers::fiber([&] {
    const auto start = Clock::now();
    propgraph::wait_for(20ms);
    elapsed = Clock::now() - start;
  }).join();
  EXPECT_GE(elapsed, 20ms);
}

TEST(Wait, PastDeadlineAndZeroReturnAtOnce) {
  const auto start = Clock::now();
  propgraph::wait_for(0ns);
  propgraph::wait_for(-5ms);
  propgraph::wait_until(start - 1s);
  EXPECT_LT(Clock::now() - start, 50ms);  // generous: only a real wait would take long
}

TEST(Wait, TwoFibersOnOneThreadOverlap) {
  const auto start = Clock::now();
  boost::fibers::fiber first([] { propgraph::wait_for(100ms); });
  boost::fibers::fiber second([] { propgraph::wait_for(100ms); });
  first.join();
  second.join();
  const auto elapsed = Clock::now() - start;
  EXPECT_GE(elapsed, 100ms);
  EXPECT_LT(elapsed, 160ms) << "the waits ran one after the other";
}

TEST(Wait, TheMainContextBlocksItsThreadLikeADriver) {
  bool ran = false;
  boost::fibers::fiber ready(boost::fibers::launch::post, [&] { ran = true; });
  propgraph::wait_for(10ms);  // a blocking wait: the posted fiber gets no turn
  EXPECT_FALSE(ran);
  ready.join();
  EXPECT_TRUE(ran);
}

}  // namespace
