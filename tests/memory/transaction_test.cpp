// MemoryGraph's transactions: what its documentation promises beyond the conformance suite
// (isolation, who waits for whom, conflicts, the overlay's view of every read).
#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "propgraph/deadline.hpp"
#include "propgraph/fmt.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace propgraph {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> names(const std::vector<Vertex>& vs) {
  std::vector<std::string> out;
  for (const auto& v : vs) out.push_back(v.properties["name"].as_string());
  return out;
}

TEST(MemoryTransaction, WritesAreInvisibleUntilCommitThenAllVisible) {
  MemoryGraph g;
  auto a = g.create_vertex("Person", {{"name", "a"}});
  auto tx = g.begin();
  auto b = tx->create_vertex("Person", {{"name", "b"}});
  tx->create_edge(a.id, b.id, "KNOWS");
  tx->update_vertex("Person", a.id, {{"age", 3}});
  EXPECT_EQ(g.count_vertices(), 1);
  EXPECT_EQ(g.count_edges(), 0);
  EXPECT_FALSE(g.find_vertex(b.id));
  EXPECT_FALSE(g.find_vertex(a.id)->properties.contains("age"));
  tx->commit();
  EXPECT_FALSE(tx->is_open());
  EXPECT_EQ(g.count_vertices(), 2);
  EXPECT_EQ(g.count_edges(), 1);
  EXPECT_EQ(*g.find_vertex(b.id), b);
  EXPECT_EQ(g.find_vertex(a.id)->properties["age"], Value(3));
  EXPECT_EQ(names(g.neighbors(a.id)), std::vector<std::string>{"b"});
}

TEST(MemoryTransaction, ReadsSeeTheTransactionsOwnWritesEverywhere) {
  MemoryGraph g;
  auto a = g.create_vertex("Person", {{"name", "a"}});
  auto c = g.create_vertex("Person", {{"name", "c"}});
  auto old = g.create_edge(a.id, c.id, "KNOWS");
  auto tx = g.begin();
  auto b = tx->create_vertex("Person", {{"name", "b"}});
  tx->create_edge(a.id, b.id, "KNOWS");
  tx->create_edge(b.id, c.id, "KNOWS");
  ASSERT_TRUE(tx->delete_edge("KNOWS", old.id));
  // Lookups, filters, counts, incident edges, traversals and algorithms all see the overlay.
  EXPECT_EQ(tx->find_vertex(b.id)->id, b.id);
  EXPECT_EQ(names(tx->find_vertices_by_label("Person", {{"name", "b"}})), std::vector<std::string>{"b"});
  EXPECT_EQ(tx->count_vertices("Person"), 3);
  EXPECT_EQ(tx->count_edges(), 2);
  EXPECT_EQ(tx->incident_edges(a.id).size(), 1u);
  EXPECT_EQ(names(tx->neighbors(a.id)), std::vector<std::string>{"b"});
  auto path = tx->shortest_path(a.id, c.id, {.direction = Direction::out});
  ASSERT_TRUE(path);
  EXPECT_EQ(path->length(), 2u);
  EXPECT_EQ(tx->bfs(a.id).size(), 3u);
  EXPECT_EQ(tx->dfs(a.id).size(), 3u);
  EXPECT_EQ(tx->connected_components().size(), 1u);
  EXPECT_EQ(tx->page_rank().size(), 3u);
  EXPECT_EQ(tx->degree_centrality(b.id)->total(), 2);
  // Outside, nothing changed.
  EXPECT_EQ(g.count_edges(), 1);
  EXPECT_EQ(names(g.neighbors(a.id)), std::vector<std::string>{"c"});
}

TEST(MemoryTransaction, RollbackAndDestructionLeaveNothingAndBurnTheIds) {
  MemoryGraph g;
  ElementId burned;
  {
    auto tx = g.begin();
    burned = tx->create_vertex("Person", {{"name", "x"}}).id;
  }  // destroyed while open: rolled back
  EXPECT_EQ(g.count_vertices(), 0);
  auto tx = g.begin();
  tx->create_vertex("Person", {{"name", "y"}});
  tx->rollback();
  EXPECT_EQ(g.count_vertices(), 0);
  EXPECT_THROW(tx->create_vertex("Person"), InvalidArgument);  // ended
  EXPECT_NO_THROW(tx->rollback());
  // Ids handed out inside a rolled-back transaction are never issued again.
  auto v = g.create_vertex("Person", {{"name", "z"}});
  EXPECT_NE(v.id, burned);
  EXPECT_FALSE(g.find_vertex(burned));
  EXPECT_EQ(g.count_vertices(), 1);
}

TEST(MemoryTransaction, AFailedWriteInsideLeavesTheTransactionUsable) {
  MemoryGraph g;
  g.create_index("Person", "email", {.unique = true});
  g.create_vertex("Person", {{"email", "a@x"}});
  auto tx = g.begin();
  auto b = tx->create_vertex("Person", {{"email", "b@x"}});
  EXPECT_THROW(tx->create_vertex("Person", {{"email", "b@x"}}), AlreadyExists);  // its own write
  EXPECT_THROW(tx->create_vertex("Person", {{"email", "a@x"}}), AlreadyExists);  // a committed one
  EXPECT_THROW(tx->create_edge(b.id, ElementId("nope"), "KNOWS"), NotFound);
  EXPECT_THROW(tx->create_vertex(""), InvalidArgument);
  EXPECT_EQ(tx->count_vertices(), 2);
  // Changing a value frees it for another element of the same transaction.
  tx->update_vertex("Person", b.id, {{"email", "c@x"}});
  EXPECT_NO_THROW(tx->create_vertex("Person", {{"email", "b@x"}}));
  tx->commit();
  EXPECT_EQ(g.count_vertices(), 3);
}

TEST(MemoryTransaction, ReadsAfterAnotherCommitConflict) {
  MemoryGraph g;
  auto a = g.create_vertex("Account", {{"balance", 10}});
  auto tx = g.begin();
  EXPECT_EQ(tx->find_vertex(a.id)->properties["balance"], Value(10));
  g.update_vertex("Account", a.id, {{"balance", 20}});  // commits in between
  EXPECT_THROW((void)tx->find_vertex(a.id), TransactionConflict);
  EXPECT_THROW(tx->update_vertex("Account", a.id, {{"balance", 11}}), TransactionConflict);
  tx->rollback();
  EXPECT_EQ(g.find_vertex(a.id)->properties["balance"], Value(20));
}

TEST(MemoryTransaction, TransactRetriesConflictsUntilItCommits) {
  MemoryGraph g;
  auto a = g.create_vertex("Account", {{"balance", 10}});
  int runs = 0;
  const auto result = transact(g, [&](Transaction& tx) {
    ++runs;
    const auto balance = tx.find_vertex(a.id)->properties["balance"].as_int();
    if (runs == 1) g.update_vertex("Account", a.id, {{"balance", balance + 100}});  // a concurrent write
    tx.update_vertex("Account", a.id, {{"balance", balance + 1}});
    return balance;
  });
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(result, 110);
  EXPECT_EQ(g.find_vertex(a.id)->properties["balance"], Value(111));
}

TEST(MemoryTransaction, AnOpenWritingTransactionHoldsOffOtherWritersNotReaders) {
  MemoryGraph g;
  auto a = g.create_vertex("Person", {{"name", "a"}});
  auto tx = g.begin();
  tx->update_vertex("Person", a.id, {{"name", "b"}});
  std::atomic<bool> written{false};
  std::thread writer([&] {
    g.create_vertex("Person", {{"name", "late"}});
    written = true;
  });
  // Readers go on meanwhile and see the committed graph.
  for (int i = 0; i < 100; ++i) EXPECT_EQ(g.find_vertex(a.id)->properties["name"], Value("a"));
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(written);  // still waiting for the transaction
  tx->commit();
  writer.join();
  EXPECT_TRUE(written);
  EXPECT_EQ(g.count_vertices(), 2);
}

TEST(MemoryTransaction, AWriterWaitingForATransactionTimesOutAtItsDeadline) {
  MemoryGraph g;
  auto tx = g.begin();
  tx->create_vertex("Person");
  std::thread writer([&] {
    DeadlineScope scope(10ms);
    EXPECT_THROW(g.create_vertex("Person"), Timeout);
  });
  writer.join();
  tx->commit();
  EXPECT_EQ(g.count_vertices(), 1);
}

TEST(MemoryTransaction, SchemaCallsAreNotTransactional) {
  MemoryGraph g;
  auto tx = g.begin();
  EXPECT_THROW(tx->create_index("Person", "name"), InvalidArgument);
  EXPECT_THROW(tx->drop_index("Person", "name"), InvalidArgument);
  EXPECT_THROW(tx->create_graph("other"), InvalidArgument);
  EXPECT_THROW(tx->drop_graph("other"), InvalidArgument);
  EXPECT_THROW((void)tx->begin(), InvalidArgument);
  EXPECT_TRUE(tx->is_open());
}

TEST(MemoryTransaction, DeletesCascadeInsideAndCommitCleanly) {
  MemoryGraph g;
  auto a = g.create_vertex("Person", {{"name", "a"}});
  auto b = g.create_vertex("Person", {{"name", "b"}});
  g.create_edge(a.id, b.id, "KNOWS");
  g.create_edge(b.id, b.id, "SELF");
  auto tx = g.begin();
  auto c = tx->create_vertex("Person", {{"name", "c"}});
  tx->create_edge(c.id, b.id, "KNOWS");
  ASSERT_TRUE(tx->delete_vertex("Person", b.id));
  EXPECT_EQ(tx->count_edges(), 0);
  EXPECT_TRUE(tx->incident_edges(a.id).empty());
  EXPECT_TRUE(tx->incident_edges(c.id).empty());
  tx->commit();
  EXPECT_EQ(g.count_vertices(), 2);
  EXPECT_EQ(g.count_edges(), 0);
  EXPECT_TRUE(g.incident_edges(a.id).empty());
  EXPECT_FALSE(g.find_vertex(b.id));
}

}  // namespace
}  // namespace propgraph
