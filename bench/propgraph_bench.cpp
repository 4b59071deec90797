// propgraph-bench: the reference benchmark (design.md, bluetape4k-graph Part 5) on this
// library: the eight reference operations on the reference fixture, each as
//   sync        the GraphOperations call
//   fiber       as_fiber(graph).<op>_async(...).get(): future created and immediately joined
//   pool        the same through a 1-thread FiberPool, submitted from this (plain) thread
//   std_async   std::async(std::launch::async, <sync call>).get(): what a user would pick instead
// plus, for find_vertex_by_id, the pool hand-off when the pool thread has gone to sleep
// (pool_after_idle: 1 ms of idleness before each call) and when it is busy with other fibers
// (pool_busy), and launch/* micro-benchmarks of the fiber start itself (post vs dispatch, fresh
// vs recycled fibers, stack allocators and sizes).
//
// After the Google Benchmark run it prints a table of medians in the reference's shape, the
// fiber stack high-water mark of each operation, and writes <out_dir>/propgraph-bench.json (raw
// Google Benchmark JSON, its context naming the command and the commit; scripts/bench
// --update-docs turns it into the README's table) and <out_dir>/sync-vs-fiber.png (gnuplot,
// when installed).
//
// Own flags (everything else goes to Google Benchmark):
//   --out_dir=DIR   where the JSON, the plot data and the PNG go (default: <source>/build/bench)
//   --no_plot       do not run gnuplot
// Defaults added unless given: --benchmark_repetitions=5 --benchmark_min_time=0.2
//   --benchmark_display_aggregates_only=true --benchmark_out=<out_dir>/propgraph-bench.json
//   --benchmark_out_format=json
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <boost/fiber/future/promise.hpp>
#include <boost/fiber/operations.hpp>
#include <fmt/format.h>

#include "propgraph/fiber.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "reference_fixture.hpp"
#include "run_info.hpp"

#ifndef PROPGRAPH_BENCH_OUT_DIR
#define PROPGRAPH_BENCH_OUT_DIR "build/bench"
#endif

namespace {

using propgraph::FiberOperations;
using propgraph::FiberOptions;
using propgraph::GraphOperations;
using propgraph::StackAllocator;
using Fixture = propgraph::bench::ReferenceFixture;

/// Alice -> Dave path options: max_depth 4, everything else default.
const propgraph::PathOptions& path_options() {
  static const propgraph::PathOptions options = [] {
    propgraph::PathOptions o;
    o.max_depth = propgraph::bench::reference_path_max_depth;
    return o;
  }();
  return options;
}

// -- the eight reference operations ------------------------------------------------------------
// Each names its sync call and its _async twin with the same arguments.

struct FindVertexById {
  static constexpr std::string_view name = "find_vertex_by_id";
  static auto sync(GraphOperations& g, const Fixture& f) { return g.find_vertex_by_id("Person", f.alice); }
  static auto async(const FiberOperations& o, const Fixture& f) { return o.find_vertex_by_id_async("Person", f.alice); }
};
struct FindVerticesByLabel {
  static constexpr std::string_view name = "find_vertices_by_label";
  static auto sync(GraphOperations& g, const Fixture&) { return g.find_vertices_by_label("Person"); }
  static auto async(const FiberOperations& o, const Fixture&) { return o.find_vertices_by_label_async("Person"); }
};
struct Neighbors {
  static constexpr std::string_view name = "neighbors";
  static auto sync(GraphOperations& g, const Fixture& f) { return g.neighbors(f.alice); }
  static auto async(const FiberOperations& o, const Fixture& f) { return o.neighbors_async(f.alice); }
};
struct ShortestPath {
  static constexpr std::string_view name = "shortest_path";
  static auto sync(GraphOperations& g, const Fixture& f) { return g.shortest_path(f.alice, f.dave, path_options()); }
  static auto async(const FiberOperations& o, const Fixture& f) {
    return o.shortest_path_async(f.alice, f.dave, path_options());
  }
};
struct AllPaths {
  static constexpr std::string_view name = "all_paths";
  static auto sync(GraphOperations& g, const Fixture& f) { return g.all_paths(f.alice, f.dave, path_options()); }
  static auto async(const FiberOperations& o, const Fixture& f) {
    return o.all_paths_async(f.alice, f.dave, path_options());
  }
};
struct Bfs {
  static constexpr std::string_view name = "bfs";
  static auto sync(GraphOperations& g, const Fixture& f) { return g.bfs(f.alice); }
  static auto async(const FiberOperations& o, const Fixture& f) { return o.bfs_async(f.alice); }
};
struct Dfs {
  static constexpr std::string_view name = "dfs";
  static auto sync(GraphOperations& g, const Fixture& f) { return g.dfs(f.alice); }
  static auto async(const FiberOperations& o, const Fixture& f) { return o.dfs_async(f.alice); }
};
struct PageRank {
  static constexpr std::string_view name = "page_rank";
  static auto sync(GraphOperations& g, const Fixture&) { return g.page_rank(); }
  static auto async(const FiberOperations& o, const Fixture&) { return o.page_rank_async(); }
};

// -- shared state (set up in main, before the run) ----------------------------------------------

struct Bench {
  std::unique_ptr<propgraph::MemoryGraph> memory = std::make_unique<propgraph::MemoryGraph>("bench");
  GraphOperations* graph = memory.get();  // calls go through the interface, as a user's would
  Fixture fixture{*memory};
  propgraph::FiberPool pool{1};
  FiberOperations fiber = propgraph::as_fiber(*memory);
  FiberOperations pooled = propgraph::as_fiber(*memory, pool);
};
Bench* bench_state = nullptr;

template <class Op>
void bm_sync(benchmark::State& state) {
  GraphOperations& g = *bench_state->graph;
  const Fixture& f = bench_state->fixture;
  for (auto _ : state) {
    auto result = Op::sync(g, f);
    benchmark::DoNotOptimize(result);
  }
}

template <class Op>
void bm_fiber(benchmark::State& state) {
  const FiberOperations& ops = bench_state->fiber;
  const Fixture& f = bench_state->fixture;
  for (auto _ : state) {
    auto result = Op::async(ops, f).get();
    benchmark::DoNotOptimize(result);
  }
}

template <class Op>
void bm_pool(benchmark::State& state) {
  const FiberOperations& ops = bench_state->pooled;
  const Fixture& f = bench_state->fixture;
  for (auto _ : state) {
    auto result = Op::async(ops, f).get();
    benchmark::DoNotOptimize(result);
  }
}

/// The pool's thread has slept in epoll for 1 ms before each call (its idle_spin is 50 µs): the
/// hand-off pays a thread wake-up. Timed by hand, so the idle millisecond is not counted.
void bm_pool_after_idle(benchmark::State& state) {
  const FiberOperations& ops = bench_state->pooled;
  const Fixture& f = bench_state->fixture;
  for (auto _ : state) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const auto start = std::chrono::steady_clock::now();
    auto result = FindVertexById::async(ops, f).get();
    const auto end = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(result);
    state.SetIterationTime(std::chrono::duration<double>(end - start).count());
  }
}

/// A 1-thread pool kept busy by two fibers that each compute briefly and yield, forever: a
/// submitted call waits for its turn behind them.
void bm_pool_busy(benchmark::State& state) {
  propgraph::FiberPool pool(1);
  std::atomic<bool> stop{false};
  std::vector<propgraph::Future<void>> busy;
  for (int i = 0; i < 2; ++i) {
    busy.push_back(pool.submit([&stop] {
      std::uint64_t x = 1;
      while (!stop.load(std::memory_order_relaxed)) {
        for (int k = 0; k < 200; ++k) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        benchmark::DoNotOptimize(x);
        boost::this_fiber::yield();
      }
    }));
  }
  const FiberOperations ops = propgraph::as_fiber(*bench_state->graph, pool);
  const Fixture& f = bench_state->fixture;
  for (auto _ : state) {
    auto result = FindVertexById::async(ops, f).get();
    benchmark::DoNotOptimize(result);
  }
  stop = true;
  for (auto& b : busy) b.get();
}

template <class Op>
void bm_std_async(benchmark::State& state) {
  GraphOperations& g = *bench_state->graph;
  const Fixture& f = bench_state->fixture;
  for (auto _ : state) {
    auto result = std::async(std::launch::async, [&] { return Op::sync(g, f); }).get();
    benchmark::DoNotOptimize(result);
  }
}

template <class Op>
void register_op() {
  const std::string base(Op::name);
  benchmark::RegisterBenchmark((base + "/sync").c_str(), bm_sync<Op>)->UseRealTime();
  benchmark::RegisterBenchmark((base + "/fiber").c_str(), bm_fiber<Op>)->UseRealTime();
  benchmark::RegisterBenchmark((base + "/pool").c_str(), bm_pool<Op>)->UseRealTime();
  benchmark::RegisterBenchmark((base + "/std_async").c_str(), bm_std_async<Op>)->UseRealTime();
}

void register_handoff() {
  const std::string base(FindVertexById::name);
  benchmark::RegisterBenchmark((base + "/pool_after_idle").c_str(), bm_pool_after_idle)
      ->UseManualTime()
      ->Iterations(200);
  benchmark::RegisterBenchmark((base + "/pool_busy").c_str(), bm_pool_busy)->UseRealTime();
}

// -- launch micro-benchmarks: what starting and joining a fiber costs ---------------------------

void bm_launch(benchmark::State& state, FiberOptions options) {
  int x = 0;
  for (auto _ : state) {
    x = propgraph::run_on_fiber([x] { return x + 1; }, options).get();
  }
  benchmark::DoNotOptimize(x);
}

void bm_promise_pair(benchmark::State& state) {
  int x = 0;
  for (auto _ : state) {
    boost::fibers::promise<int> promise;
    auto future = promise.get_future();
    promise.set_value(x + 1);
    x = future.get();
  }
  benchmark::DoNotOptimize(x);
}

void bm_yield(benchmark::State& state) {
  for (auto _ : state) boost::this_fiber::yield();
}

void register_launch() {
  using boost::fibers::launch;
  const auto add = [](std::string name, FiberOptions options) {
    benchmark::RegisterBenchmark(("launch/" + name).c_str(), [options](benchmark::State& s) { bm_launch(s, options); });
  };
  add("recycled/dispatch", {.launch = launch::dispatch});
  add("recycled/post", {.launch = launch::post});
  add("fresh/dispatch/cached_128k", {.launch = launch::dispatch, .recycle = false});
  add("fresh/post/cached_128k", {.launch = launch::post, .recycle = false});
  for (std::size_t kib : {16, 64, 256, 1024}) {
    add(fmt::format("fresh/dispatch/cached_{}k", kib),
        {.launch = launch::dispatch, .stack = StackAllocator::cached(kib * 1024), .recycle = false});
  }
  add("fresh/dispatch/fixedsize_128k",
      {.launch = launch::dispatch, .stack = StackAllocator::fixedsize(), .recycle = false});
  add("fresh/dispatch/protected_128k",
      {.launch = launch::dispatch, .stack = StackAllocator::protected_fixedsize(), .recycle = false});
  benchmark::RegisterBenchmark("launch/baseline/promise_pair", bm_promise_pair);
  benchmark::RegisterBenchmark("launch/baseline/yield", bm_yield);
}

// -- collecting medians -------------------------------------------------------------------------

double to_us(double value, benchmark::TimeUnit unit) {
  switch (unit) {
    case benchmark::kNanosecond: return value / 1e3;
    case benchmark::kMicrosecond: return value;
    case benchmark::kMillisecond: return value * 1e3;
    case benchmark::kSecond: return value * 1e6;
  }
  return value;
}

/// The console reporter, also keeping each benchmark's median, wall-clock and CPU time of the
/// benchmark thread in µs: Google Benchmark's median aggregate when repetitions > 1, else the
/// median of the runs it saw. Also remembers the load average at the start.
class CollectingReporter final : public benchmark::ConsoleReporter {
 public:
  using ConsoleReporter::ConsoleReporter;

  bool ReportContext(const Context& context) override {
    cpus_ = context.cpu_info.num_cpus;
    if (!context.cpu_info.load_avg.empty()) load_ = context.cpu_info.load_avg.front();
    return ConsoleReporter::ReportContext(context);
  }

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const std::string& name = run.run_name.function_name;
      const Times t{to_us(run.GetAdjustedRealTime(), run.time_unit), to_us(run.GetAdjustedCPUTime(), run.time_unit)};
      if (run.run_type == Run::RT_Aggregate) {
        if (run.aggregate_name == "median") medians_[name] = t;
      } else {
        samples_[name].push_back(t);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  [[nodiscard]] bool empty() const noexcept { return medians_.empty() && samples_.empty(); }

  /// Median wall-clock µs per call.
  [[nodiscard]] std::optional<double> median(const std::string& name) const {
    auto t = times(name);
    return t ? std::optional(t->wall) : std::nullopt;
  }
  /// Median CPU µs per call of the benchmark thread (excludes time preempted by other load).
  [[nodiscard]] std::optional<double> cpu_median(const std::string& name) const {
    auto t = times(name);
    return t ? std::optional(t->cpu) : std::nullopt;
  }

  [[nodiscard]] int cpus() const noexcept { return cpus_; }
  [[nodiscard]] double load() const noexcept { return load_; }

 private:
  struct Times {
    double wall;
    double cpu;
  };

  [[nodiscard]] std::optional<Times> times(const std::string& name) const {
    if (auto it = medians_.find(name); it != medians_.end()) return it->second;
    auto it = samples_.find(name);
    if (it == samples_.end() || it->second.empty()) return std::nullopt;
    const auto median_of = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      const std::size_t n = v.size();
      return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    };
    std::vector<double> wall, cpu;
    for (const Times& t : it->second) {
      wall.push_back(t.wall);
      cpu.push_back(t.cpu);
    }
    return Times{median_of(wall), median_of(cpu)};
  }

  std::map<std::string, Times> medians_;
  std::map<std::string, std::vector<Times>> samples_;
  int cpus_ = 0;
  double load_ = 0;
};

std::string cell(std::optional<double> us, int width) {
  return us ? fmt::format("{:>{}.3f}", *us, width) : fmt::format("{:>{}}", "n/a", width);
}

// -- fiber stack high-water mark -----------------------------------------------------------------

std::atomic<std::size_t> stack_high_water{0};

/// Paints each stack with a pattern; on release, records how deep the fiber wrote into it.
struct PaintedStack {
  std::size_t size = 256 * 1024;
  static constexpr unsigned char paint = 0xA5;

  boost::context::stack_context allocate() {
    void* base = std::malloc(size);
    if (base == nullptr) throw std::bad_alloc();
    std::memset(base, paint, size);
    boost::context::stack_context sctx;
    sctx.size = size;
    sctx.sp = static_cast<char*>(base) + size;
    return sctx;
  }
  void deallocate(boost::context::stack_context& sctx) noexcept {
    auto* base = static_cast<unsigned char*>(sctx.sp) - sctx.size;
    std::size_t untouched = 0;
    while (untouched < sctx.size && base[untouched] == paint) ++untouched;
    const std::size_t used = sctx.size - untouched;
    std::size_t seen = stack_high_water.load();
    while (used > seen && !stack_high_water.compare_exchange_weak(seen, used)) {
    }
    std::free(base);
  }
};

template <class Op>
std::size_t stack_use(Bench& b) {
  stack_high_water = 0;
  const FiberOperations ops =
      propgraph::as_fiber(*b.graph, FiberOptions{.stack = StackAllocator::wrap(PaintedStack{}), .recycle = false});
  auto result = Op::async(ops, b.fixture).get();
  benchmark::DoNotOptimize(result);
  boost::this_fiber::yield();  // let the scheduler release the finished fiber (and its stack)
  return stack_high_water.load();
}

// -- report ---------------------------------------------------------------------------------------

struct Row {
  std::string_view op;
  std::optional<double> sync, fiber, pool, std_async;
  double ref_sync, ref_vt;
  std::optional<double> sync_cpu, fiber_cpu;
};

void print_table(const std::vector<Row>& rows) {
  fmt::print(
      "\npropgraph-bench: medians, µs per call (reference: bluetape4k-graph, JVM + TinkerGraph, "
      "JMH average)\n\n");
  fmt::print("| {:<22} | {:>8} | {:>8} | {:>15} | {:>9} | {:>13} | {:>17} | {:>27} |\n", "operation", "sync µs",
             "fiber µs", "fiber - sync µs", "pool µs", "std::async µs", "reference sync µs",
             "reference virtual thread µs");
  fmt::print("|{:-<24}|{:->10}|{:->10}|{:->17}|{:->11}|{:->15}|{:->19}|{:->29}|\n", "", ":", ":", ":", ":", ":", ":",
             ":");
  for (const Row& r : rows) {
    std::optional<double> overhead;
    if (r.sync && r.fiber) overhead = *r.fiber - *r.sync;
    fmt::print("| {:<22} | {} | {} | {} | {} | {} | {:>17.3f} | {:>27.3f} |\n", r.op, cell(r.sync, 8), cell(r.fiber, 8),
               cell(overhead, 15), cell(r.pool, 9), cell(r.std_async, 13), r.ref_sync, r.ref_vt);
  }
}

void print_checks(const std::vector<Row>& rows, const CollectingReporter& reporter) {
  fmt::print("\ntargets (this machine, medians):\n");
  const auto verdict = [](bool ok) { return ok ? "ok  " : "MISS"; };
  for (const Row& r : rows) {
    if (!r.sync) continue;
    const double speedup = r.ref_sync / *r.sync;
    std::string line = fmt::format("  {:<22} sync {:.0f}x faster than reference sync >= 20 [{}]", r.op, speedup,
                                   verdict(speedup >= 20));
    if (r.fiber) {
      const double overhead = *r.fiber - *r.sync;
      line += fmt::format("; fiber - sync {:.3f} µs <= 0.25 [{}]", overhead, verdict(overhead <= 0.25));
    }
    if (r.pool && r.std_async) {
      line += fmt::format("; pool {:.1f} µs <= 10 and <= std::async {:.1f} µs [{}]", *r.pool, *r.std_async,
                          verdict(*r.pool <= 10 && *r.pool <= *r.std_async));
    }
    fmt::print("{}\n", line);
  }
  const std::string op(FindVertexById::name);
  const auto pool = reporter.median(op + "/pool");
  const auto idle = reporter.median(op + "/pool_after_idle");
  const auto busy = reporter.median(op + "/pool_busy");
  const auto async = reporter.median(op + "/std_async");
  if (pool && busy) {
    fmt::print("  pool hand-off, {}: busy pool {:.2f} µs - idle pool {:.2f} µs = {:.2f} µs <= 2 [{}]\n", op, *busy,
               *pool, *busy - *pool, verdict(*busy - *pool <= 2));
  }
  if (idle && async) {
    fmt::print("  pool hand-off, {}: after 1 ms asleep {:.1f} µs <= std::async {:.1f} µs [{}]\n", op, *idle, *async,
               verdict(*idle <= *async));
  }
  // Wall-clock medians include time the benchmark thread spent preempted; CPU time does not.
  fmt::print(
      "\nsame figures in CPU time of the calling thread (what the call itself costs when other "
      "load preempts it; for sync and fiber, equal to wall-clock time on an idle machine):\n");
  for (const Row& r : rows) {
    if (!r.sync_cpu || !r.fiber_cpu) continue;
    fmt::print("  {:<22} sync {:>7.3f} µs  fiber {:>7.3f} µs  fiber - sync {:>6.3f} µs\n", r.op, *r.sync_cpu,
               *r.fiber_cpu, *r.fiber_cpu - *r.sync_cpu);
  }
  if (reporter.cpus() > 0 && reporter.load() > 0.5 * reporter.cpus()) {
    fmt::print(
        "\nWARNING: load average {:.1f} on {} CPUs when the run started: other processes competed "
        "for the CPUs, so wall-clock figures are inflated and noisy. Rerun on an idle machine "
        "before comparing with targets or with other runs.\n",
        reporter.load(), reporter.cpus());
  }
}

void print_launch(const CollectingReporter& reporter) {
  static constexpr std::string_view names[] = {"recycled/dispatch",
                                               "recycled/post",
                                               "fresh/dispatch/cached_128k",
                                               "fresh/post/cached_128k",
                                               "fresh/dispatch/cached_16k",
                                               "fresh/dispatch/cached_64k",
                                               "fresh/dispatch/cached_256k",
                                               "fresh/dispatch/cached_1024k",
                                               "fresh/dispatch/fixedsize_128k",
                                               "fresh/dispatch/protected_128k",
                                               "baseline/promise_pair",
                                               "baseline/yield"};
  bool header = false;
  for (std::string_view name : names) {
    const std::string full = "launch/" + std::string(name);
    auto wall = reporter.median(full);
    auto cpu = reporter.cpu_median(full);
    if (!wall || !cpu) continue;
    if (!header) {
      fmt::print("\nstarting and joining a fiber on this thread (run_on_fiber(noop).get()), medians:\n");
      fmt::print("  {:<32} {:>10} {:>10}\n", "", "wall µs", "CPU µs");
      header = true;
    }
    fmt::print("  {:<32} {:>10.3f} {:>10.3f}\n", name, *wall, *cpu);
  }
}

template <class... Ops>
void print_stack_use(Bench& b) {
  fmt::print("\nfiber stack high-water mark per operation (painted 256 KiB stack, fresh fiber):\n");
  ((fmt::print("  {:<22} {:>6.1f} KiB\n", Ops::name, stack_use<Ops>(b) / 1024.0)), ...);
}

bool write_plot(const std::filesystem::path& dir, const std::vector<Row>& rows) {
  const auto data = dir / "sync-vs-fiber.dat";
  const auto script = dir / "sync-vs-fiber.gp";
  const auto png = dir / "sync-vs-fiber.png";
  {
    std::ofstream out(data);
    out << "# operation sync_us fiber_us reference_sync_us reference_virtual_thread_us\n";
    for (const Row& r : rows) {
      if (!r.sync || !r.fiber) continue;
      out << fmt::format("{} {:.6f} {:.6f} {:.3f} {:.3f}\n", r.op, *r.sync, *r.fiber, r.ref_sync, r.ref_vt);
    }
  }
  {
    std::ofstream out(script);
    out << "set terminal pngcairo size 1200,620 enhanced font 'sans,11'\n"
        << "set output '" << png.string() << "'\n"
        << "set title 'propgraph: sync vs fiber (future created and immediately joined), medians; "
           "bluetape4k-graph reference figures for comparison'\n"
        << "set style data histograms\n"
        << "set style histogram clustered gap 1\n"
        << "set style fill solid 0.85 border -1\n"
        << "set boxwidth 0.9\n"
        << "set logscale y\n"
        << "set yrange [0.005:100]\n"
        << "set ylabel 'µs per call (log scale)'\n"
        << "set grid ytics\n"
        << "set key top left\n"
        << "set xtics rotate by -25 noenhanced\n"
        << "plot '" << data.string() << "' using 2:xtic(1) title 'propgraph sync' lc rgb '#1f77b4', \\\n"
        << "     '' using 3 title 'propgraph fiber' lc rgb '#ff7f0e', \\\n"
        << "     '' using 4 title 'reference sync (JVM)' lc rgb '#aec7e8', \\\n"
        << "     '' using 5 title 'reference virtual thread (JVM)' lc rgb '#ffbb78'\n";
  }
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    fmt::print(
        "\nno PNG: gnuplot is not installed (Debian: apt-get install gnuplot-nox); plot data "
        "and script are in {}\n",
        dir.string());
    return false;
  }
  const std::string command = fmt::format("gnuplot '{}'", script.string());
  if (std::system(command.c_str()) != 0) {
    fmt::print("\nno PNG: `{}` failed\n", command);
    return false;
  }
  fmt::print("\nchart: {}\n", png.string());
  return true;
}

bool has_flag(const std::vector<std::string>& args, std::string_view flag) {
  return std::any_of(args.begin(), args.end(), [&](const std::string& a) {
    return a.rfind(flag, 0) == 0 && (a.size() == flag.size() || a[flag.size()] == '=');
  });
}

}  // namespace

int main(int argc, char** argv) {
  // Own flags out, Google Benchmark defaults in.
  std::filesystem::path out_dir = PROPGRAPH_BENCH_OUT_DIR;
  bool plot = true;
  std::vector<std::string> args{argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a.rfind("--out_dir=", 0) == 0) {
      out_dir = std::string(a.substr(10));
    } else if (a == "--no_plot") {
      plot = false;
    } else {
      if (a == "--help" || a == "-h") {
        std::printf(
            "propgraph-bench own flags: --out_dir=DIR (default %s), --no_plot\n"
            "defaults added unless given: --benchmark_repetitions=5 --benchmark_min_time=0.2 "
            "--benchmark_display_aggregates_only=true --benchmark_out=DIR/propgraph-bench.json "
            "--benchmark_out_format=json\n\n",
            PROPGRAPH_BENCH_OUT_DIR);
      }
      args.emplace_back(a);
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "propgraph-bench: cannot create %s: %s\n", out_dir.c_str(), ec.message().c_str());
    return 1;
  }
  if (!has_flag(args, "--benchmark_repetitions")) args.emplace_back("--benchmark_repetitions=5");
  if (!has_flag(args, "--benchmark_min_time")) args.emplace_back("--benchmark_min_time=0.2");
  if (!has_flag(args, "--benchmark_display_aggregates_only") && !has_flag(args, "--benchmark_report_aggregates_only")) {
    args.emplace_back("--benchmark_display_aggregates_only=true");
  }
  std::string json_path = (out_dir / "propgraph-bench.json").string();
  for (const auto& a : args) {
    if (a.rfind("--benchmark_out=", 0) == 0) json_path = a.substr(16);
  }
  if (!has_flag(args, "--benchmark_out")) {
    args.emplace_back("--benchmark_out=" + json_path);
    if (!has_flag(args, "--benchmark_out_format")) args.emplace_back("--benchmark_out_format=json");
  }
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  int cargc = static_cast<int>(cargs.size());
  benchmark::Initialize(&cargc, cargs.data());
  // Recorded in the JSON's context, for the tables generated from it (scripts/bench --update-docs).
  benchmark::AddCustomContext("command", propgraph::bench::command_line(argc, argv));
  benchmark::AddCustomContext("propgraph_commit", propgraph::bench::source_commit());
  benchmark::AddCustomContext("load_average", propgraph::bench::load_average());
  std::string order;
  for (const auto& ref : propgraph::bench::reference_figures) {
    benchmark::AddCustomContext("reference/" + std::string(ref.operation),
                                fmt::format("{} {}", ref.sync_us, ref.virtual_thread_us));
    order += (order.empty() ? "" : " ") + std::string(ref.operation);
  }
  benchmark::AddCustomContext("reference_order", order);
  if (benchmark::ReportUnrecognizedArguments(cargc, cargs.data())) return 1;

  Bench b;
  bench_state = &b;
  register_op<FindVertexById>();
  register_op<FindVerticesByLabel>();
  register_op<Neighbors>();
  register_op<ShortestPath>();
  register_op<AllPaths>();
  register_op<Bfs>();
  register_op<Dfs>();
  register_op<PageRank>();
  register_handoff();
  register_launch();

  CollectingReporter reporter(isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_ColorTabular
                                                    : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  if (reporter.empty()) return 0;  // --benchmark_list_tests, or a filter that matched nothing

  std::vector<Row> rows;
  for (const auto& ref : propgraph::bench::reference_figures) {
    const std::string op(ref.operation);
    rows.push_back({ref.operation, reporter.median(op + "/sync"), reporter.median(op + "/fiber"),
                    reporter.median(op + "/pool"), reporter.median(op + "/std_async"), ref.sync_us,
                    ref.virtual_thread_us, reporter.cpu_median(op + "/sync"), reporter.cpu_median(op + "/fiber")});
  }
  const bool any_op = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.sync || r.fiber; });
  if (any_op) {
    print_table(rows);
    print_checks(rows, reporter);
  }
  print_launch(reporter);
  print_stack_use<FindVertexById, FindVerticesByLabel, Neighbors, ShortestPath, AllPaths, Bfs, Dfs, PageRank>(b);
  fmt::print("\nraw results: {}\n", json_path);
  if (plot && any_op) write_plot(out_dir, rows);
  bench_state = nullptr;
  return 0;
}
