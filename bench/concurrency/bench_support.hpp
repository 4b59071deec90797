// Shared pieces of propgraph-concurrency: clock, process memory, percentiles, number formatting;
// the JSON writer shared by the benchmarks (json_writer.hpp).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json_writer.hpp"

namespace propgraph::bench {

using Clock = std::chrono::steady_clock;

/// CPU time (user + system) this process has used so far, in seconds.
double process_cpu_seconds();

/// Seconds as a double.
inline double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// -- process memory (Linux /proc) ----------------------------------------------------------

/// A field of /proc/self/status in bytes (VmRSS, VmHWM, VmSize, ...), or -1 when unreadable.
std::int64_t proc_status_bytes(std::string_view field);
/// A field of /proc/meminfo in bytes (KernelStack, ...), or -1.
std::int64_t meminfo_bytes(std::string_view field);
/// Number of memory mappings of this process (lines of /proc/self/maps).
std::int64_t mapping_count();
/// A number from a /proc/sys file (e.g. "/proc/sys/vm/max_map_count"), or -1.
std::int64_t proc_sys_number(const char* path);
/// Returns freed heap memory to the OS, then resets the peak RSS (VmHWM) to the current RSS
/// (writes 5 to /proc/self/clear_refs). Returns the RSS after that, in bytes.
std::int64_t reset_peak_rss();

// -- statistics ------------------------------------------------------------------------------

/// The q-quantile (0..1) of `values` (reordered in place); 0 when empty.
double quantile(std::vector<std::int64_t>& values, double q);
/// Median of a few values (copied).
double median(std::vector<double> values);

// -- formatting ------------------------------------------------------------------------------

/// 4.81M, 256k, 98.5: three significant figures with an SI suffix.
std::string format_rate(double per_second);
/// 210ns, 1.23µs, 12.3ms, 1.05s.
std::string format_ns(double ns);
/// 1ms, 100µs, 0 (the waits of the latency table).
std::string format_wait(std::chrono::nanoseconds wait);
/// 1.23 GiB, 45.6 MiB, 7.8 KiB.
std::string format_bytes(double bytes);

}  // namespace propgraph::bench
