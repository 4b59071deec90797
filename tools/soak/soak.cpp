// propgraph-soak: mixed load on one graph from plain threads and from fibers of a FiberPool for
// a given time, with periodic invariant checks and the process's resident memory over time.
//
//   propgraph-soak --duration=600 [--backend=memory] [--threads=2] [--fibers=8]
//                  [--check-every=10] [--max-vertices=20000] [--json=FILE]
//
// Invariants, checked while the load is paused (workers hold a shared gate for each call; the
// checker takes it exclusively): every edge's endpoints exist; count_* equal the scans; an
// indexed lookup equals the unindexed scan filtered by hand; page ranks sum to 1. Exit status:
// 0 when every check passed, 1 otherwise.
//
// A backend is one function (see kBackends) returning the graph and how to index it.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/fiber/operations.hpp>
#include <fmt/format.h>

#include "propgraph/fiber.hpp"
#include "propgraph/fmt.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace {

using namespace propgraph;
using Clock = std::chrono::steady_clock;

constexpr const char* kVertexLabel = "Node";
const std::vector<std::string> kEdgeLabels{"LINK", "REF"};
constexpr int kBuckets = 16;

/// What a backend gives the soak: the graph, and how to put an equality index on a key.
struct Backend {
  std::unique_ptr<GraphOperations> graph;
  std::function<void(std::string_view label, std::string_view key)> create_index;
};

Backend memory_backend() {
  auto graph = std::make_unique<MemoryGraph>("soak");
  auto* g = graph.get();
  return {std::move(graph), [g](std::string_view label, std::string_view key) { g->create_index(label, key); }};
}

const std::map<std::string, std::function<Backend()>> kBackends{{"memory", memory_backend}};

struct Options {
  double duration_s = 60;
  std::string backend = "memory";
  int threads = 2;
  int fibers = 8;
  double check_every_s = 10;
  std::size_t max_vertices = 20000;
  std::string json;
};

/// Resident set size of this process in bytes (/proc/self/statm).
std::uint64_t rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

class Soak {
 public:
  Soak(Backend backend, const Options& options) : backend_(std::move(backend)), options_(options) {
    backend_.create_index(kVertexLabel, "bucket");
    backend_.create_index(kEdgeLabels[0], "bucket");
  }

  /// One worker's loop until stop_; `yield` lets fibers interleave on their thread, `rest`
  /// waits a little while a check is pending.
  void work(std::uint64_t seed, const std::function<void()>& yield, const std::function<void()>& rest) {
    std::mt19937_64 rng(seed);
    std::vector<ElementId> mine;  // vertices this worker created (some deleted by others since)
    GraphOperations& g = *backend_.graph;
    while (!stop_.load(std::memory_order_relaxed)) {
      // A pending check goes first: the shared mutex alone would let readers starve it.
      while (pausing_.load(std::memory_order_acquire)) rest();
      {
        std::shared_lock gate(gate_);
        one_operation(g, rng, mine);
      }
      operations_.fetch_add(1, std::memory_order_relaxed);
      if (rng() % 8 == 0) yield();
    }
  }

  /// Runs the load for the duration, checking every check_every_s; returns the failed checks.
  int run() {
    FiberPool pool(static_cast<std::size_t>(options_.threads));
    std::vector<propgraph::Future<void>> fibers;
    for (int f = 0; f < options_.fibers; ++f) {
      fibers.push_back(pool.submit([this, f] {
        work(
            1000 + f, [] { boost::this_fiber::yield(); },
            [] { boost::this_fiber::sleep_for(std::chrono::microseconds(200)); });
      }));
    }
    std::vector<std::thread> threads;
    for (int t = 0; t < options_.threads; ++t) {
      threads.emplace_back([this, t] {
        work(
            1 + t, [] { std::this_thread::yield(); },
            [] { std::this_thread::sleep_for(std::chrono::microseconds(200)); });
      });
    }
    const auto start = Clock::now();
    const auto seconds = [](double s) {
      return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
    };
    const auto end = start + seconds(options_.duration_s);
    auto next_check = start;
    int failures = 0;
    for (;;) {
      const auto now = Clock::now();
      if (now >= next_check || now >= end) {
        failures += check(std::chrono::duration<double>(now - start).count());
        next_check += seconds(options_.check_every_s);
      }
      if (now >= end) break;
      std::this_thread::sleep_until(std::min(next_check, end));
    }
    stop_ = true;
    for (auto& t : threads) t.join();
    for (auto& f : fibers) f.get();
    pool.shutdown();
    failures += check(std::chrono::duration<double>(Clock::now() - start).count());
    return failures;
  }

  /// Memory growth as the closing lines report it: the median RSS of each minute under
  /// load (the first minute fills the graph), and the last sample, taken after the workers ended.
  void print_memory() const {
    std::vector<double> minute;
    std::string medians;
    const auto flush = [&] {
      if (minute.empty()) return;
      std::nth_element(minute.begin(), minute.begin() + static_cast<std::ptrdiff_t>(minute.size() / 2), minute.end());
      medians += fmt::format("{}{:.1f}", medians.empty() ? "" : " ", minute[minute.size() / 2]);
      minute.clear();
    };
    int current = 0;
    for (std::size_t i = 0; i + 1 < samples_.size(); ++i) {
      const int m = static_cast<int>(samples_[i].t / 60.0);
      if (m != current) flush();
      current = m;
      minute.push_back(static_cast<double>(samples_[i].rss) / (1 << 20));
    }
    flush();
    if (samples_.empty()) return;
    std::printf("propgraph-soak: RSS median per minute (MiB): %s; after the workers ended %.1f MiB\n", medians.c_str(),
                static_cast<double>(samples_.back().rss) / (1 << 20));
  }

  void write_json(const std::string& path) const {
    std::ofstream out(path);
    out << fmt::format("{{\"backend\":\"{}\",\"duration_s\":{},\"threads\":{},\"fibers\":{},\"samples\":[",
                       options_.backend, options_.duration_s, options_.threads, options_.fibers);
    for (std::size_t i = 0; i < samples_.size(); ++i) {
      const auto& s = samples_[i];
      out << fmt::format(
          "{}{{\"t_s\":{:.1f},\"operations\":{},\"vertices\":{},\"edges\":{},\"rss_bytes\":{},"
          "\"failures\":{}}}",
          i ? "," : "", s.t, s.operations, s.vertices, s.edges, s.rss, s.failures);
    }
    out << "]}\n";
  }

 private:
  struct Sample {
    double t;
    std::uint64_t operations;
    std::size_t vertices, edges;
    std::uint64_t rss;
    int failures;
  };

  void one_operation(GraphOperations& g, std::mt19937_64& rng, std::vector<ElementId>& mine) {
    const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    const int bucket = static_cast<int>(rng() % kBuckets);
    const auto roll = rng() % 100;
    // Keep the graph near max_vertices: past it, deletes outnumber creates.
    const bool full = vertices_.load(std::memory_order_relaxed) >= options_.max_vertices;
    if (mine.empty() || roll < (full ? 5u : 25u)) {
      mine.push_back(g.create_vertex(kVertexLabel, {{"bucket", bucket}, {"payload", std::string(pick(64), 'p')}}).id);
      vertices_.fetch_add(1, std::memory_order_relaxed);
    } else if (roll < 45) {
      try {
        g.create_edge(mine[pick(mine.size())], mine[pick(mine.size())], kEdgeLabels[pick(kEdgeLabels.size())],
                      {{"bucket", bucket}});
      } catch (const NotFound&) {
        // another worker deleted an endpoint meanwhile: expected
      }
    } else if (roll < (full ? 65u : 52u)) {
      const auto at = pick(mine.size());
      if (g.delete_vertex(kVertexLabel, mine[at])) vertices_.fetch_sub(1, std::memory_order_relaxed);
      mine[at] = mine.back();
      mine.pop_back();
    } else if (roll < 70) {
      (void)g.update_vertex(kVertexLabel, mine[pick(mine.size())], {{"bucket", bucket}, {"payload", nullptr}});
    } else if (roll < 75) {
      const auto edges = g.find_edges_by_label(kEdgeLabels[0], {{"bucket", bucket}});
      if (!edges.empty()) (void)g.delete_edge(kEdgeLabels[0], edges[pick(edges.size())].id);
    } else if (roll < 85) {
      (void)g.find_vertices_by_label(kVertexLabel, {{"bucket", bucket}});
    } else if (roll < 93) {
      (void)g.neighbors(mine[pick(mine.size())], {.direction = Direction::both, .max_depth = 2});
    } else if (roll < 97) {
      (void)g.bfs(mine[pick(mine.size())], {.max_depth = 3, .max_vertices = 200});
    } else if (roll < 99) {
      (void)g.find_vertex_by_id(kVertexLabel, mine[pick(mine.size())]);
    } else {
      (void)g.page_rank({.iterations = 5, .top_k = 10});
    }
  }

  /// Pauses the load and checks every invariant; prints one line; returns the failures.
  int check(double t) {
    pausing_.store(true, std::memory_order_release);
    std::unique_lock gate(gate_);
    struct Resume {
      std::atomic<bool>& flag;
      ~Resume() { flag.store(false, std::memory_order_release); }
    } resume{pausing_};
    GraphOperations& g = *backend_.graph;
    std::vector<std::string> failed;
    const auto vertices = g.find_vertices_by_label(kVertexLabel);
    std::set<ElementId> ids;
    for (const auto& v : vertices) ids.insert(v.id);
    if (g.count_vertices(kVertexLabel) != static_cast<std::int64_t>(vertices.size())) {
      failed.push_back(fmt::format("count_vertices {} != scan {}", g.count_vertices(kVertexLabel), vertices.size()));
    }
    std::size_t edge_total = 0;
    for (const auto& label : kEdgeLabels) {
      const auto edges = g.find_edges_by_label(label);
      edge_total += edges.size();
      if (g.count_edges(label) != static_cast<std::int64_t>(edges.size())) {
        failed.push_back(fmt::format("count_edges({}) {} != scan {}", label, g.count_edges(label), edges.size()));
      }
      for (const auto& e : edges) {
        if (!ids.contains(e.from) || !ids.contains(e.to)) {
          failed.push_back(fmt::format("edge {} has a missing endpoint ({} -> {})", e.id, e.from, e.to));
          break;
        }
      }
      for (int b = 0; b < kBuckets; ++b) {
        std::vector<ElementId> scanned, indexed;
        for (const auto& e : edges) {
          if (e.properties["bucket"] == Value(b)) scanned.push_back(e.id);
        }
        for (const auto& e : g.find_edges_by_label(label, {{"bucket", b}})) indexed.push_back(e.id);
        if (scanned != indexed) failed.push_back(fmt::format("edges {} bucket {}: lookup differs from scan", label, b));
      }
    }
    for (int b = 0; b < kBuckets; ++b) {
      std::vector<ElementId> scanned, indexed;
      for (const auto& v : vertices) {
        if (v.properties["bucket"] == Value(b)) scanned.push_back(v.id);
      }
      for (const auto& v : g.find_vertices_by_label(kVertexLabel, {{"bucket", b}})) indexed.push_back(v.id);
      if (scanned != indexed) failed.push_back(fmt::format("vertices bucket {}: indexed lookup differs from scan", b));
    }
    const auto ranks = g.page_rank({});
    double sum = 0;
    for (const auto& r : ranks) sum += r.score;
    if (ranks.size() != vertices.size() || (!ranks.empty() && std::abs(sum - 1.0) > 1e-6)) {
      failed.push_back(
          fmt::format("page_rank: {} scores summing to {:.9f} for {} vertices", ranks.size(), sum, vertices.size()));
    }
    vertices_.store(vertices.size(), std::memory_order_relaxed);
    const Sample sample{t,          operations_.load(), vertices.size(),
                        edge_total, rss_bytes(),        static_cast<int>(failed.size())};
    samples_.push_back(sample);
    std::printf("t=%7.1fs  operations=%11llu  vertices=%6zu  edges=%6zu  rss=%7.1f MiB  %s\n", t,
                static_cast<unsigned long long>(sample.operations), sample.vertices, sample.edges,
                static_cast<double>(sample.rss) / (1 << 20), failed.empty() ? "invariants ok" : "INVARIANTS FAILED");
    for (const auto& f : failed) std::printf("    %s\n", f.c_str());
    std::fflush(stdout);
    return static_cast<int>(failed.size());
  }

  Backend backend_;
  Options options_;
  std::shared_mutex gate_;  // shared per call, exclusive for a check (blocks fiber threads too: intended)
  std::atomic<bool> stop_{false};
  std::atomic<bool> pausing_{false};  // a check is waiting for the gate
  std::atomic<std::uint64_t> operations_{0};
  std::atomic<std::size_t> vertices_{0};
  std::vector<Sample> samples_;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    const std::string key = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    try {
      if (key == "--duration") o.duration_s = std::stod(value);
      else if (key == "--backend") o.backend = value;
      else if (key == "--threads") o.threads = std::stoi(value);
      else if (key == "--fibers") o.fibers = std::stoi(value);
      else if (key == "--check-every") o.check_every_s = std::stod(value);
      else if (key == "--max-vertices") o.max_vertices = std::stoul(value);
      else if (key == "--json") o.json = value;
      else return false;
    } catch (const std::exception&) {
      return false;
    }
  }
  return o.duration_s > 0 && o.check_every_s > 0 && o.threads >= 1 && o.fibers >= 0 && kBackends.contains(o.backend);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse(argc, argv, options)) {
    std::fprintf(stderr,
                 "usage: propgraph-soak --duration=SECONDS [--backend=memory] [--threads=N] [--fibers=N]\n"
                 "                      [--check-every=SECONDS] [--max-vertices=N] [--json=FILE]\n");
    return 2;
  }
  std::printf(
      "propgraph-soak: backend %s, %d threads + %d fibers on a %d-thread FiberPool, %.0f s, check every %.0f s\n",
      options.backend.c_str(), options.threads, options.fibers, options.threads, options.duration_s,
      options.check_every_s);
  Soak soak(kBackends.at(options.backend)(), options);
  const int failures = soak.run();
  soak.print_memory();
  if (!options.json.empty()) soak.write_json(options.json);
  std::printf("propgraph-soak: %s (%d invariant failures)\n", failures == 0 ? "OK" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}
