// The one-writer-at-a-time gate of MemoryGraph.
#pragma once

#include <atomic>
#include <optional>

#include "memory/thread_fiber_condition.hpp"
#include "propgraph/deadline.hpp"

namespace propgraph::detail {

/// Admits one writer at a time: a single write for its duration, a transaction from its first
/// write until it ends. Unlike a mutex it is not owned by a thread or fiber (a transaction may
/// be driven from several fibers one after another), and waiting is fiber-aware: a fiber that
/// waits suspends, its thread runs other fibers; a plain thread blocks. Uncontended: one
/// compare-and-swap to enter, one store and two loads to leave.
class WriterGate {
 public:
  /// Enters, waiting as long as needed or until `deadline`; returns false when the deadline
  /// passed first (the gate was not entered).
  [[nodiscard]] bool enter(std::optional<DeadlineClock::time_point> deadline) {
    return try_enter() || free_.wait_until([this] { return try_enter(); }, deadline);
  }
  void leave() noexcept {
    busy_.store(false);
    free_.notify_one();
  }

 private:
  bool try_enter() noexcept {
    bool expected = false;
    return busy_.compare_exchange_strong(expected, true);
  }

  std::atomic<bool> busy_{false};  // seq_cst: see ThreadFiberCondition
  ThreadFiberCondition free_;
};

}  // namespace propgraph::detail
