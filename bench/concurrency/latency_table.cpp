// Table 1 (latency_table.hpp). Every mode runs the same closed loop: C clients, each issuing
// its next request as soon as the previous one completes (no think time). A request's latency
// runs from that moment (its issue) to its completion, so time spent queued behind other
// clients' requests counts. Only completions inside the measured window are counted.
#include "latency_table.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <deque>
#include <latch>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <boost/fiber/operations.hpp>
#include <fmt/format.h>

#include "../reference_fixture.hpp"
#include "propgraph/fiber.hpp"
#include "propgraph/latency/latency_graph.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace propgraph::bench {

namespace {

std::atomic<std::size_t> result_sink{0};  // keeps results observable

/// One graph call of the cell's operation; returns something derived from its result.
struct Request {
  GraphOperations* graph;
  const ElementId* id;
  bool neighbors;

  std::size_t operator()() const {
    if (neighbors) return graph->neighbors(*id).size();
    return graph->find_vertex_by_id("Person", *id).has_value() ? 1 : 0;
  }
};

struct Window {
  Clock::time_point start;         // every client issues its first request here
  Clock::time_point measure_from;  // completions from here on are counted ...
  Clock::time_point end;           // ... up to here; clients stop after their first completion past it
};

/// Latencies of the completions inside the window, for one client or worker.
struct Samples {
  std::vector<std::int64_t> ns;
  std::size_t checksum = 0;

  void record(Clock::time_point issued, Clock::time_point done, const Window& w) {
    if (done >= w.measure_from && done < w.end) {
      ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(done - issued).count());
    }
  }
};

/// A client's loop on a fiber: request, record, repeat until the window ends. With no wait the
/// fiber yields between requests so that the clients of one thread take turns.
void client_loop(const Request& request, Samples& samples, const Window& w, bool yield_between) {
  Clock::time_point issued = w.start;
  for (;;) {
    samples.checksum += request();
    const Clock::time_point done = Clock::now();
    samples.record(issued, done, w);
    issued = done;
    if (done >= w.end) break;
    if (yield_between) boost::this_fiber::yield();
  }
}

/// sync: one thread serves the C clients' requests one after another, in turn.
std::vector<Samples> run_sync(const Request& request, std::size_t clients, const Window& w) {
  std::vector<Samples> samples(1);
  std::vector<Clock::time_point> issued(clients, w.start);
  for (std::size_t c = 0;; c = (c + 1 == clients) ? 0 : c + 1) {
    samples[0].checksum += request();
    const Clock::time_point done = Clock::now();
    samples[0].record(issued[c], done, w);
    issued[c] = done;
    if (done >= w.end) break;
  }
  return samples;
}

/// A pool of T threads taking requests from one FIFO. A worker that completes a request queues
/// that client's next request and takes the oldest queued one, so C requests stay outstanding.
template <class MakeWindow>
std::vector<Samples> run_thread_pool(const Request& request, std::size_t clients, std::size_t threads,
                                     MakeWindow make_window) {
  std::vector<Samples> samples(threads);
  std::mutex mutex;
  std::deque<Clock::time_point> queue;  // issue times of the queued requests
  std::latch ready(static_cast<std::ptrdiff_t>(threads));
  std::latch start(1);
  Window w{};
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      ready.count_down();
      start.wait();
      Samples& mine = samples[t];
      std::unique_lock lock(mutex);
      if (queue.empty()) return;  // more threads than clients: this one stays idle
      Clock::time_point issued = queue.front();
      queue.pop_front();
      lock.unlock();
      for (;;) {
        mine.checksum += request();
        const Clock::time_point done = Clock::now();
        mine.record(issued, done, w);
        if (done >= w.end) break;
        lock.lock();
        queue.push_back(done);
        issued = queue.front();
        queue.pop_front();
        lock.unlock();
      }
    });
  }
  ready.wait();
  w = make_window();
  queue.assign(clients, w.start);
  start.count_down();
  for (auto& worker : workers) worker.join();
  return samples;
}

/// fibers-1thread: one fiber per client on the calling thread (run_on_fiber, default stacks).
std::vector<Samples> run_fibers_here(const Request& request, std::size_t clients, const Window& w, bool yield_between) {
  std::vector<Samples> samples(clients);
  std::vector<Future<void>> done;
  done.reserve(clients);
  const FiberOptions options{.launch = boost::fibers::launch::post};
  for (std::size_t c = 0; c < clients; ++c) {
    done.push_back(run_on_fiber([&, c] { client_loop(request, samples[c], w, yield_between); }, options));
  }
  for (auto& f : done) f.get();
  return samples;
}

/// fibers-pool2: one fiber per client on a FiberPool.
std::vector<Samples> run_fiber_pool(FiberPool& pool, const Request& request, std::size_t clients, const Window& w,
                                    bool yield_between) {
  std::vector<Samples> samples(clients);
  std::vector<Future<void>> done;
  done.reserve(clients);
  for (std::size_t c = 0; c < clients; ++c) {
    done.push_back(pool.submit([&, c] { client_loop(request, samples[c], w, yield_between); }));
  }
  for (auto& f : done) f.get();
  return samples;
}

/// Requests per second of `op` on one thread with no wait: the CPU cost of a call.
double single_thread_rate(const Request& request, std::chrono::milliseconds window) {
  const Clock::time_point now = Clock::now();
  const Window w{now, now + window / 4, now + window / 4 + window};
  auto samples = run_sync(request, 1, w);
  result_sink += samples[0].checksum;
  return static_cast<double>(samples[0].ns.size()) / seconds(w.end - w.measure_from);
}

}  // namespace

std::string LatencyCell::name() const { return fmt::format("{}/{}/c{}/{}", op, format_wait(wait), concurrency, mode); }

const LatencyCell* LatencyTable::find(std::string_view op, std::chrono::nanoseconds wait, std::size_t concurrency,
                                      std::string_view mode) const {
  for (const auto& c : cells) {
    if (c.op == op && c.wait == wait && c.concurrency == concurrency && c.mode == mode) return &c;
  }
  return nullptr;
}

CellMeasurement measure_cell(const CellSpec& spec) {
  const Request request{spec.graph, spec.id, spec.op == "neighbors"};
  const auto make_window = [&] {
    const Clock::time_point now = Clock::now();
    return Window{now, now + spec.warmup, now + spec.warmup + spec.window};
  };
  std::vector<Samples> samples;
  switch (spec.mode->kind) {
    case ModeKind::sync: samples = run_sync(request, spec.clients, make_window()); break;
    case ModeKind::thread_pool:
      samples = run_thread_pool(request, spec.clients, spec.mode->threads, make_window);
      break;
    case ModeKind::fibers_one_thread:
      samples = run_fibers_here(request, spec.clients, make_window(), spec.yield_between);
      break;
    case ModeKind::fiber_pool:
      samples = run_fiber_pool(*spec.pool, request, spec.clients, make_window(), spec.yield_between);
      break;
  }
  std::vector<std::int64_t> all;
  for (auto& s : samples) {
    all.insert(all.end(), s.ns.begin(), s.ns.end());
    result_sink += s.checksum;
  }
  CellMeasurement m;
  m.requests = all.size();
  m.requests_per_s = static_cast<double>(m.requests) / seconds(spec.window);
  m.p50_ns = quantile(all, 0.50);
  m.p99_ns = quantile(all, 0.99);
  // Little's law: the steady-state mean latency is C / throughput.
  m.latency_lower_bound =
      m.requests_per_s <= 0 || static_cast<double>(spec.clients) / m.requests_per_s > seconds(spec.warmup);
  return m;
}

namespace {

/// Runs one cell of `grid` unless the filter excludes it.
void run_cell(LatencyTable& table, const LatencyConfig& config, MemoryGraph& backend, const ReferenceFixture& fixture,
              FiberPool& pool, std::string_view op, std::chrono::nanoseconds wait, std::size_t clients,
              const Mode& mode, std::string_view grid) {
  LatencyCell cell{.op = std::string(op),
                   .wait = wait,
                   .concurrency = clients,
                   .mode = std::string(mode.id),
                   .grid = std::string(grid)};
  if (config.filter && !std::regex_search(cell.name(), *config.filter)) return;
  LatencyGraph graph(backend, LatencyOptions::fixed(wait));
  const CellMeasurement m = measure_cell({.graph = &graph,
                                          .id = &fixture.alice,
                                          .op = op,
                                          .clients = clients,
                                          .mode = &mode,
                                          .pool = &pool,
                                          .warmup = std::max<Clock::duration>(config.warmup, 2 * wait),
                                          .window = config.window,
                                          .yield_between = wait.count() == 0});
  cell.requests = m.requests;
  cell.window_s = seconds(config.window);
  cell.requests_per_s = m.requests_per_s;
  cell.p50_ns = m.p50_ns;
  cell.p99_ns = m.p99_ns;
  cell.latency_lower_bound = m.latency_lower_bound;
  const double cpu_max = table.cpu_max_per_s[cell.op];
  cell.ideal_per_s = wait.count() == 0 ? cpu_max : std::min(static_cast<double>(clients) / seconds(wait), cpu_max);
  table.cells.push_back(std::move(cell));
  std::fputc('.', stderr);
  std::fflush(stderr);
}

const Mode& mode_named(std::string_view id) {
  for (const Mode& m : latency_modes) {
    if (m.id == id) return m;
  }
  throw std::logic_error("unknown mode");
}

}  // namespace

LatencyTable run_latency_table(const LatencyConfig& config) {
  LatencyTable table{.config = config};
  MemoryGraph backend;
  const ReferenceFixture fixture(backend);
  FiberPool pool(2);

  for (std::string_view op : latency_operations) {
    LatencyGraph no_wait(backend, LatencyOptions::fixed(std::chrono::nanoseconds(0)));
    const double single = single_thread_rate(Request{&no_wait, &fixture.alice, op == "neighbors"}, config.window);
    table.single_thread_per_s[std::string(op)] = single;
    table.cpu_max_per_s[std::string(op)] = single * config.cores;
    for (const auto wait : latency_waits) {
      for (const std::size_t clients : latency_concurrencies) {
        for (const Mode& mode : latency_modes) {
          run_cell(table, config, backend, fixture, pool, op, wait, clients, mode, "main");
        }
      }
    }
  }
  if (config.crossover) {
    for (const auto wait : crossover_waits) {
      for (const std::size_t clients : crossover_concurrencies) {
        for (std::string_view mode : crossover_modes) {
          run_cell(table, config, backend, fixture, pool, latency_operations[0], wait, clients, mode_named(mode),
                   "crossover");
        }
      }
    }
  }
  std::fputc('\n', stderr);
  return table;
}

void print_latency_table(const LatencyTable& table) {
  const std::string_view rule(
      "----------------------------------------------------------------------------------------------------------"
      "-----");
  for (std::string_view op : latency_operations) {
    const auto single = table.single_thread_per_s.find(op);
    if (single == table.single_thread_per_s.end()) continue;
    bool any = false;
    for (const auto& c : table.cells) any = any || c.op == op;
    if (!any) continue;

    fmt::print("\n{} through LatencyGraph(MemoryGraph): requests/s and % of ideal\n", op);
    fmt::print("ideal = min(C / wait, CPU max {}/s = {} cores x {}/s measured sync with no wait)\n",
               format_rate(table.cpu_max_per_s.at(std::string(op))), table.config.cores, format_rate(single->second));
    fmt::print("{:<6} {:>5} {:>8}", "wait", "C", "ideal");
    for (const Mode& m : latency_modes) fmt::print(" {:>15}", m.id);
    fmt::print("\n{}\n", rule);
    for (const auto wait : latency_waits) {
      for (const std::size_t c : latency_concurrencies) {
        const LatencyCell* first = nullptr;
        for (const Mode& m : latency_modes) {
          if (!first) first = table.find(op, wait, c, m.id);
        }
        if (!first) continue;
        fmt::print("{:<6} {:>5} {:>8}", format_wait(wait), c, format_rate(first->ideal_per_s));
        for (const Mode& m : latency_modes) {
          const LatencyCell* cell = table.find(op, wait, c, m.id);
          if (!cell) {
            fmt::print(" {:>15}", "-");
            continue;
          }
          fmt::print(" {:>8} {:>5.0f}%", format_rate(cell->requests_per_s), 100 * cell->ratio());
        }
        fmt::print("\n");
      }
    }

    fmt::print("\n{}: latency p50 / p99 (>= : lower bound, the closed loop's queue had not cycled yet)\n", op);
    fmt::print("{:<6} {:>5}", "wait", "C");
    for (const Mode& m : latency_modes) fmt::print(" {:>16}", m.id);
    fmt::print("\n{}\n", rule);
    for (const auto wait : latency_waits) {
      for (const std::size_t c : latency_concurrencies) {
        bool row = false;
        for (const Mode& m : latency_modes) row = row || table.find(op, wait, c, m.id) != nullptr;
        if (!row) continue;
        fmt::print("{:<6} {:>5}", format_wait(wait), c);
        for (const Mode& m : latency_modes) {
          const LatencyCell* cell = table.find(op, wait, c, m.id);
          if (!cell) {
            fmt::print(" {:>16}", "-");
            continue;
          }
          const std::string text = fmt::format("{}{}/{}", cell->latency_lower_bound ? ">=" : "",
                                               format_ns(cell->p50_ns), format_ns(cell->p99_ns));
          fmt::print(" {:>16}", text);
        }
        fmt::print("\n");
      }
    }
  }
}

void print_crossover(const LatencyTable& table) {
  const std::string_view op = latency_operations[0];
  bool any = false;
  for (const auto& c : table.cells) any = any || c.grid == "crossover";
  if (!any) return;
  fmt::print(
      "\ncrossover ({}): throughput of fibers-1thread / fibers-pool2 relative to sync at the same C;\n"
      "sync/call = measured time per call of sync (the requested wait plus timer slack and wake-up)\n",
      op);
  fmt::print("{:<6} {:>10}", "wait", "sync/call");
  for (const std::size_t c : crossover_concurrencies) fmt::print(" {:>14}", fmt::format("C={}", c));
  fmt::print("\n{}\n", std::string(17 + 15 * crossover_concurrencies.size(), '-'));
  for (const auto wait : crossover_waits) {
    const LatencyCell* sync1 = table.find(op, wait, 1, "sync");
    fmt::print("{:<6} {:>10}", format_wait(wait),
               sync1 && sync1->requests_per_s > 0 ? format_ns(1e9 / sync1->requests_per_s) : "-");
    for (const std::size_t c : crossover_concurrencies) {
      const LatencyCell* sync = table.find(op, wait, c, "sync");
      const LatencyCell* one = table.find(op, wait, c, "fibers-1thread");
      const LatencyCell* pool = table.find(op, wait, c, "fibers-pool2");
      if (!sync || sync->requests_per_s <= 0) {
        fmt::print(" {:>14}", "-");
        continue;
      }
      const auto ratio = [&](const LatencyCell* cell) {
        return cell ? fmt::format("{:.1f}", cell->requests_per_s / sync->requests_per_s) : std::string("-");
      };
      fmt::print(" {:>14}", fmt::format("{} / {}", ratio(one), ratio(pool)));
    }
    fmt::print("\n");
  }
}

void write_latency_json(Json& json, const LatencyTable& table) {
  json.begin_object("latency_table");
  json.field("window_ms", static_cast<std::int64_t>(table.config.window.count()));
  json.field("warmup_ms_min", static_cast<std::int64_t>(table.config.warmup.count()));
  json.field("cores", static_cast<std::int64_t>(table.config.cores));
  json.begin_object("single_thread_no_wait_per_s");
  for (const auto& [op, v] : table.single_thread_per_s) json.field(op, v);
  json.end_object();
  json.begin_array("cells");
  for (const auto& c : table.cells) {
    json.begin_object()
        .field("op", c.op)
        .field("wait_ns", static_cast<std::int64_t>(c.wait.count()))
        .field("concurrency", static_cast<std::uint64_t>(c.concurrency))
        .field("mode", c.mode)
        .field("grid", c.grid)
        .field("requests", c.requests)
        .field("window_s", c.window_s)
        .field("requests_per_s", c.requests_per_s)
        .field("p50_ns", c.p50_ns)
        .field("p99_ns", c.p99_ns)
        .field("ideal_per_s", c.ideal_per_s)
        .field("ratio_to_ideal", c.ratio())
        .field("latency_lower_bound", c.latency_lower_bound)
        .end_object();
  }
  json.end_array();
  json.end_object();
}

}  // namespace propgraph::bench
