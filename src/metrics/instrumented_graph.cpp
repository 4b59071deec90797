#include <bit>
#include <new>

#include <fmt/format.h>

#include "propgraph/errors.hpp"
#include "propgraph/metrics.hpp"

namespace propgraph {

namespace {
constexpr std::array<std::string_view, error_kind_count> kErrorKindNames = {
    "invalid_argument",     "not_found", "already_exists", "query", "connection", "import",
    "transaction_conflict", "timeout",   "storage",        "other",
};
}  // namespace

std::string_view to_string(ErrorKind kind) noexcept {
  const auto i = static_cast<std::size_t>(kind);
  return i < kErrorKindNames.size() ? kErrorKindNames[i] : std::string_view("unknown");
}

ErrorKind classify(const std::exception_ptr& error) noexcept {
  try {
    std::rethrow_exception(error);
  } catch (const InvalidArgument&) {
    return ErrorKind::invalid_argument;
  } catch (const NotFound&) {
    return ErrorKind::not_found;
  } catch (const AlreadyExists&) {
    return ErrorKind::already_exists;
  } catch (const QueryError&) {
    return ErrorKind::query;
  } catch (const ConnectionError&) {
    return ErrorKind::connection;
  } catch (const ImportError&) {
    return ErrorKind::import;
  } catch (const TransactionConflict&) {
    return ErrorKind::transaction_conflict;
  } catch (const Timeout&) {
    return ErrorKind::timeout;
  } catch (const StorageError&) {
    return ErrorKind::storage;
  } catch (...) {
    return ErrorKind::other;
  }
}

std::size_t latency_bucket(std::chrono::nanoseconds duration) noexcept {
  const auto ns = duration.count();
  if (ns <= 1000) return 0;
  // Whole microseconds, rounded up: bucket i holds (2^(i-1), 2^i] µs.
  const auto us = static_cast<std::uint64_t>((ns + 999) / 1000);
  const auto i = static_cast<std::size_t>(std::bit_width(us - 1));
  return i < latency_bucket_count ? i : latency_bucket_count - 1;
}

std::uint64_t OperationMetrics::calls() const noexcept {
  std::uint64_t n = 0;
  for (auto c : latency_buckets) n += c;
  return n;
}

std::uint64_t OperationMetrics::error_count() const noexcept {
  std::uint64_t n = 0;
  for (auto c : errors) n += c;
  return n;
}

std::uint64_t MetricsSnapshot::total_calls() const noexcept {
  std::uint64_t n = 0;
  for (const auto& op : operations) n += op.calls();
  return n;
}

// One operation's counters, on cache lines of their own.
struct alignas(64) InstrumentedGraph::Counters {
  std::array<std::atomic<std::uint64_t>, latency_bucket_count> buckets{};
  std::array<std::atomic<std::uint64_t>, error_kind_count> errors{};
  std::atomic<std::int64_t> total_ns{0};

  void count(std::chrono::nanoseconds duration) noexcept {
    buckets[latency_bucket(duration)].fetch_add(1, std::memory_order_relaxed);
    total_ns.fetch_add(duration.count(), std::memory_order_relaxed);
  }
};

InstrumentedGraph::InstrumentedGraph(GraphOperations& inner)
    : GraphDecorator(inner), counters_(std::make_unique<Counters[]>(operation_count)) {}

InstrumentedGraph::InstrumentedGraph(std::shared_ptr<GraphOperations> inner)
    : GraphDecorator(std::move(inner)), counters_(std::make_unique<Counters[]>(operation_count)) {}

InstrumentedGraph::~InstrumentedGraph() = default;

void InstrumentedGraph::around(Operation op, CallRef call) {
  Counters& counters = counters_[static_cast<std::size_t>(op)];
  const auto start = std::chrono::steady_clock::now();
  try {
    call();
  } catch (...) {
    counters.count(std::chrono::steady_clock::now() - start);
    counters.errors[static_cast<std::size_t>(classify(std::current_exception()))].fetch_add(1,
                                                                                            std::memory_order_relaxed);
    throw;
  }
  counters.count(std::chrono::steady_clock::now() - start);
}

MetricsSnapshot InstrumentedGraph::snapshot() const noexcept {
  MetricsSnapshot snapshot;
  for (std::size_t op = 0; op < operation_count; ++op) {
    const Counters& from = counters_[op];
    OperationMetrics& to = snapshot.operations[op];
    for (std::size_t i = 0; i < latency_bucket_count; ++i) {
      to.latency_buckets[i] = from.buckets[i].load(std::memory_order_relaxed);
    }
    for (std::size_t i = 0; i < error_kind_count; ++i) to.errors[i] = from.errors[i].load(std::memory_order_relaxed);
    to.total_latency = std::chrono::nanoseconds(from.total_ns.load(std::memory_order_relaxed));
  }
  return snapshot;
}

std::string to_prometheus(const MetricsSnapshot& snapshot) {
  std::string out;
  auto family = [&](std::string_view name, std::string_view type, std::string_view help) {
    fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  };
  auto called = [&](std::size_t op) { return snapshot.operations[op].calls() != 0; };
  auto name_of = [](std::size_t op) { return to_string(static_cast<Operation>(op)); };

  family("propgraph_calls_total", "counter", "Graph calls finished, failed ones included, by operation.");
  for (std::size_t op = 0; op < operation_count; ++op) {
    if (!called(op)) continue;
    fmt::format_to(std::back_inserter(out), "propgraph_calls_total{{operation=\"{}\"}} {}\n", name_of(op),
                   snapshot.operations[op].calls());
  }

  family("propgraph_errors_total", "counter", "Graph calls that threw, by operation and error kind.");
  for (std::size_t op = 0; op < operation_count; ++op) {
    const auto& errors = snapshot.operations[op].errors;
    for (std::size_t kind = 0; kind < error_kind_count; ++kind) {
      if (errors[kind] == 0) continue;
      fmt::format_to(std::back_inserter(out), "propgraph_errors_total{{operation=\"{}\",error=\"{}\"}} {}\n",
                     name_of(op), to_string(static_cast<ErrorKind>(kind)), errors[kind]);
    }
  }

  family("propgraph_call_duration_seconds", "histogram", "Graph call duration, by operation.");
  for (std::size_t op = 0; op < operation_count; ++op) {
    if (!called(op)) continue;
    const OperationMetrics& m = snapshot.operations[op];
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i + 1 < latency_bucket_count; ++i) {
      cumulative += m.latency_buckets[i];
      const double bound = std::chrono::duration<double>(latency_bucket_bound(i)).count();
      fmt::format_to(std::back_inserter(out),
                     "propgraph_call_duration_seconds_bucket{{operation=\"{}\",le=\"{}\"}} {}\n", name_of(op), bound,
                     cumulative);
    }
    cumulative += m.latency_buckets.back();
    fmt::format_to(std::back_inserter(out),
                   "propgraph_call_duration_seconds_bucket{{operation=\"{}\",le=\"+Inf\"}} {}\n"
                   "propgraph_call_duration_seconds_sum{{operation=\"{}\"}} {}\n"
                   "propgraph_call_duration_seconds_count{{operation=\"{}\"}} {}\n",
                   name_of(op), cumulative, name_of(op), std::chrono::duration<double>(m.total_latency).count(),
                   name_of(op), cumulative);
  }
  return out;
}

}  // namespace propgraph
