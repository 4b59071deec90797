// The forwarding base of the backend kit: every GraphOperations call passed to another graph
// through one hook. Decorators (GraphDecorator, and through it LatencyGraph and
// InstrumentedGraph) and transactions that wrap another backend's (PostgresGraph's) build on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "propgraph/operation_list.hpp"
#include "propgraph/operations.hpp"

namespace propgraph {

#define PROPGRAPH_DETAIL_OPERATION(name, result, parameters, arguments) name,
#define PROPGRAPH_DETAIL_SKIP(name, result, parameters, arguments)
/// Names each GraphOperations method (overloads share one), then the transaction calls, for
/// decorators and metrics.
enum class Operation : std::uint8_t {
  PROPGRAPH_GRAPH_OPERATIONS(PROPGRAPH_DETAIL_OPERATION, PROPGRAPH_DETAIL_SKIP, PROPGRAPH_NO_DEFAULT_ARG)  // the list
  begin,
  commit,
  rollback,
};
#undef PROPGRAPH_DETAIL_OPERATION
#undef PROPGRAPH_DETAIL_SKIP

/// Number of Operation values.
inline constexpr std::size_t operation_count = static_cast<std::size_t>(Operation::rollback) + 1;

/// The method's name, e.g. "find_vertex_by_id"; "unknown" for a value outside the enum.
[[nodiscard]] std::string_view to_string(Operation op) noexcept;

/// A non-owning reference to a callable taking no arguments and returning nothing.
class CallRef {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, CallRef>)
  explicit CallRef(F& f) noexcept : object_(&f), invoke_([](void* o) { (*static_cast<F*>(o))(); }) {}
  void operator()() const { invoke_(object_); }

 private:
  void* object_;
  void (*invoke_)(void*);
};

namespace backend {

namespace detail {
/// Throws Error: a hook returned without running the call it was given.
[[noreturn]] void throw_call_not_run(Operation op);
}  // namespace detail

/// Every GraphOperations call of Base (GraphOperations or Transaction), generated from
/// PROPGRAPH_GRAPH_OPERATIONS, forwarded to a target graph through around(op, call).
///
/// - A derived class implements around() (run `call` exactly once, or throw instead) and
///   whatever Base adds: begin() for a graph (not forwarded: wrap the target's transaction in
///   a Forwarding<Transaction> of your own), commit(), rollback() and is_open() for a
///   transaction. It may override single calls as well.
/// - Arguments, results and exceptions pass through unchanged; each call is forwarded as one
///   call (bulk writes included). Cost over a direct virtual call: one indirect call to
///   around() and the result moved once.
/// - The target must outlive this object; thread safety is the target's.
template <class Base>
class Forwarding : public Base {
  static_assert(std::is_base_of_v<GraphOperations, Base>);

 public:
#define PROPGRAPH_DETAIL_FORWARD(name, result, parameters, arguments)                                        \
  result name parameters override {                                                                          \
    return forward(Operation::name, [&](GraphOperations& graph) -> result { return graph.name arguments; }); \
  }
  PROPGRAPH_GRAPH_OPERATIONS(PROPGRAPH_DETAIL_FORWARD, PROPGRAPH_DETAIL_FORWARD, PROPGRAPH_DEFAULT_ARG)
#undef PROPGRAPH_DETAIL_FORWARD
  using GraphOperations::query;  // the query(std::string_view, ...) convenience

 protected:
  explicit Forwarding(GraphOperations& target) noexcept : target_(&target) {}
  /// The hook every forwarded call goes through.
  virtual void around(Operation op, CallRef call) = 0;
  /// The one forwarding mechanism: fn(target) run through around(op); returns fn's result.
  template <class Fn>
  auto forward(Operation op, Fn&& fn) -> std::invoke_result_t<Fn&, GraphOperations&> {
    using R = std::invoke_result_t<Fn&, GraphOperations&>;
    std::optional<R> result;
    auto call = [&] { result.emplace(fn(*target_)); };
    around(op, CallRef(call));
    if (!result) detail::throw_call_not_run(op);
    return std::move(*result);
  }
  /// The graph calls go to.
  [[nodiscard]] GraphOperations& target() const noexcept { return *target_; }

 private:
  GraphOperations* target_;
};

extern template class Forwarding<GraphOperations>;
extern template class Forwarding<Transaction>;

}  // namespace backend
}  // namespace propgraph
