// Conformance suite: the contract of propgraph::GraphOperations (operations.hpp, options.hpp and
// the "Semantics" section of the design), checked through the interface alone.
//
// A backend instantiates it with a factory type:
//
//   struct MyBackendFactory {
//     // A new instance bound to a new, empty graph. Instances from successive calls must not
//     // share elements: the suite looks up ids of one instance in another. Return nullptr to
//     // skip the test (for example when a database server is unreachable).
//     static std::unique_ptr<propgraph::GraphOperations> make();
//   };
//
//   #include "conformance_suite.hpp"
//   namespace propgraph::conformance {
//   INSTANTIATE_TEST_SUITE_P(MyBackend, GraphConformance, ::testing::Values(backend<MyBackendFactory>("MyGraph")),
//                            backend_name);
//   }
//
// in a test linked to the CMake target `propgraph_conformance` (the instantiation must sit in
// the suite's namespace). GraphConformance is a value-parameterized test whose parameter, a
// Backend (conformance_fixture.hpp), carries a name and a make function; backend<F>(name) makes
// one from a factory type, and ::testing::Values may list several. Every TEST_P registers
// itself: a new test needs no list. Tests are named `MyBackend/GraphConformance.<Test>/MyGraph`
// (backend_name puts the Backend's name last), in GoogleTest and, the discovery being told
// NO_PRETTY_VALUES, in CTest.
//
// This header defines the tests, so an executable includes it in exactly one source file (a
// second would define every test twice: the link fails). Its other files that instantiate the
// suite, or use the helpers, include conformance_fixture.hpp.
//
// Every test starts from its own make() and creates catalog graphs only under fresh random
// names. Expected values are worked out from the contract; comments show the reasoning. The
// helpers of conformance_fixture.hpp (make_people, node, link, render, names, state_of, page_of,
// walk_pages) are also meant for other tests. Some tests call one instance from several threads
// at once (the contract makes every backend thread-safe).
//
// This file holds the tests of the core calls. The calls for services (design: "Additions for
// services") are tested in headers of their own: lookup_section.hpp (find_vertex, find_edge,
// incident_edges, totals), paging_section.hpp, index_section.hpp, upsert_section.hpp and
// deadline_section.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance_fixture.hpp"
#include "deadline_section.hpp"
#include "index_section.hpp"
#include "limits_section.hpp"
#include "lookup_section.hpp"
#include "paging_section.hpp"
#include "query_section.hpp"
#include "transaction_section.hpp"
#include "upsert_section.hpp"

namespace propgraph::conformance {

// NOLINTBEGIN(readability-function-cognitive-complexity)

// == session =================================================================================

TEST_P(GraphConformance, SessionCreateDropAndExistsReportChanges) {
  auto& g = this->graph();
  const auto name = unique_graph_name();
  EXPECT_FALSE(g.graph_exists(name));
  EXPECT_TRUE(g.create_graph(name));
  EXPECT_TRUE(g.graph_exists(name));
  EXPECT_FALSE(g.create_graph(name)) << "second create of the same name";
  EXPECT_TRUE(g.drop_graph(name));
  EXPECT_FALSE(g.graph_exists(name));
  EXPECT_FALSE(g.drop_graph(name)) << "drop of a graph that no longer exists";
}

TEST_P(GraphConformance, SessionOtherGraphsLeaveTheBoundGraphAlone) {
  auto& g = this->graph();
  const auto people = make_people(g);
  const auto name = unique_graph_name();
  ASSERT_TRUE(g.create_graph(name));
  ASSERT_TRUE(g.drop_graph(name));
  EXPECT_EQ(g.count_vertices("Person"), 4);
  EXPECT_EQ(g.count_edges("KNOWS"), 3);
  EXPECT_EQ(g.find_vertex_by_id("Person", people.alice.id), people.alice);
}

TEST_P(GraphConformance, SessionGraphNameMustBeALabel) {
  auto& g = this->graph();
  EXPECT_THROW(g.create_graph(""), InvalidArgument);
  EXPECT_THROW(g.create_graph("not a label"), InvalidArgument);
  EXPECT_FALSE(g.graph_exists("not a label"));  // a lookup: false, no exception
  EXPECT_FALSE(g.graph_exists(""));
}

TEST_P(GraphConformance, LabelListsHoldLiveLabelsSorted) {
  auto& g = this->graph();
  EXPECT_EQ(g.vertex_labels(), Strings{});
  EXPECT_EQ(g.edge_labels(), Strings{});
  const auto p = make_people(g);
  EXPECT_EQ(g.vertex_labels(), Strings{"Person"});
  EXPECT_EQ(g.edge_labels(), (Strings{"FOLLOWS", "KNOWS"}));
  // Bytewise: upper case sorts before lower case, "_" between them.
  const auto robot = node(g, "r", "Robot");
  node(g, "a", "apple");
  node(g, "u", "_under");
  EXPECT_EQ(g.vertex_labels(), (Strings{"Person", "Robot", "_under", "apple"}));
  // Failed writes add no label.
  EXPECT_THROW(g.create_edge(p.alice.id, ElementId("garbage"), "GHOST"), NotFound);
  EXPECT_THROW(g.create_vertex("not a label"), InvalidArgument);
  EXPECT_EQ(g.edge_labels(), (Strings{"FOLLOWS", "KNOWS"}));
  // A label whose last element goes is no longer listed, also when delete_vertex takes edges.
  link(g, robot, p.alice, "OWNS");
  EXPECT_EQ(g.edge_labels(), (Strings{"FOLLOWS", "KNOWS", "OWNS"}));
  ASSERT_TRUE(g.delete_vertex("Robot", robot.id));
  EXPECT_EQ(g.vertex_labels(), (Strings{"Person", "_under", "apple"}));
  EXPECT_EQ(g.edge_labels(), (Strings{"FOLLOWS", "KNOWS"}));
  ASSERT_TRUE(g.delete_edge("FOLLOWS", p.alice_follows_charlie.id));
  EXPECT_EQ(g.edge_labels(), Strings{"KNOWS"});
}

// == vertices ================================================================================

TEST_P(GraphConformance, CreateVertexReturnsWhatFindReturns) {
  auto& g = this->graph();
  const auto alice = g.create_vertex("Person", {{"name", "Alice"}, {"age", 30}});
  EXPECT_FALSE(alice.id.empty());
  EXPECT_EQ(alice.label, "Person");
  EXPECT_EQ(alice.properties, (Properties{{"age", 30}, {"name", "Alice"}}));
  EXPECT_EQ(g.find_vertex_by_id("Person", alice.id), alice);
  EXPECT_EQ(g.count_vertices("Person"), 1);
}

TEST_P(GraphConformance, CreateVertexDropsNullProperties) {
  auto& g = this->graph();
  const auto v = g.create_vertex("Person", {{"name", "Alice"}, {"nickname", nullptr}});
  EXPECT_EQ(v.properties, (Properties{{"name", "Alice"}}));
  ASSERT_TRUE(g.find_vertex_by_id("Person", v.id));
  EXPECT_FALSE(g.find_vertex_by_id("Person", v.id)->properties.contains("nickname"));
}

TEST_P(GraphConformance, PropertyValuesKeepTheirTypes) {
  auto& g = this->graph();
  const Properties props{{"int", 30},
                         {"double", 30.0},
                         {"string", "30"},
                         {"bool", true},
                         {"negative", -7},
                         {"max", INT64_MAX},
                         {"fraction", 0.1},
                         {"empty", ""},
                         {"quote", "a\"b\\c\n"},
                         {"list", Value::list({1, "two", 3.5, false, Value::list({})})}};
  const auto v = g.create_vertex("Thing", props);
  const auto found = g.find_vertex_by_id("Thing", v.id);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->properties, props);
  EXPECT_TRUE(found->properties["int"].is_int());
  EXPECT_TRUE(found->properties["double"].is_double());
  const auto e = g.create_edge(v.id, v.id, "SELF", props);
  EXPECT_EQ(g.find_edge_by_id("SELF", e.id)->properties, props);
}

TEST_P(GraphConformance, CreateVertexRejectsBadLabelsAndChangesNothing) {
  auto& g = this->graph();
  make_people(g);
  const std::vector<std::string> bad_labels{"",         " ",      "Person ",  "1Person",           "Per son",
                                            "Person-x", "Pérson", "Person\n", std::string(64, 'a')};
  for (const auto& label : bad_labels) {
    EXPECT_THROW(g.create_vertex(label, {{"name", "X"}}), InvalidArgument) << "label \"" << label << "\"";
  }
  EXPECT_EQ(g.count_vertices("Person"), 4);
  EXPECT_EQ(total_vertices(g), 4u);
  // The boundaries of the label rule are accepted.
  EXPECT_NO_THROW(g.create_vertex(std::string(63, 'a')));
  EXPECT_NO_THROW(g.create_vertex("_x9"));
  EXPECT_EQ(total_vertices(g), 6u);
}

TEST_P(GraphConformance, UnknownAndMalformedIdsFindNothing) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const auto gone = g.create_vertex("Person", {{"name", "Gone"}});
  ASSERT_TRUE(g.delete_vertex("Person", gone.id));
  auto other = this->other_instance();
  ASSERT_NE(other, nullptr);
  const auto foreign = other->create_vertex("Person", {{"name", "Foreign"}});
  const auto foreign_a = other->create_vertex("Person", {{"name", "ForeignA"}});
  const auto foreign_edge = other->create_edge(foreign.id, foreign_a.id, "KNOWS");

  const std::vector<std::pair<std::string, ElementId>> missing{{"garbage", ElementId("garbage")},
                                                               {"empty", ElementId("")},
                                                               {"deleted vertex", gone.id},
                                                               {"edge id used as a vertex id", p.alice_knows_bob.id},
                                                               {"vertex of another instance", foreign.id},
                                                               {"edge of another instance", foreign_edge.id}};
  for (const auto& [what, id] : missing) {
    SCOPED_TRACE(what);
    EXPECT_FALSE(g.find_vertex_by_id("Person", id));
    EXPECT_FALSE(g.update_vertex("Person", id, {{"age", 1}}));
    EXPECT_FALSE(g.delete_vertex("Person", id));
    EXPECT_TRUE(g.neighbors(id, {.direction = Direction::both}).empty());
    EXPECT_FALSE(g.shortest_path(id, p.alice.id));
    EXPECT_FALSE(g.shortest_path(p.alice.id, id));
    EXPECT_TRUE(g.all_paths(id, p.alice.id).empty());
    EXPECT_FALSE(g.degree_centrality(id));
    EXPECT_TRUE(g.bfs(id).empty());
    EXPECT_TRUE(g.dfs(id).empty());
  }
  const std::vector<std::pair<std::string, ElementId>> missing_edges{{"garbage", ElementId("garbage")},
                                                                     {"empty", ElementId("")},
                                                                     {"vertex id used as an edge id", p.alice.id},
                                                                     {"edge of another instance", foreign_edge.id}};
  for (const auto& [what, id] : missing_edges) {
    SCOPED_TRACE(what);
    EXPECT_FALSE(g.find_edge_by_id("KNOWS", id));
    EXPECT_FALSE(g.update_edge("KNOWS", id, {{"since", 1}}));
    EXPECT_FALSE(g.delete_edge("KNOWS", id));
  }
  EXPECT_EQ(g.count_vertices("Person"), 4);
  EXPECT_EQ(g.count_edges("KNOWS"), 3);
  // The other instance is untouched too.
  EXPECT_EQ(other->count_vertices("Person"), 2);
  EXPECT_EQ(other->find_vertex_by_id("Person", foreign.id), foreign);
}

TEST_P(GraphConformance, LabelMismatchFindsNothing) {
  auto& g = this->graph();
  const auto p = make_people(g);
  EXPECT_FALSE(g.find_vertex_by_id("Robot", p.alice.id));
  EXPECT_FALSE(g.update_vertex("Robot", p.alice.id, {{"age", 99}}));
  EXPECT_FALSE(g.delete_vertex("Robot", p.alice.id));
  EXPECT_EQ(g.find_vertex_by_id("Person", p.alice.id), p.alice) << "mismatched writes changed it";
  EXPECT_EQ(g.count_vertices("Robot"), 0);

  EXPECT_FALSE(g.find_edge_by_id("FOLLOWS", p.alice_knows_bob.id));
  EXPECT_FALSE(g.update_edge("FOLLOWS", p.alice_knows_bob.id, {{"since", 1999}}));
  EXPECT_FALSE(g.delete_edge("FOLLOWS", p.alice_knows_bob.id));
  EXPECT_EQ(g.find_edge_by_id("KNOWS", p.alice_knows_bob.id), p.alice_knows_bob);
  EXPECT_EQ(g.count_edges("KNOWS"), 3);
}

TEST_P(GraphConformance, MalformedLabelsInLookupsFindNothing) {
  auto& g = this->graph();
  const auto p = make_people(g);
  EXPECT_FALSE(g.find_vertex_by_id("", p.alice.id));
  EXPECT_FALSE(g.find_vertex_by_id("not a label", p.alice.id));
  EXPECT_TRUE(g.find_vertices_by_label("").empty());
  EXPECT_TRUE(g.find_vertices_by_label("1x").empty());
  EXPECT_EQ(g.count_vertices(""), 0);
  EXPECT_FALSE(g.find_edge_by_id("", p.alice_knows_bob.id));
  EXPECT_TRUE(g.find_edges_by_label("not a label").empty());
  EXPECT_EQ(g.count_edges(""), 0);
}

TEST_P(GraphConformance, FindVerticesFiltersWithTypedEquality) {
  auto& g = this->graph();
  g.create_vertex("Person", {{"name", "int"}, {"age", 30}});
  g.create_vertex("Person", {{"name", "double"}, {"age", 30.0}});
  g.create_vertex("Person", {{"name", "string"}, {"age", "30"}});
  g.create_vertex("Person", {{"name", "other"}, {"age", 31}});
  g.create_vertex("Person", {{"name", "ageless"}});
  g.create_vertex("Person", {{"name", "bool"}, {"age", true}});
  g.create_vertex("Robot", {{"name", "robot"}, {"age", 30}});

  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"age", 30}})), Strings{"int"});
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"age", 30.0}})), Strings{"double"});
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"age", "30"}})), Strings{"string"});
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"age", 1}})), Strings{});
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"age", true}})), Strings{"bool"});
  // A null filter value matches an absent key.
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"age", nullptr}})), Strings{"ageless"});
  // Every filter entry must match.
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"age", 30}, {"name", "int"}})), Strings{"int"});
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"age", 30}, {"name", "double"}})), Strings{});
  // The empty filter matches every vertex of the label, ascending id = creation order.
  EXPECT_EQ(names(g.find_vertices_by_label("Person")),
            (Strings{"int", "double", "string", "other", "ageless", "bool"}));
  EXPECT_EQ(names(g.find_vertices_by_label("Robot", {{"age", 30}})), Strings{"robot"});
}

TEST_P(GraphConformance, ResultsAreSortedById) {
  auto& g = this->graph();
  // Twelve of each, so numbered ids cross a digit boundary (shortlex, not plain string order).
  std::vector<Vertex> vertices;
  for (int i = 0; i < 12; ++i) vertices.push_back(node(g, fmt::format("n{}", i)));
  std::vector<Edge> edges;
  for (int i = 0; i < 12; ++i) edges.push_back(link(g, vertices[i], vertices[(i + 1) % 12]));
  for (std::size_t i = 1; i < vertices.size(); ++i) {
    EXPECT_LT(vertices[i - 1].id, vertices[i].id) << "ids must ascend in creation order";
    EXPECT_LT(edges[i - 1].id, edges[i].id) << "ids must ascend in creation order";
  }
  EXPECT_EQ(ids_of(g.find_vertices_by_label("Node")), ids_of(vertices));
  EXPECT_EQ(ids_of(g.find_edges_by_label("LINK")), ids_of(edges));
  // Other id-ordered results: neighbours and component members.
  // Around the ring from n0: every other vertex, ascending id.
  const std::vector<Vertex> rest(vertices.begin() + 1, vertices.end());
  EXPECT_EQ(ids_of(g.neighbors(vertices[0].id, {.max_depth = 12})), ids_of(rest));
  const auto components = g.connected_components();
  ASSERT_EQ(components.size(), 1u);
  EXPECT_EQ(ids_of(components[0].vertices), ids_of(vertices));
}

TEST_P(GraphConformance, UpdateVertexMergesAndNullRemoves) {
  auto& g = this->graph();
  const auto v = g.create_vertex("Person", {{"name", "Alice"}, {"age", 30}, {"city", "Paris"}});
  const auto updated = g.update_vertex("Person", v.id, {{"age", 31}, {"city", nullptr}, {"email", "a@x.org"}});
  ASSERT_TRUE(updated);
  EXPECT_EQ(updated->id, v.id);
  EXPECT_EQ(updated->label, "Person");
  EXPECT_EQ(updated->properties, (Properties{{"age", 31}, {"email", "a@x.org"}, {"name", "Alice"}}));
  EXPECT_EQ(g.find_vertex_by_id("Person", v.id), updated);
  // An empty patch and removing an absent key change nothing.
  EXPECT_EQ(g.update_vertex("Person", v.id, {}), updated);
  EXPECT_EQ(g.update_vertex("Person", v.id, {{"nothing", nullptr}}), updated);
  // A value may change type.
  const auto retyped = g.update_vertex("Person", v.id, {{"age", 31.0}});
  ASSERT_TRUE(retyped);
  EXPECT_TRUE(retyped->properties["age"].is_double());
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"age", 31}})), Strings{});
  EXPECT_EQ(names(g.find_vertices_by_label("Person", {{"age", 31.0}})), Strings{"Alice"});
}

TEST_P(GraphConformance, DeleteVertexRemovesIncidentEdges) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const auto loop = link(g, p.charlie, p.charlie, "LIKES");
  ASSERT_TRUE(g.delete_vertex("Person", p.charlie.id));
  EXPECT_FALSE(g.delete_vertex("Person", p.charlie.id)) << "second delete";
  EXPECT_FALSE(g.find_vertex_by_id("Person", p.charlie.id));
  EXPECT_EQ(g.count_vertices("Person"), 3);
  // Charlie was an endpoint of Bob->Charlie, Charlie->Dave, Alice->Charlie and its self-loop.
  EXPECT_FALSE(g.find_edge_by_id("KNOWS", p.bob_knows_charlie.id));
  EXPECT_FALSE(g.find_edge_by_id("KNOWS", p.charlie_knows_dave.id));
  EXPECT_FALSE(g.find_edge_by_id("FOLLOWS", p.alice_follows_charlie.id));
  EXPECT_FALSE(g.find_edge_by_id("LIKES", loop.id));
  EXPECT_EQ(g.find_edge_by_id("KNOWS", p.alice_knows_bob.id), p.alice_knows_bob);
  EXPECT_EQ(g.count_edges("KNOWS"), 1);
  EXPECT_EQ(g.count_edges("FOLLOWS"), 0);
  EXPECT_EQ(g.count_edges("LIKES"), 0);
  EXPECT_EQ(total_edges(g), 1);
  EXPECT_EQ(names(g.neighbors(p.bob.id, {.direction = Direction::both})), Strings{"Alice"});
  EXPECT_EQ(g.degree_centrality(p.dave.id), (Degree{p.dave.id, 0, 0}));
}

TEST_P(GraphConformance, CountsArePerLabel) {
  auto& g = this->graph();
  const auto p = make_people(g);
  node(g, "r1", "Robot");
  node(g, "r2", "Robot");
  EXPECT_EQ(g.count_vertices("Person"), 4);
  EXPECT_EQ(g.count_vertices("Robot"), 2);
  EXPECT_EQ(g.count_vertices("Nobody"), 0);
  EXPECT_EQ(g.count_edges("KNOWS"), 3);
  EXPECT_EQ(g.count_edges("FOLLOWS"), 1);
  EXPECT_EQ(g.count_edges("LIKES"), 0);
  ASSERT_TRUE(g.delete_edge("KNOWS", p.alice_knows_bob.id));
  EXPECT_EQ(g.count_edges("KNOWS"), 2);
}

// == edges ===================================================================================

TEST_P(GraphConformance, CreateEdgeReturnsWhatFindReturns) {
  auto& g = this->graph();
  const auto a = node(g, "a");
  const auto b = node(g, "b");
  const auto e = g.create_edge(a.id, b.id, "KNOWS", {{"since", 2020}, {"note", nullptr}});
  EXPECT_FALSE(e.id.empty());
  EXPECT_EQ(e.label, "KNOWS");
  EXPECT_EQ(e.from, a.id);
  EXPECT_EQ(e.to, b.id);
  EXPECT_EQ(e.properties, (Properties{{"since", 2020}})) << "null properties are dropped";
  EXPECT_EQ(g.find_edge_by_id("KNOWS", e.id), e);
  // Self-loops and parallel edges are ordinary edges.
  const auto loop = g.create_edge(a.id, a.id, "KNOWS");
  const auto parallel = g.create_edge(a.id, b.id, "KNOWS");
  EXPECT_EQ(loop.from, loop.to);
  EXPECT_NE(parallel.id, e.id);
  EXPECT_EQ(g.count_edges("KNOWS"), 3);
  EXPECT_EQ(ids_of(g.find_edges_by_label("KNOWS")), (std::vector{e.id, loop.id, parallel.id}));
}

TEST_P(GraphConformance, CreateEdgeWithMissingEndpointThrowsNotFound) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const auto gone = g.create_vertex("Person", {{"name", "Gone"}});
  ASSERT_TRUE(g.delete_vertex("Person", gone.id));
  auto other = this->other_instance();
  ASSERT_NE(other, nullptr);
  const auto foreign = other->create_vertex("Person", {{"name", "Foreign"}});

  for (const auto& missing : {ElementId("garbage"), ElementId(""), gone.id, foreign.id, p.alice_knows_bob.id}) {
    SCOPED_TRACE(missing.str());
    EXPECT_THROW(g.create_edge(missing, p.bob.id, "LINK"), NotFound);
    EXPECT_THROW(g.create_edge(p.alice.id, missing, "LINK"), NotFound);
    EXPECT_THROW(g.create_edge(missing, missing, "LINK"), NotFound);
  }
  EXPECT_EQ(g.count_edges("LINK"), 0);
  EXPECT_EQ(total_edges(g), 4);
  EXPECT_EQ(g.degree_centrality(p.alice.id), (Degree{p.alice.id, 0, 2}));
  EXPECT_EQ(g.degree_centrality(p.bob.id), (Degree{p.bob.id, 1, 1}));
}

TEST_P(GraphConformance, CreateEdgeRejectsBadLabelsAndChangesNothing) {
  auto& g = this->graph();
  const auto p = make_people(g);
  for (const std::string label : {"", " ", "has space", "9lives", "KNOWS!", "KNÖWS"}) {
    EXPECT_THROW(g.create_edge(p.alice.id, p.bob.id, label), InvalidArgument) << "label \"" << label << "\"";
  }
  EXPECT_EQ(total_edges(g), 4);
  EXPECT_EQ(g.degree_centrality(p.alice.id), (Degree{p.alice.id, 0, 2}));
}

TEST_P(GraphConformance, BulkCreateReturnsIdsInInputOrder) {
  auto& g = this->graph();
  const std::vector<NewVertex> people{
      {"Person", {{"name", "Ann"}}}, {"Person", {{"name", "Ben"}, {"x", nullptr}}}, {"Robot", {}}};
  const auto ids = g.create_vertices(people);
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(name_of(*g.find_vertex_by_id("Person", ids[0])), "Ann");
  EXPECT_EQ(g.find_vertex_by_id("Person", ids[1])->properties, (Properties{{"name", "Ben"}}));
  EXPECT_TRUE(g.find_vertex_by_id("Robot", ids[2]));
  EXPECT_TRUE(ids[0] < ids[1] && ids[1] < ids[2]) << "ids follow creation order";
  const std::vector<NewEdge> links{{ids[0], ids[1], "KNOWS", {{"since", 2020}}}, {ids[2], ids[2], "SELF", {}}};
  const auto edge_ids = g.create_edges(links);
  ASSERT_EQ(edge_ids.size(), 2u);
  const auto knows = g.find_edge_by_id("KNOWS", edge_ids[0]);
  ASSERT_TRUE(knows);
  EXPECT_EQ(knows->from, ids[0]);
  EXPECT_EQ(knows->to, ids[1]);
  EXPECT_EQ(knows->properties, (Properties{{"since", 2020}}));
  EXPECT_TRUE(g.find_edge_by_id("SELF", edge_ids[1]));
}

TEST_P(GraphConformance, BulkCreateIsAllOrNothing) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const std::vector<NewVertex> bad_label{{"Person", {}}, {"not a label", {}}};
  EXPECT_THROW(g.create_vertices(bad_label), InvalidArgument);
  EXPECT_EQ(g.count_vertices("Person"), 4);
  const std::vector<NewEdge> missing_end{{p.alice.id, p.bob.id, "KNOWS", {}},
                                         {p.alice.id, ElementId("no-such-vertex"), "KNOWS", {}}};
  EXPECT_THROW(g.create_edges(missing_end), NotFound);
  const std::vector<NewEdge> bad_edge_label{{p.alice.id, p.bob.id, "KNOWS", {}}, {p.bob.id, p.alice.id, "", {}}};
  EXPECT_THROW(g.create_edges(bad_edge_label), InvalidArgument);
  EXPECT_EQ(total_edges(g), 4);
  EXPECT_EQ(g.degree_centrality(p.alice.id), (Degree{p.alice.id, 0, 2}));
  EXPECT_TRUE(g.create_vertices(std::vector<NewVertex>{}).empty());
}

TEST_P(GraphConformance, UpdateEdgeMergesAndNullRemoves) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const auto updated =
      g.update_edge("KNOWS", p.alice_knows_bob.id, {{"since", nullptr}, {"weight", 0.5}, {"via", "school"}});
  ASSERT_TRUE(updated);
  EXPECT_EQ(updated->id, p.alice_knows_bob.id);
  EXPECT_EQ(updated->label, "KNOWS");
  EXPECT_EQ(updated->from, p.alice.id);
  EXPECT_EQ(updated->to, p.bob.id);
  EXPECT_EQ(updated->properties, (Properties{{"via", "school"}, {"weight", 0.5}}));
  EXPECT_EQ(g.find_edge_by_id("KNOWS", p.alice_knows_bob.id), updated);
  EXPECT_EQ(g.update_edge("KNOWS", p.alice_knows_bob.id, {}), updated);
}

TEST_P(GraphConformance, DeleteEdgeKeepsItsEndpoints) {
  auto& g = this->graph();
  const auto p = make_people(g);
  ASSERT_TRUE(g.delete_edge("FOLLOWS", p.alice_follows_charlie.id));
  EXPECT_FALSE(g.delete_edge("FOLLOWS", p.alice_follows_charlie.id)) << "second delete";
  EXPECT_FALSE(g.find_edge_by_id("FOLLOWS", p.alice_follows_charlie.id));
  EXPECT_EQ(g.count_edges("FOLLOWS"), 0);
  EXPECT_EQ(g.count_vertices("Person"), 4);
  EXPECT_EQ(g.find_vertex_by_id("Person", p.alice.id), p.alice);
  EXPECT_EQ(g.find_vertex_by_id("Person", p.charlie.id), p.charlie);
  EXPECT_EQ(names(g.neighbors(p.alice.id)), Strings{"Bob"});
}

TEST_P(GraphConformance, FindEdgesFiltersWithTypedEquality) {
  auto& g = this->graph();
  const auto a = node(g, "a");
  const auto as_int = link(g, a, a, "SINCE", {{"since", 2020}});
  const auto as_double = link(g, a, a, "SINCE", {{"since", 2020.0}});
  const auto as_string = link(g, a, a, "SINCE", {{"since", "2020"}});
  const auto without = link(g, a, a, "SINCE");
  EXPECT_EQ(ids_of(g.find_edges_by_label("SINCE", {{"since", 2020}})), std::vector{as_int.id});
  EXPECT_EQ(ids_of(g.find_edges_by_label("SINCE", {{"since", 2020.0}})), std::vector{as_double.id});
  EXPECT_EQ(ids_of(g.find_edges_by_label("SINCE", {{"since", "2020"}})), std::vector{as_string.id});
  EXPECT_EQ(ids_of(g.find_edges_by_label("SINCE", {{"since", nullptr}})), std::vector{without.id});
  EXPECT_EQ(ids_of(g.find_edges_by_label("SINCE")), (std::vector{as_int.id, as_double.id, as_string.id, without.id}));
  EXPECT_TRUE(g.find_edges_by_label("LINK", {{"since", 2020}}).empty());
}

// == neighbors ===============================================================================

TEST_P(GraphConformance, NeighborsFollowDirection) {
  auto& g = this->graph();
  const auto p = make_people(g);
  // Alice's out-edges: KNOWS->Bob, FOLLOWS->Charlie.
  EXPECT_EQ(names(g.neighbors(p.alice.id)), (Strings{"Bob", "Charlie"}));
  EXPECT_EQ(names(g.neighbors(p.dave.id)), Strings{});
  EXPECT_EQ(names(g.neighbors(p.dave.id, {.direction = Direction::in})), Strings{"Charlie"});
  EXPECT_EQ(names(g.neighbors(p.charlie.id, {.direction = Direction::in})), (Strings{"Alice", "Bob"}));
  EXPECT_EQ(names(g.neighbors(p.charlie.id, {.direction = Direction::out})), Strings{"Dave"});
  EXPECT_EQ(names(g.neighbors(p.charlie.id, {.direction = Direction::both})), (Strings{"Alice", "Bob", "Dave"}));
}

TEST_P(GraphConformance, NeighborsAtDepthTwoAreDeduplicated) {
  auto& g = this->graph();
  const auto p = make_people(g);
  // Charlie is one hop (FOLLOWS) and two hops (via Bob) from Alice: listed once.
  EXPECT_EQ(names(g.neighbors(p.alice.id, {.max_depth = 2})), (Strings{"Bob", "Charlie", "Dave"}));
  EXPECT_EQ(names(g.neighbors(p.alice.id, {.max_depth = 3})), (Strings{"Bob", "Charlie", "Dave"}));
  // In-edges: Dave <- Charlie <- {Bob, Alice}.
  EXPECT_EQ(names(g.neighbors(p.dave.id, {.direction = Direction::in, .max_depth = 2})),
            (Strings{"Alice", "Bob", "Charlie"}));
  EXPECT_EQ(names(g.neighbors(p.bob.id, {.max_depth = 2})), (Strings{"Charlie", "Dave"}));
}

TEST_P(GraphConformance, NeighborsFilterByEdgeLabel) {
  auto& g = this->graph();
  const auto p = make_people(g);
  EXPECT_EQ(names(g.neighbors(p.alice.id, {.edge_label = "KNOWS"})), Strings{"Bob"});
  EXPECT_EQ(names(g.neighbors(p.alice.id, {.edge_label = "KNOWS", .max_depth = 2})), (Strings{"Bob", "Charlie"}));
  // Charlie's only out-edge is KNOWS, which a FOLLOWS traversal does not take.
  EXPECT_EQ(names(g.neighbors(p.alice.id, {.edge_label = "FOLLOWS", .max_depth = 2})), Strings{"Charlie"});
  EXPECT_EQ(names(g.neighbors(p.charlie.id, {.edge_label = "FOLLOWS", .direction = Direction::in})), Strings{"Alice"});
  EXPECT_EQ(names(g.neighbors(p.alice.id, {.edge_label = "NONE"})), Strings{});
}

TEST_P(GraphConformance, NeighborsNeverIncludeTheStart) {
  auto& g = this->graph();
  const auto p = make_people(g);
  // Two hops from Bob in both directions lead back to Bob (via Alice or Charlie).
  EXPECT_EQ(names(g.neighbors(p.bob.id, {.direction = Direction::both, .max_depth = 2})),
            (Strings{"Alice", "Charlie", "Dave"}));
  const auto x = node(g, "x");
  const auto y = node(g, "y");
  link(g, x, x);
  link(g, x, y);
  link(g, y, x);
  EXPECT_EQ(names(g.neighbors(x.id)), Strings{"y"});
  EXPECT_EQ(names(g.neighbors(x.id, {.max_depth = 2})), Strings{"y"});
  EXPECT_EQ(names(g.neighbors(y.id, {.max_depth = 3})), Strings{"x"});
}

TEST_P(GraphConformance, NeighborsAreSortedByIdNotDiscoveryOrder) {
  auto& g = this->graph();
  const auto s = node(g, "s");
  const auto p = node(g, "p");
  const auto q = node(g, "q");
  link(g, s, q);  // q is discovered first ...
  link(g, s, p);
  EXPECT_EQ(names(g.neighbors(s.id)), (Strings{"p", "q"}));  // ... p has the smaller id
}

// == shortest_path ===========================================================================

TEST_P(GraphConformance, ShortestPathHasFewestEdges) {
  auto& g = this->graph();
  const auto p = make_people(g);
  // Alice->Charlie->Dave (2 edges) beats Alice->Bob->Charlie->Dave (3).
  const auto path = g.shortest_path(p.alice.id, p.dave.id);
  ASSERT_TRUE(path);
  EXPECT_EQ(render(*path), "Alice -FOLLOWS-> Charlie -KNOWS-> Dave");
  EXPECT_EQ(path->length(), 2u);
  EXPECT_EQ(ids_of(path->edges), (std::vector{p.alice_follows_charlie.id, p.charlie_knows_dave.id}));
  // Path elements are full snapshots.
  EXPECT_EQ(path->vertices.front(), p.alice);
  EXPECT_EQ(path->vertices.back(), p.dave);
  EXPECT_EQ(path->edges.front(), p.alice_follows_charlie);
  // The benchmark's call.
  EXPECT_EQ(g.shortest_path(p.alice.id, p.dave.id, {.max_depth = 4}), path);
}

TEST_P(GraphConformance, ShortestPathFollowsDirection) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const auto out = g.shortest_path(p.alice.id, p.dave.id, {.direction = Direction::out});
  ASSERT_TRUE(out);
  EXPECT_EQ(render(*out), "Alice -FOLLOWS-> Charlie -KNOWS-> Dave");
  EXPECT_FALSE(g.shortest_path(p.alice.id, p.dave.id, {.direction = Direction::in}));
  EXPECT_FALSE(g.shortest_path(p.dave.id, p.alice.id, {.direction = Direction::out}));
  const auto in = g.shortest_path(p.dave.id, p.alice.id, {.direction = Direction::in});
  ASSERT_TRUE(in);
  EXPECT_EQ(render(*in), "Dave <-KNOWS- Charlie <-FOLLOWS- Alice");
  // The default direction is both.
  const auto both = g.shortest_path(p.dave.id, p.alice.id);
  ASSERT_TRUE(both);
  EXPECT_EQ(render(*both), "Dave <-KNOWS- Charlie <-FOLLOWS- Alice");
}

TEST_P(GraphConformance, ShortestPathFiltersByEdgeLabelWithinMaxDepth) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const auto knows = g.shortest_path(p.alice.id, p.dave.id, {.edge_label = "KNOWS"});
  ASSERT_TRUE(knows);
  EXPECT_EQ(render(*knows), "Alice -KNOWS-> Bob -KNOWS-> Charlie -KNOWS-> Dave");
  EXPECT_FALSE(g.shortest_path(p.alice.id, p.dave.id, {.edge_label = "FOLLOWS"}));
  EXPECT_FALSE(g.shortest_path(p.alice.id, p.dave.id, {.max_depth = 1}));
  EXPECT_FALSE(g.shortest_path(p.alice.id, p.dave.id, {.edge_label = "KNOWS", .max_depth = 2}));
  EXPECT_TRUE(g.shortest_path(p.alice.id, p.dave.id, {.edge_label = "KNOWS", .max_depth = 3}));
}

TEST_P(GraphConformance, ShortestPathToItselfHasZeroLength) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const auto path = g.shortest_path(p.alice.id, p.alice.id);
  ASSERT_TRUE(path);
  EXPECT_EQ(path->length(), 0u);
  EXPECT_EQ(path->vertices, std::vector{p.alice});
  EXPECT_TRUE(path->edges.empty());
}

TEST_P(GraphConformance, ShortestPathWithoutPathIsEmpty) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const auto eve = g.create_vertex("Person", {{"name", "Eve"}});
  EXPECT_FALSE(g.shortest_path(p.alice.id, eve.id));
  EXPECT_FALSE(g.shortest_path(eve.id, p.alice.id));
  EXPECT_FALSE(g.shortest_path(p.alice.id, eve.id, {.weight_property = "w"}));
  EXPECT_TRUE(g.all_paths(p.alice.id, eve.id).empty());
}

TEST_P(GraphConformance, ShortestPathTieGoesToLowerEdgeIds) {
  auto& g = this->graph();
  const auto s = node(g, "S");
  const auto p = node(g, "P");
  const auto q = node(g, "Q");
  const auto t = node(g, "T");
  // Two 2-edge paths. S's first edge (by id) leads to Q, so the path through Q is found first,
  // although P has the smaller vertex id.
  link(g, s, q);
  link(g, s, p);
  link(g, p, t);
  link(g, q, t);
  for (auto direction : {Direction::out, Direction::both}) {
    const auto path = g.shortest_path(s.id, t.id, {.direction = direction});
    ASSERT_TRUE(path);
    EXPECT_EQ(render(*path), "S -LINK-> Q -LINK-> T");
  }
}

TEST_P(GraphConformance, WeightedShortestPathPrefersCheaperLongerPath) {
  auto& g = this->graph();
  const auto s = node(g, "S");
  const auto a = node(g, "A");
  const auto b = node(g, "B");
  const auto t = node(g, "T");
  link(g, s, a, "ROAD", {{"km", 1}});
  link(g, a, b, "ROAD", {{"km", 1.5}});
  link(g, b, t, "ROAD", {{"km", 1}});
  link(g, s, t, "ROAD", {{"km", 5.0}});
  // Unweighted: one edge. Weighted: 1 + 1.5 + 1 = 3.5 < 5.
  const auto fewest = g.shortest_path(s.id, t.id);
  ASSERT_TRUE(fewest);
  EXPECT_EQ(render(*fewest), "S -ROAD-> T");
  const auto cheapest = g.shortest_path(s.id, t.id, {.weight_property = "km"});
  ASSERT_TRUE(cheapest);
  EXPECT_EQ(render(*cheapest), "S -ROAD-> A -ROAD-> B -ROAD-> T");
  // max_depth does not bound a weighted search.
  const auto deep = g.shortest_path(s.id, t.id, {.max_depth = 1, .weight_property = "km"});
  ASSERT_TRUE(deep);
  EXPECT_EQ(render(*deep), "S -ROAD-> A -ROAD-> B -ROAD-> T");
  // Direction still applies: backwards along out-edges there is nothing.
  EXPECT_FALSE(g.shortest_path(t.id, s.id, {.direction = Direction::out, .weight_property = "km"}));
}

TEST_P(GraphConformance, WeightedShortestPathCountsMissingWeightAsOne) {
  auto& g = this->graph();
  const auto s = node(g, "S");
  const auto x = node(g, "X");
  const auto t = node(g, "T");
  link(g, s, x, "ROAD");  // no weight: 1
  link(g, x, t, "ROAD");  // no weight: 1
  const auto direct = link(g, s, t, "ROAD", {{"km", 1.5}});
  // 1.5 < 1 + 1: the direct edge (a missing weight is not 0).
  auto path = g.shortest_path(s.id, t.id, {.weight_property = "km"});
  ASSERT_TRUE(path);
  EXPECT_EQ(render(*path), "S -ROAD-> T");
  // 2.5 > 1 + 1: through X (a missing weight is not "impassable" either).
  ASSERT_TRUE(g.update_edge("ROAD", direct.id, {{"km", 2.5}}));
  path = g.shortest_path(s.id, t.id, {.weight_property = "km"});
  ASSERT_TRUE(path);
  EXPECT_EQ(render(*path), "S -ROAD-> X -ROAD-> T");
}

TEST_P(GraphConformance, WeightedShortestPathRejectsNegativeOrNonNumericWeight) {
  auto& g = this->graph();
  const auto s = node(g, "S");
  const auto t = node(g, "T");
  const auto road = link(g, s, t, "ROAD", {{"km", -1.0}});
  EXPECT_THROW(g.shortest_path(s.id, t.id, {.weight_property = "km"}), InvalidArgument);
  ASSERT_TRUE(g.update_edge("ROAD", road.id, {{"km", -2}}));
  EXPECT_THROW(g.shortest_path(s.id, t.id, {.weight_property = "km"}), InvalidArgument);
  ASSERT_TRUE(g.update_edge("ROAD", road.id, {{"km", "far"}}));
  EXPECT_THROW(g.shortest_path(s.id, t.id, {.weight_property = "km"}), InvalidArgument);
  // Zero is a valid weight.
  ASSERT_TRUE(g.update_edge("ROAD", road.id, {{"km", 0}}));
  EXPECT_TRUE(g.shortest_path(s.id, t.id, {.weight_property = "km"}));
}

// == all_paths ===============================================================================

TEST_P(GraphConformance, AllPathsShortestFirst) {
  auto& g = this->graph();
  const auto p = make_people(g);
  // Direction both: the simple paths Alice..Dave all end Charlie->Dave; Charlie is reached
  // directly (FOLLOWS) or via Bob. Alice-Charlie-Bob is a dead end (Bob's edges go to visited
  // vertices).
  const Strings expected{"Alice -FOLLOWS-> Charlie -KNOWS-> Dave", "Alice -KNOWS-> Bob -KNOWS-> Charlie -KNOWS-> Dave"};
  EXPECT_EQ(render(g.all_paths(p.alice.id, p.dave.id)), expected);
  EXPECT_EQ(render(g.all_paths(p.alice.id, p.dave.id, {.max_depth = 4})), expected);
  EXPECT_EQ(render(g.all_paths(p.alice.id, p.dave.id, {.direction = Direction::out})), expected);
  EXPECT_EQ(render(g.all_paths(p.alice.id, p.dave.id, {.direction = Direction::in})), Strings{});
  EXPECT_EQ(render(g.all_paths(p.dave.id, p.alice.id, {.direction = Direction::in})),
            (Strings{"Dave <-KNOWS- Charlie <-FOLLOWS- Alice", "Dave <-KNOWS- Charlie <-KNOWS- Bob <-KNOWS- Alice"}));
  EXPECT_EQ(render(g.all_paths(p.alice.id, p.dave.id, {.edge_label = "KNOWS"})),
            Strings{"Alice -KNOWS-> Bob -KNOWS-> Charlie -KNOWS-> Dave"});
}

TEST_P(GraphConformance, AllPathsBoundedByMaxDepthAndMaxPaths) {
  auto& g = this->graph();
  const auto p = make_people(g);
  EXPECT_EQ(render(g.all_paths(p.alice.id, p.dave.id, {.max_depth = 2})),
            Strings{"Alice -FOLLOWS-> Charlie -KNOWS-> Dave"});
  EXPECT_EQ(render(g.all_paths(p.alice.id, p.dave.id, {.max_depth = 1})), Strings{});
  // The cap keeps the shortest: the result is a prefix of the uncapped one.
  EXPECT_EQ(render(g.all_paths(p.alice.id, p.dave.id, {.max_paths = 1})),
            Strings{"Alice -FOLLOWS-> Charlie -KNOWS-> Dave"});
}

TEST_P(GraphConformance, AllPathsTreatParallelEdgesAsDistinct) {
  auto& g = this->graph();
  const auto x = node(g, "X");
  const auto y = node(g, "Y");
  const auto z = node(g, "Z");
  const auto first = link(g, x, y);
  const auto second = link(g, x, y);
  const auto last = link(g, y, z);
  const auto paths = g.all_paths(x.id, z.id);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(ids_of(paths[0].edges), (std::vector{first.id, last.id}));
  EXPECT_EQ(ids_of(paths[1].edges), (std::vector{second.id, last.id}));
}

TEST_P(GraphConformance, AllPathsOfEqualLengthComeInEdgeIdOrder) {
  auto& g = this->graph();
  const auto s = node(g, "S");
  const auto p = node(g, "P");
  const auto q = node(g, "Q");
  const auto t = node(g, "T");
  link(g, s, q);  // S's lowest edge id leads to Q
  link(g, s, p);
  link(g, p, t);
  link(g, q, t);
  EXPECT_EQ(render(g.all_paths(s.id, t.id)), (Strings{"S -LINK-> Q -LINK-> T", "S -LINK-> P -LINK-> T"}));
}

TEST_P(GraphConformance, AllPathsCountEdgesEvenWithWeights) {
  auto& g = this->graph();
  const auto s = node(g, "S");
  const auto a = node(g, "A");
  const auto t = node(g, "T");
  link(g, s, a, "ROAD", {{"km", 1}});
  link(g, a, t, "ROAD", {{"km", 1}});
  link(g, s, t, "ROAD", {{"km", 9}});
  EXPECT_EQ(render(g.all_paths(s.id, t.id, {.weight_property = "km"})),
            (Strings{"S -ROAD-> T", "S -ROAD-> A -ROAD-> T"}));
}

// == bfs / dfs ===============================================================================

TEST_P(GraphConformance, BfsVisitsInLevelOrder) {
  auto& g = this->graph();
  const auto p = make_people(g);
  // Alice's out-edges in id order: KNOWS->Bob, FOLLOWS->Charlie; Dave is Charlie's child.
  const auto visits = g.bfs(p.alice.id);
  EXPECT_EQ(render(visits), (Strings{"Alice@0", "Bob@1<Alice", "Charlie@1<Alice", "Dave@2<Charlie"}));
  ASSERT_FALSE(visits.empty());
  EXPECT_EQ(visits.front().vertex, p.alice);
  EXPECT_EQ(visits.front().depth, 0);
  EXPECT_FALSE(visits.front().parent);
  ASSERT_EQ(visits.size(), 4u);
  EXPECT_EQ(visits[3].parent, p.charlie.id);
}

TEST_P(GraphConformance, DfsVisitsInPreOrder) {
  auto& g = this->graph();
  const auto p = make_people(g);
  // Alice -> Bob (first edge) -> Charlie -> Dave; Alice's FOLLOWS edge then finds Charlie seen.
  const auto visits = g.dfs(p.alice.id);
  EXPECT_EQ(render(visits), (Strings{"Alice@0", "Bob@1<Alice", "Charlie@2<Bob", "Dave@3<Charlie"}));
  ASSERT_FALSE(visits.empty());
  EXPECT_EQ(visits.front().vertex, p.alice);
  EXPECT_FALSE(visits.front().parent);
}

TEST_P(GraphConformance, TraversalsStopAtMaxDepthAndMaxVertices) {
  auto& g = this->graph();
  const auto p = make_people(g);
  EXPECT_EQ(render(g.bfs(p.alice.id, {.max_depth = 1})), (Strings{"Alice@0", "Bob@1<Alice", "Charlie@1<Alice"}));
  EXPECT_EQ(render(g.dfs(p.alice.id, {.max_depth = 2})), (Strings{"Alice@0", "Bob@1<Alice", "Charlie@2<Bob"}));
  EXPECT_EQ(render(g.bfs(p.alice.id, {.max_vertices = 2})), (Strings{"Alice@0", "Bob@1<Alice"}));
  EXPECT_EQ(render(g.dfs(p.alice.id, {.max_vertices = 3})), (Strings{"Alice@0", "Bob@1<Alice", "Charlie@2<Bob"}));
}

TEST_P(GraphConformance, TraversalsFollowDirectionAndEdgeLabel) {
  auto& g = this->graph();
  const auto p = make_people(g);
  // Charlie's in-edges in id order: Bob->Charlie, then Alice->Charlie (FOLLOWS, created last).
  EXPECT_EQ(render(g.bfs(p.dave.id, {.direction = Direction::in})),
            (Strings{"Dave@0", "Charlie@1<Dave", "Bob@2<Charlie", "Alice@2<Charlie"}));
  EXPECT_EQ(render(g.dfs(p.dave.id, {.direction = Direction::in})),
            (Strings{"Dave@0", "Charlie@1<Dave", "Bob@2<Charlie", "Alice@3<Bob"}));
  EXPECT_EQ(render(g.bfs(p.alice.id, {.edge_label = "KNOWS"})),
            (Strings{"Alice@0", "Bob@1<Alice", "Charlie@2<Bob", "Dave@3<Charlie"}));
  EXPECT_EQ(render(g.dfs(p.alice.id, {.edge_label = "FOLLOWS"})), (Strings{"Alice@0", "Charlie@1<Alice"}));
  EXPECT_EQ(render(g.bfs(p.dave.id)), Strings{"Dave@0"});
}

TEST_P(GraphConformance, TraversalsExpandEdgesInIdOrder) {
  auto& g = this->graph();
  const auto s = node(g, "S");
  const auto p = node(g, "P");
  const auto q = node(g, "Q");
  const auto r = node(g, "R");
  link(g, s, q);
  link(g, s, p);
  link(g, q, r);
  link(g, r, s);  // back to the start: not visited again
  link(g, s, s);  // self-loop: not visited again
  EXPECT_EQ(render(g.bfs(s.id)), (Strings{"S@0", "Q@1<S", "P@1<S", "R@2<Q"}));
  EXPECT_EQ(render(g.dfs(s.id)), (Strings{"S@0", "Q@1<S", "R@2<Q", "P@1<S"}));
}

TEST_P(GraphConformance, BothDirectionsExpandIncidentEdgesInIdOrder) {
  auto& g = this->graph();
  const auto p = make_people(g);
  // Bob's incident edges in id order: Alice->Bob (in), then Bob->Charlie (out).
  EXPECT_EQ(render(g.bfs(p.bob.id, {.direction = Direction::both})),
            (Strings{"Bob@0", "Alice@1<Bob", "Charlie@1<Bob", "Dave@2<Charlie"}));
  // From Alice the next unvisited edge is Alice->Charlie.
  EXPECT_EQ(render(g.dfs(p.bob.id, {.direction = Direction::both})),
            (Strings{"Bob@0", "Alice@1<Bob", "Charlie@2<Alice", "Dave@3<Charlie"}));

  auto other = this->other_instance();
  ASSERT_NE(other, nullptr);
  auto& h = *other;
  const auto s = node(h, "S");
  const auto a = node(h, "A");
  const auto b = node(h, "B");
  const auto t = node(h, "T");
  link(h, b, s);  // S's lowest edge id is an in-edge, to B
  link(h, s, a);
  link(h, a, t);
  link(h, b, t);
  const auto path = h.shortest_path(s.id, t.id);
  ASSERT_TRUE(path);
  EXPECT_EQ(render(*path), "S <-LINK- B -LINK-> T");
  EXPECT_EQ(render(h.all_paths(s.id, t.id)), (Strings{"S <-LINK- B -LINK-> T", "S -LINK-> A -LINK-> T"}));
}

// == page_rank ===============================================================================

// Expected scores are the fixed point of the damped walk with dangling rank spread evenly:
//   PR(v) = (1 - d)/N + d * (sum over u->v of PR(u)/out(u) + sum over dangling u of PR(u)/N),
// with d = 0.85, solved by hand for each small graph. Exact comparisons use many iterations and
// a tiny tolerance; with the defaults only order and sum are checked.
inline PageRankOptions converged() { return {.iterations = 1000, .tolerance = 1e-15}; }

TEST_P(GraphConformance, PageRankStarRanksTheHubFirst) {
  auto& g = this->graph();
  const auto hub = node(g, "hub");
  for (const char* name : {"l1", "l2", "l3", "l4"}) link(g, node(g, name), hub);
  // N = 5, hub dangling. Leaf l = 0.03 + 0.85 h/5, and 4l + h = 1 give h = 11/21, l = 5/42.
  const auto scores = g.page_rank(converged());
  EXPECT_EQ(names(scores), (Strings{"hub", "l1", "l2", "l3", "l4"}));  // leaf ties by id
  ASSERT_EQ(scores.size(), 5u);
  EXPECT_NEAR(scores[0].score, 11.0 / 21, 1e-9);
  for (std::size_t i = 1; i < 5; ++i) EXPECT_NEAR(scores[i].score, 5.0 / 42, 1e-9);
  EXPECT_NEAR(score_sum(scores), 1.0, 1e-9);

  const auto defaults = g.page_rank();
  EXPECT_EQ(names(defaults), (Strings{"hub", "l1", "l2", "l3", "l4"}));
  EXPECT_NEAR(score_sum(defaults), 1.0, 1e-9);
  EXPECT_EQ(defaults.front().vertex, hub);
}

TEST_P(GraphConformance, PageRankSpreadsDanglingRankOfAChain) {
  auto& g = this->graph();
  const auto a = node(g, "a");
  const auto b = node(g, "b");
  const auto c = node(g, "c");
  link(g, a, b);
  link(g, b, c);
  // N = 3, c dangling: a = .05 + .85c/3, b = .05 + .85(a + c/3), c = .05 + .85(b + c/3)
  // give a = 400/2169, b = 740/2169, c = 1029/2169.
  const auto scores = g.page_rank(converged());
  EXPECT_EQ(names(scores), (Strings{"c", "b", "a"}));
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_NEAR(scores[0].score, 1029.0 / 2169, 1e-9);
  EXPECT_NEAR(scores[1].score, 740.0 / 2169, 1e-9);
  EXPECT_NEAR(scores[2].score, 400.0 / 2169, 1e-9);
  EXPECT_NEAR(score_sum(scores), 1.0, 1e-9);
  const auto defaults = g.page_rank();
  EXPECT_EQ(names(defaults), (Strings{"c", "b", "a"}));
  EXPECT_NEAR(score_sum(defaults), 1.0, 1e-9);
}

TEST_P(GraphConformance, PageRankCountsSelfLoopsAsEdges) {
  auto& g = this->graph();
  const auto x = node(g, "x");
  const auto y = node(g, "y");
  const auto z = node(g, "z");
  link(g, x, x);
  link(g, x, y);
  link(g, y, x);
  link(g, z, z);
  // N = 3, out(x) = 2. z keeps its own rank: z = .05 + .85z = 1/3. x + y = 2/3 and
  // y = .05 + .85x/2 give y = 40/171, x = 74/171.
  const auto scores = g.page_rank(converged());
  EXPECT_EQ(names(scores), (Strings{"x", "z", "y"}));
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_NEAR(scores[0].score, 74.0 / 171, 1e-9);
  EXPECT_NEAR(scores[1].score, 1.0 / 3, 1e-9);
  EXPECT_NEAR(scores[2].score, 40.0 / 171, 1e-9);
  EXPECT_NEAR(score_sum(g.page_rank()), 1.0, 1e-9);
}

TEST_P(GraphConformance, PageRankOfTheFixture) {
  auto& g = this->graph();
  make_people(g);
  // Solving the four equations (Dave dangling): Alice 16000/132833, Bob 22800/132833,
  // Charlie 42180/132833, Dave 51853/132833.
  const auto scores = g.page_rank(converged());
  EXPECT_EQ(names(scores), (Strings{"Dave", "Charlie", "Bob", "Alice"}));
  ASSERT_EQ(scores.size(), 4u);
  EXPECT_NEAR(scores[0].score, 51853.0 / 132833, 1e-9);
  EXPECT_NEAR(scores[1].score, 42180.0 / 132833, 1e-9);
  EXPECT_NEAR(scores[2].score, 22800.0 / 132833, 1e-9);
  EXPECT_NEAR(scores[3].score, 16000.0 / 132833, 1e-9);
  // Defaults stop early (tolerance 1e-4) near the same point.
  const auto defaults = g.page_rank();
  EXPECT_EQ(names(defaults), (Strings{"Dave", "Charlie", "Bob", "Alice"}));
  EXPECT_NEAR(score_sum(defaults), 1.0, 1e-9);
  ASSERT_EQ(defaults.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(defaults[i].score, scores[i].score, 2e-3);
}

TEST_P(GraphConformance, PageRankBreaksTiesById) {
  auto& g = this->graph();
  // Isolated vertices are all dangling: each 1/N.
  for (const char* name : {"v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10"}) {
    node(g, name);
  }
  const auto scores = g.page_rank();
  EXPECT_EQ(names(scores), (Strings{"v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10"}));
  for (const auto& s : scores) EXPECT_NEAR(s.score, 1.0 / 11, 1e-9);
}

TEST_P(GraphConformance, PageRankTopKIsAppliedLast) {
  auto& g = this->graph();
  const auto hub = node(g, "hub");
  for (const char* name : {"l1", "l2", "l3", "l4"}) link(g, node(g, name), hub);
  const auto all = g.page_rank(converged());
  auto top2_options = converged();
  top2_options.top_k = 2;
  const auto top2 = g.page_rank(top2_options);
  EXPECT_EQ(names(top2), (Strings{"hub", "l1"}));
  ASSERT_EQ(top2.size(), 2u);
  ASSERT_EQ(all.size(), 5u);
  // Scores are those of the full ranking (they sum to 1 before truncation).
  EXPECT_DOUBLE_EQ(top2[0].score, all[0].score);
  EXPECT_DOUBLE_EQ(top2[1].score, all[1].score);
  EXPECT_EQ(g.page_rank({.top_k = 10}).size(), 5u);
}

TEST_P(GraphConformance, PageRankStopsAtIterationsOrTolerance) {
  auto& g = this->graph();
  const auto hub = node(g, "hub");
  for (const char* name : {"l1", "l2", "l3", "l4"}) link(g, node(g, name), hub);
  // An L1 change is at most 2, so tolerance 10 stops after the first iteration, like
  // iterations = 1.
  const auto one_iteration = g.page_rank({.iterations = 1});
  const auto loose = g.page_rank({.tolerance = 10.0});
  ASSERT_EQ(one_iteration.size(), 5u);
  ASSERT_EQ(loose.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(one_iteration[i].vertex.id, loose[i].vertex.id);
    EXPECT_NEAR(one_iteration[i].score, loose[i].score, 1e-12);
  }
  EXPECT_NEAR(score_sum(one_iteration), 1.0, 1e-9);
}

TEST_P(GraphConformance, PageRankFiltersByLabels) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const auto robot = node(g, "robot", "Robot");
  link(g, robot, p.alice);
  // Only Person vertices, only KNOWS edges: the chain Alice->Bob->Charlie->Dave with Dave
  // dangling, which solves to Alice 8000/68873, Bob 14800/68873, Charlie 20580/68873,
  // Dave 25493/68873.
  const auto scores =
      g.page_rank({.vertex_label = "Person", .edge_label = "KNOWS", .iterations = 1000, .tolerance = 1e-15});
  EXPECT_EQ(names(scores), (Strings{"Dave", "Charlie", "Bob", "Alice"}));
  ASSERT_EQ(scores.size(), 4u);
  EXPECT_NEAR(scores[0].score, 25493.0 / 68873, 1e-9);
  EXPECT_NEAR(scores[1].score, 20580.0 / 68873, 1e-9);
  EXPECT_NEAR(scores[2].score, 14800.0 / 68873, 1e-9);
  EXPECT_NEAR(scores[3].score, 8000.0 / 68873, 1e-9);
  const auto people = g.page_rank({.vertex_label = "Person"});
  EXPECT_EQ(people.size(), 4u);
  EXPECT_NEAR(score_sum(people), 1.0, 1e-9);
  EXPECT_EQ(g.page_rank().size(), 5u);
  EXPECT_TRUE(g.page_rank({.vertex_label = "Nobody"}).empty());
}

TEST_P(GraphConformance, AlgorithmsOnAnEmptyGraphReturnNothing) {
  auto& g = this->graph();
  EXPECT_TRUE(g.page_rank().empty());
  EXPECT_TRUE(g.connected_components().empty());
  EXPECT_TRUE(g.connected_components({.weakly = false}).empty());
  EXPECT_TRUE(g.detect_cycles().empty());
  EXPECT_TRUE(g.find_vertices_by_label("Person").empty());
  EXPECT_EQ(g.count_vertices("Person"), 0);
}

// == degree_centrality =======================================================================

TEST_P(GraphConformance, DegreeCountsInAndOut) {
  auto& g = this->graph();
  const auto p = make_people(g);
  EXPECT_EQ(g.degree_centrality(p.alice.id), (Degree{p.alice.id, 0, 2}));
  EXPECT_EQ(g.degree_centrality(p.bob.id), (Degree{p.bob.id, 1, 1}));
  EXPECT_EQ(g.degree_centrality(p.charlie.id), (Degree{p.charlie.id, 2, 1}));
  EXPECT_EQ(g.degree_centrality(p.dave.id), (Degree{p.dave.id, 1, 0}));
  EXPECT_EQ(g.degree_centrality(p.charlie.id)->total(), 3);
  // Direction selects what is counted; the other side stays 0.
  EXPECT_EQ(g.degree_centrality(p.charlie.id, {.direction = Direction::out}), (Degree{p.charlie.id, 0, 1}));
  EXPECT_EQ(g.degree_centrality(p.charlie.id, {.direction = Direction::in}), (Degree{p.charlie.id, 2, 0}));
  // Edge label.
  EXPECT_EQ(g.degree_centrality(p.charlie.id, {.edge_label = "KNOWS"}), (Degree{p.charlie.id, 1, 1}));
  EXPECT_EQ(g.degree_centrality(p.charlie.id, {.edge_label = "FOLLOWS"}), (Degree{p.charlie.id, 1, 0}));
  EXPECT_EQ(g.degree_centrality(p.alice.id, {.edge_label = "NONE"}), (Degree{p.alice.id, 0, 0}));
  const auto loner = node(g, "loner");
  EXPECT_EQ(g.degree_centrality(loner.id), (Degree{loner.id, 0, 0}));
}

TEST_P(GraphConformance, DegreeCountsASelfLoopOnceInAndOnceOut) {
  auto& g = this->graph();
  const auto x = node(g, "x");
  const auto y = node(g, "y");
  link(g, x, x);
  link(g, x, y);
  EXPECT_EQ(g.degree_centrality(x.id), (Degree{x.id, 1, 2}));
  EXPECT_EQ(g.degree_centrality(x.id)->total(), 3);
  EXPECT_EQ(g.degree_centrality(x.id, {.direction = Direction::in}), (Degree{x.id, 1, 0}));
  EXPECT_EQ(g.degree_centrality(x.id, {.direction = Direction::out}), (Degree{x.id, 0, 2}));
  EXPECT_EQ(g.degree_centrality(y.id), (Degree{y.id, 1, 0}));
}

// == connected_components ====================================================================

TEST_P(GraphConformance, ComponentsWeakAndStrong) {
  auto& g = this->graph();
  const auto a = node(g, "A");
  const auto b = node(g, "B");
  const auto c = node(g, "C");
  node(g, "D");  // isolated
  const auto e = node(g, "E");
  const auto f = node(g, "F");
  link(g, a, b);
  link(g, b, a);
  link(g, b, c);
  link(g, e, f);
  EXPECT_EQ(render(g.connected_components()), (Strings{"0:A,B,C", "1:D", "2:E,F"}));
  // Strong: only A<->B is mutually reachable.
  EXPECT_EQ(render(g.connected_components({.weakly = false})), (Strings{"0:A,B", "1:C", "2:D", "3:E", "4:F"}));
  // min_size drops small components; ids are positions in the filtered result.
  EXPECT_EQ(render(g.connected_components({.min_size = 2})), (Strings{"0:A,B,C", "1:E,F"}));
  EXPECT_EQ(render(g.connected_components({.weakly = false, .min_size = 2})), Strings{"0:A,B"});
  EXPECT_EQ(render(g.connected_components({.min_size = 4})), Strings{});
}

TEST_P(GraphConformance, ComponentsOrderedBySmallestVertexId) {
  auto& g = this->graph();
  const auto v0 = node(g, "V0");
  const auto v1 = node(g, "V1");
  const auto v2 = node(g, "V2");
  const auto v3 = node(g, "V3");
  link(g, v3, v1);
  link(g, v2, v0);
  link(g, v1, v3);
  EXPECT_EQ(render(g.connected_components()), (Strings{"0:V0,V2", "1:V1,V3"}));
  EXPECT_EQ(render(g.connected_components({.weakly = false})), (Strings{"0:V0", "1:V1,V3", "2:V2"}));
}

TEST_P(GraphConformance, ComponentsFilterByLabels) {
  auto& g = this->graph();
  const auto a = node(g, "A", "Person");
  node(g, "B", "Person");
  const auto c = node(g, "C", "Person");
  const auto t = node(g, "T", "Thing");
  link(g, a, t, "KNOWS");
  link(g, t, c, "KNOWS");
  link(g, a, c, "LIKES");
  // All labels: A, C and T joined; B alone. Vertices sorted by id: A, C, T.
  EXPECT_EQ(render(g.connected_components()), (Strings{"0:A,C,T", "1:B"}));
  // Without T its KNOWS edges vanish, but A-LIKES->C still joins A and C.
  EXPECT_EQ(render(g.connected_components({.vertex_label = "Person"})), (Strings{"0:A,C", "1:B"}));
  EXPECT_EQ(render(g.connected_components({.edge_label = "LIKES"})), (Strings{"0:A,C", "1:B", "2:T"}));
  EXPECT_EQ(render(g.connected_components({.vertex_label = "Person", .edge_label = "KNOWS"})),
            (Strings{"0:A", "1:B", "2:C"}));
}

TEST_P(GraphConformance, ComponentsOfTheFixture) {
  auto& g = this->graph();
  make_people(g);
  EXPECT_EQ(render(g.connected_components()), Strings{"0:Alice,Bob,Charlie,Dave"});
  // A DAG: every vertex is its own strong component.
  EXPECT_EQ(render(g.connected_components({.weakly = false})), (Strings{"0:Alice", "1:Bob", "2:Charlie", "3:Dave"}));
}

// == detect_cycles ===========================================================================

TEST_P(GraphConformance, TriangleIsReportedOnceFromItsSmallestVertex) {
  auto& g = this->graph();
  const auto a = node(g, "A");
  const auto b = node(g, "B");
  const auto c = node(g, "C");
  const auto ca = link(g, c, a);
  const auto bc = link(g, b, c);
  const auto ab = link(g, a, b);
  const auto cycles = g.detect_cycles();
  EXPECT_EQ(render(cycles), Strings{"A -LINK-> B -LINK-> C -LINK-> A"});
  ASSERT_EQ(cycles.size(), 1u);
  const auto& path = cycles[0].path;
  EXPECT_EQ(path.length(), 3u);
  ASSERT_EQ(path.vertices.size(), 4u);
  EXPECT_EQ(path.vertices.front(), a);
  EXPECT_EQ(path.vertices.back(), a);
  EXPECT_EQ(ids_of(path.edges), (std::vector{ab.id, bc.id, ca.id}));
}

TEST_P(GraphConformance, CyclesLongerThanMaxDepthAreExcluded) {
  auto& g = this->graph();
  const auto p = node(g, "P");
  const auto q = node(g, "Q");
  const auto r = node(g, "R");
  const auto s = node(g, "S");
  link(g, p, q);
  link(g, q, r);
  link(g, r, s);
  link(g, s, p);
  const auto a = node(g, "A");
  const auto b = node(g, "B");
  const auto c = node(g, "C");
  link(g, a, b);
  link(g, b, c);
  link(g, c, a);
  EXPECT_EQ(render(g.detect_cycles({.max_depth = 3})), Strings{"A -LINK-> B -LINK-> C -LINK-> A"});
  // P has a smaller id than A, so the square comes first.
  const Strings both{"P -LINK-> Q -LINK-> R -LINK-> S -LINK-> P", "A -LINK-> B -LINK-> C -LINK-> A"};
  EXPECT_EQ(render(g.detect_cycles({.max_depth = 4})), both);
  EXPECT_EQ(render(g.detect_cycles()), both);
  EXPECT_EQ(render(g.detect_cycles({.max_depth = 2})), Strings{});
}

TEST_P(GraphConformance, SelfLoopsAreCyclesCappedByMaxCycles) {
  auto& g = this->graph();
  const auto x = node(g, "X");
  const auto y = node(g, "Y");
  const auto z = node(g, "Z");
  link(g, z, z);
  link(g, y, y);
  link(g, x, x);
  const auto cycles = g.detect_cycles();
  EXPECT_EQ(render(cycles), (Strings{"X -LINK-> X", "Y -LINK-> Y", "Z -LINK-> Z"}));
  ASSERT_EQ(cycles.size(), 3u);
  EXPECT_EQ(cycles[0].path.length(), 1u);
  EXPECT_EQ(cycles[0].path.vertices, (std::vector{x, x}));
  EXPECT_EQ(render(g.detect_cycles({.max_cycles = 2})), (Strings{"X -LINK-> X", "Y -LINK-> Y"}));
  EXPECT_EQ(render(g.detect_cycles({.max_depth = 1})), (Strings{"X -LINK-> X", "Y -LINK-> Y", "Z -LINK-> Z"}));
}

TEST_P(GraphConformance, CyclesThroughOneVertexComeInEdgeIdOrder) {
  auto& g = this->graph();
  const auto a = node(g, "A");
  const auto b = node(g, "B");
  const auto c = node(g, "C");
  link(g, a, c);  // A's lowest edge id leads to C
  link(g, a, b);
  link(g, b, a);
  link(g, c, a);
  // Only the two simple cycles; the figure eight A-C-A-B-A repeats A.
  EXPECT_EQ(render(g.detect_cycles()), (Strings{"A -LINK-> C -LINK-> A", "A -LINK-> B -LINK-> A"}));
}

TEST_P(GraphConformance, CyclesAreOrderedBySmallestVertexId) {
  auto& g = this->graph();
  std::vector<Vertex> v;
  for (const char* name : {"V0", "V1", "V2", "V3", "V4"}) v.push_back(node(g, name));
  link(g, v[3], v[2]);
  link(g, v[2], v[3]);
  link(g, v[4], v[0]);
  link(g, v[0], v[4]);
  EXPECT_EQ(render(g.detect_cycles()), (Strings{"V0 -LINK-> V4 -LINK-> V0", "V2 -LINK-> V3 -LINK-> V2"}));
}

TEST_P(GraphConformance, ParallelEdgesMakeOneCycle) {
  auto& g = this->graph();
  const auto a = node(g, "A");
  const auto b = node(g, "B");
  const auto low = link(g, a, b);
  link(g, a, b);
  const auto back = link(g, b, a);
  const auto cycles = g.detect_cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(ids_of(cycles[0].path.edges), (std::vector{low.id, back.id}));
}

TEST_P(GraphConformance, CyclesFollowEdgeDirectionAndLabels) {
  auto& g = this->graph();
  // The fixture's Alice->Bob->Charlie plus Alice->Charlie is a triangle only when undirected.
  make_people(g);
  EXPECT_EQ(render(g.detect_cycles()), Strings{});

  auto other = this->other_instance();
  ASSERT_NE(other, nullptr);
  auto& h = *other;
  const auto a = node(h, "A", "Person");
  const auto b = node(h, "B", "Person");
  const auto t = node(h, "T", "Thing");
  link(h, a, b, "KNOWS");
  link(h, b, a, "KNOWS");
  link(h, a, t, "KNOWS");
  link(h, t, a, "KNOWS");
  link(h, b, b, "LIKES");
  EXPECT_EQ(render(h.detect_cycles()), (Strings{"A -KNOWS-> B -KNOWS-> A", "A -KNOWS-> T -KNOWS-> A", "B -LIKES-> B"}));
  EXPECT_EQ(render(h.detect_cycles({.vertex_label = "Person"})), (Strings{"A -KNOWS-> B -KNOWS-> A", "B -LIKES-> B"}));
  EXPECT_EQ(render(h.detect_cycles({.edge_label = "KNOWS"})),
            (Strings{"A -KNOWS-> B -KNOWS-> A", "A -KNOWS-> T -KNOWS-> A"}));
  EXPECT_EQ(render(h.detect_cycles({.vertex_label = "Person", .edge_label = "KNOWS"})),
            Strings{"A -KNOWS-> B -KNOWS-> A"});
}

// NOLINTEND(readability-function-cognitive-complexity)

}  // namespace propgraph::conformance
