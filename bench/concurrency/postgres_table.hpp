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
inline constexpr std::array<Mode, 5> postgres_modes{{
    {"threads-8", ModeKind::thread_pool, 8},      // as many threads as connections
    {"threads-16", ModeKind::thread_pool, 16},
    {"threads-256", ModeKind::thread_pool, 256},
    {"fibers-1thread", ModeKind::fibers_one_thread, 1},
    {"fibers-pool2", ModeKind::fiber_pool, 2},
}};
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
