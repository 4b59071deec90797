// Conformance: upsert_vertex (find-or-create by a typed match, merge, atomic under contention).
#pragma once

#include <barrier>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "conformance_fixture.hpp"

namespace propgraph::conformance {

// NOLINTBEGIN(readability-function-cognitive-complexity)

TEST_P(GraphConformance, UpsertCreatesThenMerges) {
  auto& g = this->graph();
  const Properties match{{"email", "alice@example.org"}};
  // No vertex matches: one is created from the match merged with the properties.
  const auto first = g.upsert_vertex("Person", match, {{"name", "Alice"}, {"age", 30}, {"nick", nullptr}});
  EXPECT_TRUE(first.created);
  EXPECT_EQ(first.vertex.label, "Person");
  EXPECT_EQ(first.vertex.properties, (Properties{{"age", 30}, {"email", "alice@example.org"}, {"name", "Alice"}}));
  EXPECT_EQ(g.find_vertex(first.vertex.id), first.vertex);
  EXPECT_EQ(g.count_vertices(), 1);
  // The same match again: merged into that vertex (null removes a key).
  const auto second = g.upsert_vertex("Person", match, {{"age", 31}, {"name", nullptr}, {"city", "Paris"}});
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.vertex.id, first.vertex.id);
  EXPECT_EQ(second.vertex.properties, (Properties{{"age", 31}, {"city", "Paris"}, {"email", "alice@example.org"}}));
  EXPECT_EQ(g.find_vertex(first.vertex.id), second.vertex);
  // No properties: the vertex as it is.
  EXPECT_EQ(g.upsert_vertex("Person", match), (Upserted{second.vertex, false}));
  EXPECT_EQ(g.count_vertices(), 1);
  // The properties may change the matched key itself.
  const auto moved = g.upsert_vertex("Person", match, {{"email", "a@example.org"}});
  EXPECT_FALSE(moved.created);
  EXPECT_EQ(moved.vertex.properties["email"], Value("a@example.org"));
  EXPECT_TRUE(g.upsert_vertex("Person", match).created) << "the old email matches nothing now";
  EXPECT_EQ(g.count_vertices("Person"), 2);
  // Properties win over the match on creation.
  const auto overridden = g.upsert_vertex("Person", {{"email", "o@example.org"}}, {{"email", "p@example.org"}});
  EXPECT_TRUE(overridden.created);
  EXPECT_EQ(overridden.vertex.properties, (Properties{{"email", "p@example.org"}}));
}

TEST_P(GraphConformance, UpsertMatchesLikeAFilter) {
  auto& g = this->graph();
  const auto p = make_people(g);
  // Typed: Alice's age is int 30; double 30.0 matches nothing and creates a vertex.
  const auto by_int = g.upsert_vertex("Person", {{"age", 30}}, {{"checked", true}});
  EXPECT_FALSE(by_int.created);
  EXPECT_EQ(by_int.vertex.id, p.alice.id);
  const auto by_double = g.upsert_vertex("Person", {{"age", 30.0}});
  EXPECT_TRUE(by_double.created);
  EXPECT_EQ(by_double.vertex.properties, (Properties{{"age", 30.0}}));
  // Every entry of the match must hold; only the label's vertices count.
  EXPECT_TRUE(g.upsert_vertex("Person", {{"age", 30}, {"name", "Bob"}}).created);
  EXPECT_TRUE(g.upsert_vertex("Robot", {{"name", "Alice"}}).created);
  EXPECT_EQ(g.upsert_vertex("Person", {{"name", "Bob"}, {"age", 25}}).vertex.id, p.bob.id);
  // A null in the match matches an absent key, and is dropped on creation.
  const auto no_phone = g.upsert_vertex("Person", {{"name", "Eve"}, {"phone", nullptr}});
  EXPECT_TRUE(no_phone.created);
  EXPECT_EQ(no_phone.vertex.properties, (Properties{{"name", "Eve"}}));
  const auto again = g.upsert_vertex("Person", {{"name", "Eve"}, {"phone", nullptr}}, {{"age", 20}});
  EXPECT_FALSE(again.created);
  EXPECT_EQ(again.vertex.id, no_phone.vertex.id);
  // Bad labels are refused and create nothing.
  const auto before = state_of(g);
  EXPECT_THROW(g.upsert_vertex("", {{"name", "X"}}), InvalidArgument);
  EXPECT_THROW(g.upsert_vertex("not a label", {{"name", "X"}}), InvalidArgument);
  EXPECT_EQ(state_of(g), before);
}

TEST_P(GraphConformance, UpsertWithSeveralMatchesThrowsNamingHowMany) {
  auto& g = this->graph();
  for (const char* name : {"A", "B", "C"}) g.create_vertex("Person", {{"name", name}, {"city", "Paris"}});
  g.create_vertex("Person", {{"name", "D"}, {"city", "Rome"}});
  g.create_vertex("Person", {{"name", "E"}});
  const auto before = state_of(g);
  // Three of the five Person vertices live in Paris.
  expect_error_naming<InvalidArgument>([&] { g.upsert_vertex("Person", {{"city", "Paris"}}, {{"x", 1}}); }, {"3"});
  // The empty match matches every vertex of the label.
  expect_error_naming<InvalidArgument>([&] { g.upsert_vertex("Person", {}, {{"x", 1}}); }, {"5"});
  EXPECT_EQ(state_of(g), before);
  // With one match left it merges.
  ASSERT_TRUE(g.update_vertex("Person", g.find_vertices_by_label("Person", {{"name", "A"}})[0].id, {{"city", "Oslo"}}));
  ASSERT_TRUE(g.update_vertex("Person", g.find_vertices_by_label("Person", {{"name", "B"}})[0].id, {{"city", "Oslo"}}));
  const auto merged = g.upsert_vertex("Person", {{"city", "Paris"}}, {{"x", 1}});
  EXPECT_FALSE(merged.created);
  EXPECT_EQ(name_of(merged.vertex), "C");
  // On an empty label the empty match creates a vertex.
  EXPECT_TRUE(g.upsert_vertex("Robot", {}).created);
}

/// 16 threads upsert the same match at once, round after round (without and then with an index
/// on the key): each round creates exactly one vertex, and every call returns its id.
TEST_P(GraphConformance, ConcurrentUpsertsOfOneMatchCreateOneVertex) {
  auto& g = this->graph();
  constexpr int kThreads = 16;
  constexpr int kRounds = 8;
  std::vector<std::vector<Upserted>> results(kRounds, std::vector<Upserted>(kThreads));
  std::vector<std::exception_ptr> errors(kThreads);
  auto run_rounds = [&](int first_round, int last_round) {
    std::barrier sync(kThreads);  // each round starts in all threads at once
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        try {
          for (int round = first_round; round < last_round; ++round) {
            sync.arrive_and_wait();
            results[round][t] =
                g.upsert_vertex("Person", {{"email", fmt::format("race{}@example.org", round)}}, {{"seen", t}});
          }
        } catch (...) {
          errors[t] = std::current_exception();
          sync.arrive_and_drop();
        }
      });
    }
    for (auto& thread : threads) thread.join();
  };
  run_rounds(0, kRounds / 2);
  ASSERT_TRUE(g.create_index("Person", "email"));
  run_rounds(kRounds / 2, kRounds);
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  EXPECT_EQ(g.count_vertices("Person"), kRounds);
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE(fmt::format("round {}", round));
    const auto found = g.find_vertices_by_label("Person", {{"email", fmt::format("race{}@example.org", round)}});
    ASSERT_EQ(found.size(), 1u);
    int created = 0;
    for (const auto& r : results[round]) {
      EXPECT_EQ(r.vertex.id, found[0].id);
      created += r.created ? 1 : 0;
    }
    EXPECT_EQ(created, 1);
    // The vertex holds the "seen" of the last thread that merged into it.
    const auto& seen = found[0].properties["seen"];
    ASSERT_TRUE(seen.is_int());
    EXPECT_TRUE(seen.as_int() >= 0 && seen.as_int() < kThreads) << seen.as_int();
  }
}

// NOLINTEND(readability-function-cognitive-complexity)

}  // namespace propgraph::conformance
