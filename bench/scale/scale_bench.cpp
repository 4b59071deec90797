// propgraph-scale: MemoryGraph at 10k, 100k and 1M vertices (16 edges per vertex on average)
// against raw Boost.Graph on a compressed_sparse_row_graph built from the same edges.
//
//   1. memory: bytes per vertex and per edge of a MemoryGraph holding the largest graph, two
//      small properties per element (peak RSS growth while loading, over the element count);
//   2. algorithms: bfs (unbounded), weak connected_components, page_rank (20 iterations) and an
//      unweighted shortest_path between two far vertices, through GraphOperations and raw, in the
//      same run; edges/s of each and the ratio, medians of --repeats runs;
//   3. point lookups: find_vertex_by_id and an indexed find_vertices_by_label, ns/op.
//
//   propgraph-scale [--sizes=10000,100000,1000000] [--degree=16] [--repeats=5] [--seed=42]
//                   [--generator=random|rmat] [--lookups=200000] [--no-memory]
//                   [--only=memory,bfs,components,page_rank,shortest_path,lookups] [--json=PATH]
//
// Everything printed is also written as JSON (default build/bench/propgraph-scale.json), which
// scripts/bench --update-docs turns into the tables of docs/scale.md.
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/incremental_components.hpp>
#include <boost/graph/page_rank.hpp>
#include <boost/pending/disjoint_sets.hpp>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "json_writer.hpp"
#include "propgraph/generate.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "run_info.hpp"

using namespace propgraph;

#ifndef PROPGRAPH_BENCH_OUT_DIR
#define PROPGRAPH_BENCH_OUT_DIR "build/bench"
#endif

namespace {

using Csr = boost::compressed_sparse_row_graph<boost::directedS>;

struct Settings {
  std::vector<std::uint32_t> sizes{10'000, 100'000, 1'000'000};
  std::uint32_t degree = 16;
  int repeats = 5;
  std::uint64_t seed = 42;
  std::string generator = "random";
  std::size_t lookups = 200'000;
  bool memory = true;
  std::string json = PROPGRAPH_BENCH_OUT_DIR "/propgraph-scale.json";
  std::string only;  // comma-separated subset of bfs,components,page_rank,shortest_path,lookups
  [[nodiscard]] bool runs(std::string_view part) const {
    if (only.empty()) return true;
    std::string_view rest = only;
    while (!rest.empty()) {
      auto comma = rest.find(',');
      if (rest.substr(0, comma) == part) return true;
      rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
    }
    return false;
  }
};

[[noreturn]] void usage_error(std::string_view message) {
  fmt::print(stderr, "propgraph-scale: {}\n", message);
  fmt::print(stderr,
             "usage: propgraph-scale [--sizes=N,N,...] [--degree=D] [--repeats=R] [--seed=S]\n"
             "                       [--generator=random|rmat] [--lookups=N] [--no-memory]\n"
             "                       [--only=memory,bfs,components,page_rank,shortest_path,lookups]\n"
             "                       [--json=PATH]\n");
  std::exit(2);
}

std::uint64_t parse_number(std::string_view text, std::string_view flag) {
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    usage_error(fmt::format("{} expects a number, got '{}'", flag, text));
  }
  return value;
}

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&](std::string_view flag) -> std::optional<std::string_view> {
      if (arg.starts_with(flag) && arg.size() > flag.size() && arg[flag.size()] == '=') {
        return arg.substr(flag.size() + 1);
      }
      return std::nullopt;
    };
    if (auto v = value("--sizes")) {
      s.sizes.clear();
      while (!v->empty()) {
        auto comma = v->find(',');
        s.sizes.push_back(static_cast<std::uint32_t>(parse_number(v->substr(0, comma), "--sizes")));
        v->remove_prefix(comma == std::string_view::npos ? v->size() : comma + 1);
      }
      if (s.sizes.empty()) usage_error("--sizes is empty");
    } else if (auto d = value("--degree")) {
      s.degree = static_cast<std::uint32_t>(parse_number(*d, "--degree"));
    } else if (auto r = value("--repeats")) {
      s.repeats = std::max(1, static_cast<int>(parse_number(*r, "--repeats")));
    } else if (auto seed = value("--seed")) {
      s.seed = parse_number(*seed, "--seed");
    } else if (auto g = value("--generator")) {
      if (*g != "random" && *g != "rmat") usage_error(fmt::format("unknown generator '{}'", *g));
      s.generator = *g;
    } else if (auto l = value("--lookups")) {
      s.lookups = std::max<std::size_t>(1, parse_number(*l, "--lookups"));
    } else if (auto o = value("--only")) {
      s.only = *o;
      s.memory = s.runs("memory");
    } else if (auto j = value("--json")) {
      s.json = *j;
    } else if (arg == "--no-memory") {
      s.memory = false;
    } else if (arg == "--help" || arg == "-h") {
      fmt::print("see the comment at the top of bench/scale/scale_bench.cpp\n");
      std::exit(0);
    } else {
      usage_error(fmt::format("unknown flag '{}'", arg));
    }
  }
  return s;
}

generate::EdgeList make_graph(const Settings& s, std::uint32_t n) {
  const std::uint64_t m = std::uint64_t{n} * s.degree;
  return s.generator == "rmat" ? generate::rmat_graph(n, m, s.seed) : generate::random_graph(n, m, s.seed);
}

/// Two small properties per element, as a service would store them.
generate::LoadOptions load_options() {
  generate::LoadOptions o;
  o.vertex_label = "Person";
  o.edge_label = "KNOWS";
  o.vertex_properties = [](std::uint32_t i) {
    return Properties{{"name", fmt::format("p{}", i)}, {"age", static_cast<std::int64_t>(18 + i % 60)}};
  };
  o.edge_properties = [](std::uint64_t i) {
    return Properties{{"since", static_cast<std::int64_t>(1990 + i % 35)}, {"weight", 0.5 + static_cast<double>(i % 7)}};
  };
  return o;
}

// -- memory ---------------------------------------------------------------------------------------

/// A field of /proc/self/status in bytes (VmRSS, VmHWM).
std::int64_t status_bytes(std::string_view field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(field) && line.size() > field.size() && line[field.size()] == ':') {
      return std::stoll(line.substr(field.size() + 1)) * 1024;
    }
  }
  throw std::runtime_error(fmt::format("no {} in /proc/self/status", field));
}

/// Resets the peak-RSS mark (VmHWM) to the current RSS; false where the kernel refuses.
bool reset_peak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

struct Target {
  std::string what;
  double value;
  double bound;
  bool at_least;
};

/// What the run prints, kept for the JSON file.
struct Report {
  struct Memory {
    std::uint32_t vertices = 0;
    std::size_t edges = 0;
    double vertex_peak = 0, vertex_resident = 0, edge_peak = 0, edge_resident = 0, snapshot_per_edge = 0;
  };
  struct Algorithm {
    std::uint32_t vertices;
    std::size_t edges;
    std::string algorithm;
    double ours_edges_per_s, raw_edges_per_s, ours_ms, raw_ms;
  };
  struct Snapshot {
    std::uint32_t vertices;
    double first_ms, second_ms, later_ms;
  };
  struct Lookups {
    std::uint32_t vertices;
    double by_id_ns, indexed_ns, unindexed_ns;
  };
  std::optional<Memory> memory;
  std::vector<Algorithm> algorithms;
  std::vector<Snapshot> snapshots;
  std::vector<Lookups> lookups;
};
Report report;

void measure_memory(const Settings& s, std::vector<Target>& targets) {
  const std::uint32_t n = s.sizes.back();
  const auto list = make_graph(s, n);  // before the baseline: the input is not the graph's memory
  const auto options = load_options();
  generate::EdgeList vertices_only{list.vertex_count, {}};
  generate::EdgeList edges_only = list;
  edges_only.vertex_count = 0;

  MemoryGraph g("scale");
  const bool peak_ok = reset_peak();
  const std::int64_t base = status_bytes("VmRSS");
  const auto ids = generate::load(g, vertices_only, options);
  const std::int64_t after_vertices_peak = status_bytes("VmHWM");
  const std::int64_t after_vertices = status_bytes("VmRSS");
  reset_peak();
  const std::int64_t base_edges = status_bytes("VmRSS");
  // Edges between the vertices just created: a loader over the same ids.
  std::vector<NewEdge> batch;
  for (std::size_t first = 0; first < list.edges.size(); first += options.batch) {
    batch.clear();
    const std::size_t last = std::min(list.edges.size(), first + options.batch);
    for (std::size_t i = first; i < last; ++i) {
      batch.push_back(NewEdge{ids[list.edges[i].first], ids[list.edges[i].second], options.edge_label,
                              options.edge_properties(i)});
    }
    g.create_edges(batch);
  }
  batch = {};
  const std::int64_t after_edges_peak = status_bytes("VmHWM");
  const std::int64_t after_edges = status_bytes("VmRSS");
  const double e = static_cast<double>(list.edges.size());
  fmt::print("memory: {} vertices, {} edges, two small properties each ({} generator)\n", n,
             list.edges.size(), s.generator);
  fmt::print("  per vertex: {:.1f} B peak RSS growth, {:.1f} B resident after load   (target < 204 B)\n",
             static_cast<double>(after_vertices_peak - base) / n, static_cast<double>(after_vertices - base) / n);
  fmt::print("  per edge:   {:.1f} B peak RSS growth, {:.1f} B resident after load   (target < 154 B)\n",
             static_cast<double>(after_edges_peak - base_edges) / e, static_cast<double>(after_edges - base_edges) / e);
  if (!peak_ok) fmt::print("  (peak reset unavailable: peaks include earlier allocations)\n");
  // Algorithms on a graph this size build an adjacency snapshot, held until the next write.
  fmt::print("  the adjacency snapshot of whole-graph algorithms adds {:.1f} B per edge while cached\n",
             (2.0 * 12 * e + 8.0 * (n + 1)) / e);
  fmt::print("\n");
  report.memory = Report::Memory{n,
                                 list.edges.size(),
                                 static_cast<double>(after_vertices_peak - base) / n,
                                 static_cast<double>(after_vertices - base) / n,
                                 static_cast<double>(after_edges_peak - base_edges) / e,
                                 static_cast<double>(after_edges - base_edges) / e,
                                 (2.0 * 12 * e + 8.0 * (n + 1)) / e};
  targets.push_back({fmt::format("bytes per vertex at {} vertices (peak)", n),
                     static_cast<double>(after_vertices_peak - base) / n, 204.0, false});
  targets.push_back({fmt::format("bytes per edge at {} vertices (peak)", n),
                     static_cast<double>(after_edges_peak - base_edges) / e, 154.0, false});
}

// -- timing ---------------------------------------------------------------------------------------

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : (v[k - 1] + v[k]) / 2;
}

/// CPU seconds of the calling thread: every timed call runs on this thread alone, and CPU
/// time does not count the time other processes of a shared machine hold the core.
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// Untimed runs before the timed ones. MemoryGraph builds its adjacency snapshot once the work
/// done on the live lists since the last write reaches one pass over them (two or three
/// traversals); the timed runs then show the steady state of a read-mostly service. The cost of
/// the first calls after a write is printed separately (the snapshot table).
constexpr int kWarmups = 3;

/// Median CPU seconds of `repeats` runs of fn, after kWarmups untimed runs.
double time_median(int repeats, const std::function<void()>& fn) {
  for (int i = 0; i < kWarmups; ++i) fn();
  std::vector<double> seconds;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = thread_seconds();
    fn();
    seconds.push_back(thread_seconds() - t0);
  }
  return median(seconds);
}

/// Keeps a result alive past the timed region without the optimiser dropping the work.
template <typename T>
void keep(const T& value) {
  asm volatile("" : : "g"(&value) : "memory");
}

struct RawBfs {
  std::vector<std::uint32_t> depth;
  std::vector<std::size_t> parent;
  std::vector<boost::default_color_type> color;
};

struct TargetFound {};

struct DepthRecorder : boost::default_bfs_visitor {
  RawBfs* state;
  std::optional<std::size_t> target;
  void tree_edge(Csr::edge_descriptor e, const Csr& g) const {
    const auto u = boost::source(e, g);
    const auto v = boost::target(e, g);
    state->depth[v] = state->depth[u] + 1;
    state->parent[v] = u;
    if (target && v == *target) throw TargetFound{};
  }
};

/// Raw Boost BFS from src recording depth and parent (as GraphOperations::bfs does); with a
/// target it stops when the target is discovered.
void raw_bfs(const Csr& g, std::size_t src, RawBfs& state, std::optional<std::size_t> target = {}) {
  const auto n = boost::num_vertices(g);
  state.depth.assign(n, 0);
  state.parent.assign(n, n);
  state.color.assign(n, boost::white_color);
  try {
    boost::breadth_first_search(
        g, src,
        boost::visitor(DepthRecorder{{}, &state, target})
            .color_map(boost::make_iterator_property_map(state.color.begin(), boost::get(boost::vertex_index, g))));
  } catch (const TargetFound&) {
  }
}

struct Row {
  std::string algorithm;
  double work = 0;  // edges per run
  double ours = 0;  // seconds
  double raw = 0;
};

void print_row(std::uint32_t n, std::size_t m, const Row& r) {
  const double ours = r.work / r.ours / 1e6;
  const double raw = r.work / r.raw / 1e6;
  fmt::print("{:>9} {:>10}  {:<22} {:>9.1f} {:>9.1f} {:>9.2f} {:>9.2f} {:>6.0f}%\n", n, m, r.algorithm,
             ours, raw, r.ours * 1e3, r.raw * 1e3, 100.0 * r.raw / r.ours);
  report.algorithms.push_back({n, m, r.algorithm, ours * 1e6, raw * 1e6, r.ours * 1e3, r.raw * 1e3});
}

double ns_per_op(std::size_t ops, const std::function<void()>& fn, int repeats) {
  return time_median(repeats, fn) * 1e9 / static_cast<double>(ops);
}

}  // namespace

void write_json(const Settings& s, const std::vector<Target>& targets, const std::string& command,
                const std::string& date, const std::string& load_at_start, double seconds) {
  bench::Json json;
  json.begin_object();
  json.field("command", command).field("date", date).field("commit", bench::source_commit());
  json.field("cores", static_cast<std::int64_t>(sysconf(_SC_NPROCESSORS_ONLN)));
  json.field("load_average_start", load_at_start).field("load_average_end", bench::load_average());
  json.field("seconds", seconds).field("peak_rss_bytes", status_bytes("VmHWM"));
  json.field("generator", s.generator).field("degree", static_cast<std::int64_t>(s.degree));
  json.field("repeats", s.repeats).field("seed", static_cast<std::uint64_t>(s.seed));
  json.field("lookups_per_run", static_cast<std::uint64_t>(s.lookups));
  json.begin_array("sizes");
  for (auto n : s.sizes) json.field("", static_cast<std::int64_t>(n));
  json.end_array();
  if (report.memory) {
    const auto& m = *report.memory;
    json.begin_object("memory")
        .field("vertices", static_cast<std::int64_t>(m.vertices))
        .field("edges", static_cast<std::uint64_t>(m.edges))
        .field("bytes_per_vertex_peak", m.vertex_peak)
        .field("bytes_per_vertex_resident", m.vertex_resident)
        .field("bytes_per_edge_peak", m.edge_peak)
        .field("bytes_per_edge_resident", m.edge_resident)
        .field("snapshot_bytes_per_edge", m.snapshot_per_edge)
        .end_object();
  }
  json.begin_array("algorithms");
  for (const auto& a : report.algorithms) {
    json.begin_object()
        .field("vertices", static_cast<std::int64_t>(a.vertices))
        .field("edges", static_cast<std::uint64_t>(a.edges))
        .field("algorithm", a.algorithm)
        .field("ours_edges_per_s", a.ours_edges_per_s)
        .field("raw_edges_per_s", a.raw_edges_per_s)
        .field("ours_ms", a.ours_ms)
        .field("raw_ms", a.raw_ms)
        .end_object();
  }
  json.end_array();
  json.begin_array("snapshot");
  for (const auto& r : report.snapshots) {
    json.begin_object()
        .field("vertices", static_cast<std::int64_t>(r.vertices))
        .field("first_ms", r.first_ms)
        .field("second_ms", r.second_ms)
        .field("later_ms", r.later_ms)
        .end_object();
  }
  json.end_array();
  json.begin_array("lookups");
  for (const auto& r : report.lookups) {
    json.begin_object()
        .field("vertices", static_cast<std::int64_t>(r.vertices))
        .field("find_vertex_by_id_ns", r.by_id_ns)
        .field("indexed_ns", r.indexed_ns)
        .field("unindexed_ns", r.unindexed_ns)
        .end_object();
  }
  json.end_array();
  json.begin_array("targets");
  for (const auto& t : targets) {
    const bool met = t.at_least ? t.value >= t.bound : t.value < t.bound;
    json.begin_object()
        .field("target", t.what)
        .field("value", t.value)
        .field("bound", t.bound)
        .field("at_least", t.at_least)
        .field("met", met)
        .end_object();
  }
  json.end_array();
  json.end_object();
  std::ofstream out(s.json);
  out << json.str() << '\n';
  if (!out) {
    fmt::print(stderr, "propgraph-scale: cannot write {}\n", s.json);
    return;
  }
  fmt::print("results: {}\n", s.json);
}

int main(int argc, char** argv) {
  const Settings s = parse(argc, argv);
  const std::string command = bench::command_line(argc, argv);
  const std::string date = bench::local_date();
  const std::string load_at_start = bench::load_average();
  const auto started = std::chrono::steady_clock::now();
  fmt::print("propgraph-scale: {} graph, {} edges per vertex, seed {}, medians of {} runs (thread CPU time)\n\n", s.generator,
             s.degree, s.seed, s.repeats);
  std::vector<Target> targets;
  if (s.memory) measure_memory(s, targets);

  fmt::print("{:>9} {:>10}  {:<22} {:>9} {:>9} {:>9} {:>9} {:>7}\n", "vertices", "edges", "algorithm",
             "ours Me/s", "raw Me/s", "ours ms", "raw ms", "ratio");
  std::vector<std::string> lookup_lines;
  std::vector<std::string> snapshot_lines;
  for (std::uint32_t n : s.sizes) {
    const auto list = make_graph(s, n);
    const std::size_t m = list.edges.size();
    const Csr csr(boost::edges_are_unsorted_multi_pass, list.edges.begin(), list.edges.end(), n);
    MemoryGraph g("scale");
    const auto ids = generate::load(g, list, load_options());

    // Far pair: the source is vertex 0, the target the last vertex its BFS reaches.
    RawBfs state;
    raw_bfs(csr, 0, state);
    std::size_t far = 0;
    double reached_edges = 0;
    for (std::size_t v = 0; v < n; ++v) {
      if (state.color[v] == boost::white_color) continue;
      reached_edges += static_cast<double>(boost::out_degree(v, csr));
      if (state.depth[v] > state.depth[far]) far = v;
    }

    std::vector<Row> rows;
    if (s.runs("bfs")) {
      const TraversalOptions unlimited{.max_depth = std::numeric_limits<int>::max(),
                                       .max_vertices = std::numeric_limits<std::size_t>::max()};
      Row r{"bfs", reached_edges};
      r.ours = time_median(s.repeats, [&] { keep(g.bfs(ids[0], unlimited)); });
      r.raw = time_median(s.repeats, [&] { raw_bfs(csr, 0, state); keep(state); });
      rows.push_back(r);
    }
    if (s.runs("components")) {
      Row r{"connected_components", static_cast<double>(m)};
      r.ours = time_median(s.repeats, [&] { keep(g.connected_components()); });
      std::vector<std::size_t> rank(n);
      std::vector<std::size_t> parent(n);
      r.raw = time_median(s.repeats, [&] {
        const boost::typed_identity_property_map<std::size_t> index;
        auto rank_map = boost::make_iterator_property_map(rank.begin(), index);
        auto parent_map = boost::make_iterator_property_map(parent.begin(), index);
        boost::disjoint_sets<decltype(rank_map), decltype(parent_map)> sets(rank_map, parent_map);
        boost::initialize_incremental_components(csr, sets);
        boost::incremental_components(csr, sets);
        // Component of every vertex (what connected_components reports), fully compressed.
        for (std::size_t v = 0; v < n; ++v) parent[v] = sets.find_set(v);
        keep(parent);
      });
      rows.push_back(r);
    }
    if (s.runs("page_rank")) {
      const PageRankOptions pr{.iterations = 20, .tolerance = 0.0};
      Row r{"page_rank (20 iter)", 20.0 * static_cast<double>(m)};
      r.ours = time_median(s.repeats, [&] { keep(g.page_rank(pr)); });
      std::vector<double> rank(n);
      r.raw = time_median(s.repeats, [&] {
        boost::graph::page_rank(csr, boost::make_iterator_property_map(rank.begin(), boost::get(boost::vertex_index, csr)),
                                boost::graph::n_iterations(20), 0.85, n);
        keep(rank);
      });
      rows.push_back(r);
    }
    if (s.runs("shortest_path")) {
      const PathOptions unbounded{.direction = Direction::out, .max_depth = std::numeric_limits<int>::max()};
      Row r{fmt::format("shortest_path ({} hops)", state.depth[far]), reached_edges};
      r.ours = time_median(s.repeats, [&] { keep(g.shortest_path(ids[0], ids[far], unbounded)); });
      r.raw = time_median(s.repeats, [&] { raw_bfs(csr, 0, state, far); keep(state); });
      rows.push_back(r);
    }
    if (s.runs("components")) {
      // After a write the adjacency snapshot is stale: the first whole-graph call runs on the
      // live lists, the second builds a new snapshot and runs on it, later calls reuse it.
      std::vector<double> first;
      std::vector<double> second;
      for (int r = 0; r < s.repeats; ++r) {
        g.delete_vertex("Person", g.create_vertex("Person").id);  // changes the adjacency
        double t0 = thread_seconds();
        keep(g.connected_components());
        first.push_back(thread_seconds() - t0);
        t0 = thread_seconds();
        keep(g.connected_components());
        second.push_back(thread_seconds() - t0);
      }
      const auto later = std::find_if(rows.begin(), rows.end(), [](const Row& r) { return r.algorithm == "connected_components"; });
      report.snapshots.push_back({n, median(first) * 1e3, median(second) * 1e3, later->ours * 1e3});
      snapshot_lines.push_back(fmt::format(
          "{:>9}  connected_components after a write: 1st (live lists) {:>7.1f} ms, 2nd (builds the snapshot) {:>7.1f} ms, later {:>7.1f} ms",
          n, median(first) * 1e3, median(second) * 1e3, later->ours * 1e3));
    }
    for (const auto& r : rows) {
      print_row(n, m, r);
      if (n == s.sizes.back() && r.algorithm.find("shortest") == std::string::npos) {
        targets.push_back({fmt::format("{} at {} vertices: ours / raw CSR", r.algorithm, n), 100.0 * r.raw / r.ours, 50.0, true});
      }
    }

    if (!s.runs("lookups")) continue;
    // Point lookups over random vertices.
    std::mt19937_64 random(s.seed);
    std::vector<std::uint32_t> picks(s.lookups);
    for (auto& p : picks) p = static_cast<std::uint32_t>(random() % n);
    // The ids a service would receive in requests, one after another.
    std::vector<ElementId> requests;
    requests.reserve(picks.size());
    for (auto p : picks) requests.push_back(ids[p]);
    std::size_t found = 0;
    const double by_id = ns_per_op(requests.size(), [&] {
      for (const auto& id : requests) found += g.find_vertex_by_id("Person", id).has_value();
    }, s.repeats);
    std::vector<Properties> filters;
    filters.reserve(picks.size());
    for (auto p : picks) filters.push_back(Properties{{"name", fmt::format("p{}", p)}});
    // Without the index the same filter scans every Person: a few calls suffice.
    const std::size_t scans = std::min<std::size_t>(filters.size(), 20);
    const double unindexed = ns_per_op(scans, [&] {
      for (std::size_t i = 0; i < scans; ++i) found += g.find_vertices_by_label("Person", filters[i]).size();
    }, s.repeats);
    g.create_index("Person", "name");
    const double indexed = ns_per_op(picks.size(), [&] {
      for (const auto& f : filters) found += g.find_vertices_by_label("Person", f).size();
    }, s.repeats);
    keep(found);
    report.lookups.push_back({n, by_id, indexed, unindexed});
    lookup_lines.push_back(fmt::format(
        "{:>9}  find_vertex_by_id {:>7.0f} ns/op   find_vertices_by_label(name) indexed {:>7.0f} ns/op, unindexed {:>10.0f} ns/op",
        n, by_id, indexed, unindexed));
    if (n == s.sizes.back()) {
      targets.push_back({fmt::format("find_vertex_by_id at {} vertices (ns)", n), by_id, 200.0, false});
    }
  }
  if (!snapshot_lines.empty()) {
    fmt::print("\nadjacency snapshot:\n");
    for (const auto& line : snapshot_lines) fmt::print("{}\n", line);
  }
  fmt::print("\npoint lookups (random vertices, {} per run):\n", s.lookups);
  for (const auto& line : lookup_lines) fmt::print("{}\n", line);

  fmt::print("\ntargets:\n");
  for (const auto& t : targets) {
    const bool met = t.at_least ? t.value >= t.bound : t.value < t.bound;
    fmt::print("  {:<58} {:>8.1f}  ({} {})  {}\n", t.what, t.value, t.at_least ? ">=" : "<", t.bound,
               met ? "met" : "MISSED");
  }
  fmt::print("\npeak resident memory of this run: {:.2f} GiB\n", static_cast<double>(status_bytes("VmHWM")) / (1 << 30));
  write_json(s, targets, command, date, load_at_start,
             std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  return 0;
}
