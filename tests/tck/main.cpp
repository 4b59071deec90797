// propgraph-tck: runs the openCypher TCK's scenarios on MemoryGraph and reports, per feature
// folder, how many passed, failed or lie outside the property-graph model. The TCK is read at
// run time from --tck DIR or $PROPGRAPH_TCK_DIR; without one the run is skipped (exit 0).
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gherkin.hpp"
#include "runner.hpp"

namespace fs = std::filesystem;
using propgraph::tck::Outcome;
using propgraph::tck::ScenarioResult;

namespace {

// The clause and expression folders whose pass rate --min-pass-rate checks.
const std::set<std::string> kCoreFolders = {
    "clauses/match",
    "clauses/match-where",
    "clauses/create",
    "clauses/delete",
    "clauses/merge",
    "clauses/remove",
    "clauses/return",
    "clauses/return-orderby",
    "clauses/return-skip-limit",
    "clauses/set",
    "clauses/union",
    "clauses/unwind",
    "clauses/with",
    "clauses/with-orderBy",
    "clauses/with-skip-limit",
    "clauses/with-where",
    "expressions/aggregation",
    "expressions/boolean",
    "expressions/comparison",
    "expressions/conditional",
    "expressions/existentialSubqueries",
    "expressions/graph",
    "expressions/list",
    "expressions/literals",
    "expressions/map",
    "expressions/mathematical",
    "expressions/null",
    "expressions/path",
    "expressions/pattern",
    "expressions/precedence",
    "expressions/quantifier",
    "expressions/string",
    "expressions/typeConversion",
};

constexpr const char* kUsage =
    "usage: propgraph-tck [--tck DIR] [--json OUT] [--filter REGEX] [--verbose]\n"
    "                     [--min-pass-rate PERCENT] [--timeout SECONDS] [--no-fork]\n"
    "  --tck DIR          the openCypher TCK (features/, graphs/); default $PROPGRAPH_TCK_DIR\n"
    "  --json OUT         write per-scenario results and the per-folder summary to OUT\n"
    "  --filter REGEX     run the scenarios whose 'folder/File.feature: name' matches REGEX\n"
    "  --verbose          print every scenario's outcome, and why each failed\n"
    "  --min-pass-rate P  exit 1 when under P percent of the in-model scenarios of the core\n"
    "                     clause and expression folders pass\n"
    "  --timeout S        budget of one scenario (default 5; killed at twice that)\n"
    "  --no-fork          run scenarios in this process (a crash then ends the run)\n";

struct Options {
  std::optional<fs::path> tck;
  std::optional<fs::path> json;
  std::optional<std::regex> filter;
  std::string filter_text;
  bool verbose = false;
  std::optional<double> min_pass_rate;
  double timeout_s = 5;
  bool fork = true;
};

struct Record {
  std::string feature;  // path under features/
  std::string folder;   // the feature's folder under features/
  std::string scenario;
  int example = 0;
  int line = 0;
  ScenarioResult result;
};

struct Counts {
  int passed = 0;
  int failed = 0;
  int outside = 0;
  [[nodiscard]] int total() const { return passed + failed + outside; }
  [[nodiscard]] double rate() const {
    return passed + failed == 0 ? 0.0 : 100.0 * passed / static_cast<double>(passed + failed);
  }
  void add(Outcome o) {
    if (o == Outcome::passed) ++passed;
    if (o == Outcome::failed) ++failed;
    if (o == Outcome::outside) ++outside;
  }
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs the scenarios in a child process that reports each result as it goes (one line
/// "<outcome> <reason size>", then the reason), so that a crash or a hang fails only the scenario
/// it happened in: the next child starts after it. A scenario is killed after `kill_after_s`.
std::vector<ScenarioResult> run_isolated(const std::vector<const propgraph::tck::Scenario*>& scenarios,
                                         const propgraph::tck::RunOptions& options, double kill_after_s) {
  using Clock = std::chrono::steady_clock;
  std::vector<ScenarioResult> results;
  while (results.size() < scenarios.size()) {
    const std::size_t first = results.size();
    std::array<int, 2> fds{};
    if (pipe(fds.data()) != 0) {
      results.push_back({Outcome::failed, fmt::format("pipe: {}", std::strerror(errno))});
      continue;
    }
    std::cout.flush();
    const pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      results.push_back({Outcome::failed, fmt::format("fork: {}", std::strerror(errno))});
      continue;
    }
    if (pid == 0) {
      close(fds[0]);
      for (std::size_t i = first; i < scenarios.size(); ++i) {
        const ScenarioResult r = propgraph::tck::run_scenario(*scenarios[i], options);
        const std::string frame = fmt::format("{} {}\n{}", static_cast<int>(r.outcome), r.reason.size(), r.reason);
        std::size_t done = 0;
        while (done < frame.size()) {
          const ssize_t n = write(fds[1], frame.data() + done, frame.size() - done);
          if (n < 0 && errno == EINTR) continue;
          if (n <= 0) _exit(1);
          done += static_cast<std::size_t>(n);
        }
      }
      _exit(0);
    }
    close(fds[1]);
    std::string buffer;
    bool timed_out = false;
    auto deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kill_after_s));
    while (true) {
      // Take the complete frames.
      while (true) {
        const auto newline = buffer.find('\n');
        if (newline == std::string::npos) break;
        int outcome = 0;
        std::size_t size = 0;
        if (std::sscanf(buffer.c_str(), "%d %zu", &outcome, &size) != 2 || outcome < 0 || outcome > 2) {
          buffer.clear();  // not a frame: the child is broken; it is killed below
          timed_out = true;
          break;
        }
        if (buffer.size() < newline + 1 + size) break;
        results.push_back({static_cast<Outcome>(outcome), buffer.substr(newline + 1, size)});
        buffer.erase(0, newline + 1 + size);
        deadline =
            Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kill_after_s));
      }
      if (timed_out) break;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) {
        timed_out = true;
        break;
      }
      pollfd p{fds[0], POLLIN, 0};
      const int ready = poll(&p, 1, static_cast<int>(left.count()));
      if (ready <= 0) continue;  // EINTR or the deadline: checked above
      std::array<char, 65536> chunk{};
      const ssize_t n = read(fds[0], chunk.data(), chunk.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // the child is done, or died
      buffer.append(chunk.data(), static_cast<std::size_t>(n));
    }
    close(fds[0]);
    if (timed_out) kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (results.size() < scenarios.size()) {
      if (timed_out) {
        results.push_back({Outcome::failed, fmt::format("hung: killed after {} s", kill_after_s)});
      } else if (WIFSIGNALED(status)) {
        results.push_back({Outcome::failed, fmt::format("crashed: {}", strsignal(WTERMSIG(status)))});
      } else {
        results.push_back({Outcome::failed, fmt::format("the scenario process exited with status {} and no result",
                                                        WIFEXITED(status) ? WEXITSTATUS(status) : -1)});
      }
    }
  }
  return results;
}

std::string command_output(const std::string& command) {
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    std::array<char, 256> buffer{};
    while (fgets(buffer.data(), static_cast<int>(buffer.size()), p) != nullptr) out += buffer.data();
    if (pclose(p) != 0) return {};
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

/// The source tree's commit, "-dirty" when it has changes; "unknown" without git.
std::string source_commit() {
#ifdef PROPGRAPH_SOURCE_DIR
  const std::string dir = PROPGRAPH_SOURCE_DIR;
  const std::string commit = command_output(fmt::format("git -C '{}' rev-parse --short=12 HEAD 2>/dev/null", dir));
  if (commit.empty()) return "unknown";
  const std::string dirty =
      command_output(fmt::format("git -C '{}' status --porcelain --untracked-files=no 2>/dev/null", dir));
  return dirty.empty() ? commit : commit + "-dirty";
#else
  return "unknown";
#endif
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::array<char, 32> buffer{};
  std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer.data();
}

std::optional<Options> parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    std::optional<std::string> v;
    if (arg == "--verbose" || arg == "-v") {
      o.verbose = true;
    } else if (arg == "--no-fork") {
      o.fork = false;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg != "--tck" && arg != "--json" && arg != "--filter" && arg != "--min-pass-rate" &&
               arg != "--timeout") {
      std::cerr << "propgraph-tck: unknown argument '" << arg << "'\n" << kUsage;
      return std::nullopt;
    } else if (!(v = value())) {
      std::cerr << "propgraph-tck: " << arg << " needs a value\n" << kUsage;
      return std::nullopt;
    } else if (arg == "--tck") {
      o.tck = *v;
    } else if (arg == "--json") {
      o.json = *v;
    } else if (arg == "--filter") {
      try {
        o.filter = std::regex(*v);
        o.filter_text = *v;
      } catch (const std::regex_error& e) {
        std::cerr << "propgraph-tck: bad --filter: " << e.what() << "\n";
        return std::nullopt;
      }
    } else {
      char* end = nullptr;
      const double number = std::strtod(v->c_str(), &end);
      if (end == v->c_str() || (*end != '\0' && std::string(end) != "%") || number < 0) {
        std::cerr << "propgraph-tck: " << arg << " needs a non-negative number\n";
        return std::nullopt;
      }
      if (arg == "--timeout") {
        o.timeout_s = number;
      } else {
        o.min_pass_rate = number;
      }
    }
  }
  return o;
}

std::string join_args(int argc, char** argv) {
  std::string out = "propgraph-tck";
  for (int i = 1; i < argc; ++i) out += fmt::format(" {}", argv[i]);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const auto parsed = parse_args(argc, argv);
  if (!parsed) return 2;
  const Options& options = *parsed;

  fs::path tck_dir;
  if (options.tck) {
    tck_dir = *options.tck;
  } else if (const char* env = std::getenv("PROPGRAPH_TCK_DIR"); env != nullptr && *env != '\0') {
    tck_dir = env;
  }
  if (tck_dir.empty()) {
    std::cout << "propgraph-tck: no TCK given (--tck DIR or PROPGRAPH_TCK_DIR): skipped\n";
    return 0;
  }
  if (!fs::is_directory(tck_dir / "features")) {
    std::cout << "propgraph-tck: " << tck_dir.string() << " has no features/ directory: skipped\n";
    return 0;
  }

  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(tck_dir / "features")) {
    if (entry.is_regular_file() && entry.path().extension() == ".feature") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());

  propgraph::tck::RunOptions run_options;
  run_options.tck_dir = tck_dir;
  run_options.budget = std::chrono::milliseconds(static_cast<long long>(options.timeout_s * 1000));

  std::vector<Record> records;
  for (const auto& file : files) {
    const std::string feature = fs::relative(file, tck_dir / "features").generic_string();
    const std::string folder = fs::path(feature).parent_path().generic_string();
    propgraph::tck::Feature parsed_feature;
    try {
      parsed_feature = propgraph::tck::parse_feature(read_file(file), feature);
    } catch (const std::exception& e) {
      records.push_back(Record{feature, folder, "(feature file)", 0, 0, {Outcome::failed, e.what()}});
      std::cout << "FAILED " << feature << ": " << e.what() << "\n";
      continue;
    }
    std::vector<const propgraph::tck::Scenario*> selected;
    for (const auto& scenario : parsed_feature.scenarios) {
      if (!options.filter || std::regex_search(fmt::format("{}: {}", feature, scenario.name), *options.filter)) {
        selected.push_back(&scenario);
      }
    }
    std::vector<ScenarioResult> results;
    if (options.fork) {
      results = run_isolated(selected, run_options, 2 * options.timeout_s + 1);
    } else {
      for (const auto* scenario : selected) results.push_back(propgraph::tck::run_scenario(*scenario, run_options));
    }
    for (std::size_t i = 0; i < selected.size(); ++i) {
      const auto& scenario = *selected[i];
      Record record{feature, folder, scenario.name, scenario.example_index, scenario.line, std::move(results[i])};
      if (options.verbose) {
        std::cout << fmt::format("{:<7} {}: {}{}", propgraph::tck::to_string(record.result.outcome), feature,
                                 scenario.name,
                                 scenario.example_index ? fmt::format(" #{}", scenario.example_index) : "");
        if (!record.result.reason.empty()) std::cout << "\n        " << record.result.reason;
        std::cout << "\n";
      }
      records.push_back(std::move(record));
    }
  }

  std::map<std::string, Counts> folders;
  Counts all;
  Counts core;
  std::map<std::string, int> outside_reasons;
  for (const auto& r : records) {
    folders[r.folder].add(r.result.outcome);
    all.add(r.result.outcome);
    if (kCoreFolders.contains(r.folder)) core.add(r.result.outcome);
    if (r.result.outcome == Outcome::outside) ++outside_reasons[r.result.reason];
  }

  std::cout << fmt::format("openCypher TCK ({}) on MemoryGraph\n", tck_dir.string());
  std::cout << fmt::format("{:<40} {:>7} {:>7} {:>8} {:>6}\n", "folder", "passed", "failed", "outside", "total");
  for (const auto& [folder, c] : folders) {
    std::cout << fmt::format("{:<40} {:>7} {:>7} {:>8} {:>6}{}\n", folder, c.passed, c.failed, c.outside, c.total(),
                             kCoreFolders.contains(folder) ? "" : "  (not core)");
  }
  std::cout << fmt::format("{:<40} {:>7} {:>7} {:>8} {:>6}\n", "total", all.passed, all.failed, all.outside,
                           all.total());
  for (const auto& [reason, n] : outside_reasons) std::cout << fmt::format("outside the model: {} ({})\n", reason, n);
  std::cout << fmt::format("core pass rate: {:.1f}% ({} of {} in-model scenarios of the core folders)\n", core.rate(),
                           core.passed, core.passed + core.failed);
  std::cout << fmt::format("whole-suite pass rate: {:.1f}% ({} of {} in-model scenarios)\n", all.rate(), all.passed,
                           all.passed + all.failed);

  if (options.json) {
    nlohmann::json j;
    j["tool"] = "propgraph-tck";
    j["command"] = join_args(argc, argv);
    j["date"] = utc_now();
    j["commit"] = source_commit();
    j["tck_dir"] = tck_dir.string();
    j["filter"] = options.filter_text;
    auto& scenarios = j["scenarios"] = nlohmann::json::array();
    for (const auto& r : records) {
      scenarios.push_back({{"feature", r.feature},
                           {"folder", r.folder},
                           {"scenario", r.scenario},
                           {"line", r.line},
                           {"example", r.example},
                           {"outcome", propgraph::tck::to_string(r.result.outcome)},
                           {"reason", r.result.reason}});
    }
    auto counts = [](const Counts& c) {
      return nlohmann::json{{"passed", c.passed}, {"failed", c.failed}, {"outside", c.outside}, {"total", c.total()}};
    };
    auto& summary = j["folders"] = nlohmann::json::array();
    for (const auto& [folder, c] : folders) {
      auto entry = counts(c);
      entry["folder"] = folder;
      entry["core"] = kCoreFolders.contains(folder);
      summary.push_back(entry);
    }
    j["totals"] = counts(all);
    j["core_folders"] = kCoreFolders;
    j["rates"] = {
        {"core", {{"passed", core.passed}, {"in_model", core.passed + core.failed}, {"percent", core.rate()}}},
        {"all", {{"passed", all.passed}, {"in_model", all.passed + all.failed}, {"percent", all.rate()}}}};
    if (options.json->has_parent_path()) fs::create_directories(options.json->parent_path());
    std::ofstream out(*options.json);
    out << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
        << "\n";  // engine messages may hold any bytes
    if (!out) {
      std::cerr << "propgraph-tck: cannot write " << options.json->string() << "\n";
      return 2;
    }
  }

  if (options.min_pass_rate && core.rate() < *options.min_pass_rate) {
    std::cout << fmt::format("propgraph-tck: core pass rate {:.1f}% is below --min-pass-rate {}%\n", core.rate(),
                             *options.min_pass_rate);
    return 1;
  }
  return 0;
}
