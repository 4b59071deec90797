// propgraph-concurrency: where fibers pay off. Graph calls through LatencyGraph(MemoryGraph),
// which waits like a network round trip, under concurrency, for each execution model:
//   1. latency table: find_vertex_by_id and neighbors, waits 0 / 100 µs / 1 ms / 10 ms,
//      concurrency 1 / 16 / 256 / 4096; sync, thread pools of 2 / 16 / 256, fibers on one
//      thread, fibers on a 2-thread FiberPool. Requests/s, p50/p99 latency, ratio to ideal.
//      Then a crossover grid (waits 1 / 10 / 50 µs, C = 1 / 2 / 4 / 16): fibers vs sync.
//   2. event table: 100,000 order-processing events that each wait k x 10 ms (k = 0, 1, 2, 5,
//      10); fibers vs an Asio C++20-coroutine event loop vs a thread pool.
//   3. memory: resident memory per waiting fiber and per waiting thread.
//   4. postgres (only with a server: --postgres-dsn or $PROPGRAPH_PG_DSN): find_vertex_by_id and
//      neighbors through PostgresGraph (pool of 8 connections) at C = 1 / 16 / 256; thread
//      pools of 8 / 16 / 256, fibers on one thread, fibers on a 2-thread FiberPool.
// Then checks the targets and writes <out>/propgraph-concurrency.json and
// <out>/concurrency.png (gnuplot, when installed). `--help` lists the flags.
#include <sys/prctl.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "args.hpp"
#include "bench_support.hpp"
#include "event_table.hpp"
#include "latency_table.hpp"
#include "memory_probe.hpp"
#include "run_info.hpp"
#ifdef PROPGRAPH_BENCH_WITH_POSTGRES
#include "postgres_table.hpp"
#endif

#ifndef PROPGRAPH_BENCH_OUT_DIR
#define PROPGRAPH_BENCH_OUT_DIR "build/bench"
#endif

namespace {

using namespace propgraph::bench;
namespace fs = std::filesystem;

constexpr std::string_view usage = R"(usage: propgraph-concurrency [flags]
  --quick                 short run: 100 ms cells, 10,000 events, 1 repeat, smaller memory probes
  --only=LIST             comma-separated subset of latency,events,memory,postgres (default: the
                          first three, and postgres too when a server is given)
  --cells=REGEX           latency and postgres cells whose name matches, e.g.
                          'find_vertex_by_id/1ms/c256/' (names: OP/WAIT/cC/MODE, WAIT is 0, 1µs,
                          10µs, 50µs, 100µs, 1ms or 10ms; postgres/OP/cC/MODE)
  --no-crossover          skip the crossover grid (waits 1/10/50 µs, C = 1/2/4/16, sync vs fibers)
  --cell-ms=N             measured window per latency cell (default 300)
  --warmup-ms=N           minimum warm-up per latency cell, before its window (default 50)
  --events=N              events per event-table run (default 100000)
  --event-threads=T       thread-pool size in the event table (default 256)
  --event-modes=LIST      subset of fibers,fibers-spawn,asio,asio-flat,threads (default: all)
  --event-k=LIST          subset of the wait counts 0,1,2,5,10 (default: all)
  --repeats=N             event-table runs per fibers/asio cell; the median is reported (default 3)
  --fiber-stack-kib=N     pooled stack size for the event table and the large fiber probe (default 64)
  --memory-fibers=N       fibers in the large memory probe (default 100000)
  --memory-threads=N      threads in the thread memory probe (default 1000)
  --postgres-dsn=DSN      libpq connection string of the server for the postgres table (default:
                          $PROPGRAPH_PG_DSN; neither: the table is skipped). It creates a scratch
                          graph there and drops it at the end.
  --pg-cell-ms=N          measured window per postgres run (default 1000; --quick: 300)
  --pg-repeats=N          runs per postgres cell; the median is reported (default 3; --quick: 1)
  --timer-slack-ns=N      timer slack of every thread, so waits end when asked (default 1000;
                          0 keeps the OS default, 50 µs)
  --out-dir=DIR           JSON, plot data and PNG (default )" PROPGRAPH_BENCH_OUT_DIR R"()
  --json=PATH             JSON file (default DIR/propgraph-concurrency.json)
  --no-plot               do not run gnuplot
)";

struct Args {
  bool latency = true, events = true, memory = true;
  bool postgres = false;           // asked for with --only=postgres
  bool postgres_default = true;    // no --only: run it when a server is given
  std::optional<std::string> postgres_dsn;
  std::chrono::milliseconds pg_window{1000}, pg_warmup{200};
  int pg_repeats = 3;
  bool plot = true;
  // Linux delays every timed sleep by up to the thread's timer slack (50 µs by default). The
  // waits here stand for network round trips, so make them as exact as the timer allows, for
  // blocked threads and idle fiber schedulers alike. 0: keep the OS default.
  unsigned long timer_slack_ns = 1000;
  fs::path out_dir = PROPGRAPH_BENCH_OUT_DIR;
  std::optional<fs::path> json;
  LatencyConfig latency_config;
  EventConfig event_config;
  MemoryConfig memory_config;
};

template <class T>
T number(std::string_view flag, std::string_view text) {
  if (const auto value = parse_number<T>(text)) return *value;
  throw std::invalid_argument(fmt::format("{}: not a number: '{}'", flag, text));
}

Args parse(int argc, char** argv) {
  Args a;
  // --quick first, so that explicit flags override it wherever they appear.
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--quick") {
      a.latency_config.window = std::chrono::milliseconds(100);
      a.latency_config.warmup = std::chrono::milliseconds(30);
      a.event_config.events = 10'000;
      a.event_config.repeats = 1;
      a.memory_config.fibers = 10'000;
      a.memory_config.default_stack_fibers = 2'000;
      a.memory_config.threads = 200;
      a.pg_window = std::chrono::milliseconds(300);
      a.pg_warmup = std::chrono::milliseconds(100);
      a.pg_repeats = 1;
    }
  }
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--quick") continue;
    if (arg == "-h" || arg == "--help") {
      std::fputs(usage.data(), stdout);
      std::exit(0);
    }
    if (arg == "--no-plot") {
      a.plot = false;
      continue;
    }
    if (arg == "--no-crossover") {
      a.latency_config.crossover = false;
      continue;
    }
    const auto eq = arg.find('=');
    std::string_view flag = arg.substr(0, eq);
    constexpr std::string_view value_flags[] = {
        "--only",           "--cells",         "--cell-ms", "--warmup-ms",       "--events",        "--event-modes",
        "--event-k",        "--event-threads", "--repeats", "--fiber-stack-kib", "--memory-fibers", "--memory-threads",
        "--timer-slack-ns", "--out-dir",       "--json",    "--postgres-dsn",    "--pg-cell-ms",    "--pg-repeats"};
    if (std::find(std::begin(value_flags), std::end(value_flags), flag) == std::end(value_flags)) {
      throw std::invalid_argument(fmt::format("unknown flag {}", flag));
    }
    std::string_view value;
    if (eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      throw std::invalid_argument(fmt::format("{} needs a value", flag));
    }
    if (flag == "--only") {
      a.latency = a.events = a.memory = a.postgres = a.postgres_default = false;
      std::stringstream list{std::string(value)};
      for (std::string part; std::getline(list, part, ',');) {
        if (part == "latency") a.latency = true;
        else if (part == "events") a.events = true;
        else if (part == "memory") a.memory = true;
        else if (part == "postgres") a.postgres = true;
        else throw std::invalid_argument(fmt::format("--only: unknown part '{}'", part));
      }
    } else if (flag == "--cells") {
      a.latency_config.filter.emplace(std::string(value));
    } else if (flag == "--postgres-dsn") {
      a.postgres_dsn = std::string(value);
    } else if (flag == "--pg-cell-ms") {
      a.pg_window = std::chrono::milliseconds(number<int>(flag, value));
    } else if (flag == "--pg-repeats") {
      a.pg_repeats = number<int>(flag, value);
    } else if (flag == "--cell-ms") {
      a.latency_config.window = std::chrono::milliseconds(number<int>(flag, value));
    } else if (flag == "--warmup-ms") {
      a.latency_config.warmup = std::chrono::milliseconds(number<int>(flag, value));
    } else if (flag == "--events") {
      a.event_config.events = number<std::size_t>(flag, value);
    } else if (flag == "--event-modes") {
      a.event_config.modes.clear();
      std::stringstream list{std::string(value)};
      for (std::string part; std::getline(list, part, ',');) a.event_config.modes.push_back(part);
    } else if (flag == "--event-k") {
      a.event_config.wait_counts.clear();
      std::stringstream list{std::string(value)};
      for (std::string part; std::getline(list, part, ',');)
        a.event_config.wait_counts.push_back(number<int>(flag, part));
    } else if (flag == "--event-threads") {
      a.event_config.pool_threads = number<std::size_t>(flag, value);
    } else if (flag == "--repeats") {
      a.event_config.repeats = number<int>(flag, value);
    } else if (flag == "--fiber-stack-kib") {
      a.event_config.fiber_stack = a.memory_config.fiber_stack = number<std::size_t>(flag, value) * 1024;
    } else if (flag == "--memory-fibers") {
      a.memory_config.fibers = number<std::size_t>(flag, value);
    } else if (flag == "--memory-threads") {
      a.memory_config.threads = number<std::size_t>(flag, value);
    } else if (flag == "--timer-slack-ns") {
      a.timer_slack_ns = number<unsigned long>(flag, value);
    } else if (flag == "--out-dir") {
      a.out_dir = std::string(value);
    } else if (flag == "--json") {
      a.json = fs::path(std::string(value));
    }
  }
  if (!a.postgres_dsn) {
    if (const char* env = std::getenv("PROPGRAPH_PG_DSN"); env != nullptr && *env != '\0') a.postgres_dsn = env;
  }
  if (a.postgres_default && a.postgres_dsn) a.postgres = true;
  return a;
}

// -- targets ----------------------------------------------------------------------------------

struct Target {
  std::string name;
  std::string figures;
  std::optional<bool> met;  // nullopt: not measured in this run
};

std::vector<Target> check_targets(const LatencyTable* lat, const EventTable* ev, const MemoryTable* mem) {
  using std::chrono::milliseconds;
  std::vector<Target> out;
  if (lat) {
    for (std::string_view op : latency_operations) {
      Target t{fmt::format("{}: fibers at 1 ms wait, C=256 reach >= 80% of ideal", op), "", std::nullopt};
      const LatencyCell* pool = lat->find(op, milliseconds(1), 256, "fibers-pool2");
      const LatencyCell* one = lat->find(op, milliseconds(1), 256, "fibers-1thread");
      if (pool) {
        t.met = pool->ratio() >= 0.80;
        t.figures = fmt::format("fibers-pool2 {}/s = {:.0f}% of {}/s", format_rate(pool->requests_per_s),
                                100 * pool->ratio(), format_rate(pool->ideal_per_s));
        if (one) t.figures += fmt::format("; fibers-1thread {:.0f}%", 100 * one->ratio());
      }
      out.push_back(std::move(t));
    }
    for (std::string_view op : latency_operations) {
      Target t{fmt::format("{}: fibers beat a 16-thread pool >= 10x at C=4096, 1 ms", op), "", std::nullopt};
      const LatencyCell* threads = lat->find(op, milliseconds(1), 4096, "threads-16");
      const LatencyCell* pool = lat->find(op, milliseconds(1), 4096, "fibers-pool2");
      const LatencyCell* one = lat->find(op, milliseconds(1), 4096, "fibers-1thread");
      if (threads && pool && threads->requests_per_s > 0) {
        const double x_pool = pool->requests_per_s / threads->requests_per_s;
        t.met = x_pool >= 10;
        t.figures = fmt::format("fibers-pool2 {}/s vs threads-16 {}/s = {:.1f}x", format_rate(pool->requests_per_s),
                                format_rate(threads->requests_per_s), x_pool);
        if (one) t.figures += fmt::format("; fibers-1thread {:.1f}x", one->requests_per_s / threads->requests_per_s);
      }
      out.push_back(std::move(t));
    }
  }
  if (ev) {
    for (const int k : event_wait_counts) {
      const bool zero = k == 0;
      Target t{zero ? "events k=0: fibers within 15% of the Asio event loop"
                    : fmt::format("events k={}: fibers beat or match (>= 95% of) the Asio event loop", k),
               "", std::nullopt};
      const EventRun* fibers = ev->find("fibers", k);
      const EventRun* nested = ev->find("asio", k);
      const EventRun* flat = ev->find("asio-flat", k);
      if (fibers && nested && flat) {
        const EventRun* best = nested->events_per_s >= flat->events_per_s ? nested : flat;
        const double ratio = fibers->events_per_s / best->events_per_s;
        t.met = zero ? ratio >= 0.85 : ratio >= 0.95;
        t.figures = fmt::format("fibers {}/s vs {} {}/s = {:.2f}", format_rate(fibers->events_per_s), best->mode,
                                format_rate(best->events_per_s), ratio);
        if (const EventRun* spawned = ev->find("fibers-spawn", k)) {
          t.figures += fmt::format("; fibers-spawn {}/s = {:.2f}", format_rate(spawned->events_per_s),
                                   spawned->events_per_s / best->events_per_s);
        }
      }
      out.push_back(std::move(t));
    }
  }
  if (mem && !mem->probes.empty() && mem->probes.front().what.starts_with("fibers")) {
    const MemoryProbe& p = mem->probes.front();
    constexpr double limit = 2.0 * 1024 * 1024 * 1024;
    Target t{
        fmt::format("{} concurrently waiting fibers fit in < 2 GiB (peak RSS)", p.count),
        fmt::format("peak RSS +{} ({}/fiber, {}), all waiting: {}", format_bytes(static_cast<double>(p.peak_rss_delta)),
                    format_bytes(p.rss_per_unit()), p.stack, p.all_waiting ? "yes" : "no"),
        p.all_waiting && static_cast<double>(p.peak_rss_delta) < limit};
    if (p.count < 100'000) t.name += " (scaled down: the target is for 100000)";
    out.push_back(std::move(t));
  }
  return out;
}

#ifdef PROPGRAPH_BENCH_WITH_POSTGRES
void add_postgres_targets(std::vector<Target>& out, const PostgresTable& pg) {
  for (std::string_view op : latency_operations) {
    Target t{fmt::format("postgres {}: fibers on one thread reach >= the throughput of a 16-thread pool at C=256", op),
             "", std::nullopt};
    const PostgresCell* one = pg.find(op, 256, "fibers-1thread");
    const PostgresCell* threads = pg.find(op, 256, "threads-16");
    if (one && threads && threads->median.requests_per_s > 0) {
      const double ratio = one->median.requests_per_s / threads->median.requests_per_s;
      t.met = ratio >= 1.0;
      t.figures =
          fmt::format("fibers-1thread {}/s vs threads-16 {}/s = {:.2f}", format_rate(one->median.requests_per_s),
                      format_rate(threads->median.requests_per_s), ratio);
      for (std::string_view other : {std::string_view("fibers-pool2"), postgres_reactor_mode}) {
        if (const PostgresCell* cell = pg.find(op, 256, other)) {
          t.figures += fmt::format("; {} {}/s = {:.2f}", other, format_rate(cell->median.requests_per_s),
                                   cell->median.requests_per_s / threads->median.requests_per_s);
        }
      }
    }
    out.push_back(std::move(t));
  }
}
#endif

void print_targets(const std::vector<Target>& targets) {
  fmt::print("\ntargets\n");
  for (const auto& t : targets) {
    fmt::print("  [{}] {}\n", t.met ? (*t.met ? "met " : "MISS") : "n/a ", t.name);
    if (!t.figures.empty()) fmt::print("         {}\n", t.figures);
  }
}

// -- chart ------------------------------------------------------------------------------------

void write_chart(const fs::path& dir, const LatencyTable& table) {
  const fs::path data = dir / "concurrency.dat";
  const fs::path script = dir / "concurrency.gp";
  const fs::path png = dir / "concurrency.png";
  {
    std::ofstream out(data);
    out << "# blocks: op x wait; columns: concurrency, requests/s per mode, ideal\n";
    for (std::string_view op : latency_operations) {
      for (const auto wait : latency_waits) {
        out << fmt::format("# {} wait {}\n", op, format_wait(wait));
        for (const std::size_t c : latency_concurrencies) {
          out << c;
          double ideal = 0;
          for (const Mode& m : latency_modes) {
            const LatencyCell* cell = table.find(op, wait, c, m.id);
            out << ' ' << (cell ? fmt::format("{:.1f}", cell->requests_per_s) : std::string("?"));
            if (cell) ideal = cell->ideal_per_s;
          }
          out << ' ' << (ideal > 0 ? fmt::format("{:.1f}", ideal) : std::string("?")) << '\n';
        }
        out << "\n\n";
      }
    }
  }
  {
    std::ofstream out(script);
    out << "set terminal pngcairo size 1800,900 enhanced font 'sans,10'\n"
        << "set output '" << png.string() << "'\n"
        << "set datafile missing '?'\n"
        << "set multiplot layout 2,4 title 'propgraph-concurrency: requests/s vs concurrency through "
           "LatencyGraph(MemoryGraph), per execution mode (log-log; dashed: ideal)' noenhanced\n"
        << "set logscale xy\n"
        << "set xtics (1, 16, 256, 4096)\n"
        << "set xrange [0.7:6000]\n"
        << "set format y '10^{%T}'\n"
        << "set grid\n"
        << "set xlabel 'concurrency C'\n"
        << "set ylabel 'requests/s'\n";
    const char* colors[] = {"#7f7f7f", "#aec7e8", "#1f77b4", "#17becf", "#ff7f0e", "#d62728"};
    int block = 0;
    for (std::string_view op : latency_operations) {
      for (const auto wait : latency_waits) {
        double lowest = 0;  // keep the lowest line off the frame
        for (const std::size_t c : latency_concurrencies) {
          for (const Mode& m : latency_modes) {
            const LatencyCell* cell = table.find(op, wait, c, m.id);
            if (cell && cell->requests_per_s > 0 && (lowest == 0 || cell->requests_per_s < lowest)) {
              lowest = cell->requests_per_s;
            }
          }
        }
        out << (lowest > 0 ? fmt::format("set yrange [{}:*]\n", lowest / 2) : std::string("set yrange [*:*]\n"));
        out << fmt::format("set title '{}, wait {}' noenhanced\n", op, format_wait(wait));
        out << (block == 2 ? "set key top left font ',8'\n" : "unset key\n");  // the 1 ms panel has room
        out << "plot ";
        for (std::size_t m = 0; m < latency_modes.size(); ++m) {
          out << fmt::format("'{}' index {} using 1:{} with linespoints lw 2 pt 7 ps 0.6 lc rgb '{}' title '{}', ",
                             data.string(), block, m + 2, colors[m], latency_modes[m].id);
        }
        out << fmt::format("'{}' index {} using 1:{} with lines dt 2 lw 1 lc rgb 'black' title 'ideal'\n",
                           data.string(), block, latency_modes.size() + 2);
        ++block;
      }
    }
    out << "unset multiplot\n";
  }
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    fmt::print(
        "\nno PNG: gnuplot is not installed (Debian: apt-get install gnuplot-nox); plot data and "
        "script are in {}\n",
        dir.string());
    return;
  }
  const std::string command = fmt::format("gnuplot '{}'", script.string());
  if (std::system(command.c_str()) != 0) {
    fmt::print("\nno PNG: `{}` failed\n", command);
    return;
  }
  fmt::print("chart: {}\n", png.string());
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  try {
    args = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "propgraph-concurrency: %s\n%s", e.what(), usage.data());
    return 2;
  }
  std::error_code ec;
  fs::create_directories(args.out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "propgraph-concurrency: cannot create %s: %s\n", args.out_dir.c_str(), ec.message().c_str());
    return 1;
  }
  if (args.timer_slack_ns != 0 && prctl(PR_SET_TIMERSLACK, args.timer_slack_ns, 0, 0, 0) != 0) {
    std::perror("propgraph-concurrency: PR_SET_TIMERSLACK");
    return 1;
  }
  const long timer_slack_ns = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);  // inherited by every thread started later
  const RunInfo run(argc, argv);
  args.latency_config.cores = run.cores;
  args.event_config.loop_threads = 2;

  fmt::print("{}\n{} cores, load average at start {}, timer slack {} ns\n", run.command, run.cores, run.load_at_start,
             timer_slack_ns);
  const auto started = Clock::now();

  std::optional<LatencyTable> latency;
  std::optional<EventTable> events;
  std::optional<MemoryTable> memory;
  if (args.latency) {
    std::fputs("latency table ", stderr);
    latency = run_latency_table(args.latency_config);
    print_latency_table(*latency);
    print_crossover(*latency);
    std::fflush(stdout);
  }
  if (args.events) {
    std::fputs("event table ", stderr);
    events = run_event_table(args.event_config);
    print_event_table(*events);
    std::fflush(stdout);
  }
  if (args.memory) {
    std::fputs("memory probes ", stderr);
    memory = run_memory_probes(args.memory_config);
    print_memory_table(*memory);
    std::fflush(stdout);
  }
  int status = 0;
#ifdef PROPGRAPH_BENCH_WITH_POSTGRES
  std::optional<PostgresTable> postgres;
#endif
  constexpr std::string_view no_server =
      "\npostgres table skipped: no server given (--postgres-dsn=DSN or PROPGRAPH_PG_DSN; "
      "`scripts/bench --concurrency --postgres` starts a throw-away one)\n";
  if (args.postgres && !args.postgres_dsn) {
    fmt::print("{}", no_server);
  } else if (args.postgres) {
#ifdef PROPGRAPH_BENCH_WITH_POSTGRES
    std::fputs("postgres table ", stderr);
    try {
      postgres = run_postgres_table({.dsn = args.postgres_dsn,
                                     .window = args.pg_window,
                                     .warmup = args.pg_warmup,
                                     .repeats = args.pg_repeats,
                                     .filter = args.latency_config.filter});
      print_postgres_table(*postgres);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "\npropgraph-concurrency: postgres table failed: %s\n", e.what());
      status = 1;
    }
#else
    fmt::print("\npostgres table skipped: this build has no propgraph::postgres (libpq-dev was missing)\n");
#endif
  } else if (args.postgres_default) {
    fmt::print("{}", no_server);
  }
  auto targets = check_targets(latency ? &*latency : nullptr, events ? &*events : nullptr, memory ? &*memory : nullptr);
#ifdef PROPGRAPH_BENCH_WITH_POSTGRES
  if (postgres) add_postgres_targets(targets, *postgres);
#endif
  print_targets(targets);
  const double total_s = seconds(Clock::now() - started);
  fmt::print("\nran in {:.0f} s; load average at end {}\n", total_s, load_average());

  Json json;
  json.begin_object();
  // Run identification, for the tables generated from this file (scripts/bench --update-docs).
  run.write_start(json);
  RunInfo::write_end(json);
  json.field("seconds", total_s).field("timer_slack_ns", static_cast<std::int64_t>(timer_slack_ns));
  if (latency) write_latency_json(json, *latency);
  if (events) write_event_json(json, *events);
  if (memory) write_memory_json(json, *memory);
#ifdef PROPGRAPH_BENCH_WITH_POSTGRES
  if (postgres) write_postgres_json(json, *postgres);
#endif
  json.begin_array("targets");
  for (const auto& t : targets) {
    json.begin_object().field("target", t.name).field("figures", t.figures);
    if (t.met) json.field("met", *t.met);
    json.end_object();
  }
  json.end_array();
  json.end_object();
  const fs::path json_path = args.json.value_or(args.out_dir / "propgraph-concurrency.json");
  std::ofstream(json_path) << json.str() << '\n';
  fmt::print("results: {}\n", json_path.string());
  if (latency && args.plot) write_chart(args.out_dir, *latency);
  return status;
}
