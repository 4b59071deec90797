// Table 1: throughput and latency of graph calls through LatencyGraph(MemoryGraph) at a target
// concurrency, for each execution mode.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "bench_support.hpp"

namespace propgraph {
class FiberPool;
class GraphOperations;
struct ElementId;
}  // namespace propgraph

namespace propgraph::bench {

enum class ModeKind { sync, thread_pool, fibers_one_thread, fiber_pool };

/// How the C concurrent clients are served.
struct Mode {
  std::string_view id;
  ModeKind kind;
  std::size_t threads;
};

/// The modes of table 1, in column order.
inline constexpr std::array<Mode, 6> latency_modes{{
    {"sync", ModeKind::sync, 1},                       // one thread, requests one after another
    {"threads-2", ModeKind::thread_pool, 2},           // T threads share a FIFO of requests
    {"threads-16", ModeKind::thread_pool, 16},
    {"threads-256", ModeKind::thread_pool, 256},
    {"fibers-1thread", ModeKind::fibers_one_thread, 1},  // one fiber per client on this thread
    {"fibers-pool2", ModeKind::fiber_pool, 2},         // one fiber per client on a 2-thread FiberPool
}};

inline constexpr std::array<std::string_view, 2> latency_operations{"find_vertex_by_id", "neighbors"};
inline constexpr std::array<std::chrono::nanoseconds, 4> latency_waits{
    std::chrono::nanoseconds(0), std::chrono::microseconds(100), std::chrono::milliseconds(1),
    std::chrono::milliseconds(10)};
inline constexpr std::array<std::size_t, 4> latency_concurrencies{1, 16, 256, 4096};

/// The crossover grid: short waits and low concurrency, find_vertex_by_id, sync vs fibers.
inline constexpr std::array<std::chrono::nanoseconds, 3> crossover_waits{
    std::chrono::microseconds(1), std::chrono::microseconds(10), std::chrono::microseconds(50)};
inline constexpr std::array<std::size_t, 4> crossover_concurrencies{1, 2, 4, 16};
inline constexpr std::array<std::string_view, 3> crossover_modes{"sync", "fibers-1thread", "fibers-pool2"};

struct LatencyConfig {
  std::chrono::milliseconds window{300};  // measured part of each cell
  std::chrono::milliseconds warmup{50};   // before it (at least 2 waits)
  std::optional<std::regex> filter;       // on the cell name op/wait/cC/mode
  bool crossover = true;                  // also run the crossover grid
  unsigned cores = 2;
};

struct LatencyCell {
  std::string op;
  std::chrono::nanoseconds wait{};
  std::size_t concurrency = 0;
  std::string mode;
  std::string grid = "main";   // main | crossover
  std::uint64_t requests = 0;  // completed inside the window
  double window_s = 0;
  double requests_per_s = 0;
  double p50_ns = 0;
  double p99_ns = 0;
  double ideal_per_s = 0;
  /// The closed loop had not cycled its queue before the window (C / throughput > warm-up):
  /// p50/p99 are lower bounds of the steady state.
  bool latency_lower_bound = false;

  [[nodiscard]] double ratio() const { return ideal_per_s > 0 ? requests_per_s / ideal_per_s : 0; }
  [[nodiscard]] std::string name() const;
};

struct LatencyTable {
  LatencyConfig config;
  std::map<std::string, double, std::less<>> single_thread_per_s;  // sync, wait 0, per op
  std::map<std::string, double, std::less<>> cpu_max_per_s;        // cores x single_thread_per_s
  std::vector<LatencyCell> cells;

  [[nodiscard]] const LatencyCell* find(std::string_view op, std::chrono::nanoseconds wait, std::size_t concurrency,
                                        std::string_view mode) const;
};

/// What one cell measures: `clients` closed-loop clients, each calling `op` ("find_vertex_by_id"
/// on label Person, or "neighbors") on `graph` for `id`, served as `mode` says. Every table of
/// propgraph-concurrency measures its cells with this one function.
struct CellSpec {
  GraphOperations* graph = nullptr;
  const ElementId* id = nullptr;
  std::string_view op;
  std::size_t clients = 1;
  const Mode* mode = nullptr;
  FiberPool* pool = nullptr;  // for ModeKind::fiber_pool
  Clock::duration warmup{};
  Clock::duration window{};
  /// Fibers yield between requests, so that the clients of one thread take turns even when
  /// a call never suspends (no wait).
  bool yield_between = false;
};

struct CellMeasurement {
  std::uint64_t requests = 0;  // completed inside the window
  double requests_per_s = 0;
  double p50_ns = 0;
  double p99_ns = 0;
  /// The closed loop had not cycled its queue before the window (C / throughput > warm-up):
  /// p50/p99 are lower bounds of the steady state.
  bool latency_lower_bound = false;
};

CellMeasurement measure_cell(const CellSpec& spec);

/// Runs every cell the filter admits, printing a progress dot per cell to stderr.
LatencyTable run_latency_table(const LatencyConfig& config);
void print_latency_table(const LatencyTable& table);
/// The crossover grid: fibers / sync throughput per short wait and low concurrency.
void print_crossover(const LatencyTable& table);
void write_latency_json(Json& json, const LatencyTable& table);

}  // namespace propgraph::bench
