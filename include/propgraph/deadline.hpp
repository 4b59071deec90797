// Deadlines: a scope on the calling thread or fiber that every graph call made inside honours.
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <string_view>

namespace propgraph {

/// The clock deadlines are measured on.
using DeadlineClock = std::chrono::steady_clock;

/// now() + budget, saturating: a huge budget gives time_point::max() instead of overflowing; a
/// negative one gives a deadline that has passed.
template <class Rep, class Period>
[[nodiscard]] DeadlineClock::time_point deadline_after(std::chrono::duration<Rep, Period> budget) noexcept {
  const auto now = DeadlineClock::now();
  const auto room = std::chrono::duration<double>(DeadlineClock::time_point::max() - now);
  if (std::chrono::duration<double>(budget) >= room) return DeadlineClock::time_point::max();
  return now + std::chrono::duration_cast<DeadlineClock::duration>(budget);
}

/// Sets a deadline for every graph call that the creating thread or fiber makes while the scope
/// lives: a call that cannot finish in time throws Timeout and has no effect (see each backend
/// for how it stops: MemoryGraph checks as its algorithms go, PostgresGraph cancels the
/// statement, LatencyGraph stops waiting).
///
///     propgraph::DeadlineScope scope(20ms);
///     auto ranks = graph.page_rank();   // Timeout after about 20 ms
///
/// Writes: the deadline bounds a write's start and its wait for other writers. A write, bulk
/// write or commit that starts after the deadline, or cannot begin before it, throws Timeout
/// and changes nothing. A write that has been applied is never undone for lack of time: a
/// durable MemoryGraph's wait for the log sync that makes it durable is exempt (a Timeout then
/// would report a write that happened as failed), so such a call may return after its deadline.
///
/// Scopes nest: the earliest deadline in force wins, so an inner scope can shorten the budget
/// but never extend it. A scope belongs to the fiber (or thread) that created it, wherever the
/// fiber runs; it is meant to be a local variable (destroyed on that fiber, innermost first).
/// The fiber facade carries the deadline of the calling fiber into the fibers it starts.
/// Cost: creating and destroying a scope is a few tens of nanoseconds; while no scope exists
/// anywhere in the process a backend's check is one relaxed atomic load.
class DeadlineScope {
 public:
  explicit DeadlineScope(DeadlineClock::time_point deadline);
  template <class Rep, class Period>
  explicit DeadlineScope(std::chrono::duration<Rep, Period> budget) : DeadlineScope(deadline_after(budget)) {}
  ~DeadlineScope();
  DeadlineScope(const DeadlineScope&) = delete;
  DeadlineScope& operator=(const DeadlineScope&) = delete;

  /// The deadline in force inside this scope (the earlier of this one and the enclosing one).
  [[nodiscard]] DeadlineClock::time_point deadline() const noexcept { return deadline_; }

 private:
  DeadlineClock::time_point deadline_;
  const DeadlineScope* enclosing_;
};

namespace detail {
/// Number of live DeadlineScopes in the process; zero makes deadline checks free.
inline std::atomic<long> live_deadline_scopes{0};
[[nodiscard]] std::optional<DeadlineClock::time_point> scoped_deadline();
[[noreturn]] void throw_timeout(std::string_view operation);
}  // namespace detail

/// The deadline in force for the calling thread or fiber, or nullopt.
[[nodiscard]] inline std::optional<DeadlineClock::time_point> current_deadline() {
  if (detail::live_deadline_scopes.load(std::memory_order_relaxed) == 0) return std::nullopt;
  return detail::scoped_deadline();
}

/// Throws Timeout ("<operation>: deadline exceeded") when the deadline in force has passed.
inline void check_deadline(std::string_view operation) {
  if (auto d = current_deadline(); d && DeadlineClock::now() >= *d) detail::throw_timeout(operation);
}

/// For loops of long calls: checks the deadline in force every `Every` ticks, so the clock is
/// read rarely. Captures the deadline once, on construction.
template <unsigned Every = 1024>
class DeadlineTicker {
 public:
  explicit DeadlineTicker(std::string_view operation) : operation_(operation), deadline_(current_deadline()) {}
  /// Counts one step; throws Timeout once the deadline has passed (checked every `Every` steps).
  void tick() {
    if (deadline_ && ++count_ % Every == 0 && DeadlineClock::now() >= *deadline_) detail::throw_timeout(operation_);
  }
  /// Checks now, whatever the count.
  void check() const {
    if (deadline_ && DeadlineClock::now() >= *deadline_) detail::throw_timeout(operation_);
  }
  [[nodiscard]] bool active() const noexcept { return deadline_.has_value(); }

 private:
  std::string_view operation_;
  std::optional<DeadlineClock::time_point> deadline_;
  unsigned count_ = 0;
};

}  // namespace propgraph
