// propgraph-io-bench: exports a generated graph (100k vertices, 1M edges by default) in each
// format, imports it back into a fresh MemoryGraph, and prints records per second, the median
// of several runs, one core. With a PostgreSQL server (--postgres-dsn or $PROPGRAPH_PG_DSN) it
// also imports each format into a PostgresGraph (one transaction of COPY batches) and exports
// from it; without one those rows are skipped with a message. Writes the run to --json
// (default build/bench/io.json).
//
//   propgraph-io-bench [--vertices N] [--edges N] [--runs N] [--dir PATH] [--postgres-dsn DSN]
//                      [--json PATH]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "propgraph/io.hpp"
#include "propgraph/memory/memory_graph.hpp"
#ifdef PROPGRAPH_BENCH_WITH_POSTGRES
#include "propgraph/postgres/postgres_graph.hpp"
#endif
#include "random.hpp"
#include "run_info.hpp"

namespace fs = std::filesystem;
using namespace propgraph;

namespace {

struct Settings {
  std::int64_t vertices = 100'000;
  std::int64_t edges = 1'000'000;
  int runs = 3;
  fs::path dir;
  std::optional<std::string> postgres_dsn;
  fs::path json = fs::path(PROPGRAPH_BENCH_OUT_DIR) / "io.json";
};

/// Person vertices (name, age, score) and KNOWS edges (since, weight) between random people.
void generate(MemoryGraph& g, const Settings& s) {
  bench::SplitMix64 random{42};
  std::vector<ElementId> ids;
  ids.reserve(static_cast<std::size_t>(s.vertices));
  for (std::int64_t i = 0; i < s.vertices; ++i) {
    ids.push_back(g.create_vertex("Person", {{"name", fmt::format("person-{}", i)},
                                             {"age", static_cast<std::int64_t>(18 + random.next() % 60)},
                                             {"score", static_cast<double>(random.next() % 10000) / 100.0}})
                      .id);
  }
  for (std::int64_t i = 0; i < s.edges; ++i) {
    const auto& from = ids[random.next() % ids.size()];
    const auto& to = ids[random.next() % ids.size()];
    g.create_edge(from, to, "KNOWS",
                  {{"since", static_cast<std::int64_t>(1990 + random.next() % 35)},
                   {"weight", static_cast<double>(random.next() % 1000) / 1000.0}});
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Wall-clock and CPU seconds of one call. The CPU time is this process's, all of it on one
/// thread: on a shared machine it is the fairer single-core figure.
struct Timing {
  double wall = 0;
  double cpu = 0;
};

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

Timing time_of(const std::function<void()>& work) {
  const double cpu_start = cpu_now();
  const auto start = std::chrono::steady_clock::now();
  work();
  return Timing{std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), cpu_now() - cpu_start};
}

std::uintmax_t size_of(const std::vector<fs::path>& files) {
  std::uintmax_t total = 0;
  for (const auto& f : files) total += fs::file_size(f);
  return total;
}

struct Row {
  std::string backend;
  std::string format;
  Timing export_time;  // medians
  Timing import_time;
  double megabytes;
};

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&]() -> std::string_view {
      if (i + 1 >= argc) {
        fmt::print(stderr, "{} needs a value\n", arg);
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--vertices") {
      s.vertices = std::stoll(std::string(value()));
    } else if (arg == "--edges") {
      s.edges = std::stoll(std::string(value()));
    } else if (arg == "--runs") {
      s.runs = std::max(1, std::stoi(std::string(value())));
    } else if (arg == "--dir") {
      s.dir = std::string(value());
    } else if (arg == "--postgres-dsn") {
      s.postgres_dsn = std::string(value());
    } else if (arg == "--json") {
      s.json = std::string(value());
    } else {
      fmt::print(stderr,
                 "usage: propgraph-io-bench [--vertices N] [--edges N] [--runs N] [--dir PATH] "
                 "[--postgres-dsn DSN] [--json PATH]\n");
      std::exit(arg == "-h" || arg == "--help" ? 0 : 2);
    }
  }
  if (!s.postgres_dsn) {
    if (const char* env = std::getenv("PROPGRAPH_PG_DSN"); env != nullptr && *env != '\0') s.postgres_dsn = env;
  }
  if (s.vertices < 1 || s.edges < 0) {
    fmt::print(stderr, "--vertices must be >= 1 and --edges >= 0\n");
    std::exit(2);
  }
  return s;
}

/// One format: its files and how to write and read them.
struct FormatCase {
  std::string name;
  std::vector<fs::path> files;
  std::function<void(GraphOperations&)> write;
  std::function<io::ImportReport(GraphOperations&)> read;
};

/// Medians of `runs` exports from `source` and imports into fresh targets (`fresh()`), checking
/// that each import created the whole graph; nullopt (after a message) when one did not.
std::optional<Row> measure(const std::string& backend, const FormatCase& c, GraphOperations& source,
                           const std::function<GraphOperations&()>& fresh, const Settings& s) {
  std::vector<double> export_wall, export_cpu, import_wall, import_cpu;
  for (int run = 0; run < s.runs; ++run) {
    auto t = time_of([&] { c.write(source); });
    export_wall.push_back(t.wall);
    export_cpu.push_back(t.cpu);
  }
  for (int run = 0; run < s.runs; ++run) {
    GraphOperations& target = fresh();
    io::ImportReport report;
    auto t = time_of([&] { report = c.read(target); });
    import_wall.push_back(t.wall);
    import_cpu.push_back(t.cpu);
    if (report.vertices_created != static_cast<std::uint64_t>(s.vertices) ||
        report.edges_created != static_cast<std::uint64_t>(s.edges)) {
      fmt::print(stderr, "{} {}: import created {} vertices and {} edges, expected {} and {}\n", backend, c.name,
                 report.vertices_created, report.edges_created, s.vertices, s.edges);
      return std::nullopt;
    }
  }
  return Row{backend,
             c.name,
             {median(export_wall), median(export_cpu)},
             {median(import_wall), median(import_cpu)},
             static_cast<double>(size_of(c.files)) / 1e6};
}

void write_json(const Settings& s, const bench::RunInfo& run, const std::vector<Row>& rows,
                const std::string& postgres_skipped) {
  bench::Json j;
  j.begin_object();
  run.write_start(j);
  bench::RunInfo::write_end(j);
  j.field("vertices", s.vertices);
  j.field("edges", s.edges);
  j.field("runs", s.runs);
  if (!postgres_skipped.empty()) j.field("postgres_skipped", postgres_skipped);
  j.begin_array("rows");
  for (const auto& r : rows) {
    j.begin_object();
    j.field("backend", r.backend);
    j.field("format", r.format);
    j.field("import_wall_s", r.import_time.wall);
    j.field("import_cpu_s", r.import_time.cpu);
    j.field("export_wall_s", r.export_time.wall);
    j.field("export_cpu_s", r.export_time.cpu);
    j.field("file_megabytes", r.megabytes);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  if (!s.json.parent_path().empty()) fs::create_directories(s.json.parent_path());
  std::ofstream(s.json) << j.str() << '\n';
  fmt::print("\nwrote {}\n", s.json.string());
}

}  // namespace

int main(int argc, char** argv) {
  Settings s = parse(argc, argv);
  const bench::RunInfo run(argc, argv);
  const bool own_dir = s.dir.empty();
  if (own_dir) {
    s.dir = fs::temp_directory_path() /
            fmt::format("propgraph-io-bench-{}", std::chrono::steady_clock::now().time_since_epoch().count());
  }
  fs::create_directories(s.dir);

  MemoryGraph source;
  const Timing generated = time_of([&] { generate(source, s); });
  const auto records = static_cast<double>(s.vertices + s.edges);
  fmt::print(
      "propgraph-io-bench: {} vertices + {} edges ({:.0f} records), median of {} runs, one thread, "
      "load average {}\n",
      s.vertices, s.edges, records, s.runs, run.load_at_start);
  // The same elements created directly through GraphOperations: the ceiling of any import.
  fmt::print("direct create_vertex/create_edge of the same graph: {:.2f} M records/s cpu, {:.2f} wall\n\n",
             records / generated.cpu / 1e6, records / generated.wall / 1e6);

  const fs::path vcsv = s.dir / "vertices.csv", ecsv = s.dir / "edges.csv";
  const fs::path ndjson = s.dir / "graph.ndjson", graphml = s.dir / "graph.graphml";
  const std::vector<FormatCase> cases = {
      {"CSV",
       {vcsv, ecsv},
       [&](GraphOperations& g) { io::export_csv(g, vcsv, ecsv); },
       [&](GraphOperations& g) { return io::import_csv(g, vcsv, ecsv); }},
      {"NDJSON",
       {ndjson},
       [&](GraphOperations& g) { io::export_ndjson(g, ndjson); },
       [&](GraphOperations& g) { return io::import_ndjson(g, ndjson); }},
      {"GraphML",
       {graphml},
       [&](GraphOperations& g) { io::export_graphml(g, graphml); },
       [&](GraphOperations& g) { return io::import_graphml(g, graphml); }},
  };

  std::vector<Row> rows;
  std::unique_ptr<MemoryGraph> target;
  for (const auto& c : cases) {
    auto row = measure(
        "MemoryGraph", c, source,
        [&]() -> GraphOperations& {
          target = std::make_unique<MemoryGraph>();
          return *target;
        },
        s);
    if (!row) return 1;
    rows.push_back(*row);
  }
  target.reset();

  // PostgresGraph: each format imported into the emptied graph; exports read what the last
  // import of that format left.
  std::string postgres_skipped;
#ifdef PROPGRAPH_BENCH_WITH_POSTGRES
  if (s.postgres_dsn) {
    PostgresGraph pg(PostgresOptions{.conninfo = *s.postgres_dsn, .graph = "propgraph_io_bench", .pool_size = 2});
    for (const auto& c : cases) {
      fmt::print("PostgresGraph {}: {} imports...\n", c.name, s.runs);
      pg.drop_graph(pg.options().graph);
      c.read(pg);  // the graph the exports read
      auto row = measure(
          "PostgresGraph", c, pg,
          [&]() -> GraphOperations& {
            pg.drop_graph(pg.options().graph);  // the bound graph: emptied
            return pg;
          },
          s);
      if (!row) return 1;
      rows.push_back(*row);
    }
    pg.drop_graph(pg.options().graph);
  } else {
    postgres_skipped = "no server (--postgres-dsn DSN or PROPGRAPH_PG_DSN; scripts/bench --io --postgres starts one)";
  }
#else
  postgres_skipped = "this build has no PostgresGraph (libpq not found)";
#endif

  // M records/s by CPU time and by wall-clock time.
  auto rate = [&](double seconds) { return seconds > 0 ? records / seconds / 1e6 : 0.0; };
  fmt::print("M records/s; 'cpu' divides by process CPU time, 'wall' by elapsed time.\n\n");
  fmt::print(
      "| backend       | format  | import cpu | import wall | import s (wall) | export cpu | export wall | file MB "
      "|\n");
  fmt::print(
      "|---------------|---------|-----------:|------------:|----------------:|-----------:|------------:|--------:|"
      "\n");
  for (const auto& r : rows) {
    fmt::print("| {:<13} | {:<7} | {:>10.2f} | {:>11.2f} | {:>15.3f} | {:>10.2f} | {:>11.2f} | {:>7.1f} |\n", r.backend,
               r.format, rate(r.import_time.cpu), rate(r.import_time.wall), r.import_time.wall, rate(r.export_time.cpu),
               rate(r.export_time.wall), r.megabytes);
  }
  if (!postgres_skipped.empty()) fmt::print("\nPostgresGraph rows skipped: {}\n", postgres_skipped);
  fmt::print(
      "\nReference (bluetape4k-graph, JVM): about 0.17 M records/s import. Target: >= 1 M records/s "
      "for CSV and NDJSON on one core (MemoryGraph); >= 0.1 M records/s for the CSV import into "
      "PostgresGraph (server on the same machine).\n");
  write_json(s, run, rows, postgres_skipped);
  if (own_dir) fs::remove_all(s.dir);
  return 0;
}
