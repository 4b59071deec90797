// Conformance: create_index / drop_index / indexes, indexes never changing a result, and unique
// indexes refusing duplicates through every write path.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "conformance_fixture.hpp"

namespace propgraph::conformance {

// NOLINTBEGIN(readability-function-cognitive-complexity)

TEST_P(GraphConformance, IndexesAreListedByLabelThenKey) {
  auto& g = this->graph();
  EXPECT_EQ(g.indexes(), std::vector<IndexInfo>{});
  EXPECT_TRUE(g.create_index("Person", "name"));
  EXPECT_TRUE(g.create_index("Person", "email", {.unique = true}));
  EXPECT_TRUE(g.create_index("Account", "number"));
  EXPECT_TRUE(g.create_index("KNOWS", "since"));  // a label without elements: fine
  EXPECT_TRUE(g.create_index("Person", "it's a key"));  // any non-empty key
  const std::vector<IndexInfo> listed{{"Account", "number", false},
                                      {"KNOWS", "since", false},
                                      {"Person", "email", true},
                                      {"Person", "it's a key", false},
                                      {"Person", "name", false}};
  EXPECT_EQ(g.indexes(), listed);
  // A second create of (label, key) returns false whatever its options, and changes nothing.
  EXPECT_FALSE(g.create_index("Person", "name"));
  EXPECT_FALSE(g.create_index("Person", "name", {.unique = true}));
  EXPECT_FALSE(g.create_index("Person", "email"));
  EXPECT_EQ(g.indexes(), listed);
  // Bad label or empty key.
  EXPECT_THROW(g.create_index("", "name"), InvalidArgument);
  EXPECT_THROW(g.create_index("not a label", "name"), InvalidArgument);
  EXPECT_THROW(g.create_index("1Person", "name"), InvalidArgument);
  EXPECT_THROW(g.create_index("Person", ""), InvalidArgument);
  EXPECT_EQ(g.indexes(), listed);
  // Dropping.
  EXPECT_TRUE(g.drop_index("Person", "name"));
  EXPECT_FALSE(g.drop_index("Person", "name")) << "second drop";
  EXPECT_FALSE(g.drop_index("Person", "nickname"));
  EXPECT_FALSE(g.drop_index("Nobody", "name"));
  EXPECT_FALSE(g.drop_index("not a label", "name"));
  EXPECT_FALSE(g.drop_index("Person", ""));
  EXPECT_EQ(g.indexes(), (std::vector<IndexInfo>{listed[0], listed[1], listed[2], listed[3]}));
  // Once dropped, (label, key) can be created again, with other options.
  EXPECT_TRUE(g.create_index("Person", "name", {.unique = true}));
  EXPECT_EQ(g.indexes(),
            (std::vector<IndexInfo>{listed[0], listed[1], listed[2], listed[3], {"Person", "name", true}}));
  // Indexes belong to the bound graph's elements: managing other catalog graphs leaves them.
  const auto name = unique_graph_name();
  ASSERT_TRUE(g.create_graph(name));
  ASSERT_TRUE(g.drop_graph(name));
  EXPECT_EQ(g.indexes().size(), 5u);
}

/// Typed look-alikes of 1 and 0 (int, double, string, bool, list, -0.0), NaN, and elements
/// without the key, on vertices and edges; every filter gives the same result, the one the
/// contract defines (typed equality: int 1 != double 1.0, -0.0 == 0.0, NaN equals nothing),
/// without an index, with one, through writes under it, and after dropping it.
TEST_P(GraphConformance, IndexesNeverChangeResults) {
  auto& g = this->graph();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::pair<std::string, Value>> values{{"int1", 1},
                                                          {"int1b", 1},
                                                          {"double1", 1.0},
                                                          {"string1", "1"},
                                                          {"true", true},
                                                          {"int0", 0},
                                                          {"double0", 0.0},
                                                          {"minus0", -0.0},
                                                          {"nan", nan},
                                                          {"list1", Value::list({1})},
                                                          {"list1.0", Value::list({1.0})},
                                                          {"empty", ""}};
  std::vector<Vertex> vertices;
  for (const auto& [name, value] : values) {
    vertices.push_back(g.create_vertex("Person", {{"name", name}, {"k", value}}));
  }
  vertices.push_back(g.create_vertex("Person", {{"name", "absent"}}));
  vertices.push_back(g.create_vertex("Person", {{"name", "null"}, {"k", nullptr}}));  // stored without k
  g.create_vertex("Robot", {{"name", "robot1"}, {"k", 1}});
  // RATED edges carry the same values, named by their "name" property.
  for (const auto& [name, value] : values) {
    g.create_edge(vertices[0].id, vertices[1].id, "RATED", {{"name", name}, {"k", value}});
  }
  g.create_edge(vertices[0].id, vertices[0].id, "RATED", {{"name", "absent"}});

  auto edge_names = [&](const std::vector<Edge>& edges) {
    Strings out;
    for (const auto& e : edges) out.push_back(e.properties["name"].as_string());
    return out;
  };
  struct Case {
    Properties filter;
    Strings expected;
  };
  const std::vector<Case> cases{
      {{{"k", 1}}, {"int1", "int1b"}},
      {{{"k", 1.0}}, {"double1"}},
      {{{"k", "1"}}, {"string1"}},
      {{{"k", true}}, {"true"}},
      {{{"k", 0}}, {"int0"}},
      {{{"k", 0.0}}, {"double0", "minus0"}},
      {{{"k", -0.0}}, {"double0", "minus0"}},
      {{{"k", nan}}, {}},
      {{{"k", Value::list({1})}}, {"list1"}},
      {{{"k", Value::list({1.0})}}, {"list1.0"}},
      {{{"k", ""}}, {"empty"}},
      {{{"k", 2}}, {}},
      {{{"k", nullptr}}, {"absent", "null"}},
      {{{"k", 1}, {"name", "int1b"}}, {"int1b"}},
      {{{"k", 1.0}, {"name", "int1"}}, {}},
  };
  auto check = [&](std::string_view phase) {
    SCOPED_TRACE(phase);
    for (const auto& c : cases) {
      SCOPED_TRACE(fmt::format("filter {}", c.filter));
      EXPECT_EQ(names(g.find_vertices_by_label("Person", c.filter)), c.expected);
      EXPECT_EQ(names(walk_pages([&](const Page& p) { return g.find_vertices_by_label("Person", c.filter, p); }, 1)),
                c.expected);
      // The edges lack the vertices' "absent"/"null" pair: only one edge has no k.
      Strings expected_edges = c.expected;
      std::erase(expected_edges, "null");
      EXPECT_EQ(edge_names(g.find_edges_by_label("RATED", c.filter)), expected_edges);
      EXPECT_EQ(edge_names(walk_pages([&](const Page& p) { return g.find_edges_by_label("RATED", c.filter, p); }, 2)),
                expected_edges);
    }
    // upsert matches like a filter: exactly one double 1.0, two vertices equal to -0.0.
    const auto found = g.upsert_vertex("Person", {{"k", 1.0}});
    EXPECT_FALSE(found.created);
    EXPECT_EQ(found.vertex.id, vertices[2].id);
    EXPECT_THROW(g.upsert_vertex("Person", {{"k", -0.0}}), InvalidArgument);
    EXPECT_EQ(g.count_vertices("Person"), static_cast<std::int64_t>(vertices.size()));
  };
  check("unindexed");
  ASSERT_TRUE(g.create_index("Person", "k"));
  ASSERT_TRUE(g.create_index("RATED", "k"));
  check("indexed");
  ASSERT_TRUE(g.create_index("Person", "name"));
  check("indexed on both keys");
  ASSERT_TRUE(g.drop_index("Person", "k"));
  ASSERT_TRUE(g.drop_index("RATED", "k"));
  check("index dropped");

  // Writes under an index: a value changing type, a key removed, an element deleted.
  ASSERT_TRUE(g.create_index("Person", "k"));
  ASSERT_TRUE(g.update_vertex("Person", vertices[2].id, {{"k", 1}}));        // double1 now int 1
  ASSERT_TRUE(g.update_vertex("Person", vertices[0].id, {{"k", nullptr}}));  // int1 loses k
  ASSERT_TRUE(g.delete_vertex("Person", vertices[1].id));                    // int1b gone
  const auto added = g.create_vertex("Person", {{"name", "int1c"}, {"k", 1}});
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"k", 1}})), (Strings{"double1", "int1c"}));
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"k", 1.0}})), Strings{});
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"k", nullptr}})), (Strings{"int1", "absent", "null"}));
  ASSERT_TRUE(g.drop_index("Person", "k"));
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"k", 1}})), (Strings{"double1", "int1c"}));
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"k", nullptr}})), (Strings{"int1", "absent", "null"}));
  EXPECT_EQ(g.find_vertex(added.id), added);
}

TEST_P(GraphConformance, UniqueIndexRefusesDuplicateVerticesThroughEveryWritePath) {
  auto& g = this->graph();
  const auto alice = g.create_vertex("Person", {{"name", "Alice"}, {"email", "alice@example.org"}});
  const auto bob = g.create_vertex("Person", {{"name", "Bob"}, {"email", "bob@example.org"}});
  const auto carol = g.create_vertex("Person", {{"name", "Carol"}});
  ASSERT_TRUE(g.create_index("Person", "email", {.unique = true}));
  const auto before = state_of(g);
  const std::vector<std::string> names_it{"Person", "email", "alice@example.org"};
  const Properties taken{{"email", "alice@example.org"}};

  expect_error_naming<AlreadyExists>(
      [&] {
        g.create_vertex("Person", {{"name", "Eve"}, {"email", "alice@example.org"}});
      },
      names_it);
  expect_error_naming<AlreadyExists>([&] { g.update_vertex("Person", bob.id, taken); }, names_it);
  expect_error_naming<AlreadyExists>(
      [&] {
        g.update_vertex("Person", carol.id, {{"name", "X"}, {"email", "alice@example.org"}});
      },
      names_it);
  // Bulk: one offending element fails the whole batch, wherever it sits.
  expect_error_naming<AlreadyExists>(
      [&] {
        g.create_vertices(std::vector<NewVertex>{{"Person", {{"email", "dan@example.org"}}}, {"Person", taken}});
      },
      names_it);
  expect_error_naming<AlreadyExists>(
      [&] {
        g.create_vertices(std::vector<NewVertex>{{"Person", taken}, {"Robot", {{"email", "r@example.org"}}}});
      },
      names_it);
  // Duplicates inside one batch.
  expect_error_naming<AlreadyExists>(
      [&] {
        g.create_vertices(std::vector<NewVertex>{{"Person", {{"email", "twin@example.org"}}},
                                                 {"Person", {{"name", "Y"}}},
                                                 {"Person", {{"email", "twin@example.org"}}}});
      },
      {"Person", "email", "twin@example.org"});
  // Upsert: merging into the match, and creating from it.
  expect_error_naming<AlreadyExists>([&] { g.upsert_vertex("Person", {{"name", "Carol"}}, taken); }, names_it);
  expect_error_naming<AlreadyExists>([&] { g.upsert_vertex("Person", {{"name", "Zed"}}, taken); }, names_it);
  // The match holds Alice's email but not her name: a new vertex, with her email.
  expect_error_naming<AlreadyExists>(
      [&] {
        g.upsert_vertex("Person", {{"name", "Zed"}, {"email", "alice@example.org"}}, {{"age", 40}});
      },
      names_it);
  EXPECT_EQ(state_of(g), before) << "a refused write changed the graph";
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"email", "dan@example.org"}})), Strings{});
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"email", "twin@example.org"}})), Strings{});

  // What the index allows: writing a vertex's own value again, other labels, vertices without
  // the key (null drops it), other types, and a value set free by an update or a delete.
  EXPECT_TRUE(g.update_vertex("Person", alice.id, {{"email", "alice@example.org"}, {"age", 30}}));
  EXPECT_EQ(g.upsert_vertex("Person", {{"email", "alice@example.org"}}, {{"age", 31}}).created, false);
  g.create_vertex("Robot", taken);
  g.create_vertex("Person", {{"name", "NoMail1"}});
  g.create_vertex("Person", {{"name", "NoMail2"}, {"email", nullptr}});
  g.create_vertices(std::vector<NewVertex>{{"Person", {{"name", "NoMail3"}}}, {"Person", {{"name", "NoMail4"}}}});
  g.create_vertex("Person", {{"email", 1}});
  g.create_vertex("Person", {{"email", 1.0}});
  g.create_vertex("Person", {{"email", "1"}});
  g.create_vertex("Person", {{"email", Value::list({"alice@example.org"})}});
  expect_error_naming<AlreadyExists>([&] { g.create_vertex("Person", {{"email", 1}}); }, {"Person", "email", "1"});
  expect_error_naming<AlreadyExists>([&] { g.create_vertex("Person", {{"email", 1.0}}); }, {"Person", "email", "1"});
  ASSERT_TRUE(g.update_vertex("Person", bob.id, {{"email", "robert@example.org"}}));
  const auto new_bob = g.create_vertex("Person", {{"name", "Bobby"}, {"email", "bob@example.org"}});
  ASSERT_TRUE(g.delete_vertex("Person", alice.id));
  const auto new_alice = g.create_vertex("Person", {{"name", "Alicia"}, {"email", "alice@example.org"}});
  EXPECT_EQ(names(g.find_vertices_by_label("Person", taken)), Strings{"Alicia"});
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"email", "bob@example.org"}})), Strings{"Bobby"});
  // A null in an update removes the key and frees the value too.
  ASSERT_TRUE(g.update_vertex("Person", new_alice.id, {{"email", nullptr}}));
  ASSERT_TRUE(g.update_vertex("Person", new_bob.id, taken));
  // Dropping the index lifts the constraint.
  ASSERT_TRUE(g.drop_index("Person", "email"));
  g.create_vertex("Person", taken);
  EXPECT_EQ(g.find_vertices_by_label("Person", taken).size(), 2u);
}

TEST_P(GraphConformance, UniqueIndexRefusesDuplicateEdgesThroughEveryWritePath) {
  auto& g = this->graph();
  const auto p = make_people(g);  // KNOWS since 2020, 2021, 2022; FOLLOWS since 2019
  ASSERT_TRUE(g.create_index("KNOWS", "since", {.unique = true}));
  const auto before = state_of(g);
  const std::vector<std::string> names_it{"KNOWS", "since", "2020"};
  expect_error_naming<AlreadyExists>(
      [&] {
        g.create_edge(p.dave.id, p.alice.id, "KNOWS", {{"since", 2020}});
      },
      names_it);
  expect_error_naming<AlreadyExists>(
      [&] {
        g.update_edge("KNOWS", p.bob_knows_charlie.id, {{"since", 2020}});
      },
      names_it);
  expect_error_naming<AlreadyExists>(
      [&] {
        g.create_edges(std::vector<NewEdge>{{p.dave.id, p.alice.id, "KNOWS", {{"since", 2030}}},
                                            {p.dave.id, p.bob.id, "KNOWS", {{"since", 2020}}}});
      },
      names_it);
  expect_error_naming<AlreadyExists>(
      [&] {
        g.create_edges(std::vector<NewEdge>{{p.dave.id, p.alice.id, "KNOWS", {{"since", 2031}}},
                                            {p.dave.id, p.bob.id, "LIKES", {}},
                                            {p.dave.id, p.bob.id, "KNOWS", {{"since", 2031}}}});
      },
      {"KNOWS", "since", "2031"});
  EXPECT_EQ(state_of(g), before) << "a refused write changed the graph";
  // Allowed: other labels, other types, edges without the key, a vertex of the same label.
  link(g, p.dave, p.alice, "FOLLOWS", {{"since", 2020}});
  link(g, p.dave, p.alice, "KNOWS", {{"since", 2020.0}});
  link(g, p.dave, p.alice, "KNOWS");
  link(g, p.dave, p.bob, "KNOWS");
  ASSERT_TRUE(g.update_edge("KNOWS", p.alice_knows_bob.id, {{"since", 2020}, {"note", "same value"}}));
  // The unique index covers KNOWS vertices and KNOWS edges separately: no two vertices and no
  // two edges share a value, but a vertex may share one with an edge.
  g.create_vertex("KNOWS", {{"since", 2020}});
  expect_error_naming<AlreadyExists>([&] { g.create_vertex("KNOWS", {{"since", 2020}}); }, names_it);
  // Deleting an edge frees its value; so does deleting an endpoint.
  ASSERT_TRUE(g.delete_edge("KNOWS", p.alice_knows_bob.id));
  link(g, p.alice, p.bob, "KNOWS", {{"since", 2020}});
  ASSERT_TRUE(g.delete_vertex("Person", p.dave.id));  // takes Charlie->Dave (2022) and Dave's new edges
  link(g, p.bob, p.alice, "KNOWS", {{"since", 2022}});
  // Left: Bob->Charlie 2021, the new Alice->Bob 2020 and Bob->Alice 2022.
  EXPECT_EQ(g.count_edges("KNOWS"), 3);
  EXPECT_EQ(g.find_edges_by_label("KNOWS", {{"since", 2022}}).size(), 1u);
}

TEST_P(GraphConformance, UniqueIndexOverExistingDuplicatesIsNotCreated) {
  auto& g = this->graph();
  g.create_vertex("Person", {{"name", "A"}, {"email", "same@example.org"}});
  g.create_vertex("Person", {{"name", "B"}, {"email", "same@example.org"}});
  g.create_vertex("Person", {{"name", "C"}});
  g.create_vertex("Person", {{"name", "D"}});  // C and D both lack email: no conflict
  const auto before = state_of(g);
  expect_error_naming<AlreadyExists>([&] { g.create_index("Person", "email", {.unique = true}); },
                                     {"Person", "email", "same@example.org"});
  EXPECT_EQ(g.indexes(), std::vector<IndexInfo>{});
  EXPECT_EQ(state_of(g), before);
  // No index was left behind: more duplicates are accepted, and a plain index can be created.
  g.create_vertex("Person", {{"name", "E"}, {"email", "same@example.org"}});
  EXPECT_TRUE(g.create_index("Person", "email"));
  EXPECT_EQ(g.indexes(), (std::vector<IndexInfo>{{"Person", "email", false}}));
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"email", "same@example.org"}})), (Strings{"A", "B", "E"}));

  // Duplicates among edges count too.
  const auto a = node(g, "a");
  link(g, a, a, "RATED", {{"stars", 5}});
  link(g, a, a, "RATED", {{"stars", 5}});
  expect_error_naming<AlreadyExists>([&] { g.create_index("RATED", "stars", {.unique = true}); },
                                     {"RATED", "stars", "5"});
  // Typed: int 1, double 1.0, "1" and true are four values; -0.0 equals 0.0.
  g.create_vertex("Score", {{"v", 1}});
  g.create_vertex("Score", {{"v", 1.0}});
  g.create_vertex("Score", {{"v", "1"}});
  g.create_vertex("Score", {{"v", true}});
  g.create_vertex("Score", {{"v", 0.0}});
  EXPECT_TRUE(g.create_index("Score", "v", {.unique = true}));
  expect_error_naming<AlreadyExists>([&] { g.create_vertex("Score", {{"v", -0.0}}); }, {"Score", "v"});
  ASSERT_TRUE(g.drop_index("Score", "v"));
  g.create_vertex("Score", {{"v", -0.0}});
  expect_error_naming<AlreadyExists>([&] { g.create_index("Score", "v", {.unique = true}); }, {"Score", "v"});
  EXPECT_EQ(g.indexes(), (std::vector<IndexInfo>{{"Person", "email", false}}));
}

// NOLINTEND(readability-function-cognitive-complexity)

}  // namespace propgraph::conformance
