#include "pg_test_support.hpp"

#include <sys/wait.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "postgres/connection.hpp"

namespace propgraph::pgtest {

namespace {

namespace fs = std::filesystem;

std::string read_trimmed(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

/// Runs pg_cluster.sh COMMAND 'STATE_DIR' (or, with an empty state_dir, COMMAND holding its own
/// quoted arguments); its messages go to the test's stderr.
void cluster_script(std::string_view command, const std::string& state_dir) {
  const std::string line = state_dir.empty()
                               ? fmt::format("bash '{}' {}", PROPGRAPH_PG_CLUSTER_SCRIPT, command)
                               : fmt::format("bash '{}' {} '{}'", PROPGRAPH_PG_CLUSTER_SCRIPT, command, state_dir);
  const int status = std::system(line.c_str());
  // 77: no server binaries; the state directory says so and the tests skip.
  if (status != 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 77)) {
    throw std::runtime_error(fmt::format("'{}' failed (see its messages above)", line));
  }
}

/// A new state directory: below CTest's cluster state when there is one, so that its cleanup
/// fixture also stops clusters of tests that crashed; else in the temp directory.
std::string make_state_dir() {
  const char* shared = std::getenv("PROPGRAPH_PG_STATE");
  std::string pattern = shared && *shared ? (fs::path(shared) / "private.XXXXXX").string()
                                          : (fs::temp_directory_path() / "propgraph-pgstate.XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

void print_skip_banner(const std::string& reason) {
  std::fprintf(stderr,
               "\n################################################################################\n"
               "###  SKIPPED: PostgresGraph tests\n"
               "###  %s\n"
               "################################################################################\n\n",
               reason.c_str());
}

struct Server {
  std::optional<std::string> dsn;
  std::optional<std::string> standby_dsn;
  std::string skip_reason;
  std::string own_state_dir;  // a cluster this process started
  std::mutex mutex;
  std::vector<std::string> scratch_graphs;  // dropped at exit
};

/// dsn or skip reason from a pg_cluster.sh state directory.
void read_state(Server& s, const std::string& state_dir) {
  if (fs::exists(fs::path(state_dir) / "skipped")) {
    s.skip_reason = read_trimmed(fs::path(state_dir) / "skipped");
    print_skip_banner(s.skip_reason);
    return;
  }
  const fs::path dsn_file = fs::path(state_dir) / "dsn";
  if (!fs::exists(dsn_file)) {
    throw std::runtime_error(fmt::format(
        "no test server: {} does not exist, so the cluster fixture (pg_cluster.sh start) failed", dsn_file.string()));
  }
  s.dsn = read_trimmed(dsn_file);
  const fs::path standby_file = fs::path(state_dir) / "standby" / "dsn";
  if (fs::exists(standby_file)) s.standby_dsn = read_trimmed(standby_file);
}

/// Set once server() ran: only then is there anything to clean up.
std::atomic<Server*> started_server{nullptr};

Server& server() {
  static Server s;
  static std::once_flag once;
  std::call_once(once, [] {
    started_server = &s;
    if (const char* dsn = std::getenv("PROPGRAPH_PG_DSN"); dsn && *dsn) {
      s.dsn = dsn;
      if (const char* standby = std::getenv("PROPGRAPH_PG_STANDBY_DSN"); standby && *standby) s.standby_dsn = standby;
    } else if (const char* state = std::getenv("PROPGRAPH_PG_STATE"); state && *state) {
      read_state(s, state);
    } else {
      s.own_state_dir = make_state_dir();
      cluster_script("start", s.own_state_dir);
      if (!fs::exists(fs::path(s.own_state_dir) / "skipped")) {
        cluster_script(fmt::format("standby '{0}/standby' '{0}'", s.own_state_dir), "");
      }
      read_state(s, s.own_state_dir);
    }
  });
  return s;
}

/// Drops the scratch graphs and stops a cluster this process started.
class Cleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    Server* s = started_server.load();
    if (s == nullptr) return;
    if (s->dsn && !s->scratch_graphs.empty()) {
      try {
        PostgresGraph admin({.conninfo = *s->dsn, .graph = "propgraph_test_admin", .pool_size = 1});
        for (const auto& name : s->scratch_graphs) admin.drop_graph(name);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "note: scratch graphs not dropped: %s\n", e.what());
      }
    }
    if (!s->own_state_dir.empty()) {
      try {
        cluster_script("stop", s->own_state_dir);
        fs::remove_all(s->own_state_dir);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "note: %s\n", e.what());
      }
    }
  }
};

[[maybe_unused]] const auto* const cleanup = ::testing::AddGlobalTestEnvironment(new Cleanup);

}  // namespace

const std::optional<std::string>& server_dsn() { return server().dsn; }

const std::string& skip_reason() { return server().skip_reason; }

const std::optional<std::string>& standby_dsn() { return server().standby_dsn; }

bool eventually(const std::function<bool()>& done, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (true) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string unique_graph_name(std::string_view stem) {
  static const std::uint64_t salt = [] {
    std::random_device rd;
    return (std::uint64_t{rd()} << 32) ^ rd();
  }();
  static std::atomic<unsigned> counter{0};
  return fmt::format("{}_{:012x}_{}", stem, salt & 0xffffffffffff, counter++);
}

std::unique_ptr<PostgresGraph> scratch_graph(PostgresOptions options) {
  const auto& dsn = server_dsn();
  if (!dsn) return nullptr;
  options.conninfo = options.conninfo.empty() ? *dsn : *dsn + " " + options.conninfo;
  options.graph = unique_graph_name("scratch");
  {
    std::lock_guard lock(server().mutex);
    server().scratch_graphs.push_back(options.graph);
  }
  return std::make_unique<PostgresGraph>(std::move(options));
}

std::optional<std::string> admin_sql(const std::string& dsn, const std::string& sql) {
  using namespace postgres_detail;
  auto reactor = Reactor::shared();
  auto conn = Connection::open(dsn, *reactor, std::chrono::seconds(10));
  Result r = conn->exec(sql, {}, false);
  if (r.rows() == 0 || r.is_null(0, 0)) return std::nullopt;
  return std::string(r.text(0, 0));
}

void install_test_triggers(const PostgresGraph& g) {
  const std::string s = fmt::format("\"{}\"", g.schema_name());
  const auto& dsn = g.options().conninfo;
  admin_sql(dsn, fmt::format("CREATE FUNCTION {0}.slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                             "IF NEW.properties ? 'sleep_ms' THEN "
                             "PERFORM pg_sleep((NEW.properties ->> 'sleep_ms')::int / 1000.0); END IF; "
                             "RETURN NEW; END $$",
                             s));
  admin_sql(dsn, fmt::format("CREATE TRIGGER slow_insert BEFORE INSERT ON {0}.vertices "
                             "FOR EACH ROW EXECUTE FUNCTION {0}.slow_insert()",
                             s));
  admin_sql(dsn, fmt::format("CREATE FUNCTION {0}.refuse_edge() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                             "IF NEW.properties ? 'fail' THEN "
                             "RAISE EXCEPTION 'refused by trigger: %', NEW.properties ->> 'fail'; END IF; "
                             "RETURN NEW; END $$",
                             s));
  admin_sql(dsn, fmt::format("CREATE TRIGGER refuse_edge BEFORE INSERT ON {0}.edges "
                             "FOR EACH ROW EXECUTE FUNCTION {0}.refuse_edge()",
                             s));
}

PrivateCluster::PrivateCluster() : state_dir_(make_state_dir()) {
  cluster_script("start", state_dir_);
  if (fs::exists(fs::path(state_dir_) / "dsn")) dsn_ = read_trimmed(fs::path(state_dir_) / "dsn");
}

PrivateCluster::~PrivateCluster() {
  try {
    cluster_script("stop", state_dir_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "note: %s\n", e.what());
  }
  std::error_code ec;
  fs::remove_all(state_dir_, ec);
}

void PrivateCluster::kill() { cluster_script("kill", state_dir_); }
void PrivateCluster::restart() { cluster_script("restart", state_dir_); }
void PrivateCluster::bounce() { cluster_script("bounce", state_dir_); }

const std::string& PrivateCluster::start_standby() {
  const std::string standby_state = (fs::path(state_dir_) / "standby").string();
  cluster_script(fmt::format("standby '{}' '{}'", standby_state, state_dir_), "");
  standby_dsn_ = read_trimmed(fs::path(standby_state) / "dsn");
  return standby_dsn_;
}

void PrivateCluster::kill_standby() { cluster_script("kill", (fs::path(state_dir_) / "standby").string()); }
void PrivateCluster::restart_standby() { cluster_script("restart", (fs::path(state_dir_) / "standby").string()); }

}  // namespace propgraph::pgtest
