// Table 4 (postgres_table.hpp).
#include "postgres_table.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <libpq-fe.h>

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
    vertices.push_back(
        {"Person", Properties{{"name", fmt::format("person-{}", i)}, {"age", static_cast<std::int64_t>(20 + i % 50)}}});
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

/// ANALYZE the scratch graph's tables, so that the planner's choices do not change when
/// autovacuum gets to them halfway through the run (neighbors took 2 to 4 times longer per call
/// before the first analyze).
void analyze(const std::string& dsn, const std::string& schema) {
  PGconn* conn = PQconnectdb(dsn.c_str());
  const auto close = [&] { PQfinish(conn); };
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string error = PQerrorMessage(conn);
    close();
    throw std::runtime_error("ANALYZE: cannot connect: " + error);
  }
  const std::string sql = fmt::format("ANALYZE \"{0}\".vertices, \"{0}\".edges", schema);
  PGresult* res = PQexec(conn, sql.c_str());
  const bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
  const std::string error = ok ? "" : PQresultErrorMessage(res);
  PQclear(res);
  close();
  if (!ok) throw std::runtime_error("ANALYZE: " + error);
}

/// Context switches of this process so far (every thread, voluntary and involuntary).
std::int64_t context_switches() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_nvcsw + usage.ru_nivcsw;
}

const Mode& mode_named(std::string_view id) {
  for (const Mode& m : postgres_modes) {
    if (m.id == id) return m;
  }
  throw std::logic_error("unknown mode");
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
  table.graph = fmt::format(
      "propgraph_bench_{}_{}", ::getpid(),
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
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
    analyze(base.conninfo, graph.schema_name());
    for (std::string_view op : latency_operations) {
      for (const std::size_t clients : postgres_concurrencies) {
        for (const Mode& mode : postgres_modes) {
          PostgresCell cell{.op = std::string(op), .concurrency = clients, .mode = std::string(mode.id)};
          if (!config.filter || std::regex_search(cell.name(), *config.filter)) table.cells.push_back(std::move(cell));
        }
      }
    }
    // Repeats are rounds over every cell rather than back-to-back runs of one cell, so that a
    // change in the machine's load hits all modes alike rather than a few cells.
    struct Run {
      CellMeasurement m;
      double cpu_ns_per_request = 0;
      double switches_per_request = 0;
    };
    std::vector<std::vector<Run>> runs(table.cells.size());
    for (int r = 0; r < std::max(1, config.repeats); ++r) {
      for (std::size_t i = 0; i < table.cells.size(); ++i) {
        PostgresCell& cell = table.cells[i];
        const CellSpec spec{.graph = &graph,
                            .id = &id,
                            .op = cell.op,
                            .clients = cell.concurrency,
                            .mode = &mode_named(cell.mode),
                            .pool = &pool,
                            .warmup = config.warmup,
                            .window = config.window};
        const double cpu_before = process_cpu_seconds();
        const std::int64_t switches_before = context_switches();
        CellMeasurement m;
        if (cell.mode == postgres_reactor_mode) {
          std::thread([&] { m = measure_cell(spec); }).join();
        } else {
          m = measure_cell(spec);
        }
        // Requests completed over warm-up and window, at the window's rate.
        const double requests = m.requests_per_s * seconds(spec.warmup + spec.window);
        runs[i].push_back({m, requests > 0 ? 1e9 * (process_cpu_seconds() - cpu_before) / requests : 0,
                           requests > 0 ? static_cast<double>(context_switches() - switches_before) / requests : 0});
        cell.runs_per_s.push_back(m.requests_per_s);
        std::fputc('.', stderr);
        std::fflush(stderr);
      }
    }
    for (std::size_t i = 0; i < table.cells.size(); ++i) {
      std::sort(runs[i].begin(), runs[i].end(),
                [](const Run& a, const Run& b) { return a.m.requests_per_s < b.m.requests_per_s; });
      const Run& median = runs[i][runs[i].size() / 2];
      table.cells[i].median = median.m;
      table.cells[i].cpu_ns_per_request = median.cpu_ns_per_request;
      table.cells[i].switches_per_request = median.switches_per_request;
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
  fmt::print(
      "\nPostgreSQL: PostgresGraph (pool of {} connections) on a local server; graph of {} Person vertices\n"
      "with {} KNOWS edges each; requests/s and latency p50/p99; median of {} runs of {} ms (after {} ms\n"
      "warm-up) per cell; fibers-1thread: run_on_fiber on the main thread after use_io_scheduler();\n"
      "fibers-1t-reactor: the same on a thread with Boost's default scheduler (waits via the reactor thread);\n"
      "cpu/req, csw/req: this process's CPU time and context switches per request (not the server's)\n",
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
        fmt::print(" {:>20}", cell
                                  ? fmt::format("{}/{}", format_ns(cell->median.p50_ns), format_ns(cell->median.p99_ns))
                                  : std::string("-"));
      }
      fmt::print("\n{:<17} {:>5}", "cpu/req, csw/req", "");
      for (const Mode& m : postgres_modes) {
        const PostgresCell* cell = table.find(op, conc, m.id);
        fmt::print(" {:>20}",
                   cell ? fmt::format("{} {:.1f}", format_ns(cell->cpu_ns_per_request), cell->switches_per_request)
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
        .field("p99_ns", c.median.p99_ns)
        .field("client_cpu_ns_per_request", c.cpu_ns_per_request)
        .field("context_switches_per_request", c.switches_per_request);
    json.begin_array("runs_per_s");
    for (const double r : c.runs_per_s) json.begin_object().field("requests_per_s", r).end_object();
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

}  // namespace propgraph::bench
