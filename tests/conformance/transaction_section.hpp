// Conformance: transactions (begin, commit, rollback, transact): all or nothing, atomic
// visibility, reads of the transaction's own writes, conflicts retried.
#pragma once

#include <atomic>
#include <chrono>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "conformance_fixture.hpp"
#include "propgraph/deadline.hpp"

namespace propgraph::conformance {

// NOLINTBEGIN(readability-function-cognitive-complexity)

namespace tx_support {

/// What an outside reader sees of the graph: vertex and edge names, counts.
inline std::string outside_view(GraphOperations& g) {
  std::string out = fmt::format("{} vertices, {} edges:", g.count_vertices(), g.count_edges());
  for (const auto& label : g.vertex_labels()) {
    for (const auto& v : g.find_vertices_by_label(label)) out += fmt::format(" {}", v);
  }
  for (const auto& label : g.edge_labels()) {
    for (const auto& e : g.find_edges_by_label(label)) out += fmt::format(" {}", e);
  }
  return out;
}

/// One write of every kind through `tx`, on the people fixture.
inline void write_every_kind(Transaction& tx, const People& p) {
  auto eve = tx.create_vertex("Person", {{"name", "Eve"}, {"age", 22}});
  tx.create_edge(eve.id, p.alice.id, "KNOWS", {{"since", 2024}});
  tx.update_vertex("Person", p.bob.id, {{"age", 26}});
  tx.update_edge("KNOWS", p.alice_knows_bob.id, {{"since", 2000}});
  tx.delete_edge("FOLLOWS", p.alice_follows_charlie.id);
  tx.delete_vertex("Person", p.dave.id);
  const std::vector<NewVertex> more{{"City", {{"name", "Oslo"}}}, {"City", {{"name", "Rome"}}}};
  const auto cities = tx.create_vertices(more);
  const std::vector<NewEdge> lives{{eve.id, cities[0], "LIVES_IN", {}}, {p.bob.id, cities[1], "LIVES_IN", {}}};
  tx.create_edges(lives);
  tx.upsert_vertex("Person", {{"name", "Frank"}}, {{"age", 40}});
}

}  // namespace tx_support

TEST_P(GraphConformance, TransactionCommitMakesEveryWriteVisibleAtOnce) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const std::string before = tx_support::outside_view(g);
  auto tx = g.begin();
  ASSERT_TRUE(tx->is_open());
  tx_support::write_every_kind(*tx, p);
  // Nothing of it outside before commit.
  EXPECT_EQ(tx_support::outside_view(g), before);
  const std::string inside = tx_support::outside_view(*tx);
  EXPECT_NE(inside, before);
  tx->commit();
  EXPECT_FALSE(tx->is_open());
  // All of it after, exactly as the transaction saw it.
  EXPECT_EQ(tx_support::outside_view(g), inside);
  EXPECT_EQ(g.count_vertices("Person"), 5);  // Alice, Bob, Charlie, Eve, Frank: Dave is gone
  EXPECT_EQ(g.find_vertex(p.bob.id)->properties["age"], Value(26));
  EXPECT_FALSE(g.find_edge(p.alice_follows_charlie.id));
  EXPECT_FALSE(g.find_edge(p.charlie_knows_dave.id)) << "deleting Dave deleted his edges";
  EXPECT_EQ(g.count_edges("LIVES_IN"), 2);
}

TEST_P(GraphConformance, TransactionRollbackAndDestructionDiscardEveryWrite) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const std::string before = tx_support::outside_view(g);
  {
    auto tx = g.begin();
    tx_support::write_every_kind(*tx, p);
    tx->rollback();
    EXPECT_FALSE(tx->is_open());
    EXPECT_NO_THROW(tx->rollback());  // again: nothing to do
  }
  EXPECT_EQ(tx_support::outside_view(g), before);
  {
    auto tx = g.begin();
    tx_support::write_every_kind(*tx, p);
  }  // destroyed while open
  EXPECT_EQ(tx_support::outside_view(g), before);
  // The graph takes writes as before.
  EXPECT_EQ(g.create_vertex("Person", {{"name", "Gina"}}).properties["name"], Value("Gina"));
}

TEST_P(GraphConformance, TransactionReadsSeeItsOwnWrites) {
  auto& g = this->graph();
  const auto p = make_people(g);
  auto tx = g.begin();
  // Eve joins the chain: Dave -KNOWS-> Eve, and Eve -KNOWS-> Alice closes a cycle.
  auto eve = tx->create_vertex("Person", {{"name", "Eve"}, {"age", 30}});
  auto dave_eve = tx->create_edge(p.dave.id, eve.id, "KNOWS", {{"since", 2023}});
  tx->create_edge(eve.id, p.alice.id, "KNOWS", {{"since", 2024}});
  tx->update_vertex("Person", p.bob.id, {{"age", 30}});
  // Lookups and filters.
  EXPECT_EQ(tx->find_vertex(eve.id), eve);
  EXPECT_EQ(tx->find_vertex_by_id("Person", eve.id), eve);
  EXPECT_EQ(tx->find_edge_by_id("KNOWS", dave_eve.id), dave_eve);
  EXPECT_EQ(names(tx->find_vertices_by_label("Person", {{"age", 30}})), (Strings{"Alice", "Bob", "Eve"}));
  EXPECT_EQ(tx->count_vertices("Person"), 5);
  EXPECT_EQ(tx->count_edges("KNOWS"), 5);
  EXPECT_EQ(ids_of(tx->incident_edges(eve.id)).size(), 2u);
  // Traversals follow the new edges.
  EXPECT_EQ(names(tx->neighbors(p.dave.id)), Strings{"Eve"});
  EXPECT_EQ(names(tx->neighbors(p.dave.id, {.max_depth = 2})), (Strings{"Alice", "Eve"}));
  auto path = tx->shortest_path(p.dave.id, p.alice.id, {.direction = Direction::out});
  ASSERT_TRUE(path);
  EXPECT_EQ(render(*path), "Dave -KNOWS-> Eve -KNOWS-> Alice");
  EXPECT_EQ(render(tx->all_paths(p.dave.id, p.bob.id, {.direction = Direction::out, .max_depth = 3})),
            Strings{"Dave -KNOWS-> Eve -KNOWS-> Alice -KNOWS-> Bob"});
  EXPECT_EQ(render(tx->bfs(p.dave.id, {.max_depth = 2})), (Strings{"Dave@0", "Eve@1<Dave", "Alice@2<Eve"}));
  EXPECT_EQ(render(tx->dfs(p.dave.id, {.max_depth = 2})), (Strings{"Dave@0", "Eve@1<Dave", "Alice@2<Eve"}));
  EXPECT_EQ(tx->degree_centrality(eve.id)->total(), 2);
  // Algorithms over the whole graph: one component, the new cycle, ranks over five vertices.
  EXPECT_EQ(tx->connected_components().size(), 1u);
  EXPECT_EQ(tx->connected_components({.weakly = false}).size(), 1u) << "Alice..Dave..Eve..Alice is one cycle";
  EXPECT_EQ(render(tx->detect_cycles({.edge_label = "KNOWS"})),
            Strings{"Alice -KNOWS-> Bob -KNOWS-> Charlie -KNOWS-> Dave -KNOWS-> Eve -KNOWS-> Alice"});
  const auto ranks = tx->page_rank();
  EXPECT_EQ(ranks.size(), 5u);
  EXPECT_NEAR(score_sum(ranks), 1.0, 1e-9);
  // Outside, none of it.
  EXPECT_TRUE(g.neighbors(p.dave.id).empty());
  EXPECT_EQ(g.count_vertices("Person"), 4);
  tx->rollback();
}

TEST_P(GraphConformance, AFailedWriteInsideATransactionHasNoEffectAndTheTransactionGoesOn) {
  auto& g = this->graph();
  const auto p = make_people(g);
  g.create_index("Person", "email", {.unique = true});
  auto tx = g.begin();
  auto eve = tx->create_vertex("Person", {{"name", "Eve"}, {"email", "eve@x"}});
  EXPECT_THROW(tx->create_vertex("bad label!"), InvalidArgument);
  EXPECT_THROW(tx->create_edge(eve.id, ElementId("no such vertex"), "KNOWS"), NotFound);
  EXPECT_THROW(tx->create_vertex("Person", {{"email", "eve@x"}}), AlreadyExists);
  EXPECT_THROW(tx->update_vertex("Person", p.alice.id, {{"email", "eve@x"}}), AlreadyExists);
  const std::vector<NewVertex> clash{{"Person", {{"email", "new@x"}}}, {"Person", {{"email", "new@x"}}}};
  EXPECT_THROW(tx->create_vertices(clash), AlreadyExists);
  // The transaction goes on, with exactly its successful writes.
  tx->create_edge(eve.id, p.alice.id, "KNOWS");
  EXPECT_EQ(tx->count_vertices("Person"), 5);
  tx->commit();
  EXPECT_EQ(g.count_vertices("Person"), 5);
  EXPECT_EQ(g.find_vertices_by_label("Person", {{"email", "eve@x"}}).size(), 1u);
  EXPECT_TRUE(g.find_vertices_by_label("Person", {{"email", "new@x"}}).empty());
  EXPECT_FALSE(g.find_vertex(p.alice.id)->properties.contains("email"));
  EXPECT_EQ(g.count_edges("KNOWS"), 4);
}

TEST_P(GraphConformance, ACallPastItsDeadlineInsideATransactionLeavesTheEarlierCalls) {
  auto& g = this->graph();
  const auto p = make_people(g);
  auto tx = g.begin();
  const auto eve = tx->create_vertex("Person", {{"name", "Eve"}});
  tx->update_vertex("Person", p.alice.id, {{"age", 31}});
  {
    // Refused before anything is sent: the calls before stay, and the transaction goes on.
    DeadlineScope scope(DeadlineClock::now() - std::chrono::seconds(1));
    EXPECT_THROW(tx->create_vertex("Person", {{"name", "Zoe"}}), Timeout);
    EXPECT_THROW(tx->update_vertex("Person", p.bob.id, {{"age", 99}}), Timeout);
    EXPECT_THROW((void)tx->find_vertex(eve.id), Timeout);
    EXPECT_THROW((void)tx->page_rank(), Timeout);
    EXPECT_THROW(tx->create_vertices(std::vector<NewVertex>{{"Person", {{"name", "Zed"}}}}), Timeout);
  }
  EXPECT_EQ(tx->find_vertex(eve.id), eve);
  tx->create_edge(eve.id, p.alice.id, "KNOWS");
  tx->commit();
  EXPECT_EQ(g.find_vertex(eve.id), eve);
  EXPECT_EQ(g.find_vertex(p.alice.id)->properties["age"], Value(31));
  EXPECT_EQ(g.find_vertex(p.bob.id)->properties["age"], p.bob.properties["age"]);
  EXPECT_EQ(g.count_vertices("Person"), 5);
  EXPECT_EQ(g.count_edges("KNOWS"), 4);
}

TEST_P(GraphConformance, OtherThreadsSeeNothingBeforeCommitAndEverythingAfter) {
  auto& g = this->graph();
  const auto p = make_people(g);
  auto tx = g.begin();
  auto eve = tx->create_vertex("Person", {{"name", "Eve"}});
  tx->create_edge(p.alice.id, eve.id, "KNOWS");
  tx->update_vertex("Person", p.alice.id, {{"age", 99}});
  auto look = [&] {
    std::string seen;
    std::thread other([&] {
      seen = fmt::format("{} {} {} {}", g.count_vertices(), g.count_edges(), g.find_vertex(eve.id).has_value(),
                         g.find_vertex(p.alice.id)->properties["age"]);
    });
    other.join();
    return seen;
  };
  EXPECT_EQ(look(), "4 4 false 30");
  tx->commit();
  EXPECT_EQ(look(), "5 5 true 99");
}

TEST_P(GraphConformance, EndedTransactionsRefuseCallsAndTransactionsDoNotNest) {
  auto& g = this->graph();
  auto tx = g.begin();
  EXPECT_THROW((void)tx->begin(), InvalidArgument);
  EXPECT_TRUE(tx->is_open());
  tx->create_vertex("Person", {{"name", "Eve"}});
  tx->commit();
  EXPECT_THROW(tx->create_vertex("Person"), InvalidArgument);
  EXPECT_THROW((void)tx->count_vertices(), InvalidArgument);
  EXPECT_THROW(tx->commit(), InvalidArgument);
  EXPECT_NO_THROW(tx->rollback());
  EXPECT_EQ(g.count_vertices(), 1);
}

TEST_P(GraphConformance, TransactCommitsReturnsAndRollsBackOnException) {
  auto& g = this->graph();
  const auto id = transact(g, [](Transaction& tx) { return tx.create_vertex("Person", {{"name", "Eve"}}).id; });
  EXPECT_TRUE(g.find_vertex(id));
  EXPECT_THROW(transact(g,
                        [&](Transaction& tx) {
                          tx.create_vertex("Person", {{"name", "Lost"}});
                          tx.delete_vertex("Person", id);
                          throw std::runtime_error("changed my mind");
                        }),
               std::runtime_error);
  EXPECT_TRUE(g.find_vertex(id));
  EXPECT_EQ(g.count_vertices(), 1);
  EXPECT_THROW(transact(g, [](Transaction&) {}, {.max_attempts = 0}), InvalidArgument);
}

TEST_P(GraphConformance, TransactRetriesAConflictingTransaction) {
  auto& g = this->graph();
  auto account = g.create_vertex("Account", {{"balance", 10}});
  int runs = 0;
  const auto seen = transact(g, [&](Transaction& tx) {
    ++runs;
    const auto balance = tx.find_vertex(account.id)->properties["balance"].as_int();
    // On the first run another caller changes the account after this transaction read it:
    // committing the update on top of the stale read would lose that change.
    if (runs == 1) g.update_vertex("Account", account.id, {{"balance", balance + 100}});
    tx.update_vertex("Account", account.id, {{"balance", balance + 1}});
    return balance;
  });
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(seen, 110);
  EXPECT_EQ(g.find_vertex(account.id)->properties["balance"], Value(111));
}

TEST_P(GraphConformance, TransfersBetweenAccountsKeepTheSumInEveryReadAndAtTheEnd) {
  auto& g = this->graph();
  constexpr int kAccounts = 6;
  constexpr int kThreads = 6;
  constexpr int kTransfers = 25;
  std::vector<ElementId> accounts;
  for (int i = 0; i < kAccounts; ++i) accounts.push_back(g.create_vertex("Account", {{"balance", 100}}).id);
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::atomic<int> broken{0};
  std::thread reader([&] {
    while (!done) {
      std::int64_t sum = 0;
      for (const auto& a : g.find_vertices_by_label("Account")) sum += a.properties["balance"].as_int();
      if (sum != 100 * kAccounts) ++broken;
      ++reads;
    }
  });
  std::vector<std::thread> movers;
  for (int t = 0; t < kThreads; ++t) {
    movers.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::uniform_int_distribution<int> pick(0, kAccounts - 1);
      for (int i = 0; i < kTransfers; ++i) {
        const int from = pick(rng);
        const int to = (from + 1 + pick(rng) % (kAccounts - 1)) % kAccounts;
        transact(g,
                 [&](Transaction& tx) {
                   const auto a = tx.find_vertex(accounts[from])->properties["balance"].as_int();
                   const auto b = tx.find_vertex(accounts[to])->properties["balance"].as_int();
                   tx.update_vertex("Account", accounts[from], {{"balance", a - 7}});
                   tx.update_vertex("Account", accounts[to], {{"balance", b + 7}});
                 },
                 {.max_attempts = 1000});
      }
    });
  }
  for (auto& m : movers) m.join();
  done = true;
  reader.join();
  EXPECT_EQ(broken.load(), 0) << "of " << reads.load() << " reads";
  std::int64_t sum = 0;
  for (const auto& a : g.find_vertices_by_label("Account")) sum += a.properties["balance"].as_int();
  EXPECT_EQ(sum, 100 * kAccounts);
}

// NOLINTEND(readability-function-cognitive-complexity)

}  // namespace propgraph::conformance
