// Table 4: find_vertex_by_id and neighbors against a real PostgreSQL server (PostgresGraph, a
// pool of 8 connections) at concurrency 1 / 16 / 256: thread pools vs fibers on one thread vs
// fibers on a 2-thread FiberPool. Cells are measured by measure_cell (latency_table.hpp), the
// same closed loop as table 1.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "bench_support.hpp"
#include "latency_table.hpp"

namespace propgraph::bench {

/// The modes of the PostgreSQL table, in column order.
inline constexpr std::array<Mode, 6> postgres_modes{{
    {"threads-8", ModeKind::thread_pool, 8},      // as many threads as connections
    {"threads-16", ModeKind::thread_pool, 16},
    {"threads-256", ModeKind::thread_pool, 256},
    {"fibers-1thread", ModeKind::fibers_one_thread, 1},  // on the main thread, use_io_scheduler()
    {"fibers-pool2", ModeKind::fiber_pool, 2},
    // fibers-1thread on a thread with Boost's default scheduler: its fibers' socket waits go
    // through the process's reactor thread (what every fiber thread did before use_io_scheduler)
    {"fibers-1t-reactor", ModeKind::fibers_one_thread, 1},
}};
inline constexpr std::string_view postgres_reactor_mode = "fibers-1t-reactor";
inline constexpr std::array<std::size_t, 3> postgres_concurrencies{1, 16, 256};
inline constexpr std::size_t postgres_pool_size = 8;
inline constexpr std::size_t postgres_fixture_vertices = 1000;
inline constexpr std::size_t postgres_fixture_out_degree = 3;

struct PostgresConfig {
  std::optional<std::string> dsn;              // libpq connection string; none: the table is skipped
  std::chrono::milliseconds window{1000};     // measured part of each run
  std::chrono::milliseconds warmup{200};      // before it
  int repeats = 3;                             // runs per cell; the median run is reported
  std::optional<std::regex> filter;            // on the cell name postgres/OP/cC/MODE
};

struct PostgresCell {
  std::string op;
  std::size_t concurrency = 0;
  std::string mode;
  CellMeasurement median;                      // the run with the median requests/s
  std::vector<double> runs_per_s;              // every run, in order
  /// Of the median run, per request completed: CPU time of this process (all its threads,
  /// user + system; the server's is not included) and its context switches (voluntary and
  /// not), over warm-up and window alike.
  double cpu_ns_per_request = 0;
  double switches_per_request = 0;

  [[nodiscard]] std::string name() const;
};

struct PostgresTable {
  PostgresConfig config;
  std::string graph;                           // the scratch graph (dropped at the end)
  std::vector<PostgresCell> cells;

  [[nodiscard]] const PostgresCell* find(std::string_view op, std::size_t concurrency, std::string_view mode) const;
};

/// Fills a scratch graph (postgres_fixture_vertices Person vertices, postgres_fixture_out_degree
/// KNOWS edges each), runs every cell the filter admits, drops the graph. Throws on a
/// connection error.
PostgresTable run_postgres_table(const PostgresConfig& config);
void print_postgres_table(const PostgresTable& table);
void write_postgres_json(Json& json, const PostgresTable& table);

}  // namespace propgraph::bench
