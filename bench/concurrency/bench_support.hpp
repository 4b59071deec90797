// Shared pieces of propgraph-concurrency: clock, process memory, percentiles, number formatting
// and a minimal JSON writer.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// -- JSON ------------------------------------------------------------------------------------

/// Appends JSON to a string: objects and arrays with automatic commas. No validation.
class Json {
 public:
  Json& begin_object(std::string_view key = {});
  Json& end_object();
  Json& begin_array(std::string_view key = {});
  Json& end_array();
  Json& field(std::string_view key, std::string_view value);
  Json& field(std::string_view key, const char* value) { return field(key, std::string_view(value)); }
  Json& field(std::string_view key, double value);
  Json& field(std::string_view key, std::int64_t value);
  Json& field(std::string_view key, std::uint64_t value);
  Json& field(std::string_view key, int value) { return field(key, static_cast<std::int64_t>(value)); }
  Json& field(std::string_view key, bool value);
  [[nodiscard]] const std::string& str() const { return out_; }

 private:
  void key(std::string_view k);
  void newline();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
};

}  // namespace propgraph::bench
