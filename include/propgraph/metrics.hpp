// InstrumentedGraph: a GraphOperations decorator that counts calls, errors and latencies per
// operation, and their Prometheus text exposition.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>

#include "propgraph/decorator.hpp"

namespace propgraph {

/// What a failed call threw, by exception family (the most derived propgraph error that
/// matches; `other` for anything else, std::bad_alloc included).
enum class ErrorKind : std::uint8_t {
  invalid_argument,
  not_found,
  already_exists,
  query,
  connection,
  import,
  transaction_conflict,
  timeout,
  storage,
  other,
};

/// Number of ErrorKind values.
inline constexpr std::size_t error_kind_count = static_cast<std::size_t>(ErrorKind::other) + 1;

/// The kind's name, e.g. "not_found" (the Prometheus label value).
[[nodiscard]] std::string_view to_string(ErrorKind kind) noexcept;

/// The ErrorKind of an exception.
[[nodiscard]] ErrorKind classify(const std::exception_ptr& error) noexcept;

/// Latency histogram buckets: fixed, log-scale. Bucket i counts calls that took at most
/// 2^i µs (and more than 2^(i-1) µs), for i < latency_bucket_count - 1: 1 µs, 2 µs, ... 2^24 µs
/// (16.8 s); the last bucket counts the slower calls.
inline constexpr std::size_t latency_bucket_count = 26;

/// Upper bound of bucket i (i < latency_bucket_count - 1).
[[nodiscard]] constexpr std::chrono::microseconds latency_bucket_bound(std::size_t i) noexcept {
  return std::chrono::microseconds(std::int64_t{1} << i);
}

/// The bucket a call of this duration is counted in. O(1).
[[nodiscard]] std::size_t latency_bucket(std::chrono::nanoseconds duration) noexcept;

/// The counters of one operation, as copied by InstrumentedGraph::snapshot().
struct OperationMetrics {
  /// Calls per latency bucket (not cumulative); every finished call is in exactly one.
  std::array<std::uint64_t, latency_bucket_count> latency_buckets{};
  /// Calls that threw, per ErrorKind (also counted in latency_buckets).
  std::array<std::uint64_t, error_kind_count> errors{};
  /// Sum of the durations of every finished call.
  std::chrono::nanoseconds total_latency{0};

  /// Finished calls, failed ones included: the sum of latency_buckets.
  [[nodiscard]] std::uint64_t calls() const noexcept;
  /// Calls that threw, whatever the kind.
  [[nodiscard]] std::uint64_t error_count() const noexcept;
  [[nodiscard]] std::uint64_t error_count(ErrorKind kind) const noexcept {
    return errors[static_cast<std::size_t>(kind)];
  }
};

/// Counters of every operation at one moment: a plain value, copy it freely.
struct MetricsSnapshot {
  std::array<OperationMetrics, operation_count> operations{};

  [[nodiscard]] const OperationMetrics& operator[](Operation op) const noexcept {
    return operations[static_cast<std::size_t>(op)];
  }
  /// Finished calls of every operation.
  [[nodiscard]] std::uint64_t total_calls() const noexcept;
};

/// Decorates any GraphOperations with per-operation counters: calls, errors by ErrorKind and a
/// latency histogram (latency_bucket). Results and exceptions pass through unchanged.
///
/// - A call is counted when it finishes (returns or throws), under the Operation of the method
///   called (decorator.hpp). Transactions begun through it count their calls too, commit()
///   and rollback() included; a rollback of a transaction that is already closed, and the
///   implicit rollback of an open one being destroyed, are not calls.
/// - Cost: two steady_clock reads and two relaxed atomic additions per call; an error adds
///   one classification (rethrow and catch). Counters are lock-free; operations keep their
///   counters on separate cache lines.
/// - snapshot() reads the counters one by one: during concurrent calls it may include a call
///   in latency_buckets and not yet in errors. Counters never decrease.
/// - Thread safety: as safe as the inner graph; the counters themselves are safe to update and
///   read from any number of threads and fibers.
class InstrumentedGraph final : public GraphDecorator {
 public:
  /// Decorates `inner`, which must outlive this object.
  explicit InstrumentedGraph(GraphOperations& inner);
  /// Decorates `inner` and shares its ownership. Throws InvalidArgument on null.
  explicit InstrumentedGraph(std::shared_ptr<GraphOperations> inner);
  ~InstrumentedGraph() override;
  InstrumentedGraph(const InstrumentedGraph&) = delete;
  InstrumentedGraph& operator=(const InstrumentedGraph&) = delete;

  /// The counters now. O(operation_count * latency_bucket_count).
  [[nodiscard]] MetricsSnapshot snapshot() const noexcept;

 protected:
  /// Times the call, then counts it (and its error, rethrown unchanged).
  void around(Operation op, CallRef call) override;

 private:
  struct Counters;
  std::unique_ptr<Counters[]> counters_;  // one per Operation
};

/// The snapshot in Prometheus text exposition format (version 0.0.4), one family each:
///
///     # TYPE propgraph_calls_total counter             {operation="..."}
///     # TYPE propgraph_errors_total counter            {operation="...",error="<ErrorKind>"}
///     # TYPE propgraph_call_duration_seconds histogram {operation="...",le="..."}
///
/// Only operations called at least once appear, and only error kinds that occurred. Each
/// family has its # HELP and # TYPE lines; lines end with '\n'.
[[nodiscard]] std::string to_prometheus(const MetricsSnapshot& snapshot);

}  // namespace propgraph
