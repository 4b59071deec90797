// What every benchmark records about its run, so published figures can name where they came from.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>

#include "json_writer.hpp"

#ifndef PROPGRAPH_SOURCE_DIR
#define PROPGRAPH_SOURCE_DIR "."
#endif

namespace propgraph::bench {

/// `git describe --always --dirty` of the source tree the benchmarks were built from (a commit
/// hash, "-dirty" when files differ from it), or "unknown" without git.
inline std::string source_commit() {
  std::string out;
  if (FILE* pipe =
          ::popen("git -C '" PROPGRAPH_SOURCE_DIR "' describe --always --dirty --abbrev=12 2>/dev/null", "r")) {
    std::array<char, 128> buffer{};
    while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
    ::pclose(pipe);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out.empty() ? "unknown" : out;
}

/// The 1, 5 and 15 minute load averages, as /proc/loadavg has them ("unknown" without it).
inline std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one.empty() ? "unknown" : one + " " + five + " " + fifteen;
}

/// Local date and time, ISO 8601 with the UTC offset.
inline std::string local_date() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&now, &tm);
  std::array<char, 64> buffer{};
  std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%S%z", &tm);
  return buffer.data();
}

/// The command line, arguments separated by spaces.
inline std::string command_line(int argc, char** argv) {
  std::string command;
  for (int i = 0; i < argc; ++i) {
    if (i != 0) command += ' ';
    const std::string arg = argv[i];
    command += i == 0 ? arg.substr(arg.rfind('/') + 1) : arg;
  }
  return command;
}

/// The run a result file comes from, taken when constructed: command line, date, load average,
/// cores and commit. These are the fields `run_of()` in scripts/lib/bench_docs.py reads for the
/// stamp of a generated table (scripts/lib/service_bench.sh writes the same ones).
struct RunInfo {
  RunInfo(int argc, char** argv)
      : command(command_line(argc, argv)),
        date(local_date()),
        load_at_start(load_average()),
        commit(source_commit()),
        cores(std::max(1U, std::thread::hardware_concurrency())) {}

  /// Adds command, date, commit, cores and load_average_start to the open JSON object.
  void write_start(Json& json) const {
    json.field("command", command).field("date", date).field("commit", commit);
    json.field("cores", static_cast<std::int64_t>(cores)).field("load_average_start", load_at_start);
  }
  /// Adds load_average_end: the load average now, at the end of the run.
  static void write_end(Json& json) { json.field("load_average_end", load_average()); }

  std::string command;
  std::string date;
  std::string load_at_start;
  std::string commit;
  unsigned cores;
};

}  // namespace propgraph::bench
