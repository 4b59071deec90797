// propgraph-concurrency support code (bench_support.hpp).
#include "bench_support.hpp"

#include <malloc.h>
#include <sys/resource.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace propgraph::bench {

namespace {

/// "Field:   1234 kB" lines: the value of `field` times 1024, or -1.
std::int64_t kb_field(const char* path, std::string_view field) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > field.size() && line.compare(0, field.size(), field) == 0 && line[field.size()] == ':') {
      std::istringstream fields(line.substr(field.size() + 1));
      std::int64_t kb = -1;
      fields >> kb;
      return kb < 0 ? -1 : kb * 1024;
    }
  }
  return -1;
}

std::string three_figures(double v) {
  if (v >= 100) return fmt::format("{:.0f}", v);
  if (v >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2f}", v);
}

}  // namespace

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto sec = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return sec(usage.ru_utime) + sec(usage.ru_stime);
}

std::int64_t proc_status_bytes(std::string_view field) { return kb_field("/proc/self/status", field); }
std::int64_t meminfo_bytes(std::string_view field) { return kb_field("/proc/meminfo", field); }

std::int64_t mapping_count() {
  std::ifstream in("/proc/self/maps");
  std::int64_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

std::int64_t proc_sys_number(const char* path) {
  std::ifstream in(path);
  std::int64_t value = -1;
  in >> value;
  return value;
}

std::int64_t reset_peak_rss() {
  malloc_trim(0);
  std::ofstream("/proc/self/clear_refs") << "5";
  return proc_status_bytes("VmRSS");
}

double quantile(std::vector<std::int64_t>& values, double q) {
  if (values.empty()) return 0;
  const auto index = static_cast<std::size_t>(
      std::min<double>(static_cast<double>(values.size() - 1), std::floor(q * static_cast<double>(values.size()))));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(index), values.end());
  return static_cast<double>(values[index]);
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string format_rate(double v) {
  if (v >= 1e9) return three_figures(v / 1e9) + "G";
  if (v >= 1e6) return three_figures(v / 1e6) + "M";
  if (v >= 1e3) return three_figures(v / 1e3) + "k";
  return three_figures(v);
}

std::string format_ns(double ns) {
  if (ns >= 1e9) return three_figures(ns / 1e9) + "s";
  if (ns >= 1e6) return three_figures(ns / 1e6) + "ms";
  if (ns >= 1e3) return three_figures(ns / 1e3) + "µs";
  return fmt::format("{:.0f}ns", ns);
}

std::string format_wait(std::chrono::nanoseconds wait) {
  const auto ns = wait.count();
  if (ns == 0) return "0";
  if (ns % 1'000'000'000 == 0) return fmt::format("{}s", ns / 1'000'000'000);
  if (ns % 1'000'000 == 0) return fmt::format("{}ms", ns / 1'000'000);
  if (ns % 1'000 == 0) return fmt::format("{}µs", ns / 1'000);
  return fmt::format("{}ns", ns);
}

std::string format_bytes(double bytes) {
  const double a = std::fabs(bytes);
  if (a >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024));
  if (a >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
  if (a >= 1024.0) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{:.0f} B", bytes);
}

}  // namespace propgraph::bench
