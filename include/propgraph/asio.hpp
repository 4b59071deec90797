// Waiting for fiber futures from Asio code (CMake target propgraph::asio, header only):
// async_get turns a propgraph::Future (or a boost::fibers::future) into an Asio asynchronous
// operation.
//
//     boost::asio::awaitable<void> handle(propgraph::FiberOperations graph, propgraph::ElementId id) {
//       std::optional<propgraph::Vertex> v =
//           co_await propgraph::async_get(graph.find_vertex_async(id), boost::asio::use_awaitable);
//       ...
//     }
#pragma once

#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/fiber/future/future.hpp>

#include "propgraph/fiber/fiber_pool.hpp"
#include "propgraph/fiber/spawn.hpp"

namespace propgraph {

namespace detail {

/// The futures async_get waits for, and their value type: propgraph::Future<T> (what the
/// facade returns) and boost::fibers::future<T>.
template <class F>
struct FutureValue {};
template <class T>
struct FutureValue<Future<T>> {
  using type = T;
};
template <class T>
struct FutureValue<boost::fibers::future<T>> {
  using type = T;
};
template <class F>
concept WaitableFuture = requires { typename FutureValue<F>::type; };

/// The completion signature of async_get for a future of T.
template <class T>
struct FutureCompletion {
  using type = void(std::exception_ptr, T);
};
template <>
struct FutureCompletion<void> {
  using type = void(std::exception_ptr);
};

/// Starts the wait: a fiber of `waiter` waits for the future, then posts the handler with the
/// outcome to the handler's associated executor.
struct InitiateFutureWait {
  FiberPool* waiter;

  template <class Handler, WaitableFuture F>
  void operator()(Handler&& handler, F future) const {
    using T = typename FutureValue<F>::type;
    auto work = boost::asio::make_work_guard(boost::asio::get_associated_executor(handler));
    // The task catches everything itself, so the future submit() returns would never hold an
    // exception: dropping it loses nothing.
    static_cast<void>(waiter->submit([handler = std::forward<Handler>(handler), future = std::move(future),
                                      work = std::move(work)]() mutable noexcept {
      std::exception_ptr error;
      if constexpr (std::is_void_v<T>) {
        try {
          future.get();
        } catch (...) {
          error = std::current_exception();
        }
        boost::asio::post(work.get_executor(),
                          [handler = std::move(handler), error]() mutable { std::move(handler)(error); });
      } else {
        std::optional<T> value;
        try {
          value.emplace(future.get());
        } catch (...) {
          error = std::current_exception();
        }
        boost::asio::post(work.get_executor(),
                          [handler = std::move(handler), error, value = std::move(value)]() mutable {
                            std::move(handler)(error, value ? std::move(*value) : T{});
                          });
      }
      work.reset();  // the posted handler holds the executor's work from here on
    }));
  }
};

}  // namespace detail

/// The pool whose fibers wait for async_get's futures when no pool is given: one thread with
/// small (32 KiB) stacks, started on first use. It is shut down at process exit, after the
/// waits still pending have finished.
[[nodiscard]] inline FiberPool& default_future_waiter() {
  static FiberPool pool(1, StackAllocator::cached(32 * 1024));
  return pool;
}

/// Waits for `future` (a propgraph::Future<T>, as every `_async` call returns, or a
/// boost::fibers::future<T>) without blocking the calling thread, and completes with its
/// outcome on the completion handler's associated executor: `void(std::exception_ptr, T)` (for
/// a future of void, `void(std::exception_ptr)`). With `boost::asio::use_awaitable`, `co_await`
/// yields the value or rethrows the exception get() would throw (same type, same message);
/// a callback receives the exception_ptr (null on success) and the value (T{} on failure, so
/// T must be default-constructible).
///
/// - Where the wait happens: a fiber of `waiter` (a FiberPool) calls future.get(), which
///   suspends only that fiber, then posts the handler (boost::asio::post) to the handler's
///   associated executor. No Asio thread ever blocks. Pass the pool the calls run on (as_fiber(
///   graph, pool)): waking the waiter is then a local fiber switch on that pool. A callback
///   with no associated executor runs on boost::asio::system_executor: bind one with
///   boost::asio::bind_executor.
/// - Cost per wait: one FiberPool submission (an allocation and a queue push that may wake an
///   idle pool thread), one parked pool fiber (recycled), and one post to the executor, which
///   wakes its thread when idle. That is two thread hand-offs, in and out, on top of the call.
/// - Lifetime: the executor's execution context is kept busy (outstanding work) until the
///   handler has run, and must outlive the wait; so must `waiter`. The future is moved in.
/// - Errors: starting the wait throws what FiberPool::submit throws (PoolClosed once the
///   waiter is shut down, std::bad_alloc); a failure to post the completion terminates.
/// - The wait cannot be cancelled: the operation completes when the future does.
template <detail::WaitableFuture F, class CompletionToken>
auto async_get(FiberPool& waiter, F future, CompletionToken&& token) {
  using T = typename detail::FutureValue<F>::type;
  return boost::asio::async_initiate<CompletionToken, typename detail::FutureCompletion<T>::type>(
      detail::InitiateFutureWait{&waiter}, token, std::move(future));
}

/// async_get on default_future_waiter(): for futures from anywhere (as_fiber on another
/// thread, a FiberPool, a promise); one extra thread does all the waiting.
template <detail::WaitableFuture F, class CompletionToken>
auto async_get(F future, CompletionToken&& token) {
  return async_get(default_future_waiter(), std::move(future), std::forward<CompletionToken>(token));
}

}  // namespace propgraph
