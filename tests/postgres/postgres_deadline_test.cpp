// Deadlines on PostgresGraph: a call under a DeadlineScope that cannot finish in time throws
// Timeout and has no effect; the running statement is cancelled and its connection serves the
// next call; waiting for the pool honours the deadline too; a passed deadline sends nothing.
#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "pg_test_support.hpp"
#include "postgres/connection.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/fiber.hpp"
#include "propgraph/postgres/postgres_graph.hpp"

namespace propgraph {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST(PostgresDeadline, APassedDeadlineThrowsBeforeAnythingIsSent) {
  auto g = pgtest::scratch_graph({.pool_size = 1});
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  const auto before = g->pool_status();
  {
    DeadlineScope scope(Clock::now() - 1ms);
    EXPECT_THROW(g->create_vertex("P"), Timeout);
    EXPECT_THROW(g->upsert_vertex("P", {{"k", 1}}), Timeout);
    EXPECT_THROW((void)g->find_vertices_by_label("P"), Timeout);
  }
  const auto after = g->pool_status();
  EXPECT_EQ(after.open, before.open);  // no connection was taken, let alone lost
  EXPECT_EQ(after.idle, before.idle);
  EXPECT_EQ(g->count_vertices(), 0);
}

TEST(PostgresDeadline, ASlowStatementIsCancelledAndItsConnectionServesTheNextCall) {
  PROPGRAPH_REQUIRE_SERVER();
  using namespace postgres_detail;
  auto c = Connection::open(*pgtest::server_dsn(), *Reactor::shared(), 10s);
  const std::string pid = std::string(c->exec("SELECT pg_backend_pid()::text").text(0, 0));
  {
    DeadlineScope scope(100ms);
    EXPECT_THROW(c->exec("SELECT pg_sleep(30)"), Timeout);  // the test's own timeout is 60 s
  }
  EXPECT_FALSE(c->broken());
  EXPECT_TRUE(c->idle_in_no_transaction());
  // The same server session answers the next statement.
  EXPECT_EQ(c->exec("SELECT pg_backend_pid()::text").text(0, 0), pid);
  // A statement that finishes in time is not disturbed by the scope.
  DeadlineScope scope(10s);
  EXPECT_EQ(c->exec("SELECT 'fine'").text(0, 0), "fine");
}

TEST(PostgresDeadline, ATimedOutWriteHasNoEffectAndThePoolGoesOn) {
  auto g = pgtest::scratch_graph({.pool_size = 1});
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  pgtest::install_test_triggers(*g);
  {
    DeadlineScope scope(150ms);
    EXPECT_THROW(g->create_vertex("P", {{"sleep_ms", 30000}}), Timeout);
    // In a transaction (upsert: lock, lookup, insert): rolled back.
    EXPECT_THROW(g->upsert_vertex("P", {{"k", 1}}, {{"sleep_ms", 30000}}), Timeout);
  }
  EXPECT_EQ(g->count_vertices(), 0);
  EXPECT_EQ(g->pool_status().open, 1u);  // the one connection was kept
  // The upsert's lock was released with its transaction.
  EXPECT_TRUE(g->upsert_vertex("P", {{"k", 1}}).created);
  EXPECT_EQ(g->count_vertices(), 1);
}

TEST(PostgresDeadline, OnAFiberTheStatementIsCancelledToo) {
  if (!pgtest::fiber_exceptions_checkable) GTEST_SKIP() << "Timeout is thrown on a fiber (see pg_test_support.hpp)";
  auto g = pgtest::scratch_graph({.pool_size = 2});
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  pgtest::install_test_triggers(*g);
  FiberPool fibers(1);
  std::atomic<int> timeouts{0};
  std::atomic<int> quick{0};
  std::vector<Future<void>> done;
  // One fiber's statement is cancelled while other fibers of the same thread go on.
  done.push_back(fibers.submit([&] {
    DeadlineScope scope(200ms);
    try {
      g->create_vertex("P", {{"sleep_ms", 30000}});
    } catch (const Timeout&) {
      ++timeouts;
    }
  }));
  for (int i = 0; i < 8; ++i) {
    done.push_back(fibers.submit([&] {
      if (g->count_vertices() == 0) ++quick;
    }));
  }
  for (auto& d : done) d.get();
  EXPECT_EQ(timeouts, 1);
  EXPECT_EQ(quick, 8);
  EXPECT_EQ(g->count_vertices(), 0);
}

TEST(PostgresDeadline, WaitingForAPoolConnectionHonoursTheDeadline) {
  auto g = pgtest::scratch_graph({.pool_size = 1, .acquire_timeout = 30s});
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  pgtest::install_test_triggers(*g);
  std::thread holder([&] { g->create_vertex("P", {{"sleep_ms", 1500}}); });
  while (g->pool_status().idle != 0 || g->pool_status().open != 1) std::this_thread::sleep_for(5ms);
  {
    // Without the deadline this would wait for the holder and then succeed.
    DeadlineScope scope(100ms);
    EXPECT_THROW((void)g->count_vertices(), Timeout);
  }
  holder.join();
  EXPECT_EQ(g->count_vertices(), 1);
}

}  // namespace
}  // namespace propgraph
