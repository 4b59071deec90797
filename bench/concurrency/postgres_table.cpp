// Table 4 (postgres_table.hpp).
#include "postgres_table.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>

#include "propgraph/fiber.hpp"
#include "propgraph/postgres/postgres_graph.hpp"

namespace propgraph::bench {

namespace {

/// Graph that owns the catalog entry of the scratch graph while the benchmark one is bound to it
/// (a bound graph cannot drop its own schema); it stays, empty, between runs.
constexpr std::string_view admin_graph = "propgraph_bench_admin";

/// The scratch graph: vertices v0..vN-1, each with KNOWS edges to the next out_degree vertices
/// (mod N), so every vertex has the same degree. Returns the vertex the requests ask for.
ElementId fill_fixture(GraphOperations& graph) {
  std::vector<NewVertex> vertices;
  vertices.reserve(postgres_fixture_vertices);
  for (std::size_t i = 0; i < postgres_fixture_vertices; ++i) {
    vertices.push_back({"Person", Properties{{"name", fmt::format("person-{}", i)},
                                             {"age", static_cast<std::int64_t>(20 + i % 50)}}});
  }
  const std::vector<ElementId> ids = graph.create_vertices(vertices);
  std::vector<NewEdge> edges;
  edges.reserve(postgres_fixture_vertices * postgres_fixture_out_degree);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    for (std::size_t k = 1; k <= postgres_fixture_out_degree; ++k) {
      edges.push_back({ids[i], ids[(i + k * 7) % ids.size()], "KNOWS",
                       Properties{{"since", static_cast<std::int64_t>(2000 + (i + k) % 25)}}});
    }
  }
  graph.create_edges(edges);
  return ids[ids.size() / 2];
}

}  // namespace

std::string PostgresCell::name() const { return fmt::format("postgres/{}/c{}/{}", op, concurrency, mode); }

const PostgresCell* PostgresTable::find(std::string_view op, std::size_t concurrency, std::string_view mode) const {
  for (const auto& c : cells) {
    if (c.op == op && c.concurrency == concurrency && c.mode == mode) return &c;
  }
  return nullptr;
}

PostgresTable run_postgres_table(const PostgresConfig& config) {
  PostgresTable table{.config = config};
  const PostgresOptions base{.conninfo = config.dsn.value_or(""), .pool_size = postgres_pool_size};
  table.graph = fmt::format("propgraph_bench_{}_{}", ::getpid(),
                            std::chrono::duration_cast<std::chrono::seconds>(
                                std::chrono::system_clock::now().time_since_epoch()).count());
  PostgresOptions bench_options = base;
  bench_options.graph = table.graph;
  PostgresOptions admin_options = base;
  admin_options.graph = std::string(admin_graph);
  admin_options.pool_size = 1;
  // fibers-1thread runs its fibers on this thread: let its scheduler wait for their sockets
  // itself (FiberPool threads always do).
  use_io_scheduler();
  PostgresGraph admin(admin_options);
  admin.create_graph(table.graph);
  try {
    FiberPool pool(2);
    PostgresGraph graph(bench_options);
    const ElementId id = fill_fixture(graph);
    for (std::string_view op : latency_operations) {
      for (const std::size_t clients : postgres_concurrencies) {
        for (const Mode& mode : postgres_modes) {
          PostgresCell cell{.op = std::string(op), .concurrency = clients, .mode = std::string(mode.id)};
          if (config.filter && !std::regex_search(cell.name(), *config.filter)) continue;
          std::vector<CellMeasurement> runs;
          for (int r = 0; r < std::max(1, config.repeats); ++r) {
            runs.push_back(measure_cell({.graph = &graph,
                                         .id = &id,
                                         .op = op,
                                         .clients = clients,
                                         .mode = &mode,
                                         .pool = &pool,
                                         .warmup = config.warmup,
                                         .window = config.window}));
            cell.runs_per_s.push_back(runs.back().requests_per_s);
          }
          std::sort(runs.begin(), runs.end(),
                    [](const auto& a, const auto& b) { return a.requests_per_s < b.requests_per_s; });
          cell.median = runs[runs.size() / 2];
          table.cells.push_back(std::move(cell));
          std::fputc('.', stderr);
          std::fflush(stderr);
        }
      }
    }
  } catch (...) {
    try {
      admin.drop_graph(table.graph);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "note: scratch graph %s not dropped: %s\n", table.graph.c_str(), e.what());
    }
    throw;
  }
  admin.drop_graph(table.graph);
  std::fputc('\n', stderr);
  return table;
}

void print_postgres_table(const PostgresTable& table) {
  const auto& c = table.config;
  fmt::print("\nPostgreSQL: PostgresGraph (pool of {} connections) on a local server; graph of {} Person vertices\n"
             "with {} KNOWS edges each; requests/s and latency p50/p99; median of {} runs of {} ms (after {} ms\n"
             "warm-up) per cell; fibers-1thread: run_on_fiber on the main thread after use_io_scheduler()\n",
             postgres_pool_size, postgres_fixture_vertices, postgres_fixture_out_degree, std::max(1, c.repeats),
             c.window.count(), c.warmup.count());
  const std::string rule(17 + 21 * postgres_modes.size(), '-');
  for (std::string_view op : latency_operations) {
    bool any = false;
    for (const auto& cell : table.cells) any = any || cell.op == op;
    if (!any) continue;
    fmt::print("\n{:<17} {:>5}", op, "C");
    for (const Mode& m : postgres_modes) fmt::print(" {:>20}", m.id);
    fmt::print("\n{}\n", rule);
    for (const std::size_t conc : postgres_concurrencies) {
      bool row = false;
      for (const Mode& m : postgres_modes) row = row || table.find(op, conc, m.id) != nullptr;
      if (!row) continue;
      fmt::print("{:<17} {:>5}", "requests/s", conc);
      for (const Mode& m : postgres_modes) {
        const PostgresCell* cell = table.find(op, conc, m.id);
        fmt::print(" {:>20}", cell ? format_rate(cell->median.requests_per_s) : std::string("-"));
      }
      fmt::print("\n{:<17} {:>5}", "p50/p99", "");
      for (const Mode& m : postgres_modes) {
        const PostgresCell* cell = table.find(op, conc, m.id);
        fmt::print(" {:>20}", cell ? fmt::format("{}/{}", format_ns(cell->median.p50_ns), format_ns(cell->median.p99_ns))
                                   : std::string("-"));
      }
      fmt::print("\n");
    }
  }
}

void write_postgres_json(Json& json, const PostgresTable& table) {
  json.begin_object("postgres_table");
  json.field("window_ms", static_cast<std::int64_t>(table.config.window.count()));
  json.field("warmup_ms", static_cast<std::int64_t>(table.config.warmup.count()));
  json.field("repeats", static_cast<std::int64_t>(table.config.repeats));
  json.field("pool_size", static_cast<std::uint64_t>(postgres_pool_size));
  json.field("vertices", static_cast<std::uint64_t>(postgres_fixture_vertices));
  json.field("graph", table.graph);
  json.begin_array("cells");
  for (const auto& c : table.cells) {
    json.begin_object()
        .field("op", c.op)
        .field("concurrency", static_cast<std::uint64_t>(c.concurrency))
        .field("mode", c.mode)
        .field("requests", c.median.requests)
        .field("requests_per_s", c.median.requests_per_s)
        .field("p50_ns", c.median.p50_ns)
        .field("p99_ns", c.median.p99_ns);
    json.begin_array("runs_per_s");
    for (const double r : c.runs_per_s) json.begin_object().field("requests_per_s", r).end_object();
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

}  // namespace propgraph::bench
