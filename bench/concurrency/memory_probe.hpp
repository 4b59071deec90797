// Memory per waiting fiber and per waiting thread: N of them blocked in a LatencyGraph call at
// once, measured as the process's resident set growth (/proc/self/status).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench_support.hpp"

namespace propgraph::bench {

struct MemoryConfig {
  std::size_t fibers = 100'000;
  std::size_t fiber_stack = 64 * 1024;  // StackAllocator::pooled for the large fiber probe
  std::size_t default_stack_fibers = 10'000;  // with the facade's default stacks
  std::size_t threads = 1'000;
};

struct MemoryProbe {
  std::string what;
  std::string stack;        // how stacks were allocated
  std::size_t count = 0;
  bool all_waiting = false;  // every one had started and none had finished at the sample
  std::int64_t rss_delta = 0;       // at the sample, over the RSS before starting them
  std::int64_t peak_rss_delta = 0;  // VmHWM after joining, over the same base
  std::int64_t virtual_delta = 0;   // VmSize at the sample, over the base
  std::int64_t kernel_stack_delta = 0;  // /proc/meminfo KernelStack (system-wide), threads only
  std::int64_t mappings_delta = 0;      // /proc/self/maps lines at the sample, over the base
  double start_seconds = 0;  // until all were waiting

  [[nodiscard]] double rss_per_unit() const { return count ? static_cast<double>(rss_delta) / count : 0; }
};

struct MemoryTable {
  MemoryConfig config;
  std::int64_t max_map_count = -1;  // /proc/sys/vm/max_map_count
  std::vector<MemoryProbe> probes;
};

MemoryTable run_memory_probes(const MemoryConfig& config);
void print_memory_table(const MemoryTable& table);
void write_memory_json(Json& json, const MemoryTable& table);

}  // namespace propgraph::bench
