// propgraph-durability: what durability costs MemoryGraph.
//   1. Single-call writes/s with 1 and 16 writer threads: in memory, and durable with each
//      SyncPolicy (every_commit groups concurrent commits into one sync), and writes per
//      fdatasync of the log (counted through the file layer's hook, src/memory/durable/files.hpp).
//   2. A graph of N vertices and 16 N edges, two small properties each: bulk load, checkpoint
//      time, snapshot size against the graph's resident memory, and recovery time: a new
//      process reopens the directory, as a restart does (from the snapshot, files in the page
//      cache); the median of --reopens such processes.
// Writes the run to build/bench/durability.json.
//
//   propgraph-durability [--vertices=N] [--degree=D] [--seconds=S] [--repeats=N] [--reopens=N]
//                        [--dir=PATH] [--json=PATH] [--only=writes|recovery]
//   propgraph-durability --reopen=DIR   (what each recovery process runs: prints the time)
// A write cell is the median of --repeats windows of --seconds each.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "../concurrency/bench_support.hpp"
#include "memory/durable/files.hpp"
#include "propgraph/generate.hpp"
#include "propgraph/propgraph.hpp"
#include "run_info.hpp"

namespace propgraph::bench {
namespace {

namespace fs = std::filesystem;

struct Args {
  std::uint32_t vertices = 1'000'000;
  std::uint32_t degree = 16;
  double seconds = 1.0;  // per window
  int repeats = 3;        // windows per cell: the cell is their median
  int reopens = 5;        // recovery processes: the figure is their median
  std::string only;
  std::optional<fs::path> reopen;
  fs::path dir = fs::temp_directory_path() / fmt::format("propgraph-durability-bench-{}", ::getpid());
  fs::path json = fs::path(PROPGRAPH_BENCH_OUT_DIR) / "durability.json";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto eq = arg.find('=');
    std::string_view flag = arg.substr(0, eq);
    std::string value = eq == std::string_view::npos ? "" : std::string(arg.substr(eq + 1));
    if (flag == "--vertices") {
      a.vertices = static_cast<std::uint32_t>(std::stoul(value));
    } else if (flag == "--degree") {
      a.degree = static_cast<std::uint32_t>(std::stoul(value));
    } else if (flag == "--seconds") {
      a.seconds = std::stod(value);
    } else if (flag == "--repeats") {
      a.repeats = std::max(1, std::stoi(value));
    } else if (flag == "--reopens") {
      a.reopens = std::max(1, std::stoi(value));
    } else if (flag == "--dir") {
      a.dir = value;
    } else if (flag == "--json") {
      a.json = value;
    } else if (flag == "--only") {
      a.only = value;
    } else if (flag == "--reopen") {
      a.reopen = value;
    } else {
      std::fprintf(stderr, "propgraph-durability: unknown flag %s (see bench/durability/durability_bench.cpp)\n",
                   argv[i]);
      std::exit(2);
    }
  }
  return a;
}

std::uint64_t directory_bytes(const fs::path& dir, std::string_view extension) {
  std::uint64_t total = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == extension) total += entry.file_size();
  }
  return total;
}

struct WriteCell {
  std::string mode;
  int threads = 0;
  double writes_per_s = 0;
  std::optional<double> writes_per_sync;  // durable modes that synced at all
};

/// Counts the syncs (fdatasync of the log, fsync of the directory) durable graphs make while it
/// lives. Set only while no durable graph is open.
class SyncCounter {
 public:
  SyncCounter() {
    detail::durable::set_fault_injector([this](detail::durable::FileOp op, const fs::path&) {
      if (op == detail::durable::FileOp::sync) syncs_.fetch_add(1, std::memory_order_relaxed);
      return 0;
    });
  }
  ~SyncCounter() { detail::durable::set_fault_injector({}); }
  SyncCounter(const SyncCounter&) = delete;
  SyncCounter& operator=(const SyncCounter&) = delete;
  [[nodiscard]] std::uint64_t syncs() const noexcept { return syncs_.load(); }

 private:
  std::atomic<std::uint64_t> syncs_{0};
};

struct Rate {
  double writes_per_s = 0;
  std::uint64_t writes = 0;
};

/// create_vertex from `threads` threads for `seconds`.
Rate write_rate(MemoryGraph& g, int threads, double seconds) {
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> writes{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::uint64_t n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        g.create_vertex("Item", {{"writer", t}, {"n", static_cast<std::int64_t>(n)}});
        ++n;
      }
      writes += n;
    });
  }
  const auto start = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& th : pool) th.join();
  return {static_cast<double>(writes.load()) / bench::seconds(Clock::now() - start), writes.load()};
}

std::vector<WriteCell> measure_writes(const Args& args) {
  std::vector<WriteCell> cells;
  struct Mode {
    std::string name;
    std::optional<SyncPolicy> sync;
  };
  const Mode modes[] = {{"in memory", std::nullopt},
                        {"every_commit", SyncPolicy::every_commit},
                        {"interval (10 ms)", SyncPolicy::interval},
                        {"none", SyncPolicy::none}};
  for (int threads : {1, 16}) {
    for (const auto& mode : modes) {
      fs::remove_all(args.dir);
      MemoryOptions options;
      if (mode.sync) {
        options.data_dir = args.dir;
        options.sync = *mode.sync;
      }
      Rate rate;
      std::uint64_t syncs = 0;
      {
        SyncCounter counter;
        MemoryGraph g(options);
        write_rate(g, threads, args.seconds / 4);  // warm-up
        const std::uint64_t before = counter.syncs();
        std::vector<double> rates;
        for (int r = 0; r < args.repeats; ++r) {
          const Rate window = write_rate(g, threads, args.seconds);
          rates.push_back(window.writes_per_s);
          rate.writes += window.writes;
        }
        rate.writes_per_s = median(rates);
        syncs = counter.syncs() - before;
      }
      fs::remove_all(args.dir);
      WriteCell cell{mode.name, threads, rate.writes_per_s, std::nullopt};
      std::string per_sync;
      if (syncs != 0) {
        cell.writes_per_sync = static_cast<double>(rate.writes) / static_cast<double>(syncs);
        per_sync = fmt::format("  {:8.1f} writes/sync ({} syncs)", *cell.writes_per_sync, syncs);
      }
      cells.push_back(cell);
      fmt::print("  writes, {:2} threads, {:<17} {:>9}/s{}\n", threads, mode.name, format_rate(rate.writes_per_s),
                 per_sync);
    }
  }
  return cells;
}

struct Recovery {
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;
  double load_s = 0;
  double checkpoint_s = 0;
  double recovery_s = 0;  // median of recovery_runs_s
  std::vector<double> recovery_runs_s;
  std::int64_t resident_bytes = 0;  // RSS growth of the loaded graph
  std::uint64_t snapshot_bytes = 0;
};

Recovery measure_recovery(const Args& args) {
  Recovery r;
  fs::remove_all(args.dir);
  const auto list = generate::random_graph(args.vertices, std::uint64_t{args.vertices} * args.degree, 42);
  r.vertices = list.vertex_count;
  r.edges = list.edges.size();
  generate::LoadOptions load;
  load.vertex_properties = [](std::uint32_t i) {
    return Properties{{"name", fmt::format("v{}", i)}, {"n", static_cast<std::int64_t>(i)}};
  };
  load.edge_properties = [](std::uint64_t i) {
    return Properties{{"w", static_cast<std::int64_t>(i % 100)}, {"since", 2020}};
  };
  {
    const std::int64_t before = reset_peak_rss();
    MemoryGraph g(MemoryOptions{.data_dir = args.dir, .sync = SyncPolicy::none, .checkpoint_log_bytes = 0});
    auto t0 = Clock::now();
    generate::load(g, list, load);
    r.load_s = seconds(Clock::now() - t0);
    r.resident_bytes = proc_status_bytes("VmRSS") - before;
    t0 = Clock::now();
    g.checkpoint();
    r.checkpoint_s = seconds(Clock::now() - t0);
    r.snapshot_bytes = directory_bytes(args.dir, ".snap");
  }
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  for (int i = 0; i < args.reopens; ++i) {
    const std::string command = fmt::format("'{}' --reopen='{}'", exe, args.dir.string());
    FILE* child = ::popen(command.c_str(), "r");
    double s = 0;
    unsigned long long edges = 0;
    if (child == nullptr || std::fscanf(child, "reopened in %lf s, %llu edges", &s, &edges) != 2 ||
        ::pclose(child) != 0 || edges != r.edges) {
      std::fprintf(stderr, "recovery process failed (%llu edges, expected %llu)\n", edges,
                   static_cast<unsigned long long>(r.edges));
      std::exit(1);
    }
    r.recovery_runs_s.push_back(s);
  }
  r.recovery_s = median(r.recovery_runs_s);
  fs::remove_all(args.dir);
  fmt::print(
      "  {} vertices, {} edges: load {:.2f} s, checkpoint {:.2f} s, snapshot {} ({:.2f}x the {} resident), "
      "recovery {:.2f} s ({}/s edges)\n",
      r.vertices, r.edges, r.load_s, r.checkpoint_s, format_bytes(static_cast<double>(r.snapshot_bytes)),
      static_cast<double>(r.snapshot_bytes) / static_cast<double>(r.resident_bytes),
      format_bytes(static_cast<double>(r.resident_bytes)), r.recovery_s,
      format_rate(static_cast<double>(r.edges) / r.recovery_s));
  return r;
}

void write_json(const Args& args, const std::vector<WriteCell>& writes, const std::optional<Recovery>& recovery,
                const RunInfo& run) {
  Json j;
  j.begin_object();
  run.write_start(j);
  RunInfo::write_end(j);
  j.field("seconds_per_cell", args.seconds);
  j.field("repeats", args.repeats);
  j.begin_array("writes");
  for (const auto& c : writes) {
    j.begin_object();
    j.field("mode", c.mode);
    j.field("threads", c.threads);
    j.field("writes_per_s", c.writes_per_s);
    if (c.writes_per_sync) j.field("writes_per_sync", *c.writes_per_sync);
    j.end_object();
  }
  j.end_array();
  if (recovery) {
    j.begin_object("recovery");
    j.field("vertices", recovery->vertices);
    j.field("edges", recovery->edges);
    j.field("load_s", recovery->load_s);
    j.field("checkpoint_s", recovery->checkpoint_s);
    j.field("recovery_s", recovery->recovery_s);
    j.begin_array("recovery_runs_s");
    for (double s : recovery->recovery_runs_s) j.field("", s);
    j.end_array();
    j.field("resident_bytes", recovery->resident_bytes);
    j.field("snapshot_bytes", recovery->snapshot_bytes);
    j.end_object();
  }
  j.end_object();
  fs::create_directories(args.json.parent_path());
  std::ofstream(args.json) << j.str() << '\n';
  fmt::print("wrote {}\n", args.json.string());
}

}  // namespace
}  // namespace propgraph::bench

int main(int argc, char** argv) {
  using namespace propgraph::bench;
  const Args args = parse(argc, argv);
  if (args.reopen) {
    const auto t0 = Clock::now();
    propgraph::MemoryGraph g(propgraph::MemoryOptions{.data_dir = *args.reopen, .checkpoint_log_bytes = 0});
    fmt::print("reopened in {:.6f} s, {} edges\n", seconds(Clock::now() - t0), g.count_edges());
    return 0;
  }
  const RunInfo run(argc, argv);
  fmt::print("propgraph-durability: load average {}, data in {}\n", run.load_at_start, args.dir.string());
  std::vector<WriteCell> writes;
  std::optional<Recovery> recovery;
  if (args.only.empty() || args.only == "writes") writes = measure_writes(args);
  if (args.only.empty() || args.only == "recovery") recovery = measure_recovery(args);
  write_json(args, writes, recovery, run);
}
