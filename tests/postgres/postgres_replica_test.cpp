// Read replicas: PostgresGraph with a real hot standby (pg_basebackup, streaming replication).
// Reads go where PostgresOptions::standby_reads says, a caller always sees its own writes under
// after_own_writes, a failed standby passes reads to the primary, and the conformance suite
// passes with reads routed through a standby.
#include <chrono>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "conformance_fixture.hpp"
#include "pg_test_support.hpp"
#include "propgraph/postgres/postgres_graph.hpp"

namespace propgraph {

namespace {

using namespace std::chrono_literals;

/// The conformance suite with a standby for reads: nullptr (skip) without a standby.
struct PostgresStandbyFactory {
  static std::unique_ptr<GraphOperations> make() {
    const auto& standby = pgtest::standby_dsn();
    if (!standby) return nullptr;
    return pgtest::scratch_graph({.pool_size = 2, .standby_conninfos = {*standby}, .standby_pool_size = 2});
  }
};

/// A private primary with a standby, for tests that pause replay or kill servers.
class PostgresReplicas : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<pgtest::PrivateCluster>();
    if (!cluster_->dsn()) GTEST_SKIP() << "no PostgreSQL server binaries";
    standby_ = cluster_->start_standby();
  }
  std::unique_ptr<PostgresGraph> open(StandbyReads reads) {
    return std::make_unique<PostgresGraph>(PostgresOptions{.conninfo = *cluster_->dsn(),
                                                           .graph = "replicas",
                                                           .pool_size = 2,
                                                           .acquire_timeout = 3000ms,
                                                           .connect_timeout = 3000ms,
                                                           .standby_conninfos = {standby_},
                                                           .standby_reads = reads,
                                                           .standby_pool_size = 2});
  }
  void pause_replay() { pgtest::admin_sql(standby_, "SELECT pg_wal_replay_pause()"); }
  void resume_replay() { pgtest::admin_sql(standby_, "SELECT pg_wal_replay_resume()"); }

  std::unique_ptr<pgtest::PrivateCluster> cluster_;
  std::string standby_;
};

TEST_F(PostgresReplicas, ReadsGoToTheStandbyOnceItReplayedOurWritesAndToThePrimaryUntilThen) {
  auto g = open(StandbyReads::after_own_writes);
  const auto ann = g->create_vertex("Person", {{"name", "Ann"}});
  // Once the standby has replayed the write, reads go there.
  ASSERT_TRUE(pgtest::eventually([&] {
    const auto before = g->read_routing().standby;
    return g->find_vertex(ann.id) == ann && g->read_routing().standby > before;
  }));
  // Replay paused: our next write is not on the standby, so reads after it use the primary and
  // see it, every time.
  pause_replay();
  const auto bob = g->create_vertex("Person", {{"name", "Bob"}});
  const auto before = g->read_routing();
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(g->find_vertex(bob.id), bob);
    EXPECT_EQ(g->count_vertices("Person"), 2);
    std::this_thread::sleep_for(2ms);  // the routing looks at the standby again now and then
  }
  EXPECT_EQ(g->read_routing().standby, before.standby);
  EXPECT_EQ(g->read_routing().primary, before.primary + 40);
  // Replay resumed: the standby catches up and serves reads again.
  resume_replay();
  ASSERT_TRUE(pgtest::eventually([&] {
    const auto standby_reads = g->read_routing().standby;
    return g->find_vertex(bob.id) == bob && g->read_routing().standby > standby_reads;
  }));
  // Whole-graph loads go there too.
  const auto standby_reads = g->read_routing().standby;
  EXPECT_EQ(g->page_rank().size(), 2u);
  EXPECT_EQ(g->read_routing().standby, standby_reads + 1);
}

TEST_F(PostgresReplicas, AlwaysReadsFromTheStandbyEvenWhenItLagsAndNeverNotAtAll) {
  auto always = open(StandbyReads::always);
  auto never = open(StandbyReads::never);
  const auto ann = always->create_vertex("Person", {{"name", "Ann"}});
  ASSERT_TRUE(pgtest::eventually([&] { return always->find_vertex(ann.id).has_value(); }));
  pause_replay();
  const auto bob = always->create_vertex("Person", {{"name", "Bob"}});
  // The standby has not replayed Bob: `always` reads miss him, `never` reads see him.
  EXPECT_FALSE(always->find_vertex(bob.id));
  EXPECT_EQ(never->find_vertex(bob.id), bob);
  EXPECT_EQ(never->read_routing().standby, 0u);
  EXPECT_GT(always->read_routing().standby, 0u);
  resume_replay();
  EXPECT_TRUE(pgtest::eventually([&] { return always->find_vertex(bob.id) == bob; }));
}

TEST_F(PostgresReplicas, AFailedStandbyPassesReadsToThePrimaryUntilItIsBack) {
  auto g = open(StandbyReads::always);
  const auto ann = g->create_vertex("Person", {{"name", "Ann"}});
  // Until the standby has replayed the graph, its reads go to the primary.
  ASSERT_TRUE(pgtest::eventually([&] {
    const auto served = g->read_routing().standby;
    return g->find_vertex(ann.id) == ann && g->read_routing().standby > served;
  }));
  cluster_->kill_standby();
  // No read fails: each is served by the primary.
  for (int i = 0; i < 20; ++i) EXPECT_EQ(g->find_vertex(ann.id), ann);
  EXPECT_GE(g->read_routing().fallbacks, 1u);
  const auto standby_reads = g->read_routing().standby;
  cluster_->restart_standby();
  // After the back-off the standby serves reads again.
  EXPECT_TRUE(
      pgtest::eventually([&] { return g->find_vertex(ann.id) == ann && g->read_routing().standby > standby_reads; }));
}

TEST_F(PostgresReplicas, WithThePrimaryDownReadsStillWorkFromTheStandbyAndWritesFail) {
  auto g = open(StandbyReads::always);
  const auto ann = g->create_vertex("Person", {{"name", "Ann"}});
  // Until the standby has replayed the graph's creation, its reads go to the primary.
  ASSERT_TRUE(pgtest::eventually([&] {
    const auto served = g->read_routing().standby;
    return g->find_vertex(ann.id) == ann && g->read_routing().standby > served;
  }));
  cluster_->kill();
  EXPECT_EQ(g->find_vertex(ann.id), ann);
  EXPECT_EQ(g->find_vertices_by_label("Person").size(), 1u);
  EXPECT_THROW(g->create_vertex("Person"), ConnectionError);
  cluster_->restart();
}

}  // namespace

namespace conformance {
// The tests themselves are defined by postgres_conformance_test.cpp, in the same executable.
INSTANTIATE_TEST_SUITE_P(PostgresStandby, GraphConformance,
                         ::testing::Values(backend<PostgresStandbyFactory>("PostgresStandby")), backend_name);
}  // namespace conformance

}  // namespace propgraph
