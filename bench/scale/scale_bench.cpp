// propgraph-scale: MemoryGraph at 10k, 100k and 1M vertices (16 edges per vertex on average),
// side by side with its peers on the same edge lists in the same run:
//
//   contenders   propgraph (MemoryGraph through GraphOperations), raw Boost.Graph CSR, igraph and
//                SuiteSparse:GraphBLAS on one thread (the last two when the build has them);
//   load         each contender builds its graph from the edge list: time and resident-memory
//                growth (kept after the load, and the peak during it), GraphBLAS's own count;
//   operations   bfs (unbounded) and shortest_path from the vertex of highest out-degree to a
//                farthest vertex it reaches, weak connected components, page_rank (20
//                iterations, damping 0.85); the results are compared across contenders
//                (reached vertices and depth, component count, path length, top five ranks);
//   propgraph    memory per vertex and per edge with two small properties each, the cost of
//                whole-graph calls right after a write, and point lookups.
//
// Times are CPU seconds of the calling thread (every contender runs on it alone), medians of
// --repeats runs after 3 untimed warm-ups; the contenders take turns run by run, so slow phases
// of a shared machine spread over all of them. The JSON of the run (one object per figure, and
// the run's command, date, load and commit) goes to build/bench/propgraph-scale.json.
//
//   propgraph-scale [--generators=random,rmat] [--sizes=10000,100000,1000000] [--degree=16]
//                   [--repeats=5] [--load-repeats=3] [--seed=42] [--lookups=200000]
//                   [--contenders=propgraph,csr,igraph,graphblas]
//                   [--only=load,memory,bfs,components,page_rank,shortest_path,snapshot,lookups]
//                   [--out-dir=DIR] [--json=FILE] [--dump-edges=DIR] [--sweep-caches=MIB]
//
// --sweep-caches=MIB writes MIB MiB of memory before every run of an operation (untimed), so
// each starts with cold caches, as a call does that comes between other work; without it, runs
// follow each other and a contender alone reuses what its last run left in the caches.
//
// --dump-edges=DIR also writes each graph's edge list and query, for timing other libraries on
// exactly the same input (bench/scale/networkx_paths.py): DIR/<generator>-<vertices>.edges, one
// "from to" line per edge in generation order (vertices 0..n-1), and
// DIR/<generator>-<vertices>.query.json with the source, target and hops of shortest_path.
#include <time.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "args.hpp"
#include "bench_support.hpp"
#include "contender.hpp"
#include "propgraph/generate.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/version.hpp"
#include "propgraph_contender.hpp"
#include "run_info.hpp"

#ifndef PROPGRAPH_BENCH_OUT_DIR
#define PROPGRAPH_BENCH_OUT_DIR "build/bench"
#endif

using namespace propgraph;
using namespace propgraph::scale;
using bench::Json;
namespace fs = std::filesystem;

namespace {

// -- settings -------------------------------------------------------------------------------------

/// A comma-separated list as views into `text`.
std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> parts;
  while (!text.empty()) {
    const auto comma = text.find(',');
    parts.push_back(text.substr(0, comma));
    text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
  }
  return parts;
}

bool listed(std::string_view list, std::string_view item) {
  if (list.empty()) return true;
  const auto parts = split(list);
  return std::find(parts.begin(), parts.end(), item) != parts.end();
}

struct Settings {
  std::vector<std::string> generators{"random", "rmat"};
  std::vector<std::uint32_t> sizes{10'000, 100'000, 1'000'000};
  std::uint32_t degree = 16;
  int repeats = 5;
  int load_repeats = 3;
  std::uint64_t seed = 42;
  std::size_t lookups = 200'000;
  std::string contenders;  // comma-separated subset of propgraph,csr,igraph,graphblas
  std::string only;        // comma-separated subset of the sections
  fs::path out_dir = PROPGRAPH_BENCH_OUT_DIR;
  std::optional<fs::path> json;
  std::optional<fs::path> dump_edges;
  std::uint64_t sweep_mib = 0;
  [[nodiscard]] bool runs(std::string_view section) const { return listed(only, section); }
  [[nodiscard]] bool has(std::string_view contender) const { return listed(contenders, contender); }
};

constexpr std::string_view kUsage =
    "usage: propgraph-scale [--generators=random,rmat] [--sizes=N,N,...] [--degree=D] [--repeats=R]\n"
    "                       [--load-repeats=R] [--seed=S] [--lookups=N]\n"
    "                       [--contenders=propgraph,csr,igraph,graphblas]\n"
    "                       [--only=load,memory,bfs,components,page_rank,shortest_path,snapshot,lookups]\n"
    "                       [--out-dir=DIR] [--json=FILE] [--dump-edges=DIR] [--sweep-caches=MIB]\n";

[[noreturn]] void usage_error(std::string_view message) {
  fmt::print(stderr, "propgraph-scale: {}\n{}", message, kUsage);
  std::exit(2);
}

std::uint64_t parse_number(std::string_view text, std::string_view flag) {
  if (const auto value = bench::parse_number<std::uint64_t>(text)) return *value;
  usage_error(fmt::format("{} expects a number, got '{}'", flag, text));
}

void check_names(std::string_view flag, std::string_view list, std::initializer_list<std::string_view> known) {
  for (auto name : split(list)) {
    if (std::find(known.begin(), known.end(), name) == known.end())
      usage_error(fmt::format("{}: unknown name '{}'", flag, name));
  }
}

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&](std::string_view flag) -> std::optional<std::string_view> {
      if (arg.starts_with(flag) && arg.size() > flag.size() && arg[flag.size()] == '=')
        return arg.substr(flag.size() + 1);
      return std::nullopt;
    };
    if (auto v = value("--sizes")) {
      s.sizes.clear();
      for (auto part : split(*v)) s.sizes.push_back(static_cast<std::uint32_t>(parse_number(part, "--sizes")));
      if (s.sizes.empty()) usage_error("--sizes is empty");
    } else if (auto g = value("--generators")) {
      check_names("--generators", *g, {"random", "rmat"});
      const auto parts = split(*g);
      s.generators.assign(parts.begin(), parts.end());
      if (s.generators.empty()) usage_error("--generators is empty");
    } else if (auto d = value("--degree")) {
      s.degree = static_cast<std::uint32_t>(parse_number(*d, "--degree"));
    } else if (auto r = value("--repeats")) {
      s.repeats = std::max(1, static_cast<int>(parse_number(*r, "--repeats")));
    } else if (auto lr = value("--load-repeats")) {
      s.load_repeats = std::max(1, static_cast<int>(parse_number(*lr, "--load-repeats")));
    } else if (auto seed = value("--seed")) {
      s.seed = parse_number(*seed, "--seed");
    } else if (auto l = value("--lookups")) {
      s.lookups = std::max<std::size_t>(1, parse_number(*l, "--lookups"));
    } else if (auto c = value("--contenders")) {
      check_names("--contenders", *c, {"propgraph", "csr", "igraph", "graphblas"});
      s.contenders = *c;
    } else if (auto o = value("--only")) {
      check_names("--only", *o,
                  {"load", "memory", "bfs", "components", "page_rank", "shortest_path", "snapshot", "lookups"});
      s.only = *o;
    } else if (auto out = value("--out-dir")) {
      s.out_dir = std::string(*out);
    } else if (auto j = value("--json")) {
      s.json = fs::path(std::string(*j));
    } else if (auto dump = value("--dump-edges")) {
      s.dump_edges = fs::path(std::string(*dump));
    } else if (auto sweep = value("--sweep-caches")) {
      s.sweep_mib = parse_number(*sweep, "--sweep-caches");
    } else if (arg == "--help" || arg == "-h") {
      fmt::print("{}(see the comment at the top of bench/scale/scale_bench.cpp)\n", kUsage);
      std::exit(0);
    } else {
      usage_error(fmt::format("unknown flag '{}'", arg));
    }
  }
  return s;
}

std::string_view generator_title(std::string_view generator) {
  return generator == "rmat" ? "R-MAT (Graph500 parameters)" : "Erdős–Rényi";
}

generate::EdgeList make_graph(const Settings& s, std::string_view generator, std::uint32_t n) {
  const std::uint64_t m = std::uint64_t{n} * s.degree;
  return generator == "rmat" ? generate::rmat_graph(n, m, s.seed) : generate::random_graph(n, m, s.seed);
}

/// What every contender loads: a label per element and nothing else.
generate::LoadOptions bare_options() {
  generate::LoadOptions o;
  o.vertex_label = "Person";
  o.edge_label = "KNOWS";
  return o;
}

/// Two small properties per element, as a service would store them.
generate::LoadOptions property_options() {
  generate::LoadOptions o = bare_options();
  o.vertex_properties = [](std::uint32_t i) {
    return Properties{{"name", fmt::format("p{}", i)}, {"age", static_cast<std::int64_t>(18 + i % 60)}};
  };
  o.edge_properties = [](std::uint64_t i) {
    return Properties{{"since", static_cast<std::int64_t>(1990 + i % 35)},
                      {"weight", 0.5 + static_cast<double>(i % 7)}};
  };
  return o;
}

/// --dump-edges: the edge list and the query of one graph, as the comment at the top says.
void dump_graph(const Settings& s, std::string_view generator, const generate::EdgeList& list, const PathQuery& query) {
  fs::create_directories(*s.dump_edges);
  const fs::path stem = *s.dump_edges / fmt::format("{}-{}", generator, list.vertex_count);
  std::string text;
  for (auto [from, to] : list.edges) fmt::format_to(std::back_inserter(text), "{} {}\n", from, to);
  std::ofstream edges(fs::path(stem).concat(".edges"));
  edges << text;
  Json json;
  json.begin_object()
      .field("generator", generator)
      .field("vertices", static_cast<std::uint64_t>(list.vertex_count))
      .field("edges", static_cast<std::uint64_t>(list.edges.size()))
      .field("seed", s.seed)
      .field("degree", static_cast<std::uint64_t>(s.degree))
      .field("source", static_cast<std::uint64_t>(query.source))
      .field("target", static_cast<std::uint64_t>(query.target))
      .field("hops", query.target_depth)
      .field("direction", "out")
      .end_object();
  std::ofstream q(fs::path(stem).concat(".query.json"));
  q << json.str() << '\n';
  if (!edges || !q) {
    fmt::print(stderr, "propgraph-scale: cannot write {}.*\n", stem.string());
    std::exit(1);
  }
  fmt::print("edge list and query written to {}.edges, .query.json\n", stem.string());
}

// -- timing ---------------------------------------------------------------------------------------

/// --sweep-caches: writes a line of every 64 bytes of `mib` MiB (kept between calls).
void sweep_caches(std::uint64_t mib) {
  static std::vector<unsigned char> memory;
  if (mib == 0) return;
  memory.resize(mib << 20);
  for (std::size_t i = 0; i < memory.size(); i += 64) ++memory[i];
}

double clock_seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// Untimed runs of every contender before the timed ones (caches, allocator, lazy set-up).
constexpr int kWarmups = 3;

/// CPU seconds of the calling thread per run, and of the whole process over the same runs:
/// the second exceeds the first only when a library runs threads of its own.
struct Timing {
  std::vector<double> thread;
  std::vector<double> process;
  [[nodiscard]] double thread_median() const { return bench::median(thread); }
  [[nodiscard]] double process_median() const { return bench::median(process); }
  /// More than 5 % (and 1 ms) of the process's CPU time spent outside this thread.
  [[nodiscard]] bool other_threads() const { return process_median() > 1.05 * thread_median() + 1e-3; }
  /// The work's CPU time: the calling thread's, or the whole process's when the library ran
  /// threads of its own (its work on every core added up), so that figures stay single-core
  /// equivalents.
  [[nodiscard]] double median() const { return other_threads() ? process_median() : thread_median(); }
  [[nodiscard]] const std::vector<double>& samples() const { return other_threads() ? process : thread; }
  void measure(const std::function<void()>& fn) {
    const double p0 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    const double t0 = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
    fn();
    const double t1 = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
    const double p1 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    thread.push_back(t1 - t0);
    process.push_back(p1 - p0);
  }
};

/// Runs every job `warmups + repeats` times, one run of each per round, the first job of a round
/// moving by one each round; times the last `repeats` rounds. `before` runs untimed before each
/// run (memory resets), `after` after each timed one.
std::vector<Timing> take_turns(std::size_t jobs, int warmups, int repeats, const std::function<void(std::size_t)>& job,
                               const std::function<void(std::size_t)>& before = {},
                               const std::function<void(std::size_t)>& after = {}) {
  std::vector<Timing> timings(jobs);
  for (int round = 0; round < warmups + repeats; ++round) {
    for (std::size_t k = 0; k < jobs; ++k) {
      const std::size_t j = (k + static_cast<std::size_t>(round)) % jobs;
      if (before) before(j);
      if (round < warmups) {
        job(j);
        continue;
      }
      timings[j].measure([&] { job(j); });
      if (after) after(j);
    }
  }
  return timings;
}

// -- report ---------------------------------------------------------------------------------------

/// The graph of one table: generator, size, query.
struct Case {
  std::string generator;
  std::uint32_t vertices = 0;
  std::uint64_t edges = 0;
  PathQuery query;
};

/// One JSON row: the case it belongs to and what it measures; the caller adds the figures and
/// calls end_object().
Json& begin_row(Json& json, const Case& c, std::string_view table, std::string_view name) {
  return json.begin_object()
      .field("table", table)
      .field("generator", c.generator)
      .field("vertices", static_cast<std::uint64_t>(c.vertices))
      .field("edges", c.edges)
      .field("name", name);
}

void samples(Json& json, std::string_view key, const std::vector<double>& values) {
  json.begin_array(key);
  for (double v : values) json.field("", v);
  json.end_array();
}

struct Target {
  std::string what;
  double value;
  double bound;
  bool at_least;
  [[nodiscard]] bool met() const { return at_least ? value >= bound : value <= bound; }
};

// -- one table: load and operations side by side --------------------------------------------------

struct LoadFigures {
  Timing time;
  std::vector<double> kept;  // RSS after the load minus before it, bytes
  std::vector<double> peak;  // peak RSS during the load minus RSS before it, bytes
  std::optional<double> library;
};

struct OperationFigures {
  bool ran = false;
  Timing time;
  std::string result;
};

constexpr double kMiB = 1024.0 * 1024.0;

std::string cell(const std::optional<double>& value) {
  if (!value) return "-";
  return fmt::format("{:.{}f}", *value, std::abs(*value) < 10 ? 2 : 1);
}

std::string operation_title(Operation op, const Case& c) {
  switch (op) {
    case Operation::bfs: return "bfs (ms)";
    case Operation::components: return "components, weak (ms)";
    case Operation::page_rank: return fmt::format("page_rank {} iter (ms)", kPageRankIterations);
    case Operation::shortest_path: return fmt::format("shortest_path {} hops (ms)", c.query.target_depth);
  }
  return {};
}

/// "agree: reached 1000000, depth 7", or which contender said what.
std::pair<bool, std::string> agreement(const std::vector<std::string>& names,
                                       const std::vector<OperationFigures>& figures) {
  std::vector<std::pair<std::string, std::string>> groups;  // result, contenders
  for (std::size_t i = 0; i < figures.size(); ++i) {
    if (!figures[i].ran) continue;
    auto at = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == figures[i].result; });
    if (at == groups.end()) {
      groups.emplace_back(figures[i].result, names[i]);
    } else {
      at->second += ", " + names[i];
    }
  }
  if (groups.size() == 1) return {true, "agree: " + groups.front().first};
  std::string text = "DIFFER:";
  for (const auto& [result, who] : groups) text += fmt::format(" {} say {};", who, result);
  text.pop_back();
  return {false, text};
}

class Table {
 public:
  Table(const Settings& s, Json& json, std::vector<Target>& targets) : s_(s), json_(json), targets_(targets) {}

  /// Load, operations and the propgraph-only sections for one generated graph.
  void run(const std::string& generator, std::uint32_t n) {
    const auto list = make_graph(s_, generator, n);
    Case c{generator, n, list.edges.size(), choose_query(list)};
    fmt::print("== {} graph: {} vertices, {} edges (seed {}, {} per vertex) ==\n", generator_title(generator), n,
               c.edges, s_.seed, s_.degree);
    if (s_.dump_edges) dump_graph(s_, generator, list, c.query);
    fmt::print(
        "bfs and shortest_path start at vertex {} (out-degree {}, the highest); shortest_path ends at vertex {}, "
        "{} hops away\n\n",
        c.query.source, c.query.source_out_degree, c.query.target, c.query.target_depth);

    auto propgraph = std::make_unique<PropgraphContender>(bare_options());
    std::vector<Contender*> all;
    std::vector<std::unique_ptr<Contender>> peers;
    if (s_.has("propgraph")) all.push_back(propgraph.get());
    if (s_.has("csr")) peers.push_back(make_boost_csr());
    if (s_.has("igraph")) peers.push_back(make_igraph());
    if (s_.has("graphblas")) peers.push_back(make_graphblas());
    for (auto& p : peers) all.push_back(p.get());
    std::vector<std::string> names;
    for (auto* contender : all) names.emplace_back(contender->name());

    print_header(all);
    load(c, list, all, names);
    for (Operation op : kOperations) {
      if (s_.runs(operation_name(op))) operation(c, op, all, names);
    }
    print_ratios(all);
    print_notes(all);

    if (s_.has("propgraph")) {
      if (s_.runs("snapshot")) snapshot(c, *propgraph);
      propgraph->clear();
      for (auto& p : peers) p->clear();
      if (s_.runs("memory") || s_.runs("lookups")) with_properties(c, list);
    }
    fmt::print("\n");
    std::fflush(stdout);
  }

 private:
  static constexpr int kNameWidth = 28;
  static constexpr int kCellWidth = 12;

  void print_header(const std::vector<Contender*>& all) {
    fmt::print("{:<{}}", "", kNameWidth);
    for (auto* contender : all) fmt::print("{:>{}}", contender->name(), kCellWidth);
    fmt::print("\n");
    for (auto* contender : all) {
      if (auto why = contender->missing()) fmt::print("  {}: n/a ({})\n", contender->name(), *why);
    }
    times_.assign(kOperations.size() + 1, std::vector<std::optional<double>>(all.size()));
    ran_.clear();
    missing_.clear();
    for (auto* contender : all) missing_.push_back(contender->missing().has_value());
  }

  /// The section about to run, on stderr: a run takes a while (and a profiler can wait for it).
  static void progress(const Case& c, std::string_view section) {
    fmt::print(stderr, "propgraph-scale: {} {}: {}\n", c.generator, c.vertices, section);
  }

  /// One line: a title and a cell per contender from column `first` on: "n/a" where the build
  /// lacks the contender, "-" where it has no figure.
  void print_row(std::string_view title, const std::vector<std::optional<double>>& values, std::string_view tail = {},
                 std::size_t first = 0) {
    fmt::print("{:<{}}", title, kNameWidth);
    for (std::size_t i = 0; i < values.size(); ++i) {
      fmt::print("{:>{}}", missing_[first + i] ? std::string("n/a") : cell(values[i]), kCellWidth);
    }
    if (!tail.empty()) fmt::print("  {}", tail);
    fmt::print("\n");
  }

  void load(const Case& c, const generate::EdgeList& list, const std::vector<Contender*>& all,
            const std::vector<std::string>& names) {
    progress(c, "load");
    const std::size_t k = all.size();
    std::vector<LoadFigures> figures(k);
    std::vector<std::size_t> available;
    for (std::size_t i = 0; i < k; ++i) {
      if (!all[i]->missing()) available.push_back(i);
    }
    if (!s_.runs("load")) {
      for (auto i : available) all[i]->load(list);  // untimed: the operations need the graphs
      return;
    }
    // Each round clears and reloads every contender in turn; the last round's graphs stay.
    std::vector<double> base(k);
    auto timings = take_turns(
        available.size(), 0, s_.load_repeats, [&](std::size_t j) { all[available[j]]->load(list); },
        [&](std::size_t j) {
          all[available[j]]->clear();
          base[j] = static_cast<double>(bench::reset_peak_rss());
        },
        [&](std::size_t j) {
          auto& f = figures[available[j]];
          f.peak.push_back(static_cast<double>(bench::proc_status_bytes("VmHWM")) - base[j]);
          // Kept: after the allocator returns what the load freed (its input buffers), without the
          // harness's own tables.
          const double harness = all[available[j]]->harness_bytes();
          f.kept.push_back(static_cast<double>(bench::reset_peak_rss()) - base[j] - harness);
          f.peak.back() -= harness;
          f.library = all[available[j]]->library_bytes();
        });
    for (std::size_t j = 0; j < available.size(); ++j) figures[available[j]].time = std::move(timings[j]);

    std::vector<std::optional<double>> ms(k), kept(k), peak(k), rate(k), per_edge(k);
    for (auto i : available) {
      const auto& f = figures[i];
      ms[i] = f.time.median() * 1e3;
      rate[i] = static_cast<double>(c.edges) / f.time.median() / 1e6;
      kept[i] = bench::median(f.kept) / kMiB;
      peak[i] = bench::median(f.peak) / kMiB;
      per_edge[i] = bench::median(f.kept) / static_cast<double>(c.edges);
      times_[0][i] = f.time.median();
      if (f.time.other_threads()) warnings_.push_back(fmt::format("{} load", names[i]));
      begin_row(json_, c, "load", "load")
          .field("contender", names[i])
          .field("unit", "s")
          .field("median", f.time.median())
          .field("process_cpu_median", f.time.process_median());
      samples(json_, "samples", f.time.samples());
      json_.field("kept_bytes_median", bench::median(f.kept)).field("peak_growth_bytes_median", bench::median(f.peak));
      samples(json_, "kept_bytes", f.kept);
      samples(json_, "peak_growth_bytes", f.peak);
      if (f.library) json_.field("library_bytes", *f.library);
      json_.end_object();
    }
    print_row("load (ms)", ms);
    print_row("  M edges/s", rate);
    print_row("  RSS kept (MiB)", kept);
    print_row("  RSS peak growth (MiB)", peak);
    print_row("  kept B per edge", per_edge);
    for (auto i : available) {
      if (figures[i].library) {
        fmt::print("  ({} counts {:.1f} MiB itself)\n", names[i], *figures[i].library / kMiB);
      }
    }
    if (!available.empty() && available.front() == 0 && s_.has("propgraph")) {
      const auto& f = figures[0];
      const double rate0 = static_cast<double>(c.edges) / f.time.median();
      if (c.vertices == s_.sizes.back()) {
        targets_.push_back(
            {fmt::format("{} {}: propgraph load, M edges/s", c.generator, c.vertices), rate0 / 1e6, 10.0, true});
        targets_.push_back({fmt::format("{} {}: propgraph B per edge, no properties", c.generator, c.vertices),
                            bench::median(f.kept) / static_cast<double>(c.edges), 40.0, false});
        targets_.push_back({fmt::format("{} {}: propgraph load peak / kept RSS", c.generator, c.vertices),
                            bench::median(f.peak) / bench::median(f.kept), 1.3, false});
      }
    }
  }

  void operation(const Case& c, Operation op, const std::vector<Contender*>& all,
                 const std::vector<std::string>& names) {
    progress(c, operation_name(op));
    std::vector<OperationFigures> figures(all.size());
    std::vector<std::size_t> running;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (!all[i]->missing() && all[i]->runs(op)) running.push_back(i);
    }
    auto timings = take_turns(
        running.size(), kWarmups, s_.repeats, [&](std::size_t j) { all[running[j]]->run(op, c.query); },
        [&](std::size_t) { sweep_caches(s_.sweep_mib); });
    std::vector<std::optional<double>> ms(all.size());
    for (std::size_t j = 0; j < running.size(); ++j) {
      auto& f = figures[running[j]];
      f.ran = true;
      f.time = std::move(timings[j]);
      f.result = all[running[j]]->result(op);
      ms[running[j]] = f.time.median() * 1e3;
      times_[static_cast<std::size_t>(op) + 1][running[j]] = f.time.median();
      if (f.time.other_threads()) warnings_.push_back(fmt::format("{} {}", names[running[j]], operation_name(op)));
    }
    const auto [agree, text] = agreement(names, figures);
    print_row(operation_title(op, c), ms, text);
    ran_.push_back(op);
    for (auto i : running) {
      const auto& f = figures[i];
      begin_row(json_, c, "operations", operation_name(op))
          .field("contender", names[i])
          .field("unit", "s")
          .field("median", f.time.median())
          .field("process_cpu_median", f.time.process_median());
      samples(json_, "samples", f.time.samples());
      json_.field("result", f.result).field("agrees", agree).field("note", all[i]->note(op));
      if (op == Operation::bfs || op == Operation::shortest_path) {
        json_.field("source", static_cast<std::uint64_t>(c.query.source))
            .field("target", static_cast<std::uint64_t>(c.query.target));
      }
      json_.end_object();
    }
    // Targets: propgraph at least as fast as raw Boost CSR (bfs, components, page_rank) and as
    // GraphBLAS (bfs, page_rank) at the largest size.
    if (!s_.has("propgraph") || c.vertices != s_.sizes.back() || op == Operation::shortest_path || !figures[0].ran)
      return;
    for (std::size_t i = 1; i < all.size(); ++i) {
      const bool wanted = names[i] == "Boost CSR" || (names[i] == "GraphBLAS" && op != Operation::components);
      if (!wanted || !figures[i].ran) continue;
      targets_.push_back(
          {fmt::format("{} {}: {} {} / propgraph time, %", c.generator, c.vertices, operation_name(op), names[i]),
           100.0 * figures[i].time.median() / figures[0].time.median(), 100.0, true});
    }
  }

  void print_ratios(const std::vector<Contender*>& all) {
    if (all.size() < 2 || all.front()->name() != "propgraph") return;
    fmt::print("\npeer time / propgraph time (>= 100 %: propgraph at least as fast)\n");
    fmt::print("{:<{}}", "", kNameWidth);
    for (std::size_t i = 1; i < all.size(); ++i) fmt::print("{:>{}}", all[i]->name(), kCellWidth);
    fmt::print("\n");
    auto line = [&](std::string_view title, const std::vector<std::optional<double>>& t) {
      std::vector<std::optional<double>> ratios;
      for (std::size_t i = 1; i < all.size(); ++i) {
        ratios.push_back(t[0] && t[i] ? std::optional<double>(100.0 * *t[i] / *t[0]) : std::nullopt);
      }
      print_row(title, ratios, {}, 1);
    };
    if (s_.runs("load")) line("load", times_[0]);
    for (Operation op : ran_) line(operation_name(op), times_[static_cast<std::size_t>(op) + 1]);
  }

  void print_notes(const std::vector<Contender*>& all) {
    for (Operation op : ran_) {
      for (auto* contender : all) {
        if (contender->missing() || !contender->runs(op)) continue;
        if (auto note = contender->note(op); !note.empty())
          fmt::print("  {} {}: {}\n", contender->name(), operation_name(op), note);
      }
    }
    for (const auto& w : warnings_) {
      fmt::print("  note: {} ran threads of its own: its figure is the CPU time of the whole process\n", w);
    }
    warnings_.clear();
  }

  /// Writes change the adjacency lists in place: the whole-graph calls right after a write of
  /// one edge cost what they cost before it.
  void snapshot(const Case& c, PropgraphContender& propgraph) {
    progress(c, "snapshot");
    MemoryGraph& g = propgraph.graph();
    const auto& ids = propgraph.ids();
    Timing first;
    Timing second;
    Timing later;
    for (int r = 0; r < s_.repeats; ++r) {
      const Edge e = g.create_edge(ids[static_cast<std::size_t>(r) % ids.size()], ids.back(), "KNOWS");
      g.delete_edge("KNOWS", e.id);
      first.measure([&] { (void)g.connected_components(); });
      second.measure([&] { (void)g.connected_components(); });
      later.measure([&] { (void)g.connected_components(); });
    }
    fmt::print("\npropgraph components after writing an edge: 1st call {:.1f} ms, 2nd {:.1f} ms, 3rd {:.1f} ms\n",
               first.median() * 1e3, second.median() * 1e3, later.median() * 1e3);
    const std::array<std::pair<std::string_view, const Timing*>, 3> calls{
        {{"first_after_write", &first}, {"second_after_write", &second}, {"third_after_write", &later}}};
    for (const auto& [name, timing] : calls) {
      begin_row(json_, c, "snapshot", name).field("contender", "propgraph").field("operation", "components");
      json_.field("unit", "s").field("median", timing->median());
      samples(json_, "samples", timing->thread);
      json_.end_object();
    }
  }

  /// MemoryGraph with two small properties per element: memory per vertex and per edge, and
  /// point lookups.
  void with_properties(const Case& c, const generate::EdgeList& list) {
    progress(c, "memory");
    PropgraphContender propgraph(property_options());
    Timing time;
    PhaseMemory m;
    time.measure([&] { m = propgraph.load_measured(list); });
    const double n = c.vertices;
    const double e = static_cast<double>(c.edges);
    fmt::print("\npropgraph with two small properties per element: load {:.1f} ms ({:.2f} M edges/s)\n",
               time.median() * 1e3, e / time.median() / 1e6);
    fmt::print("  per vertex: {:.1f} B kept, {:.1f} B peak growth; per edge: {:.1f} B kept, {:.1f} B peak growth\n",
               m.vertex_kept / n, m.vertex_peak / n, m.edge_kept / e, m.edge_peak / e);
    const std::array<std::tuple<std::string_view, double, std::string_view>, 4> memory{
        {{"vertex_kept", m.vertex_kept / n, "B/vertex"},
         {"vertex_peak_growth", m.vertex_peak / n, "B/vertex"},
         {"edge_kept", m.edge_kept / e, "B/edge"},
         {"edge_peak_growth", m.edge_peak / e, "B/edge"}}};
    for (const auto& [name, value, unit] : memory) {
      begin_row(json_, c, "memory_per_element", name)
          .field("contender", "propgraph")
          .field("unit", unit)
          .field("median", value);
      json_.field("properties", "two small ones per element").end_object();
    }
    begin_row(json_, c, "memory_per_element", "load_with_properties")
        .field("contender", "propgraph")
        .field("unit", "s");
    json_.field("median", time.median()).end_object();
    if (c.vertices == s_.sizes.back()) {
      targets_.push_back({fmt::format("{} {}: B per vertex, two properties", c.generator, c.vertices),
                          m.vertex_kept / n, 100.0, false});
      targets_.push_back(
          {fmt::format("{} {}: B per edge, two properties", c.generator, c.vertices), m.edge_kept / e, 64.0, false});
    }
    if (s_.runs("lookups")) {
      progress(c, "lookups");
      lookups(c, list, propgraph);
    }
  }

  void lookups(const Case& c, const generate::EdgeList& list, PropgraphContender& propgraph) {
    MemoryGraph& g = propgraph.graph();
    const auto& ids = propgraph.ids();
    std::mt19937_64 random(s_.seed);
    std::vector<std::uint32_t> picks(s_.lookups);
    for (auto& p : picks) p = static_cast<std::uint32_t>(random() % c.vertices);
    // The ids a service would receive in requests, one after another.
    std::vector<ElementId> requests;
    requests.reserve(picks.size());
    for (auto p : picks) requests.push_back(ids[p]);
    std::size_t found = 0;
    auto per_op = [&](std::size_t ops, const std::function<void()>& fn) {
      Timing t = take_turns(1, kWarmups, s_.repeats, [&](std::size_t) { fn(); }).front();
      for (auto* samples : {&t.thread, &t.process}) {
        for (auto& v : *samples) v /= static_cast<double>(ops);
      }
      return t;
    };
    const Timing by_id = per_op(requests.size(), [&] {
      for (const auto& id : requests) found += g.find_vertex_by_id("Person", id).has_value();
    });
    std::vector<Properties> filters;
    filters.reserve(picks.size());
    for (auto p : picks) filters.push_back(Properties{{"name", fmt::format("p{}", p)}});
    // Without the index the same filter scans every Person: a few calls suffice.
    const std::size_t scans = std::min<std::size_t>(filters.size(), 20);
    const Timing unindexed = per_op(scans, [&] {
      for (std::size_t i = 0; i < scans; ++i) found += g.find_vertices_by_label("Person", filters[i]).size();
    });
    g.create_index("Person", "name");
    const Timing indexed = per_op(filters.size(), [&] {
      for (const auto& f : filters) found += g.find_vertices_by_label("Person", f).size();
    });
    if (found == 0) throw std::logic_error("lookups found nothing");
    fmt::print(
        "  point lookups ({} random vertices per run): find_vertex_by_id {:.0f} ns, find_vertices_by_label(name) "
        "indexed {:.0f} ns, unindexed {:.0f} ns\n",
        s_.lookups, by_id.median() * 1e9, indexed.median() * 1e9, unindexed.median() * 1e9);

    // The service calls: label-free lookups, incident edges, pages.
    const Timing label_free = per_op(requests.size(), [&] {
      for (const auto& id : requests) found += g.find_vertex(id).has_value();
    });
    // incident_edges of vertices with 16 incident edges (in + out; the nearest degree present
    // when none has 16): the size of the target. The median degree is printed beside it.
    std::vector<std::uint32_t> degree(c.vertices, 0);
    for (const auto& [from, to] : list.edges) ++degree[from], ++degree[to];
    std::vector<std::uint32_t> sorted = degree;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
    const std::uint32_t median_degree = sorted[sorted.size() / 2];
    constexpr std::uint32_t kIncidentDegree = 16;
    std::uint32_t incident_degree = degree.front();
    for (std::uint32_t d : degree) {
      const auto distance = [](std::uint32_t a) {
        return a > kIncidentDegree ? a - kIncidentDegree : kIncidentDegree - a;
      };
      if (distance(d) < distance(incident_degree)) incident_degree = d;
    }
    std::vector<ElementId> typical;
    for (std::uint32_t v = 0; v < c.vertices && typical.size() < 10'000; ++v) {
      if (degree[v] == incident_degree) typical.push_back(ids[v]);
    }
    // In random order: ids in ascending order would find their records side by side in memory.
    std::shuffle(typical.begin(), typical.end(), random);
    const Timing incident = per_op(typical.size(), [&] {
      for (const auto& id : typical) found += g.incident_edges(id).size();
    });
    // A page of 100 persons of one age (a sixtieth of them), starting after a random person.
    const Properties age{{"age", std::int64_t{30}}};
    std::vector<ElementId> afters;
    for (std::size_t i = 0; i < 100; ++i) afters.push_back(requests[i % requests.size()]);
    auto page_of_100 = [&] {
      for (const auto& after : afters)
        found += g.find_vertices_by_label("Person", age, {.limit = 100, .after = after}).size();
    };
    const Timing page_unindexed = per_op(afters.size(), page_of_100);
    g.create_index("Person", "age");
    const Timing page_indexed = per_op(afters.size(), page_of_100);
    // 100 single find_vertex calls, the yardstick for a page of 100.
    const double hundred_lookups = label_free.median() * 100;
    // All persons in pages of 1000 against one unpaged call.
    const Timing unpaged = per_op(1, [&] { found += g.find_vertices_by_label("Person").size(); });
    const Timing paged = per_op(1, [&] {
      Page page{.limit = 1000};
      for (;;) {
        const auto batch = g.find_vertices_by_label("Person", {}, page);
        found += batch.size();
        if (batch.size() < page.limit) break;
        page.after = batch.back().id;
      }
    });
    fmt::print(
        "  service calls: find_vertex {:.0f} ns; incident_edges of a degree-{} vertex {:.0f} ns (median degree {}); "
        "a page of 100 of one age {:.1f} us indexed, {:.1f} us unindexed (100 find_vertex: {:.1f} us); "
        "all persons in pages of 1000 {:.1f} ms vs one call {:.1f} ms ({:.2f}x)\n",
        label_free.median() * 1e9, incident_degree, incident.median() * 1e9, median_degree, page_indexed.median() * 1e6,
        page_unindexed.median() * 1e6, hundred_lookups * 1e6, paged.median() * 1e3, unpaged.median() * 1e3,
        paged.median() / unpaged.median());
    const std::array<std::pair<std::string_view, const Timing*>, 9> rows{
        {{"find_vertex_by_id", &by_id},
         {"find_vertices_by_label_indexed", &indexed},
         {"find_vertices_by_label_unindexed", &unindexed},
         {"find_vertex", &label_free},
         {"incident_edges_degree_16", &incident},
         {"page_of_100_indexed", &page_indexed},
         {"page_of_100_unindexed", &page_unindexed},
         {"all_in_pages_of_1000", &paged},
         {"all_unpaged", &unpaged}}};
    for (const auto& [name, timing] : rows) {
      begin_row(json_, c, "lookups", name)
          .field("contender", "propgraph")
          .field("unit", "s/op")
          .field("median", timing->median());
      samples(json_, "samples", timing->thread);
      json_.end_object();
    }
    if (c.vertices == s_.sizes.back()) {
      targets_.push_back(
          {fmt::format("{} {}: find_vertex_by_id, ns", c.generator, c.vertices), by_id.median() * 1e9, 150.0, false});
      targets_.push_back({fmt::format("{} {}: indexed find_vertices_by_label, ns", c.generator, c.vertices),
                          indexed.median() * 1e9, 300.0, false});
      targets_.push_back({fmt::format("{} {}: page of 100 (indexed) / 100 find_vertex", c.generator, c.vertices),
                          page_indexed.median() / hundred_lookups, 2.0, false});
      targets_.push_back(
          {fmt::format("{} {}: incident_edges of a degree-{} vertex, ns", c.generator, c.vertices, incident_degree),
           incident.median() * 1e9, 2000.0, false});
      targets_.push_back({fmt::format("{} {}: pages of 1000 / one unpaged call", c.generator, c.vertices),
                          paged.median() / unpaged.median(), 1.5, false});
    }
  }

  const Settings& s_;
  Json& json_;
  std::vector<Target>& targets_;
  std::vector<std::vector<std::optional<double>>> times_;  // [load, operations...][contender], seconds
  std::vector<Operation> ran_;
  std::vector<bool> missing_;  // per contender column
  std::vector<std::string> warnings_;
};

}  // namespace

int main(int argc, char** argv) {
  const Settings s = parse(argc, argv);
  const bench::RunInfo run(argc, argv);
  const auto started = std::chrono::steady_clock::now();
  fmt::print("{}\n{}, commit {}, load average at start {}\n", run.command, run.date, run.commit, run.load_at_start);
  fmt::print(
      "{} edges per vertex, seed {}; CPU time of the calling thread, medians of {} runs after {} warm-ups "
      "(loads: {} runs), contenders taking turns\n\n",
      s.degree, s.seed, s.repeats, kWarmups, s.load_repeats);
  if (s.sweep_mib != 0) fmt::print("caches swept ({} MiB written) before every run of an operation\n\n", s.sweep_mib);

  Json json;
  json.begin_object();
  json.field("benchmark", "propgraph-scale");
  run.write_start(json);
  json.begin_object("settings")
      .field("degree", static_cast<std::uint64_t>(s.degree))
      .field("seed", s.seed)
      .field("repeats", s.repeats)
      .field("load_repeats", s.load_repeats)
      .field("sweep_caches_mib", s.sweep_mib)
      .field("warmups", kWarmups)
      .field("page_rank_iterations", kPageRankIterations)
      .field("page_rank_damping", kPageRankDamping)
      .field("clock",
             "CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID); of the whole process "
             "(CLOCK_PROCESS_CPUTIME_ID) for a figure whose library ran threads of its own")
      .field("memory", "RSS growth from /proc/self/status (VmRSS; VmHWM reset through /proc/self/clear_refs)")
      .end_object();
  json.begin_object("tables")
      .field("load",
             "each contender builds its graph from the edge list (propgraph: until its adjacency is linked): "
             "median seconds; RSS kept after the load and its peak growth during it, less the ids the "
             "propgraph harness keeps to ask its questions, bytes; library_bytes: the library's own count")
      .field("operations",
             "name = bfs, components, page_rank or shortest_path on the loaded graph: median seconds; "
             "result: what it found, in words every contender shares; agrees: all results equal")
      .field("snapshot", "propgraph components calls after creating and deleting one edge: 1st, 2nd and 3rd")
      .field("memory_per_element", "propgraph with two small properties per element: RSS per vertex and per edge")
      .field("lookups", "propgraph point lookups of random vertices: median seconds per call")
      .end_object();
  json.begin_array("contenders");
  for (const auto& contender : {make_boost_csr(), make_igraph(), make_graphblas()}) {
    json.begin_object().field("name", contender->name()).field("version", contender->version());
    if (auto why = contender->missing()) json.field("missing", *why);
    for (Operation op : kOperations) {
      if (auto note = contender->note(op); !note.empty()) json.field(fmt::format("note_{}", operation_name(op)), note);
    }
    json.end_object();
  }
  json.begin_object().field("name", "propgraph").field("version", propgraph::version_string).end_object();
  json.end_array();
  json.begin_array("rows");

  std::vector<Target> targets;
  Table table(s, json, targets);
  for (const auto& generator : s.generators) {
    for (std::uint32_t n : s.sizes) table.run(generator, n);
  }
  json.end_array();

  if (!targets.empty()) {
    fmt::print("targets (largest size):\n");
    json.begin_array("targets");
    for (const auto& t : targets) {
      fmt::print("  {:<66} {:>9.{}f}  ({} {})  {}\n", t.what, t.value, t.value < 10 ? 2 : 1,
                 t.at_least ? ">=" : "<=", t.bound, t.met() ? "met" : "MISSED");
      json.begin_object().field("target", t.what).field("value", t.value).field("bound", t.bound);
      json.field("comparison", t.at_least ? ">=" : "<=").field("met", t.met()).end_object();
    }
    json.end_array();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double peak = static_cast<double>(bench::proc_status_bytes("VmHWM"));
  fmt::print("\nran in {:.0f} s; load average at end {}; peak resident memory {:.2f} GiB\n", seconds,
             bench::load_average(), peak / (1024.0 * 1024 * 1024));
  bench::RunInfo::write_end(json);
  json.field("seconds", seconds).field("peak_rss_bytes", peak);
  json.end_object();

  std::error_code ec;
  fs::create_directories(s.out_dir, ec);
  const fs::path path = s.json.value_or(s.out_dir / "propgraph-scale.json");
  std::ofstream out(path);
  out << json.str() << '\n';
  if (!out) {
    fmt::print(stderr, "propgraph-scale: cannot write {}\n", path.string());
    return 1;
  }
  fmt::print("results: {}\n", path.string());
  return 0;
}
