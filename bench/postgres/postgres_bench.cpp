// propgraph-postgres-bench: PostgresGraph at scale against one server (and a hot standby).
//
//   load       a generated graph (default 100k Person vertices with name/age/score, 1M KNOWS
//              edges with since/weight between random vertices, in random order) through
//              create_vertices / create_edges in batches of --batch: the COPY paths; records/s.
//   page_rank  page_rank() over that whole graph on PostgresGraph (fetch through COPY TO, the
//              algorithm in memory) and on a MemoryGraph holding the same graph; medians.
//   reads      find_vertex of random ids from C fibers (--concurrency, default 256) on a
//              2-thread FiberPool for --seconds, against the primary alone and against the
//              primary plus the standby (--standby); requests/s, medians of --runs.
//
// Prints a table and writes every row to --json (default build/bench/postgres.json) with a run
// header: command, date, load average, commit.
//
//   propgraph-postgres-bench --dsn CONNINFO [--standby CONNINFO] [--vertices N] [--edges N]
//       [--batch N] [--runs N] [--seconds S] [--concurrency C] [--only load,page_rank,reads]
//       [--json PATH]
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "json_text.hpp"
#include "propgraph/fiber.hpp"
#include "propgraph/generate.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/postgres/postgres_graph.hpp"

namespace fs = std::filesystem;
using namespace propgraph;

namespace {

using Clock = std::chrono::steady_clock;

struct Settings {
  std::string dsn;
  std::string standby;
  std::uint32_t vertices = 100'000;
  std::uint64_t edges = 1'000'000;
  std::size_t batch = 16'384;  // the importers' batch size
  int runs = 3;
  double seconds = 5;
  std::size_t concurrency = 256;
  std::string only;
  fs::path json = "build/bench/postgres.json";
  std::string command;
  [[nodiscard]] bool runs_part(std::string_view part) const {
    return only.empty() || ("," + only + ",").find("," + std::string(part) + ",") != std::string::npos;
  }
};

[[noreturn]] void usage(int status) {
  std::fprintf(status == 0 ? stdout : stderr,
               "usage: propgraph-postgres-bench --dsn CONNINFO [--standby CONNINFO] [--vertices N] [--edges N]\n"
               "       [--batch N] [--runs N] [--seconds S] [--concurrency C] [--only load,page_rank,reads]\n"
               "       [--json PATH]\n");
  std::exit(status);
}

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 0; i < argc; ++i) s.command += (i ? " " : "") + std::string(argv[i]);
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") usage(0);
    if (i + 1 >= argc) usage(2);
    const std::string value = argv[++i];
    if (arg == "--dsn") s.dsn = value;
    else if (arg == "--standby") s.standby = value;
    else if (arg == "--vertices") s.vertices = static_cast<std::uint32_t>(std::stoul(value));
    else if (arg == "--edges") s.edges = std::stoull(value);
    else if (arg == "--batch") s.batch = std::stoull(value);
    else if (arg == "--runs") s.runs = std::max(1, std::stoi(value));
    else if (arg == "--seconds") s.seconds = std::stod(value);
    else if (arg == "--concurrency") s.concurrency = std::stoull(value);
    else if (arg == "--only") s.only = value;
    else if (arg == "--json") s.json = value;
    else usage(2);
  }
  if (s.dsn.empty()) {
    if (const char* env = std::getenv("PROPGRAPH_PG_DSN"); env && *env) s.dsn = env;
  }
  if (s.dsn.empty()) usage(2);
  return s;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string first_line_of(const std::string& command) {
  std::string out;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    char buf[256];
    if (std::fgets(buf, sizeof buf, p)) out = buf;
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return fmt::format("{} {} {}", one, five, fifteen);
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// One result row: ordered (key, JSON value) pairs.
struct Row {
  std::vector<std::pair<std::string, std::string>> fields;
  Row& text(std::string key, std::string_view value) {
    std::string json;
    detail::append_json_string(json, value);
    fields.emplace_back(std::move(key), std::move(json));
    return *this;
  }
  Row& number(std::string key, double value, int decimals = 3) {
    fields.emplace_back(std::move(key), fmt::format("{:.{}f}", value, decimals));
    return *this;
  }
  Row& integer(std::string key, std::int64_t value) {
    fields.emplace_back(std::move(key), fmt::format("{}", value));
    return *this;
  }
  [[nodiscard]] std::string json() const {
    std::string out = "{";
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (i) out += ", ";
      detail::append_json_string(out, fields[i].first);
      out += ": " + fields[i].second;
    }
    return out + "}";
  }
};

void write_json(const Settings& s, const std::vector<Row>& rows) {
  Row header;
  header.text("command", s.command)
      .text("date", utc_now())
      .text("load_average", load_average())
      .text("commit", first_line_of("git rev-parse HEAD 2>/dev/null"))
      .text("dirty", first_line_of("git status --porcelain 2>/dev/null | head -1").empty() ? "no" : "yes")
      .integer("cores", static_cast<std::int64_t>(std::thread::hardware_concurrency()))
      .text("server", first_line_of(fmt::format("psql '{}' -XAtc 'SELECT version()' 2>/dev/null", s.dsn)));
  if (!s.json.parent_path().empty()) fs::create_directories(s.json.parent_path());
  std::ofstream out(s.json);
  out << "{\n  \"bench\": \"propgraph-postgres-bench\",\n  \"run\": " << header.json() << ",\n  \"rows\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) out << "    " << rows[i].json() << (i + 1 < rows.size() ? ",\n" : "\n");
  out << "  ]\n}\n";
  fmt::print("\nrows written to {}\n", s.json.string());
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

std::unique_ptr<PostgresGraph> open_graph(const Settings& s, const std::string& name, std::vector<std::string> standbys = {}) {
  PostgresOptions o{.conninfo = s.dsn, .graph = name, .pool_size = 8};
  (void)standbys;
  return std::make_unique<PostgresGraph>(std::move(o));
}

}  // namespace

int main(int argc, char** argv) {
  const Settings s = parse(argc, argv);
  std::vector<Row> rows;
  const std::string graph_name = "propgraph_bench_scale";
  const auto list = make_graph(s);
  const auto options = load_options(s);
  const auto records = static_cast<double>(s.vertices + list.edges.size());
  fmt::print("propgraph-postgres-bench: {} vertices + {} edges, server {}\nload average {}\n\n", s.vertices,
             list.edges.size(), s.dsn, load_average());

  // A graph created by this build: drop the one an earlier run left (through another graph:
  // dropping the bound graph only empties it).
  open_graph(s, "propgraph_bench_admin")->drop_graph(graph_name);
  auto graph = open_graph(s, graph_name);
  if (s.runs_part("load") || s.runs_part("page_rank")) {
    // The load runs once per run into an emptied graph; the last one stays for page_rank.
    std::vector<double> load_seconds;
    const int load_runs = s.runs_part("load") ? s.runs : 1;
    for (int run = 0; run < load_runs; ++run) {
      graph->drop_graph(graph_name);
      const auto start = Clock::now();
      generate::load(*graph, list, options);
      load_seconds.push_back(seconds_since(start));
      fmt::print("load run {}: {:.2f} s\n", run + 1, load_seconds.back());
    }
    if (s.runs_part("load")) {
      const double t = median(load_seconds);
      fmt::print("load: {:.2f} s median, {:.0f} records/s\n", t, records / t);
      rows.push_back(Row{}
                         .text("bench", "load")
                         .text("backend", "PostgresGraph")
                         .text("path", fmt::format("create_vertices + create_edges, batches of {} (COPY binary)", s.batch))
                         .integer("vertices", s.vertices)
                         .integer("edges", static_cast<std::int64_t>(list.edges.size()))
                         .integer("runs", load_runs)
                         .number("seconds", t)
                         .number("records_per_s", records / t, 0));
    }
  }

  if (s.runs_part("page_rank")) {
    MemoryGraph memory;
    generate::load(memory, list, options);
    for (auto* backend : {static_cast<GraphOperations*>(graph.get()), static_cast<GraphOperations*>(&memory)}) {
      const bool pg = backend == graph.get();
      std::vector<double> times;
      std::size_t scored = 0;
      for (int run = 0; run < s.runs; ++run) {
        const auto start = Clock::now();
        scored = backend->page_rank().size();
        times.push_back(seconds_since(start));
      }
      const double t = median(times);
      fmt::print("page_rank {}: {:.3f} s median of {} ({} scores)\n", pg ? "PostgresGraph" : "MemoryGraph", t, s.runs,
                 scored);
      rows.push_back(Row{}
                         .text("bench", "page_rank")
                         .text("backend", pg ? "PostgresGraph" : "MemoryGraph")
                         .integer("vertices", s.vertices)
                         .integer("edges", static_cast<std::int64_t>(list.edges.size()))
                         .integer("runs", s.runs)
                         .number("seconds", t));
    }
  }
  write_json(s, rows);
  return 0;
}
