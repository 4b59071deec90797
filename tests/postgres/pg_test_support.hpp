// Shared set-up of the PostgresGraph tests: finding the test server, scratch graphs, running
// SQL as an administrator and controlling a private cluster.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "propgraph/postgres/postgres_graph.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define PROPGRAPH_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROPGRAPH_TEST_ASAN 1
#endif
#endif

namespace propgraph::pgtest {

/// False when an exception that unwinds frames on a fiber stack would trip AddressSanitizer.
/// Debian's Boost.Context switches stacks without telling ASan (fcontext), so ASan ignores
/// __asan_handle_no_return on a fiber stack ("ASan is ignoring requested
/// __asan_handle_no_return") and then reports a false stack-buffer-overflow in the stale
/// redzones. Tests skip only their steps that throw on a fiber; the same steps run in the
/// other builds.
#ifdef PROPGRAPH_TEST_ASAN
inline constexpr bool fiber_exceptions_checkable = false;
#else
inline constexpr bool fiber_exceptions_checkable = true;
#endif

/// The test server's connection string, or nullopt when the tests must skip (no server
/// binaries installed; a SKIPPED banner is printed once). Order: $PROPGRAPH_PG_DSN, the
/// cluster that CTest's fixture started ($PROPGRAPH_PG_STATE), else a cluster this process
/// starts (and stops at exit) with pg_cluster.sh. A cluster that should exist but does not is
/// a test failure, not a skip.
const std::optional<std::string>& server_dsn();

/// Why server_dsn() is empty.
const std::string& skip_reason();

/// The connection string of a hot standby of server_dsn(), or nullopt: $PROPGRAPH_PG_STANDBY_DSN,
/// the standby CTest's fixture started, or one this process starts with its own cluster. Tests
/// must not stop it or pause its replay (other tests share it).
const std::optional<std::string>& standby_dsn();

/// Skips the current test when there is no server.
#define PROPGRAPH_REQUIRE_SERVER()                                                              \
  do {                                                                                          \
    if (!::propgraph::pgtest::server_dsn()) GTEST_SKIP() << ::propgraph::pgtest::skip_reason(); \
  } while (false)

/// A graph name unique to this process and call.
std::string unique_graph_name(std::string_view stem = "t");

/// A PostgresGraph bound to a new graph, which is dropped when the test program ends.
/// `options.conninfo` and `options.graph` are filled in. nullptr without a server.
std::unique_ptr<PostgresGraph> scratch_graph(PostgresOptions options = {.pool_size = 2});

/// Runs one SQL statement (no parameters) on a fresh connection; returns the first column of
/// the first row, if any. For test set-up only (triggers, server statistics).
std::optional<std::string> admin_sql(const std::string& dsn, const std::string& sql);

/// Test-only triggers on the graph's tables: inserting a vertex with property sleep_ms sleeps
/// that long on the server; inserting an edge with property fail raises an error.
void install_test_triggers(const PostgresGraph& g);

/// A private PostgreSQL cluster, for tests that stop and crash their server.
class PrivateCluster {
 public:
  /// Starts one (pg_cluster.sh start); dsn() is empty when the binaries are missing.
  PrivateCluster();
  ~PrivateCluster();
  PrivateCluster(const PrivateCluster&) = delete;
  PrivateCluster& operator=(const PrivateCluster&) = delete;

  [[nodiscard]] const std::optional<std::string>& dsn() const { return dsn_; }
  /// pg_ctl stop -m immediate: backends die without a goodbye, like a crash.
  void kill();
  /// Starts the killed server again on the same socket.
  void restart();
  /// pg_ctl restart -m fast: the server says goodbye to every session, then comes back; returns
  /// once it accepts connections again.
  void bounce();
  /// Starts a hot standby of this cluster (pg_cluster.sh standby); stopped with it. Returns its
  /// connection string. kill()/restart() of the standby: kill_standby()/restart_standby().
  const std::string& start_standby();
  void kill_standby();
  void restart_standby();

 private:
  std::string state_dir_;
  std::optional<std::string> dsn_;
  std::string standby_dsn_;
};

/// Polls `done` every 10 ms until it returns true or `seconds` pass; returns its last answer.
bool eventually(const std::function<bool()>& done, double seconds = 10);

}  // namespace propgraph::pgtest
