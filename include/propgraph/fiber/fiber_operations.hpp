// The fiber facade: every GraphOperations method as an `_async` twin returning a fiber future.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "propgraph/deadline.hpp"
#include "propgraph/fiber/fiber_pool.hpp"
#include "propgraph/fiber/spawn.hpp"
#include "propgraph/operation_list.hpp"
#include "propgraph/operations.hpp"

namespace propgraph {

namespace detail {
/// The type an argument is stored as inside the fiber: an owning copy (string views become
/// strings, spans vectors).
template <class T>
struct owned {
  using type = T;
  template <class U>
  static type copy(U&& value) {
    return type(std::forward<U>(value));
  }
};
template <>
struct owned<std::string_view> {
  using type = std::string;
  static type copy(std::string_view value) { return type(value); }
};
template <class T>
struct owned<std::span<const T>> {
  using type = std::vector<T>;
  static type copy(std::span<const T> value) { return type(value.begin(), value.end()); }
};
template <class T>
using owned_t = typename owned<std::remove_cvref_t<T>>::type;
/// The owning copy of an argument.
template <class T>
owned_t<T> own(T&& value) {
  return owned<std::remove_cvref_t<T>>::copy(std::forward<T>(value));
}
}  // namespace detail

/// Runs GraphOperations calls on Boost.Fibers. Obtain one with as_fiber().
///
/// - Each `<method>_async` takes the same parameters as its GraphOperations twin, runs that
///   same synchronous call on a fiber and returns `Future<R>` (future.hpp; used like
///   boost::fibers::future) of the twin's result type R. The results are exactly the sync
///   results. `Future<R>` converts implicitly to `boost::fibers::future<R>`, the type the
///   design contract names: `boost::fibers::future<Vertex> f = ops.create_vertex_async(...)`.
/// - Arguments are copied into owning values before the call returns (string_view becomes
///   std::string; ElementId, Properties and options are copied), so the future stays valid
///   after the caller's temporaries are gone (the elements of create_vertices_async's and
///   create_edges_async's spans too: the span need not outlive the call).
/// - Errors: whatever the backend throws comes out of `future.get()` unchanged (same type, same
///   message). Starting the call throws only std::bad_alloc, or PoolClosed on a closed pool.
/// - Where it runs: with as_fiber(graph, options), on the calling thread's scheduler
///   (run_on_fiber: by default launch::dispatch, a recycled fiber, cached 128 KiB stack);
///   with as_fiber(graph, pool), on a FiberPool thread (FiberPool::submit).
/// - Cost when joined immediately: one block from a per-thread free list holding the copied
///   arguments and the result, two fiber switches (a call that does not wait returns straight
///   to its caller, see FiberOptions::launch), the result moved out once. propgraph-bench
///   measures it against the sync call (README, "Benchmark results"). A pool call from a plain
///   thread hands the call to a pool thread and back: cheap while the pool thread is still
///   looking for work (FiberPoolOptions::idle_spin), a thread wake-up after it fell asleep.
/// - The facade never owns or closes the graph, nor the pool: both must outlive every call
///   started through it (including calls whose futures are still pending). FiberOperations is
///   a small value: copy it freely; it is safe to use from several threads.
class FiberOperations {
 public:
  /// Calls run on the calling thread's scheduler, started as `options` says.
  explicit FiberOperations(GraphOperations& graph, FiberOptions options = {}) noexcept
      : graph_(&graph), options_(std::move(options)) {}
  /// Calls run on `pool`.
  FiberOperations(GraphOperations& graph, FiberPool& pool) noexcept : graph_(&graph), pool_(&pool) {}

  /// The wrapped synchronous interface.
  [[nodiscard]] GraphOperations& sync() const noexcept { return *graph_; }
  /// The pool calls run on, or nullptr when they run on the calling thread.
  [[nodiscard]] FiberPool* pool() const noexcept { return pool_; }
  /// How calls start on the calling thread (unused with a pool).
  [[nodiscard]] const FiberOptions& options() const noexcept { return options_; }

  /// A facade whose calls each run under a deadline `timeout` after the call starts (or the
  /// caller's own deadline, when that is earlier): a call that cannot finish in time fails with
  /// Timeout. See DeadlineScope.
  [[nodiscard]] FiberOperations with_timeout(std::chrono::nanoseconds timeout) const noexcept {
    FiberOperations copy = *this;
    copy.timeout_ = timeout;
    return copy;
  }
  /// The per-call budget set by with_timeout(), if any.
  [[nodiscard]] std::optional<std::chrono::nanoseconds> timeout() const noexcept { return timeout_; }

  /// Runs `graph.*Method(args...)` on a fiber, as the `_async` twins run their calls: arguments
  /// are stored as detail::owned_t copies and passed to the method as lvalues.
  template <auto Method, class... Args>
  [[nodiscard]] auto call(Args&&... args) const
      -> Future<std::invoke_result_t<decltype(Method), GraphOperations&, const detail::owned_t<Args>&...>> {
    return bound([](GraphOperations& graph, const auto&... owned) { return (graph.*Method)(owned...); })(
        std::forward<Args>(args)...);
  }

  /// Runs `task()` on a fiber as every call does: where the facade runs calls, under the
  /// caller's deadline (and with_timeout's), which travels with it as a DeadlineScope.
  template <class Task>
  [[nodiscard]] auto start(Task task) const -> Future<std::invoke_result_t<Task&>> {
    auto scoped = [deadline = call_deadline(), task = std::move(task)]() mutable {
      if (deadline) {
        DeadlineScope scope(*deadline);
        return task();
      }
      return task();
    };
    if (pool_ != nullptr) return pool_->submit(std::move(scoped));
    return run_on_fiber(std::move(scoped), options_);
  }

 private:
  /// `bound(fn)(args...)` starts fn(graph, owned copies of args...) on a fiber: the one
  /// mechanism under every `_async` twin and call().
  /// Fn is a lambda without captures, made again inside the fiber (nothing of it is stored).
  template <class Fn>
  [[nodiscard]] auto bound(Fn) const {
    return [this](auto&&... args) {
      return start([graph = graph_, ... owned = detail::own(std::forward<decltype(args)>(args))]() {
        return Fn{}(*graph, owned...);
      });
    };
  }

 public:
  // -- every GraphOperations call but begin(), generated from PROPGRAPH_GRAPH_OPERATIONS -------
#define PROPGRAPH_DETAIL_ASYNC(name, result, parameters, arguments)                                           \
  [[nodiscard]] Future<result> name##_async parameters const {                                                \
    return bound([](GraphOperations& graph, const auto&... owned) -> result { return graph.name(owned...); }) \
        arguments;                                                                                            \
  }
  PROPGRAPH_GRAPH_OPERATIONS(PROPGRAPH_DETAIL_ASYNC, PROPGRAPH_DETAIL_ASYNC, PROPGRAPH_DEFAULT_ARG)
#undef PROPGRAPH_DETAIL_ASYNC

  /// query(text, parameters) on a fiber, the twin of GraphOperations' convenience: the text is
  /// parsed there, so a syntax or semantic error arrives through the future as QueryError.
  [[nodiscard]] Future<QueryResult> query_async(std::string_view text, const Parameters& parameters = {}) const {
    return bound([](GraphOperations& graph, const auto&... owned) -> QueryResult { return graph.query(owned...); })(
        text, parameters);
  }

  // -- transactions ------------------------------------------------------------------------------
  /// A transaction of the wrapped graph; run its calls on fibers with as_fiber(*tx).
  [[nodiscard]] Future<std::unique_ptr<Transaction>> begin_async() const { return call<&GraphOperations::begin>(); }
  /// propgraph::transact(graph, fn, options) on a fiber: fn(Transaction&) runs there, the
  /// transaction commits, and conflicts are retried. fn is moved into the fiber.
  template <class Fn>
  [[nodiscard]] auto transact_async(Fn fn, TransactOptions options = {}) const
      -> Future<std::invoke_result_t<Fn&, Transaction&>> {
    return start([graph = graph_, fn = std::move(fn), options]() mutable { return transact(*graph, fn, options); });
  }

 private:
  /// The deadline a call started now runs under: the caller's, or now + timeout_ if earlier.
  [[nodiscard]] std::optional<DeadlineClock::time_point> call_deadline() const {
    auto deadline = current_deadline();
    if (timeout_) {
      const auto own = deadline_after(*timeout_);
      if (!deadline || own < *deadline) deadline = own;
    }
    return deadline;
  }

  GraphOperations* graph_;
  FiberPool* pool_ = nullptr;
  FiberOptions options_{};
  std::optional<std::chrono::nanoseconds> timeout_;
};

/// The fiber facade over `graph`, running calls on the calling thread's scheduler as `options`
/// says (default: launch::dispatch, recycled fibers, cached guarded 128 KiB stacks). Does not
/// take ownership of `graph`.
[[nodiscard]] inline FiberOperations as_fiber(GraphOperations& graph, FiberOptions options = {}) noexcept {
  return FiberOperations(graph, std::move(options));
}

/// The fiber facade over `graph`, running calls on `pool`'s threads. Owns neither.
[[nodiscard]] inline FiberOperations as_fiber(GraphOperations& graph, FiberPool& pool) noexcept {
  return FiberOperations(graph, pool);
}

}  // namespace propgraph
