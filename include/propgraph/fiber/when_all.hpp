// Combining fiber futures: when_all (every result, in argument order) and when_any (the first).
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/fiber/fiber.hpp>

#include "propgraph/errors.hpp"
#include "propgraph/fiber/future.hpp"
#include "propgraph/fiber/spawn.hpp"

namespace propgraph {

namespace detail {
/// What a Future<T> contributes to a combined result: T, or std::monostate for void.
template <class T>
using result_slot_t = std::conditional_t<std::is_void_v<T>, std::monostate, T>;

template <class T>
result_slot_t<T> take(Future<T>& future) {
  if constexpr (std::is_void_v<T>) {
    future.get();
    return {};
  } else {
    return future.get();
  }
}
}  // namespace detail

/// Combines independent futures into one whose value is the tuple of their values, in argument
/// order (a void future contributes std::monostate). Start the calls first, then combine:
///
///     auto ops = as_fiber(graph);
///     auto both = when_all(ops.neighbors_async(a), ops.neighbors_async(b));
///     auto [na, nb] = both.get();
///
/// - Waits for every input before completing, even when one fails; then, if any failed, get()
///   rethrows the exception of the first failed input in argument order (the others' are
///   dropped).
/// - The inputs keep running wherever they were started; the combining runs on one fiber of
///   the calling thread (run_on_fiber with default options), which costs one fiber start.
/// - Inputs must be valid futures (not yet retrieved); O(number of inputs).
template <class... T>
[[nodiscard]] Future<std::tuple<detail::result_slot_t<T>...>> when_all(Future<T>... futures) {
  return run_on_fiber([inputs = std::make_tuple(std::move(futures)...)]() mutable {
    std::apply([](auto&... f) { (f.wait(), ...); }, inputs);
    // Braced initialisation evaluates left to right: the first failure in argument order wins.
    return std::apply([](auto&... f) { return std::tuple<detail::result_slot_t<T>...>{detail::take(f)...}; }, inputs);
  });
}

/// Same for a run-time number of futures of one type: values in the order of `futures`.
/// An empty vector gives an empty result.
template <class T>
[[nodiscard]] Future<std::vector<detail::result_slot_t<T>>> when_all(std::vector<Future<T>> futures) {
  return run_on_fiber([inputs = std::move(futures)]() mutable {
    for (auto& f : inputs) f.wait();
    std::vector<detail::result_slot_t<T>> out;
    out.reserve(inputs.size());
    for (auto& f : inputs) out.push_back(detail::take(f));
    return out;
  });
}

/// The first of several futures to become ready: its position in the input and its value.
template <class T>
struct AnyResult {
  std::size_t index = 0;
  detail::result_slot_t<T> value;
};

/// Completes as soon as one input is ready: with {index, value} of that input, or by rethrowing
/// its exception. The other inputs keep running; their results are discarded when they
/// complete. Starts one small waiting fiber per input on the calling thread; each ends when
/// its input is ready (so a thread's exit also waits for the slowest input). Throws
/// InvalidArgument when `futures` is empty. Ties go to whichever waiter runs first.
template <class T>
[[nodiscard]] Future<AnyResult<T>> when_any(std::vector<Future<T>> futures) {
  if (futures.empty()) throw InvalidArgument("when_any: no futures given");
  struct Shared {
    detail::Promise<AnyResult<T>> promise;
    std::atomic<bool> decided{false};
  };
  auto shared = std::make_shared<Shared>();
  Future<AnyResult<T>> result = shared->promise.get_future();
  for (std::size_t i = 0; i < futures.size(); ++i) {
    boost::fibers::fiber(boost::fibers::launch::post, std::allocator_arg, StackAllocator{},
                         [shared, i, input = std::move(futures[i])]() mutable noexcept {
                           input.wait();
                           if (shared->decided.exchange(true)) return;  // lost the race
                           try {
                             shared->promise.set_value(AnyResult<T>{i, detail::take(input)});
                           } catch (...) {
                             shared->promise.set_exception(std::current_exception());
                           }
                         })
        .detach();
  }
  return result;
}

}  // namespace propgraph
