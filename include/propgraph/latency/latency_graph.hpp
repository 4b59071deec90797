// LatencyGraph: a GraphOperations decorator that waits before every call, simulating a network
// round trip (CMake target propgraph::latency).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "propgraph/decorator.hpp"
#include "propgraph/latency/wait.hpp"

namespace propgraph {

/// The wait a LatencyGraph adds before each call. Fill it with designated initializers or the
/// named constructors below:
///
///     LatencyOptions{.mean = 1ms}                        // every call waits 1 ms
///     LatencyOptions::lognormal(1ms, 300us, /*seed=*/7)  // skewed, mean 1 ms, stddev 300 µs
struct LatencyOptions {
  enum class Distribution : std::uint8_t {
    fixed,        ///< every wait is `mean`
    uniform,      ///< uniform on [mean - spread, mean + spread]
    normal,       ///< mean `mean`, standard deviation `spread`; negative draws wait 0
    exponential,  ///< mean `mean` (memoryless arrivals); `spread` unused
    lognormal,    ///< mean `mean`, standard deviation `spread` of the wait itself (long tail)
  };

  Distribution distribution = Distribution::fixed;
  /// The wait (fixed) or the mean wait (every other distribution). Must not be negative.
  std::chrono::nanoseconds mean{0};
  /// Half-width (uniform) or standard deviation (normal, lognormal). Must not be negative;
  /// for uniform at most `mean`.
  std::chrono::nanoseconds spread{0};
  /// Seeds the draws; unused by fixed.
  std::uint64_t seed = 0;

  [[nodiscard]] static LatencyOptions fixed(std::chrono::nanoseconds wait) noexcept {
    return {.distribution = Distribution::fixed, .mean = wait, .spread = {}, .seed = 0};
  }
  [[nodiscard]] static LatencyOptions uniform(std::chrono::nanoseconds mean, std::chrono::nanoseconds half_width,
                                              std::uint64_t seed = 0) noexcept {
    return {.distribution = Distribution::uniform, .mean = mean, .spread = half_width, .seed = seed};
  }
  [[nodiscard]] static LatencyOptions normal(std::chrono::nanoseconds mean, std::chrono::nanoseconds stddev,
                                             std::uint64_t seed = 0) noexcept {
    return {.distribution = Distribution::normal, .mean = mean, .spread = stddev, .seed = seed};
  }
  [[nodiscard]] static LatencyOptions exponential(std::chrono::nanoseconds mean, std::uint64_t seed = 0) noexcept {
    return {.distribution = Distribution::exponential, .mean = mean, .spread = {}, .seed = seed};
  }
  [[nodiscard]] static LatencyOptions lognormal(std::chrono::nanoseconds mean, std::chrono::nanoseconds stddev,
                                                std::uint64_t seed = 0) noexcept {
    return {.distribution = Distribution::lognormal, .mean = mean, .spread = stddev, .seed = seed};
  }

  /// The wait of call number `n` (counting from 0): a pure function of these options and `n`
  /// (a counter-based generator, no shared state), never negative; draws beyond the range of
  /// nanoseconds are clamped to nanoseconds::max(). O(1).
  [[nodiscard]] std::chrono::nanoseconds wait_for_call(std::uint64_t n) const noexcept;

  /// Throws InvalidArgument when a field is out of range (see the fields).
  void validate() const;
};

/// Decorates any GraphOperations with a wait before each call: a stand-in for a backend across
/// a network, for capacity planning and for measuring execution models (propgraph-concurrency).
///
/// - Every GraphOperations method, including the session, label, index and bulk methods, first
///   waits, then calls the same method of the backend with the same arguments and returns its
///   result or lets its exception through unchanged. Nothing else is added, cached or reordered.
/// - Deadlines (DeadlineScope): when the deadline in force comes before the end of the wait, the
///   call waits until the deadline and throws Timeout without calling the backend.
/// - The wait is propgraph::wait_for (wait.hpp): on a fiber it suspends only that fiber, so
///   the thread's other fibers keep running; on a thread's main context it blocks the thread,
///   exactly as a blocking network driver does. A zero wait does not yield.
/// - Waits: call number n (counted from 0 across all callers, in the order calls start) waits
///   options.wait_for_call(n). A single caller issuing calls one after another therefore gets
///   the same waits on every run with the same seed; with concurrent callers the sequence is
///   the same but which caller draws which wait depends on timing.
/// - Each call waits at least its drawn wait; the OS timer slack (50 µs by default on Linux,
///   see wait_until) and scheduling add to it.
/// - Thread safety: as safe as the backend; LatencyGraph itself only keeps an atomic counter.
class LatencyGraph final : public GraphDecorator {
 public:
  /// Decorates `backend`, which must outlive this object. Throws InvalidArgument when
  /// `options` is invalid (LatencyOptions::validate).
  explicit LatencyGraph(GraphOperations& backend, LatencyOptions options = {});
  /// Decorates `backend` and shares its ownership. Throws InvalidArgument on a null backend or
  /// invalid `options`.
  explicit LatencyGraph(std::shared_ptr<GraphOperations> backend, LatencyOptions options = {});
  LatencyGraph(const LatencyGraph&) = delete;
  LatencyGraph& operator=(const LatencyGraph&) = delete;

  [[nodiscard]] GraphOperations& backend() const noexcept { return inner(); }
  [[nodiscard]] const LatencyOptions& options() const noexcept { return options_; }
  /// Calls started so far (each has drawn its wait).
  [[nodiscard]] std::uint64_t calls() const noexcept { return calls_.load(std::memory_order_relaxed); }

 protected:
  /// Waits for the next draw (or until the deadline, then throws Timeout), then runs the call.
  void around(Operation op, CallRef call) override;

 private:
  LatencyOptions options_;
  std::atomic<std::uint64_t> calls_{0};
};

}  // namespace propgraph
