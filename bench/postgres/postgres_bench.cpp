// propgraph-postgres-bench: PostgresGraph at scale against one server (and a hot standby).
//
//   load       a generated graph (default 100k Person vertices with name/age/score, 1M KNOWS
//              edges with since/weight between random vertices, in random order) through
//              create_vertices / create_edges in batches of --batch inside one transaction, as
//              the importers write: the COPY paths, the edges in rebuild mode
//              (PostgresOptions::bulk_rebuild_min_edges); records/s, median of --runs loads into
//              the emptied graph.
//   row_by_row what rebuild mode saves: each load run is followed by the same load into a
//              second graph opened with bulk_rebuild_min_edges = 0 (every edge's foreign keys
//              checked and its indexes updated row by row), so both see the same machine;
//              medians of each.
//   page_rank  page_rank() over that whole graph on PostgresGraph (fetch through COPY TO, the
//              algorithm in memory) and on a MemoryGraph holding the same graph; medians of
//              --runs.
//   reads      find_vertex_by_id from C fibers (--concurrency, default 256) on a 2-thread
//              FiberPool, the closed loop of propgraph-concurrency (measure_cell), against the
//              primary alone and against the primary plus the standby (--standby, reads routed
//              by StandbyReads::after_own_writes; this instance writes nothing, so the standby
//              serves them); requests/s, medians of --runs windows of --seconds, the two taking
//              turns. First the loaded tables are vacuumed and analysed and the standby has
//              replayed everything, so that neither autovacuum nor replay runs in the windows.
//
// Prints what it measures and writes the run to --json (default build/bench/postgres.json):
// the run header of bench/run_info.hpp, the settings and one object per part.
//
//   propgraph-postgres-bench [--dsn=CONNINFO] [--standby=CONNINFO] [--vertices=N] [--edges=N]
//       [--batch=N] [--runs=N] [--seconds=S] [--concurrency=C]
//       [--only=load,row_by_row,page_rank,reads]
//       [--json=PATH]
// --dsn defaults to $PROPGRAPH_PG_DSN, --standby to $PROPGRAPH_PG_STANDBY_DSN; without a standby
// the reads part measures the primary alone.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <libpq-fe.h>

#include "../concurrency/bench_support.hpp"
#include "../concurrency/latency_table.hpp"
#include "propgraph/fiber.hpp"
#include "propgraph/generate.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/postgres/postgres_graph.hpp"
#include "run_info.hpp"

namespace propgraph::bench {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct Settings {
  std::string dsn;
  std::string standby;
  std::uint32_t vertices = 100'000;
  std::uint64_t edges = 1'000'000;
  std::size_t batch = 16'384;
  int runs = 3;
  double seconds = 3;
  std::size_t concurrency = 256;
  std::string only;
  fs::path json = fs::path(PROPGRAPH_BENCH_OUT_DIR) / "postgres.json";
  [[nodiscard]] bool runs_part(std::string_view part) const {
    if (only.empty()) return true;
    for (std::string_view rest = only;;) {
      const auto comma = rest.find(',');
      if (rest.substr(0, comma) == part) return true;
      if (comma == std::string_view::npos) return false;
      rest.remove_prefix(comma + 1);
    }
  }
};

[[noreturn]] void usage(int status) {
  std::fprintf(status == 0 ? stdout : stderr,
               "usage: propgraph-postgres-bench [--dsn=CONNINFO] [--standby=CONNINFO] [--vertices=N] [--edges=N]\n"
               "       [--batch=N] [--runs=N] [--seconds=S] [--concurrency=C]\n"
               "       [--only=load,row_by_row,page_rank,reads]\n"
               "       [--json=PATH]\n"
               "--dsn defaults to $PROPGRAPH_PG_DSN, --standby to $PROPGRAPH_PG_STANDBY_DSN "
               "(scripts/bench --postgres starts both)\n");
  std::exit(status);
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") usage(0);
    const auto eq = arg.find('=');
    if (eq == std::string_view::npos) usage(2);
    const std::string_view flag = arg.substr(0, eq);
    const std::string value(arg.substr(eq + 1));
    try {
      if (flag == "--dsn") s.dsn = value;
      else if (flag == "--standby") s.standby = value;
      else if (flag == "--vertices") s.vertices = static_cast<std::uint32_t>(std::stoul(value));
      else if (flag == "--edges") s.edges = std::stoull(value);
      else if (flag == "--batch") s.batch = std::max<std::size_t>(1, std::stoull(value));
      else if (flag == "--runs") s.runs = std::max(1, std::stoi(value));
      else if (flag == "--seconds") s.seconds = std::stod(value);
      else if (flag == "--concurrency") s.concurrency = std::max<std::size_t>(1, std::stoull(value));
      else if (flag == "--only") s.only = value;
      else if (flag == "--json") s.json = value;
      else usage(2);
    } catch (const std::logic_error&) {
      std::fprintf(stderr, "propgraph-postgres-bench: bad value in %s\n", argv[i]);
      std::exit(2);
    }
  }
  if (s.dsn.empty()) s.dsn = env("PROPGRAPH_PG_DSN");
  if (s.standby.empty()) s.standby = env("PROPGRAPH_PG_STANDBY_DSN");
  if (s.dsn.empty()) {
    std::fprintf(stderr,
                 "propgraph-postgres-bench: no server: give --dsn= or set PROPGRAPH_PG_DSN "
                 "(scripts/bench --postgres starts a throw-away one)\n");
    std::exit(2);
  }
  if (s.vertices < 2) {
    std::fprintf(stderr, "propgraph-postgres-bench: --vertices must be >= 2\n");
    std::exit(2);
  }
  return s;
}

double seconds_since(Clock::time_point start) { return seconds(Clock::now() - start); }

/// Runs one SQL statement on a fresh connection and returns the first column of its first row
/// ("" without one); throws std::runtime_error with the server's message when it fails.
std::string admin_sql(const std::string& dsn, const std::string& sql) {
  PGconn* conn = PQconnectdb(dsn.c_str());
  std::string error;
  std::string value;
  if (PQstatus(conn) != CONNECTION_OK) {
    error = PQerrorMessage(conn);
  } else {
    PGresult* res = PQexec(conn, sql.c_str());
    const auto status = PQresultStatus(res);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) error = PQresultErrorMessage(res);
    if (status == PGRES_TUPLES_OK && PQntuples(res) > 0 && PQnfields(res) > 0) value = PQgetvalue(res, 0, 0);
    PQclear(res);
  }
  PQfinish(conn);
  if (!error.empty()) throw std::runtime_error(fmt::format("{}: {}", sql, error));
  return value;
}

/// The server's version (server_version), or "unknown".
std::string server_version(const std::string& dsn) {
  PGconn* conn = PQconnectdb(dsn.c_str());
  std::string version = "unknown";
  if (PQstatus(conn) == CONNECTION_OK) {
    if (const char* v = PQparameterStatus(conn, "server_version")) version = v;
  }
  PQfinish(conn);
  return version;
}

/// The benchmark graph: a uniform random graph, edges shuffled (imports do not arrive sorted).
generate::EdgeList make_graph(const Settings& s) {
  auto list = generate::random_graph(s.vertices, s.edges, 42);
  std::mt19937_64 random(7);
  std::shuffle(list.edges.begin(), list.edges.end(), random);
  return list;
}

generate::LoadOptions load_options(const Settings& s) {
  return generate::LoadOptions{
      .vertex_label = "Person",
      .edge_label = "KNOWS",
      .vertex_properties =
          [](std::uint32_t i) {
            return Properties{{"name", fmt::format("person-{}", i)},
                              {"age", static_cast<std::int64_t>(18 + i % 60)},
                              {"score", static_cast<double>(i % 10000) / 100.0}};
          },
      .edge_properties =
          [](std::uint64_t i) {
            return Properties{{"since", static_cast<std::int64_t>(1990 + i % 35)},
                              {"weight", static_cast<double>(i % 1000) / 1000.0}};
          },
      .batch = s.batch,
  };
}

constexpr std::string_view kGraph = "propgraph_bench_scale";
/// Owns the catalog entry of kGraph while the benchmark is bound to it (a bound graph cannot
/// drop its own schema); it stays, empty.
constexpr std::string_view kAdminGraph = "propgraph_bench_admin";
/// The same load row by row (the row_by_row part).
constexpr std::string_view kRowByRowGraph = "propgraph_bench_row_by_row";

PostgresOptions options_for(const Settings& s, std::string_view graph) {
  return PostgresOptions{.conninfo = s.dsn, .graph = std::string(graph), .pool_size = 8};
}

struct LoadResult {
  std::vector<double> seconds;  // per run
  double median_s = 0;
  double records_per_s = 0;
  void add(double t) { seconds.push_back(t); }
  void finish(double records) {
    median_s = median(seconds);
    records_per_s = records / median_s;
  }
};

struct PageRankResult {
  std::string backend;
  std::vector<double> seconds;
  double median_s = 0;
  std::size_t scores = 0;
};

struct ReadsResult {
  std::string target;       // "primary" or "primary + 1 standby"
  std::vector<double> runs_per_s;
  CellMeasurement median;   // the median run
  std::uint64_t standby_reads = 0;
  std::uint64_t primary_reads = 0;
  std::uint64_t fallbacks = 0;
};

PageRankResult time_page_rank(std::string backend, GraphOperations& g, int runs) {
  PageRankResult r{std::move(backend), {}, 0, 0};
  for (int run = 0; run < runs; ++run) {
    const auto start = Clock::now();
    r.scores = g.page_rank().size();
    r.seconds.push_back(seconds_since(start));
  }
  r.median_s = median(r.seconds);
  fmt::print("page_rank {}: {:.3f} s median of {} ({} scores)\n", r.backend, r.median_s, runs, r.scores);
  return r;
}

/// find_vertex_by_id at C fibers on a 2-thread FiberPool against the primary alone and with the
/// standby, taking turns, --runs windows each.
std::vector<ReadsResult> measure_reads(const Settings& s, const ElementId& id) {
  std::vector<ReadsResult> results;
  std::vector<std::unique_ptr<PostgresGraph>> graphs;
  results.push_back({"primary", {}, {}, 0, 0, 0});
  graphs.push_back(std::make_unique<PostgresGraph>(options_for(s, kGraph)));
  // The steady state: the load's statistics and visibility information are settled now rather
  // than by autovacuum during the windows, and the standby replays that before they start.
  admin_sql(s.dsn, fmt::format("VACUUM ANALYZE \"{0}\".vertices, \"{0}\".edges", graphs[0]->schema_name()));
  if (!s.standby.empty()) {
    const std::string written = admin_sql(s.dsn, "SELECT pg_current_wal_lsn()::text");
    const auto deadline = Clock::now() + 120s;
    while (admin_sql(s.standby, fmt::format("SELECT pg_last_wal_replay_lsn() >= '{}'::pg_lsn", written)) != "t") {
      if (Clock::now() > deadline) throw std::runtime_error("the standby did not replay the load within 120 s");
      std::this_thread::sleep_for(50ms);
    }
  }
  if (!s.standby.empty()) {
    PostgresOptions o = options_for(s, kGraph);
    o.standby_conninfos = {s.standby};
    o.standby_reads = StandbyReads::after_own_writes;
    auto g = std::make_unique<PostgresGraph>(std::move(o));
    // The routing sends the reads there (this instance has written nothing).
    const auto served = g->read_routing().standby;
    if (!g->find_vertex_by_id("Person", id) || g->read_routing().standby == served) {
      throw std::runtime_error("the standby does not serve the benchmark's reads");
    }
    results.push_back({"primary + 1 standby", {}, {}, 0, 0, 0});
    graphs.push_back(std::move(g));
  } else {
    fmt::print("reads: no standby given (--standby= or PROPGRAPH_PG_STANDBY_DSN): the primary alone\n");
  }
  FiberPool pool(2);
  const Mode& mode =
      *std::find_if(latency_modes.begin(), latency_modes.end(), [](const Mode& m) { return m.id == "fibers-pool2"; });
  std::vector<std::vector<CellMeasurement>> runs(results.size());
  std::vector<PostgresGraph::ReadRouting> before;
  for (auto& g : graphs) before.push_back(g->read_routing());
  const auto window = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s.seconds));
  for (int run = 0; run < s.runs; ++run) {
    for (std::size_t i = 0; i < results.size(); ++i) {
      runs[i].push_back(measure_cell({.graph = graphs[i].get(),
                                      .id = &id,
                                      .op = "find_vertex_by_id",
                                      .clients = s.concurrency,
                                      .mode = &mode,
                                      .pool = &pool,
                                      .warmup = 300ms,
                                      .window = window}));
    }
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    auto& r = results[i];
    for (const auto& m : runs[i]) r.runs_per_s.push_back(m.requests_per_s);
    std::sort(runs[i].begin(), runs[i].end(),
              [](const CellMeasurement& a, const CellMeasurement& b) { return a.requests_per_s < b.requests_per_s; });
    r.median = runs[i][runs[i].size() / 2];
    const auto after = graphs[i]->read_routing();
    r.primary_reads = after.primary - before[i].primary;
    r.standby_reads = after.standby - before[i].standby;
    r.fallbacks = after.fallbacks - before[i].fallbacks;
    fmt::print(
        "reads, {}: {}/s, p50 {}, p99 {} (median of {}; {} reads on the primary, {} on the standby, {} "
        "fallbacks)\n",
        r.target, format_rate(r.median.requests_per_s), format_ns(r.median.p50_ns), format_ns(r.median.p99_ns), s.runs,
        r.primary_reads, r.standby_reads, r.fallbacks);
  }
  return results;
}

void write_load(Json& j, std::string_view key, const LoadResult& load) {
  j.begin_object(key);
  j.begin_array("seconds");
  for (double t : load.seconds) j.field("", t);
  j.end_array();
  j.field("median_s", load.median_s);
  j.field("records_per_s", load.records_per_s);
  j.end_object();
}

void write_json(const Settings& s, const RunInfo& run, const std::string& server, const std::optional<LoadResult>& load,
                const std::optional<LoadResult>& row_by_row, const std::vector<PageRankResult>& ranks,
                const std::vector<ReadsResult>& reads) {
  Json j;
  j.begin_object();
  run.write_start(j);
  RunInfo::write_end(j);
  j.field("server_version", server);
  j.field("vertices", static_cast<std::int64_t>(s.vertices));
  j.field("edges_requested", static_cast<std::uint64_t>(s.edges));
  j.field("runs", s.runs);
  j.field("batch", static_cast<std::uint64_t>(s.batch));
  if (load) write_load(j, "load", *load);
  if (row_by_row) write_load(j, "load_row_by_row", *row_by_row);
  j.begin_array("page_rank");
  for (const auto& r : ranks) {
    j.begin_object();
    j.field("backend", r.backend);
    j.field("median_s", r.median_s);
    j.field("scores", static_cast<std::uint64_t>(r.scores));
    j.end_object();
  }
  j.end_array();
  j.begin_array("reads");
  for (const auto& r : reads) {
    j.begin_object();
    j.field("target", r.target);
    j.field("concurrency", static_cast<std::uint64_t>(s.concurrency));
    j.field("fiber_threads", 2);
    j.field("window_s", s.seconds);
    j.field("requests_per_s", r.median.requests_per_s);
    j.field("p50_ns", r.median.p50_ns);
    j.field("p99_ns", r.median.p99_ns);
    j.begin_array("runs_per_s");
    for (double x : r.runs_per_s) j.field("", x);
    j.end_array();
    j.field("primary_reads", r.primary_reads);
    j.field("standby_reads", r.standby_reads);
    j.field("fallbacks", r.fallbacks);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  if (!s.json.parent_path().empty()) fs::create_directories(s.json.parent_path());
  std::ofstream(s.json) << j.str() << '\n';
  fmt::print("\nwrote {}\n", s.json.string());
}

int run(int argc, char** argv) {
  const Settings s = parse(argc, argv);
  const RunInfo info(argc, argv);
  const std::string server = server_version(s.dsn);
  const auto list = make_graph(s);
  const auto options = load_options(s);
  const auto records = static_cast<double>(s.vertices + list.edges.size());
  fmt::print("propgraph-postgres-bench: {} vertices + {} edges, PostgreSQL {}, load average {}\n\n", s.vertices,
             list.edges.size(), server, info.load_at_start);

  // A graph created by this build: drop the one an earlier run left.
  PostgresGraph admin(PostgresOptions{.conninfo = s.dsn, .graph = std::string(kAdminGraph), .pool_size = 1});
  admin.drop_graph(kGraph);
  auto graph = std::make_unique<PostgresGraph>(options_for(s, kGraph));
  std::optional<LoadResult> load;
  std::optional<LoadResult> row_by_row;
  std::vector<PageRankResult> ranks;
  std::vector<ReadsResult> reads;
  std::vector<ElementId> ids;
  std::unique_ptr<PostgresGraph> rows_graph;
  if (s.runs_part("row_by_row")) {
    admin.drop_graph(kRowByRowGraph);
    PostgresOptions o = options_for(s, kRowByRowGraph);
    o.bulk_rebuild_min_edges = 0;
    rows_graph = std::make_unique<PostgresGraph>(std::move(o));
  }
  // One transaction per load, as the importers write.
  const auto load_in_transaction = [&](PostgresGraph& g) {
    auto tx = g.begin();
    auto created = generate::load(*tx, list, options);
    tx->commit();
    return created;
  };
  // The load runs once per run into the emptied graph (the last one stays for the other parts),
  // each followed by the load row by row.
  const bool timed = s.runs_part("load") || rows_graph;
  const int load_runs = timed ? s.runs : 1;
  LoadResult rebuilt, rowwise;
  for (int r = 0; r < load_runs; ++r) {
    graph->drop_graph(kGraph);  // the bound graph: emptied
    auto start = Clock::now();
    ids = load_in_transaction(*graph);
    rebuilt.add(seconds_since(start));
    fmt::print("load run {}: {:.2f} s", r + 1, rebuilt.seconds.back());
    if (rows_graph) {
      rows_graph->drop_graph(kRowByRowGraph);
      start = Clock::now();
      load_in_transaction(*rows_graph);
      rowwise.add(seconds_since(start));
      fmt::print(", row by row {:.2f} s", rowwise.seconds.back());
    }
    fmt::print("\n");
  }
  if (timed) {
    rebuilt.finish(records);
    fmt::print("load: {:.2f} s median of {}, {}/s records\n", rebuilt.median_s, load_runs,
               format_rate(rebuilt.records_per_s));
    load = rebuilt;
  }
  if (rows_graph) {
    rowwise.finish(records);
    fmt::print("load row by row: {:.2f} s median, {}/s records: rebuild mode loads {:.2f}x the records/s\n",
               rowwise.median_s, format_rate(rowwise.records_per_s), rebuilt.records_per_s / rowwise.records_per_s);
    row_by_row = rowwise;
    rows_graph.reset();
    admin.drop_graph(kRowByRowGraph);
  }
  if (s.runs_part("page_rank")) {
    ranks.push_back(time_page_rank("PostgresGraph", *graph, s.runs));
    MemoryGraph memory;
    generate::load(memory, list, options);
    ranks.push_back(time_page_rank("MemoryGraph", memory, s.runs));
  }
  if (s.runs_part("reads")) reads = measure_reads(s, ids[ids.size() / 2]);
  write_json(s, info, server, load, row_by_row, ranks, reads);
  return 0;
}

}  // namespace
}  // namespace propgraph::bench

int main(int argc, char** argv) {
  try {
    return propgraph::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "propgraph-postgres-bench: %s\n", e.what());
    return 1;
  }
}
