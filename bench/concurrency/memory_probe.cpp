// Memory probes (memory_probe.hpp). Each probe starts N waiters that all call
// LatencyGraph(MemoryGraph).find_vertex_by_id with a 1 s wait, samples the process once all N
// are inside the wait, then joins them.
#include "memory_probe.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include <boost/fiber/operations.hpp>
#include <fmt/format.h>

#include "../reference_fixture.hpp"
#include "propgraph/fiber.hpp"
#include "propgraph/latency/latency_graph.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace propgraph::bench {

namespace {

using namespace std::chrono_literals;

constexpr auto probe_wait = 1s;

struct Sample {
  std::int64_t rss = 0, vm = 0, kernel_stack = 0, mappings = 0;
  static Sample now() {
    return {proc_status_bytes("VmRSS"), proc_status_bytes("VmSize"), meminfo_bytes("KernelStack"), mapping_count()};
  }
};

/// N fibers on this thread (run_on_fiber, posted), each waiting in one graph call.
MemoryProbe probe_fibers(std::size_t count, const StackAllocator& stack, std::string stack_name) {
  MemoryGraph backend;
  const ReferenceFixture fixture(backend);
  LatencyGraph graph(backend, LatencyOptions::fixed(probe_wait));
  MemoryProbe probe{.what = "fibers (1 thread)", .stack = std::move(stack_name), .count = count};
  std::atomic<std::size_t> started{0}, finished{0};

  std::vector<Future<void>> done;
  done.reserve(count);
  const std::int64_t base_rss = reset_peak_rss();
  const Sample base = Sample::now();
  const auto start = Clock::now();
  const FiberOptions options{.launch = boost::fibers::launch::post, .stack = stack, .recycle = false};
  for (std::size_t i = 0; i < count; ++i) {
    done.push_back(run_on_fiber(
        [&] {
          started.fetch_add(1, std::memory_order_relaxed);
          (void)graph.find_vertex_by_id("Person", fixture.alice);
          finished.fetch_add(1, std::memory_order_relaxed);
        },
        options));
  }
  while (started.load() < count) boost::this_fiber::sleep_for(5ms);  // the fibers run meanwhile
  probe.start_seconds = seconds(Clock::now() - start);
  const Sample at = Sample::now();
  probe.all_waiting = finished.load() == 0;
  for (auto& f : done) f.get();
  probe.rss_delta = at.rss - base.rss;
  probe.virtual_delta = at.vm - base.vm;
  probe.mappings_delta = at.mappings - base.mappings;
  probe.peak_rss_delta = proc_status_bytes("VmHWM") - base_rss;
  return probe;
}

/// N std::threads, each blocked in one graph call.
MemoryProbe probe_threads(std::size_t count) {
  MemoryGraph backend;
  const ReferenceFixture fixture(backend);
  LatencyGraph graph(backend, LatencyOptions::fixed(probe_wait));
  MemoryProbe probe{.what = "threads", .stack = "default 8 MiB thread stacks", .count = count};
  std::atomic<std::size_t> started{0}, finished{0};

  std::vector<std::thread> threads;
  threads.reserve(count);
  const std::int64_t base_rss = reset_peak_rss();
  const Sample base = Sample::now();
  const auto start = Clock::now();
  for (std::size_t i = 0; i < count; ++i) {
    threads.emplace_back([&] {
      started.fetch_add(1, std::memory_order_relaxed);
      (void)graph.find_vertex_by_id("Person", fixture.alice);
      finished.fetch_add(1, std::memory_order_relaxed);
    });
  }
  while (started.load() < count) std::this_thread::sleep_for(5ms);
  std::this_thread::sleep_for(20ms);  // let the last ones reach their wait
  probe.start_seconds = seconds(Clock::now() - start);
  const Sample at = Sample::now();
  probe.all_waiting = finished.load() == 0;
  for (auto& t : threads) t.join();
  probe.rss_delta = at.rss - base.rss;
  probe.virtual_delta = at.vm - base.vm;
  probe.kernel_stack_delta = at.kernel_stack - base.kernel_stack;
  probe.mappings_delta = at.mappings - base.mappings;
  probe.peak_rss_delta = proc_status_bytes("VmHWM") - base_rss;
  return probe;
}

}  // namespace

MemoryTable run_memory_probes(const MemoryConfig& config) {
  MemoryTable table{.config = config, .max_map_count = proc_sys_number("/proc/sys/vm/max_map_count")};
  if (config.fibers > 0) {
    table.probes.push_back(probe_fibers(config.fibers, StackAllocator::pooled(config.fiber_stack),
                                        fmt::format("pooled {} KiB", config.fiber_stack / 1024)));
    std::fputc('.', stderr);
  }
  if (config.default_stack_fibers > 0) {
    table.probes.push_back(
        probe_fibers(config.default_stack_fibers, StackAllocator{}, "default: cached, guarded 128 KiB"));
    std::fputc('.', stderr);
  }
  if (config.threads > 0) {
    table.probes.push_back(probe_threads(config.threads));
    std::fputc('.', stderr);
  }
  std::fputc('\n', stderr);
  return table;
}

void print_memory_table(const MemoryTable& table) {
  fmt::print("\nmemory: N waiters, each inside LatencyGraph::find_vertex_by_id (1 s wait) when sampled\n");
  fmt::print("{:<18} {:<33} {:>7} {:>5} {:>10} {:>10} {:>10} {:>10} {:>9}\n", "waiter", "stack", "N", "all", "RSS",
             "RSS/waiter", "peak RSS", "virt/wait", "maps/wait");
  fmt::print("{}\n", std::string(121, '-'));
  for (const auto& p : table.probes) {
    const double n = p.count ? static_cast<double>(p.count) : 1.0;
    fmt::print("{:<18} {:<33} {:>7} {:>5} {:>10} {:>10} {:>10} {:>10} {:>9.2f}\n", p.what, p.stack, p.count,
               p.all_waiting ? "yes" : "NO", format_bytes(static_cast<double>(p.rss_delta)),
               format_bytes(p.rss_per_unit()), format_bytes(static_cast<double>(p.peak_rss_delta)),
               format_bytes(static_cast<double>(p.virtual_delta) / n), static_cast<double>(p.mappings_delta) / n);
  }
  fmt::print("(all: every waiter was inside its wait when sampled; peak RSS: until all had finished their calls)\n");
  for (const auto& p : table.probes) {
    if (p.kernel_stack_delta != 0) {
      fmt::print("{}: plus {}/thread of kernel stack outside RSS (system-wide KernelStack delta, noisy)\n", p.what,
                 format_bytes(static_cast<double>(p.kernel_stack_delta) / static_cast<double>(p.count)));
    }
    const double maps = p.count ? static_cast<double>(p.mappings_delta) / static_cast<double>(p.count) : 0;
    if (maps >= 0.5 && table.max_map_count > 0) {
      fmt::print("{} with {}: {:.2f} mappings each; vm.max_map_count = {} caps a process at about {:.0f} of them\n",
                 p.what, p.stack, maps, table.max_map_count, static_cast<double>(table.max_map_count) / maps);
    }
  }
}

void write_memory_json(Json& json, const MemoryTable& table) {
  json.field("max_map_count", table.max_map_count);
  json.begin_array("memory");
  for (const auto& p : table.probes) {
    json.begin_object()
        .field("waiter", p.what)
        .field("stack", p.stack)
        .field("count", static_cast<std::uint64_t>(p.count))
        .field("all_waiting", p.all_waiting)
        .field("rss_delta_bytes", p.rss_delta)
        .field("rss_per_waiter_bytes", p.rss_per_unit())
        .field("peak_rss_delta_bytes", p.peak_rss_delta)
        .field("virtual_delta_bytes", p.virtual_delta)
        .field("kernel_stack_delta_bytes", p.kernel_stack_delta)
        .field("mappings_delta", p.mappings_delta)
        .field("seconds_until_all_waiting", p.start_seconds)
        .end_object();
  }
  json.end_array();
}

}  // namespace propgraph::bench
