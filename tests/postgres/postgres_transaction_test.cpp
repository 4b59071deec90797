// PostgresGraph transactions against a real server: SERIALIZABLE conflicts (lost updates and
// write skew) surface as TransactionConflict and transact() retries them; edges and vertex
// deletes racing across the snapshot never leave an edge without its endpoint; a server killed
// mid-transaction gives ConnectionError and leaves nothing of the transaction.
#include <atomic>
#include <barrier>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "pg_test_support.hpp"
#include "propgraph/postgres/postgres_graph.hpp"

namespace propgraph {
namespace {

using namespace std::chrono_literals;

std::int64_t balance(GraphOperations& g, const ElementId& account) {
  return g.find_vertex(account)->properties["balance"].as_int();
}

TEST(PostgresTransactions, ConcurrentUpdatesOfOneRowConflictOnceTheFirstCommits) {
  PROPGRAPH_REQUIRE_SERVER();
  auto g = pgtest::scratch_graph({.pool_size = 2});
  const auto account = g->create_vertex("Account", {{"balance", 10}}).id;
  auto first = g->begin();
  auto second = g->begin();
  EXPECT_EQ(balance(*first, account), 10);
  EXPECT_EQ(balance(*second, account), 10);
  first->update_vertex("Account", account, {{"balance", 11}});
  first->commit();
  // The second read 10 before the first committed 11: writing on top would lose that update.
  EXPECT_THROW(second->update_vertex("Account", account, {{"balance", 12}}), TransactionConflict);
  second->rollback();
  EXPECT_EQ(balance(*g, account), 11);
}

TEST(PostgresTransactions, WriteSkewIsAConflictAtSerializable) {
  PROPGRAPH_REQUIRE_SERVER();
  auto g = pgtest::scratch_graph({.pool_size = 2});
  // Rule the transactions keep on their own: at least one of two doctors stays on call.
  const auto ann = g->create_vertex("Doctor", {{"on_call", true}}).id;
  const auto bob = g->create_vertex("Doctor", {{"on_call", true}}).id;
  auto leave = [&](Transaction& tx, const ElementId& me) {
    const auto on_call = tx.find_vertices_by_label("Doctor", {{"on_call", true}});
    if (on_call.size() >= 2) tx.update_vertex("Doctor", me, {{"on_call", false}});
  };
  auto first = g->begin();
  auto second = g->begin();
  leave(*first, ann);
  bool conflict = false;
  try {
    leave(*second, bob);  // updates another row: no row lock stands in the way
    first->commit();
    second->commit();
  } catch (const TransactionConflict&) {
    conflict = true;
  }
  EXPECT_TRUE(conflict) << "REPEATABLE READ would let both leave";
  if (first->is_open()) first->commit();
  second->rollback();
  EXPECT_EQ(g->find_vertices_by_label("Doctor", {{"on_call", true}}).size(), 1u);
}

TEST(PostgresTransactions, TransactRetriesTheLoserOfAConflictToSuccess) {
  PROPGRAPH_REQUIRE_SERVER();
  auto g = pgtest::scratch_graph({.pool_size = 2});
  const auto counter = g->create_vertex("Counter", {{"n", 0}}).id;
  std::barrier both_read(2);
  std::atomic<int> runs{0};
  auto increment = [&] {
    bool first_run = true;
    transact(*g, [&](Transaction& tx) {
      ++runs;
      const auto n = tx.find_vertex(counter)->properties["n"].as_int();
      // On the first run both transactions have read before either writes.
      if (std::exchange(first_run, false)) both_read.arrive_and_wait();
      tx.update_vertex("Counter", counter, {{"n", n + 1}});
    });
  };
  std::thread a(increment);
  std::thread b(increment);
  a.join();
  b.join();
  EXPECT_EQ(g->find_vertex(counter)->properties["n"], Value(2)) << "no increment lost";
  EXPECT_EQ(runs.load(), 3) << "one of the two ran again";
}

TEST(PostgresTransactions, EdgesToAVertexDeletedSinceTheSnapshotAreAConflictNotDangling) {
  PROPGRAPH_REQUIRE_SERVER();
  auto g = pgtest::scratch_graph({.pool_size = 2});
  const auto ann = g->create_vertex("Person", {{"name", "Ann"}}).id;
  const auto bob = g->create_vertex("Person", {{"name", "Bob"}}).id;
  for (const bool bulk : {false, true}) {
    const auto gone = g->create_vertex("Person", {{"name", "Gone"}}).id;
    auto tx = g->begin();
    EXPECT_TRUE(tx->find_vertex(gone));  // the snapshot: Gone exists
    EXPECT_TRUE(g->delete_vertex("Person", gone));
    const std::vector<NewEdge> edges{{ann, bob, "KNOWS", {}}, {ann, gone, "KNOWS", {}}};
    if (bulk) {
      EXPECT_THROW(tx->create_edges(edges), TransactionConflict);
    } else {
      EXPECT_THROW(tx->create_edge(ann, gone, "KNOWS"), TransactionConflict);
    }
    tx->rollback();
    EXPECT_EQ(g->count_edges(), 0) << (bulk ? "create_edges" : "create_edge");
  }
}

TEST(PostgresTransactions, DeletingAVertexConflictsWithAnEdgeToItCommittedSinceTheSnapshot) {
  PROPGRAPH_REQUIRE_SERVER();
  auto g = pgtest::scratch_graph({.pool_size = 2});
  const auto ann = g->create_vertex("Person", {{"name", "Ann"}}).id;
  for (const bool bulk : {false, true}) {
    const auto gone = g->create_vertex("Person", {{"name", "Gone"}}).id;
    // The transaction's connection takes its snapshot; the edge then commits on the other one.
    auto tx = g->begin();
    EXPECT_TRUE(tx->incident_edges(gone).empty());
    const ElementId edge = bulk ? g->create_edges(std::vector<NewEdge>{{ann, gone, "KNOWS", {}}}).front()
                                : g->create_edge(ann, gone, "KNOWS").id;
    // The snapshot does not see the edge; deleting the vertex without removing it would leave
    // it dangling, so the delete (or the commit) is a conflict.
    bool conflict = false;
    try {
      tx->delete_vertex("Person", gone);
      tx->commit();
    } catch (const TransactionConflict&) {
      conflict = true;
    }
    EXPECT_TRUE(conflict) << (bulk ? "create_edges" : "create_edge");
    if (tx->is_open()) tx->rollback();
    // Nothing of the transaction: the vertex and its edge are both there.
    EXPECT_TRUE(g->find_vertex(gone)) << (bulk ? "create_edges" : "create_edge");
    const auto e = g->find_edge(edge);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->to, gone);
    // Run again, transact() finds the edge and removes it with the vertex.
    transact(*g, [&](Transaction& t) { EXPECT_TRUE(t.delete_vertex("Person", gone)); });
    EXPECT_FALSE(g->find_edge(edge));
    EXPECT_FALSE(g->find_vertex(gone));
  }
  EXPECT_EQ(g->count_edges(), 0);
}

TEST(PostgresTransactions, AServerKilledMidTransactionLeavesNothingOfIt) {
  pgtest::PrivateCluster cluster;
  if (!cluster.dsn()) GTEST_SKIP() << "no PostgreSQL server binaries";
  PostgresGraph g({.conninfo = *cluster.dsn(),
                   .graph = "tx_faults",
                   .pool_size = 2,
                   .acquire_timeout = 3000ms,
                   .connect_timeout = 3000ms});
  const auto alice = g.create_vertex("Person", {{"name", "Alice"}, {"age", 30}});
  auto calling = g.begin();
  calling->create_vertex("Person", {{"name", "Lost"}});
  calling->update_vertex("Person", alice.id, {{"age", 31}});
  auto committing = g.begin();
  committing->create_vertex("Person", {{"name", "Also lost"}});
  const auto before = g.pool_status();
  EXPECT_EQ(before.open, 2u);
  EXPECT_EQ(before.idle, 0u) << "each transaction holds a connection";

  cluster.kill();
  // The next call, or the commit, finds the connection gone; the transaction has ended.
  EXPECT_THROW(calling->create_vertex("Person", {{"name", "Later"}}), ConnectionError);
  EXPECT_FALSE(calling->is_open());
  EXPECT_THROW(calling->commit(), InvalidArgument);
  EXPECT_THROW(committing->commit(), ConnectionError);
  EXPECT_FALSE(committing->is_open());
  EXPECT_EQ(g.pool_status().open, 0u) << "broken connections are discarded, not pooled";

  cluster.restart();
  EXPECT_EQ(g.count_vertices("Person"), 1);
  EXPECT_EQ(g.find_vertex(alice.id), alice);
  // The pool serves transactions again.
  transact(g, [&](Transaction& tx) { tx.update_vertex("Person", alice.id, {{"age", 32}}); });
  EXPECT_EQ(g.find_vertex(alice.id)->properties["age"], Value(32));
}

TEST(PostgresTransactions, EndedTransactionsReturnTheirConnectionClean) {
  PROPGRAPH_REQUIRE_SERVER();
  auto g = pgtest::scratch_graph({.pool_size = 1});
  g->create_index("Person", "email", {.unique = true});
  const auto opened = g->pool_status().opened;
  {
    auto tx = g->begin();
    tx->create_vertex("Person", {{"email", "a@x"}});
    // A unique violation raised by the server: rolled back to the call's savepoint.
    EXPECT_THROW(tx->create_vertex("Person", {{"email", "a@x"}}), AlreadyExists);
    EXPECT_THROW(tx->create_index("Person", "name"), InvalidArgument);
    tx->commit();
  }
  {
    auto tx = g->begin();
    tx->create_vertex("Person", {{"email", "b@x"}});
  }  // destroyed while open: rolled back
  EXPECT_EQ(g->count_vertices("Person"), 1);
  EXPECT_TRUE(g->find_vertices_by_label("Person", {{"email", "b@x"}}).empty());
  // The pool closes a connection returned inside a transaction: the one connection served
  // every call, so each transaction handed it back idle and clean.
  EXPECT_EQ(g->pool_status().opened, opened);
  EXPECT_EQ(g->pool_status().open, 1u);
}

}  // namespace
}  // namespace propgraph
