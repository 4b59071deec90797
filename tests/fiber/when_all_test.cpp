// when_all keeps argument order whatever the completion order and reports the first failure in
// argument order; when_any yields the first input to complete.
#include <chrono>
#include <stdexcept>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include <boost/fiber/operations.hpp>
#include <gtest/gtest.h>

#include "propgraph/fiber.hpp"

namespace propgraph::fiber_test {
namespace {

using namespace std::chrono_literals;

/// A value that becomes ready after `delay` (fiber-aware wait on this thread).
template <class T>
Future<T> later(T value, std::chrono::milliseconds delay) {
  return run_on_fiber([value, delay] {
    boost::this_fiber::sleep_for(delay);
    return value;
  });
}

Future<int> failing_later(std::string message, std::chrono::milliseconds delay) {
  return run_on_fiber([message, delay]() -> int {
    boost::this_fiber::sleep_for(delay);
    throw std::runtime_error(message);
  });
}

TEST(WhenAll, TupleKeepsArgumentOrderWhateverTheCompletionOrder) {
  // Completes in the order c, b, a.
  auto all = when_all(later(1, 30ms), later(std::string("two"), 20ms), later(3.5, 1ms));
  auto [a, b, c] = all.get();
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, "two");
  EXPECT_EQ(c, 3.5);
}

TEST(WhenAll, VectorKeepsOrder) {
  std::vector<Future<int>> futures;
  for (int i = 0; i < 10; ++i) futures.push_back(later(i, std::chrono::milliseconds(20 - 2 * i)));
  std::vector<int> expected{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(when_all(std::move(futures)).get(), expected);
  EXPECT_TRUE(when_all(std::vector<Future<int>>{}).get().empty());
}

TEST(WhenAll, VoidFuturesContributeMonostate) {
  auto done = run_on_fiber([] { boost::this_fiber::sleep_for(1ms); });
  auto [nothing, value] = when_all(std::move(done), later(7, 2ms)).get();
  EXPECT_EQ(nothing, std::monostate{});
  EXPECT_EQ(value, 7);
}

TEST(WhenAll, FirstFailureInArgumentOrderAfterAllCompleted) {
  auto slow_ok = later(1, 40ms);
  // "second" fails later than "third", but comes first in argument order.
  auto all = when_all(std::move(slow_ok), failing_later("second", 20ms), failing_later("third", 1ms));
  try {
    (void)all.get();
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "second");
  }
}

TEST(WhenAll, CombinesPoolFuturesFromAPlainThread) {
  FiberPool pool(2);
  std::vector<Future<int>> futures;
  for (int i = 0; i < 20; ++i) {
    futures.push_back(pool.submit([i] {
      boost::this_fiber::sleep_for(std::chrono::milliseconds(i % 3));
      return i * i;
    }));
  }
  auto squares = when_all(std::move(futures)).get();
  ASSERT_EQ(squares.size(), 20U);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(squares[i], i * i);
}

TEST(WhenAny, FirstToCompleteWins) {
  std::vector<Future<int>> futures;
  futures.push_back(later(10, 200ms));
  futures.push_back(later(20, 1ms));
  futures.push_back(later(30, 200ms));
  auto first = when_any(std::move(futures)).get();
  EXPECT_EQ(first.index, 1U);
  EXPECT_EQ(first.value, 20);
}

TEST(WhenAny, FailureOfTheFirstIsRethrown) {
  std::vector<Future<int>> futures;
  futures.push_back(later(10, 100ms));
  futures.push_back(failing_later("fast failure", 1ms));
  EXPECT_THROW((void)when_any(std::move(futures)).get(), std::runtime_error);
}

TEST(WhenAny, EmptyInputIsRejected) { EXPECT_THROW((void)when_any(std::vector<Future<int>>{}), InvalidArgument); }

}  // namespace
}  // namespace propgraph::fiber_test
