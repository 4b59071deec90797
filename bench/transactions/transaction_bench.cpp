// propgraph-transactions: what transactions cost.
//   1. A transaction of 10 writes against the same 10 writes as single calls (µs per batch).
//   2. Read throughput of 1 and 16 reader threads while one writer commits transactions of 10
//      writes back to back, against the same readers without the writer.
// Backends: MemoryGraph, and PostgresGraph when PROPGRAPH_PG_DSN (or --postgres-dsn=) names a
// server. Writes the run to build/bench/transactions.json.
//
//   propgraph-transactions [--vertices=N] [--batches=N] [--seconds=S] [--repeats=N]
//                          [--postgres-dsn=DSN] [--only=memory|postgres] [--json=PATH]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "../concurrency/bench_support.hpp"
#include "propgraph/propgraph.hpp"
#include "run_info.hpp"
#ifdef PROPGRAPH_BENCH_WITH_POSTGRES
#include "propgraph/postgres/postgres_graph.hpp"
#endif

namespace propgraph::bench {
namespace {

namespace fs = std::filesystem;

struct Args {
  std::size_t vertices = 100'000;
  int batches = 2000;
  double seconds = 1.0;
  int repeats = 7;
  std::string only;
  std::optional<std::string> postgres_dsn;
  fs::path json = fs::path(PROPGRAPH_BENCH_OUT_DIR) / "transactions.json";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto eq = arg.find('=');
    std::string_view flag = arg.substr(0, eq);
    std::string value = eq == std::string_view::npos ? "" : std::string(arg.substr(eq + 1));
    if (flag == "--vertices") {
      a.vertices = std::stoul(value);
    } else if (flag == "--batches") {
      a.batches = std::stoi(value);
    } else if (flag == "--seconds") {
      a.seconds = std::stod(value);
    } else if (flag == "--repeats") {
      a.repeats = std::stoi(value);
    } else if (flag == "--only") {
      a.only = value;
    } else if (flag == "--postgres-dsn") {
      a.postgres_dsn = value;
    } else if (flag == "--json") {
      a.json = value;
    } else {
      std::fprintf(stderr,
                   "propgraph-transactions: unknown flag %s (see the comment at the top of "
                   "bench/transactions/transaction_bench.cpp)\n",
                   argv[i]);
      std::exit(2);
    }
  }
  if (!a.postgres_dsn) {
    if (const char* env = std::getenv("PROPGRAPH_PG_DSN"); env != nullptr && *env != '\0') a.postgres_dsn = env;
  }
  return a;
}

/// Accounts with a balance each; their ids.
std::vector<ElementId> load_accounts(GraphOperations& g, std::size_t n) {
  std::vector<NewVertex> batch;
  std::vector<ElementId> ids;
  for (std::size_t i = 0; i < n; ++i) {
    batch.push_back({"Account", Properties{{"balance", 100}, {"owner", fmt::format("owner-{}", i)}}});
    if (batch.size() == 10'000 || i + 1 == n) {
      auto created = g.create_vertices(batch);
      ids.insert(ids.end(), created.begin(), created.end());
      batch.clear();
    }
  }
  return ids;
}

/// Ten updates of random accounts, through `g` (the graph itself or a transaction).
void ten_writes(GraphOperations& g, const std::vector<ElementId>& ids, std::mt19937_64& rng, std::int64_t stamp) {
  std::uniform_int_distribution<std::size_t> pick(0, ids.size() - 1);
  for (int i = 0; i < 10; ++i) g.update_vertex("Account", ids[pick(rng)], {{"balance", stamp + i}});
}

struct BatchCost {
  double singles_us = 0;      // median of 10 single writes
  double transaction_us = 0;  // median of one transaction of 10 writes
};

BatchCost batch_cost(GraphOperations& g, const std::vector<ElementId>& ids, int batches) {
  std::mt19937_64 rng(42);
  std::vector<std::int64_t> singles;
  std::vector<std::int64_t> transactions;
  for (int b = 0; b < batches; ++b) {  // interleaved, so both see the same machine
    auto t0 = Clock::now();
    ten_writes(g, ids, rng, b);
    auto t1 = Clock::now();
    transact(g, [&](Transaction& tx) { ten_writes(tx, ids, rng, b); });
    auto t2 = Clock::now();
    singles.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    transactions.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t2 - t1).count());
  }
  return {quantile(singles, 0.5) / 1000.0, quantile(transactions, 0.5) / 1000.0};
}

struct ReadRun {
  double reads_per_s = 0;
  double reads_per_cpu_s = 0;  // per second of the readers' own CPU time: what lock waits cost,
                               // without the CPU the writer takes from them on a busy machine
  double commits_per_s = 0;  // the writer's transactions (0 without a writer)
};

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

ReadRun read_run(GraphOperations& g, const std::vector<ElementId>& ids, int readers, bool writer, double seconds) {
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> reads{0};
  std::atomic<std::uint64_t> commits{0};
  std::mutex cpu_mutex;
  double reader_cpu = 0;
  std::vector<std::thread> threads;
  for (int r = 0; r < readers; ++r) {
    threads.emplace_back([&, r] {
      std::mt19937_64 rng(1000 + r);
      std::uniform_int_distribution<std::size_t> pick(0, ids.size() - 1);
      std::uint64_t n = 0;
      const double cpu0 = thread_cpu_seconds();
      while (!stop.load(std::memory_order_relaxed)) {
        if (!g.find_vertex_by_id("Account", ids[pick(rng)])) std::abort();
        ++n;
      }
      reads += n;
      std::lock_guard lock(cpu_mutex);
      reader_cpu += thread_cpu_seconds() - cpu0;
    });
  }
  if (writer) {
    threads.emplace_back([&] {
      std::mt19937_64 rng(7);
      std::int64_t stamp = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        transact(g, [&](Transaction& tx) { ten_writes(tx, ids, rng, stamp); });
        stamp += 10;
        commits.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  const auto start = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& t : threads) t.join();
  const double elapsed = bench::seconds(Clock::now() - start);
  return {static_cast<double>(reads.load()) / elapsed, static_cast<double>(reads.load()) / reader_cpu,
          static_cast<double>(commits.load()) / elapsed};
}

struct Row {
  std::string backend;
  BatchCost cost;
  struct Readers {
    int readers = 0;
    double alone = 0;  // reads/s without the writer (median)
    double with_writer = 0;  // reads/s while the writer commits (median)
    double alone_cpu = 0;  // reads per reader-CPU-second, without and with the writer
    double with_writer_cpu = 0;
    double commits = 0;  // the writer's transactions/s (median)
  };
  std::vector<Readers> reads;
};

Row measure(std::string backend, GraphOperations& g, const Args& args) {
  fmt::print("{}: loading {} accounts\n", backend, args.vertices);
  const auto ids = load_accounts(g, args.vertices);
  Row row{std::move(backend), {}, {}};
  batch_cost(g, ids, std::max(1, args.batches / 10));  // warm-up
  row.cost = batch_cost(g, ids, args.batches);
  fmt::print("  10 writes: single calls {:.2f} µs, one transaction {:.2f} µs ({:.2f}x)\n", row.cost.singles_us,
             row.cost.transaction_us, row.cost.transaction_us / row.cost.singles_us);
  for (int readers : {1, 16}) {
    std::vector<double> alone;
    std::vector<double> with;
    std::vector<double> alone_cpu;
    std::vector<double> with_cpu;
    std::vector<double> commits;
    for (int r = 0; r < args.repeats; ++r) {  // alternate, so both see the same machine
      const ReadRun a = read_run(g, ids, readers, false, args.seconds);
      alone.push_back(a.reads_per_s);
      alone_cpu.push_back(a.reads_per_cpu_s);
      const ReadRun w = read_run(g, ids, readers, true, args.seconds);
      with.push_back(w.reads_per_s);
      with_cpu.push_back(w.reads_per_cpu_s);
      commits.push_back(w.commits_per_s);
    }
    Row::Readers cell{readers, median(alone), median(with), median(alone_cpu), median(with_cpu), median(commits)};
    fmt::print(
        "  {:2} readers: {}/s alone, {}/s with a writer committing {}/s transactions of 10 writes ({:.0f}%); "
        "per reader CPU-second {} and {} ({:.0f}%)\n",
        readers, format_rate(cell.alone), format_rate(cell.with_writer), format_rate(cell.commits),
        100.0 * cell.with_writer / cell.alone, format_rate(cell.alone_cpu), format_rate(cell.with_writer_cpu),
        100.0 * cell.with_writer_cpu / cell.alone_cpu);
    row.reads.push_back(cell);
  }
  return row;
}

void write_json(const Args& args, const std::vector<Row>& rows, const RunInfo& run) {
  Json j;
  j.begin_object();
  run.write_start(j);
  RunInfo::write_end(j);
  j.field("vertices", static_cast<std::int64_t>(args.vertices));
  j.field("batches", args.batches);
  j.field("seconds_per_cell", args.seconds);
  j.field("repeats", args.repeats);
  j.begin_array("rows");
  for (const auto& row : rows) {
    j.begin_object();
    j.field("backend", row.backend);
    j.field("ten_single_writes_us", row.cost.singles_us);
    j.field("transaction_of_ten_writes_us", row.cost.transaction_us);
    j.begin_array("readers");
    for (const auto& r : row.reads) {
      j.begin_object();
      j.field("readers", r.readers);
      j.field("reads_per_s_alone", r.alone);
      j.field("reads_per_s_with_writer", r.with_writer);
      j.field("reads_per_cpu_s_alone", r.alone_cpu);
      j.field("reads_per_cpu_s_with_writer", r.with_writer_cpu);
      j.field("writer_commits_per_s", r.commits);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  fs::create_directories(args.json.parent_path());
  std::ofstream(args.json) << j.str() << '\n';
  fmt::print("wrote {}\n", args.json.string());
}

}  // namespace
}  // namespace propgraph::bench

int main(int argc, char** argv) {
  using namespace propgraph;
  using namespace propgraph::bench;
  const Args args = parse(argc, argv);
  const RunInfo run(argc, argv);
  fmt::print("propgraph-transactions: load average {}\n", run.load_at_start);
  std::vector<Row> rows;
  if (args.only.empty() || args.only == "memory") {
    MemoryGraph g;
    rows.push_back(measure("MemoryGraph", g, args));
  }
#ifdef PROPGRAPH_BENCH_WITH_POSTGRES
  if ((args.only.empty() || args.only == "postgres") && args.postgres_dsn) {
    PostgresGraph g(PostgresOptions{.conninfo = *args.postgres_dsn, .graph = "bench_transactions", .pool_size = 20});
    g.drop_graph("bench_transactions");
    rows.push_back(measure("PostgresGraph", g, args));
  } else if (args.only == "postgres") {
    fmt::print("postgres: no server (set PROPGRAPH_PG_DSN or --postgres-dsn=)\n");
  }
#endif
  write_json(args, rows, run);
}
