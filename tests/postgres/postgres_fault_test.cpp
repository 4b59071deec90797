// The server dies: calls fail with ConnectionError, nothing half-written survives (single
// writes and a COPY of a bulk write alike), and the pool recovers once the server is back. Runs
// on a private cluster, so other tests keep theirs.
#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <boost/fiber/fiber.hpp>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "pg_test_support.hpp"
#include "propgraph/fiber.hpp"
#include "propgraph/postgres/postgres_graph.hpp"

namespace propgraph {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// Inserting a vertex with property sleep_ms sleeps that long on the server.
void install_slow_insert(const PostgresGraph& g) {
  const std::string s = fmt::format("\"{}\"", g.schema_name());
  pgtest::admin_sql(g.options().conninfo,
                    fmt::format("CREATE FUNCTION {0}.slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                                "IF NEW.properties ? 'sleep_ms' THEN "
                                "PERFORM pg_sleep((NEW.properties ->> 'sleep_ms')::int / 1000.0); END IF; "
                                "RETURN NEW; END $$",
                                s));
  pgtest::admin_sql(g.options().conninfo, fmt::format("CREATE TRIGGER slow_insert BEFORE INSERT ON {0}.vertices "
                                                      "FOR EACH ROW EXECUTE FUNCTION {0}.slow_insert()",
                                                      s));
}

/// Runs `call`, which the server's death should interrupt, while the server is killed 300 ms
/// in; expects ConnectionError well before the call would have finished.
template <typename Call>
void expect_killed_mid_call(pgtest::PrivateCluster& cluster, Call&& call) {
  std::thread killer([&] {
    std::this_thread::sleep_for(300ms);
    cluster.kill();
  });
  const auto start = Clock::now();
  try {
    call();
    ADD_FAILURE() << "the call survived the server's death";
  } catch (const ConnectionError& e) {
    EXPECT_FALSE(std::string(e.what()).empty());
  }
  EXPECT_LT(seconds_since(start), 4.0);
  killer.join();
}

TEST(PostgresFaults, ServerKilledMidCallFailsCleanlyAndThePoolRecovers) {
  pgtest::PrivateCluster cluster;
  if (!cluster.dsn()) GTEST_SKIP() << "no PostgreSQL server binaries";
  PostgresGraph g({.conninfo = *cluster.dsn(),
                   .graph = "faults",
                   .pool_size = 2,
                   .acquire_timeout = 3000ms,
                   .connect_timeout = 3000ms});
  install_slow_insert(g);
  for (int i = 0; i < 3; ++i) g.create_vertex("Person", {{"n", i}});

  // A write in flight on a plain thread when the server dies.
  expect_killed_mid_call(cluster, [&] { g.create_vertex("Slow", {{"sleep_ms", 5000}}); });

  // While it is down every call fails fast with ConnectionError, from threads and fibers.
  auto start = Clock::now();
  EXPECT_THROW((void)g.count_vertices("Person"), ConnectionError);
  if (pgtest::fiber_exceptions_checkable) {
    bool fiber_failed = false;
    boost::fibers::fiber([&] {
      try {
        (void)g.find_vertices_by_label("Person");
      } catch (const ConnectionError&) {
        fiber_failed = true;
      }
    }).join();
    EXPECT_TRUE(fiber_failed);
  }
  EXPECT_LT(seconds_since(start), 2.0);

  // Back up: stale connections are replaced, and the interrupted insert never committed.
  cluster.restart();
  EXPECT_EQ(g.count_vertices("Person"), 3);
  EXPECT_EQ(g.count_vertices("Slow"), 0);
  EXPECT_LE(g.pool_status().open, 2u);

  // The same on a fiber, whose waits go through the reactor.
  if (pgtest::fiber_exceptions_checkable) {
    expect_killed_mid_call(cluster, [&] {
      std::exception_ptr error;
      boost::fibers::fiber([&] {
        try {
          g.create_vertex("Slow", {{"sleep_ms", 5000}});
        } catch (...) {
          error = std::current_exception();
        }
      }).join();
      if (error) std::rethrow_exception(error);
    });
    cluster.restart();
  }
  std::vector<boost::fibers::fiber> fibers;
  int counted = 0;
  for (int f = 0; f < 8; ++f) {
    fibers.emplace_back([&] { counted += static_cast<int>(g.count_vertices("Person")); });
  }
  for (auto& f : fibers) f.join();
  EXPECT_EQ(counted, 8 * 3);
  EXPECT_EQ(g.count_vertices("Slow"), 0);
}

TEST(PostgresFaults, ABulkWriteInterruptedByTheServersDeathLeavesNothing) {
  pgtest::PrivateCluster cluster;
  if (!cluster.dsn()) GTEST_SKIP() << "no PostgreSQL server binaries";
  PostgresGraph g({.conninfo = *cluster.dsn(),
                   .graph = "copy_faults",
                   .pool_size = 2,
                   .acquire_timeout = 3000ms,
                   .connect_timeout = 3000ms});
  install_slow_insert(g);
  g.create_vertices(std::vector<NewVertex>(10, NewVertex{"Person", {}}));
  // The server sleeps on the batch's last row, with the rows before it already copied.
  std::vector<NewVertex> batch(1000, NewVertex{"Copied", {{"name", "x"}}});
  batch.back().properties.set("sleep_ms", 5000);
  expect_killed_mid_call(cluster, [&] { g.create_vertices(batch); });
  cluster.restart();
  EXPECT_EQ(g.count_vertices("Copied"), 0) << "none of the batch committed";
  EXPECT_EQ(g.count_vertices(), 10);
  // The pool serves bulk writes again.
  EXPECT_EQ(g.create_vertices(std::vector<NewVertex>(3, NewVertex{"Copied", {}})).size(), 3u);
  EXPECT_EQ(g.count_vertices("Copied"), 3);
}

/// Calls from threads and fibers while the server restarts: calls may fail while it is down, but
/// none of those started after it accepts connections again, reads or writes, whatever the
/// state of the pool's idle connections.
void restart_under_load(bool fast) {
  pgtest::PrivateCluster cluster;
  if (!cluster.dsn()) GTEST_SKIP() << "no PostgreSQL server binaries";
  PostgresGraph g({.conninfo = *cluster.dsn(),
                   .graph = "restarts",
                   .pool_size = 4,
                   .acquire_timeout = 3000ms,
                   .connect_timeout = 3000ms});
  const auto v = g.create_vertex("Person", {{"name", "Ann"}});
  std::atomic<bool> stop{false};
  std::atomic<Clock::rep> back_at{Clock::time_point::max().time_since_epoch().count()};
  std::atomic<int> ok{0};
  std::atomic<int> failed_before{0};
  std::mutex mutex;
  std::vector<std::string> failed_after;  // calls started after the server was back
  const auto call = [&](int who, int i) {
    const auto started = Clock::now();
    try {
      if (i % 4 == 0) {
        g.create_vertex("Load", {{"who", who}});
      } else if (!g.find_vertex(v.id)) {
        throw std::runtime_error("Ann vanished");
      }
      ++ok;
    } catch (const std::exception& e) {
      if (started.time_since_epoch().count() >= back_at.load()) {
        std::lock_guard lock(mutex);
        failed_after.push_back(e.what());
      } else {
        ++failed_before;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; !stop; ++i) {
        call(t, i);
        std::this_thread::sleep_for(1ms);
      }
    });
  }
  // Fibers too, where exceptions on fiber stacks can be checked (see pg_test_support.hpp).
  std::thread fibers([&] {
    if (!pgtest::fiber_exceptions_checkable) return;
    FiberPool pool(1);
    std::vector<Future<void>> done;
    for (int f = 0; f < 16; ++f) {
      done.push_back(pool.submit([&, f] {
        for (int i = 0; !stop; ++i) {
          call(100 + f, i);
          boost::this_fiber::sleep_for(2ms);
        }
      }));
    }
    for (auto& d : done) d.get();
  });
  std::this_thread::sleep_for(300ms);
  for (int round = 0; round < 2; ++round) {
    // Idle connections see their server go away; the next calls must not fail for that.
    if (fast) {
      cluster.bounce();
    } else {
      cluster.kill();
      std::this_thread::sleep_for(200ms);
      cluster.restart();
    }
    back_at = Clock::now().time_since_epoch().count();
    std::this_thread::sleep_for(700ms);
    back_at = Clock::time_point::max().time_since_epoch().count();
  }
  stop = true;
  for (auto& t : threads) t.join();
  fibers.join();
  EXPECT_TRUE(failed_after.empty()) << failed_after.size() << " calls failed after the restart, e.g. "
                                    << (failed_after.empty() ? "" : failed_after.front());
  EXPECT_GT(ok, 100);
  EXPECT_GE(g.count_vertices("Person"), 1);
}

TEST(PostgresFaults, NoCallFailsAfterAFastRestartUnderLoad) { restart_under_load(true); }
TEST(PostgresFaults, NoCallFailsAfterACrashAndRestartUnderLoad) { restart_under_load(false); }

}  // namespace
}  // namespace propgraph
