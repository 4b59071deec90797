// Table 2: the event-loop comparison. N events, each a small order-processing computation that
// waits k times for 10 ms, run by fibers, an Asio coroutine event loop and a thread pool.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench_support.hpp"

namespace propgraph::bench {

inline constexpr std::array<int, 5> event_wait_counts{0, 1, 2, 5, 10};
inline constexpr std::chrono::milliseconds event_wait{10};

struct EventConfig {
  std::size_t events = 100'000;
  std::size_t loop_threads = 2;      // FiberPool threads and Asio event loops
  std::size_t pool_threads = 256;    // thread-pool mode
  std::size_t fiber_stack = 64 * 1024;  // FiberPool stacks (StackAllocator::pooled)
  int repeats = 3;                   // fibers and asio: median of this many runs
  std::vector<std::string> modes{"fibers", "fibers-spawn", "asio", "asio-flat", "threads"};  // which to run
  std::vector<int> wait_counts{event_wait_counts.begin(), event_wait_counts.end()};  // which k
};

struct EventRun {
  std::string mode;  // fibers | fibers-spawn | asio | asio-flat | threads
  int waits = 0;     // k
  std::size_t events = 0;
  std::vector<double> seconds;  // one per repeat
  std::vector<double> cpu_seconds;  // process CPU time (user + system) per repeat
  double events_per_s = 0;      // events / median seconds
  double cpu_us_per_event = 0;  // median CPU time per event, all threads
  std::int64_t peak_rss_delta = 0;  // largest over the repeats, bytes above the RSS at start
};

struct EventTable {
  EventConfig config;
  double compute_ns_per_event = 0;  // the computation alone, one thread, no waits
  std::vector<EventRun> runs;

  [[nodiscard]] const EventRun* find(std::string_view mode, int waits) const;
};

EventTable run_event_table(const EventConfig& config);
void print_event_table(const EventTable& table);
void write_event_json(Json& json, const EventTable& table);

}  // namespace propgraph::bench
