// GraphDecorator: the base of GraphOperations decorators (LatencyGraph, InstrumentedGraph, test
// doubles). It forwards every call to an inner GraphOperations through one hook, around().
#pragma once

#include <memory>

#include "propgraph/backend/forwarding.hpp"
#include "propgraph/operations.hpp"

namespace propgraph {

/// Forwards every GraphOperations call to `inner()` through around(): override around() to act
/// before and after each call (wait, time, count, fail), or override single methods.
///
/// - Arguments and results pass through unchanged, exceptions too; nothing is cached or
///   reordered. The bulk calls (create_vertices, create_edges) are forwarded as one call.
/// - begin() returns the inner graph's transaction wrapped so that its calls, and its
///   commit() and rollback(), go through around() as well (Operation::begin, commit, rollback).
/// - around(op, call) must run `call` exactly once, or throw instead of running it.
/// - Thread safety is the inner graph's; around() runs on the calling thread or fiber.
class GraphDecorator : public backend::Forwarding<GraphOperations> {
 public:
  /// Forwards to `inner`, which must outlive this object.
  explicit GraphDecorator(GraphOperations& inner) noexcept : Forwarding(inner) {}
  /// Forwards to `inner` and shares its ownership. Throws InvalidArgument on null.
  explicit GraphDecorator(std::shared_ptr<GraphOperations> inner);

  /// The decorated graph.
  [[nodiscard]] GraphOperations& inner() const noexcept { return target(); }

  [[nodiscard]] std::unique_ptr<Transaction> begin() override;

 protected:
  /// The hook every forwarded call goes through; the default runs `call`.
  void around(Operation op, CallRef call) override;

 private:
  friend class DecoratedTransaction;
  std::shared_ptr<GraphOperations> owner_;  // empty when the inner graph is borrowed
};

}  // namespace propgraph
