// Conformance: lookups that need no label (find_vertex, find_edge), a vertex's edges
// (incident_edges) and the totals count_vertices() / count_edges().
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conformance_fixture.hpp"

namespace propgraph::conformance {

// NOLINTBEGIN(readability-function-cognitive-complexity)

// == label-free lookups ======================================================================

TEST_P(GraphConformance, FindVertexAndFindEdgeNeedNoLabel) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const auto robot = node(g, "R2", "Robot");
  const auto owns = link(g, robot, p.alice, "OWNS", {{"since", 2024}});
  EXPECT_EQ(g.find_vertex(p.alice.id), p.alice);
  EXPECT_EQ(g.find_vertex(p.dave.id), p.dave);
  EXPECT_EQ(g.find_vertex(robot.id), robot);
  EXPECT_EQ(g.find_edge(p.alice_knows_bob.id), p.alice_knows_bob);
  EXPECT_EQ(g.find_edge(p.alice_follows_charlie.id), p.alice_follows_charlie);
  EXPECT_EQ(g.find_edge(owns.id), owns);
  // They return what the labelled lookups return, also after updates.
  const auto bob = g.update_vertex("Person", p.bob.id, {{"age", 26}, {"nick", "B"}});
  ASSERT_TRUE(bob);
  EXPECT_EQ(g.find_vertex(p.bob.id), bob);
  EXPECT_EQ(g.find_vertex(p.bob.id), g.find_vertex_by_id("Person", p.bob.id));
  const auto renewed = g.update_edge("OWNS", owns.id, {{"since", 2025}});
  ASSERT_TRUE(renewed);
  EXPECT_EQ(g.find_edge(owns.id), renewed);
  EXPECT_EQ(g.find_edge(owns.id), g.find_edge_by_id("OWNS", owns.id));
}

TEST_P(GraphConformance, LabelFreeLookupsOfGarbageFindNothing) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const auto gone = node(g, "Gone", "Person");
  const auto gone_edge = link(g, gone, p.alice, "KNOWS");  // deleted with its vertex
  const auto lone_edge = link(g, p.bob, p.dave, "LIKES");
  ASSERT_TRUE(g.delete_edge("LIKES", lone_edge.id));
  ASSERT_TRUE(g.delete_vertex("Person", gone.id));
  auto other = this->other_instance();
  ASSERT_NE(other, nullptr);
  const auto foreign = other->create_vertex("Person", {{"name", "Foreign"}});
  const auto foreign_b = other->create_vertex("Person", {{"name", "ForeignB"}});
  const auto foreign_edge = other->create_edge(foreign.id, foreign_b.id, "KNOWS");

  // Neither a vertex nor an edge: malformed strings (empty, long, out of any integer range, a
  // quote, a NUL byte), deleted elements and the other instance's elements.
  const std::vector<std::pair<std::string, ElementId>> nothing{{"garbage", ElementId("garbage")},
                                                               {"empty", ElementId("")},
                                                               {"long", ElementId(std::string(300, 'v'))},
                                                               {"negative", ElementId("-1")},
                                                               {"beyond int64", ElementId("99999999999999999999999")},
                                                               {"quote", ElementId("x'; --")},
                                                               {"NUL byte", ElementId(std::string_view("v\0x", 3))},
                                                               {"deleted vertex", gone.id},
                                                               {"edge deleted with its vertex", gone_edge.id},
                                                               {"deleted edge", lone_edge.id},
                                                               {"vertex of another instance", foreign.id},
                                                               {"edge of another instance", foreign_edge.id}};
  for (const auto& [what, id] : nothing) {
    SCOPED_TRACE(what);
    EXPECT_FALSE(g.find_vertex(id));
    EXPECT_FALSE(g.find_edge(id));
  }
  // Ids of the other kind.
  EXPECT_FALSE(g.find_vertex(p.alice_knows_bob.id)) << "edge id used as a vertex id";
  EXPECT_FALSE(g.find_vertex(p.alice_follows_charlie.id)) << "edge id used as a vertex id";
  EXPECT_FALSE(g.find_edge(p.alice.id)) << "vertex id used as an edge id";
  EXPECT_FALSE(g.find_edge(p.dave.id)) << "vertex id used as an edge id";
  // Lookups changed nothing, here or there; each instance finds only its own elements.
  EXPECT_EQ(g.count_vertices(), 4);
  EXPECT_EQ(g.count_edges(), 4);
  EXPECT_FALSE(other->find_vertex(p.alice.id));
  EXPECT_EQ(other->find_vertex(foreign.id), foreign);
  EXPECT_EQ(other->find_edge(foreign_edge.id), foreign_edge);
}

// == incident_edges ==========================================================================

TEST_P(GraphConformance, IncidentEdgesFollowDirectionAndLabel) {
  auto& g = this->graph();
  const auto p = make_people(g);
  // Edge ids ascend in creation order: Alice->Bob, Bob->Charlie, Charlie->Dave, Alice-F->Charlie.
  using Edges = std::vector<Edge>;
  EXPECT_EQ(g.incident_edges(p.alice.id), (Edges{p.alice_knows_bob, p.alice_follows_charlie}));
  EXPECT_EQ(g.incident_edges(p.alice.id, {.direction = Direction::out}),
            (Edges{p.alice_knows_bob, p.alice_follows_charlie}));
  EXPECT_EQ(g.incident_edges(p.alice.id, {.direction = Direction::in}), Edges{});
  // Charlie: in from Bob and Alice, out to Dave; both merges them into one edge-id order.
  EXPECT_EQ(g.incident_edges(p.charlie.id),
            (Edges{p.bob_knows_charlie, p.charlie_knows_dave, p.alice_follows_charlie}));
  EXPECT_EQ(g.incident_edges(p.charlie.id, {.direction = Direction::in}),
            (Edges{p.bob_knows_charlie, p.alice_follows_charlie}));
  EXPECT_EQ(g.incident_edges(p.charlie.id, {.direction = Direction::out}), Edges{p.charlie_knows_dave});
  EXPECT_EQ(g.incident_edges(p.dave.id, {.direction = Direction::out}), Edges{});
  EXPECT_EQ(g.incident_edges(p.dave.id, {.direction = Direction::in}), Edges{p.charlie_knows_dave});
  // One label.
  EXPECT_EQ(g.incident_edges(p.charlie.id, {.edge_label = "KNOWS"}),
            (Edges{p.bob_knows_charlie, p.charlie_knows_dave}));
  EXPECT_EQ(g.incident_edges(p.charlie.id, {.direction = Direction::in, .edge_label = "FOLLOWS"}),
            Edges{p.alice_follows_charlie});
  EXPECT_EQ(g.incident_edges(p.charlie.id, {.direction = Direction::out, .edge_label = "FOLLOWS"}), Edges{});
  EXPECT_EQ(g.incident_edges(p.alice.id, {.edge_label = "NONE"}), Edges{});
  EXPECT_EQ(g.incident_edges(p.alice.id, {.edge_label = "not a label"}), Edges{});
  // Edges come as stored: after an update and a delete.
  const auto updated = g.update_edge("KNOWS", p.bob_knows_charlie.id, {{"since", nullptr}, {"w", 0.5}});
  ASSERT_TRUE(updated);
  ASSERT_TRUE(g.delete_edge("KNOWS", p.charlie_knows_dave.id));
  EXPECT_EQ(g.incident_edges(p.charlie.id), (Edges{*updated, p.alice_follows_charlie}));
  EXPECT_EQ(g.incident_edges(p.dave.id), Edges{});
  // A vertex without edges.
  const auto loner = node(g, "loner", "Person");
  EXPECT_EQ(g.incident_edges(loner.id), Edges{});
}

TEST_P(GraphConformance, IncidentEdgesListSelfLoopsOnceAndParallelEdgesEach) {
  auto& g = this->graph();
  const auto x = node(g, "x");
  const auto y = node(g, "y");
  const auto xy1 = link(g, x, y);
  const auto loop = link(g, x, x);
  const auto xy2 = link(g, x, y);  // parallel to xy1
  const auto yx = link(g, y, x);
  const auto liked = link(g, x, x, "LIKES");
  using Edges = std::vector<Edge>;
  // A self-loop is both an out- and an in-edge of x, listed once in each direction.
  EXPECT_EQ(g.incident_edges(x.id, {.direction = Direction::out}), (Edges{xy1, loop, xy2, liked}));
  EXPECT_EQ(g.incident_edges(x.id, {.direction = Direction::in}), (Edges{loop, yx, liked}));
  EXPECT_EQ(g.incident_edges(x.id), (Edges{xy1, loop, xy2, yx, liked}));
  EXPECT_EQ(g.incident_edges(x.id, {.edge_label = "LIKES"}), Edges{liked});
  EXPECT_EQ(g.incident_edges(x.id, {.edge_label = "LINK"}), (Edges{xy1, loop, xy2, yx}));
  EXPECT_EQ(g.incident_edges(y.id), (Edges{xy1, xy2, yx}));
  EXPECT_EQ(g.incident_edges(y.id, {.direction = Direction::in}), (Edges{xy1, xy2}));
  // Deleting one of two parallel edges leaves the other.
  ASSERT_TRUE(g.delete_edge("LINK", xy1.id));
  EXPECT_EQ(g.incident_edges(y.id), (Edges{xy2, yx}));
}

TEST_P(GraphConformance, IncidentEdgesCarryTheirOwnPropertiesThroughBulkWritesUpdatesAndDeletes) {
  // Thousands of edges of one property shape written in bulk (MemoryGraph then finds each map
  // from the edge's position), some of them replaced or deleted, more written later in other
  // shapes: every incident edge is the edge find_edges_by_label returns.
  auto& g = this->graph();
  const auto vertices = g.create_vertices(std::vector<NewVertex>(40, NewVertex{"Person", {}}));
  auto label = [](int i) { return i % 3 == 0 ? "FOLLOWS" : "KNOWS"; };
  std::vector<NewEdge> uniform;
  for (int i = 0; i < 2500; ++i) {
    uniform.push_back(NewEdge{vertices[i * 7 % 40],
                              vertices[(i * 13 + 5) % 40],
                              label(i),
                              {{"since", std::int64_t{1990 + i % 35}}, {"weight", 0.5 + i % 7}}});
  }
  const auto ids = g.create_edges(uniform);
  for (int i = 1500; i < 2500; i += 97) {
    ASSERT_TRUE(g.update_edge(label(i), ids[i], {{"note", std::string(i % 50, 'x')}}));
  }
  for (int i = 5; i < 2500; i += 89) ASSERT_TRUE(g.delete_edge(label(i), ids[i]));
  for (int i = 0; i < 30; ++i) {
    g.create_edge(vertices[i], vertices[(i + 1) % 40], "KNOWS", {{"since", std::int64_t{i}}});
  }
  std::vector<NewEdge> mixed;
  for (int i = 0; i < 1100; ++i) {
    Properties p;
    if (i % 4 != 0) p = {{"weight", i / 1000.0}};
    mixed.push_back(NewEdge{vertices[i * 3 % 40], vertices[i * 17 % 40], label(i), p});
  }
  (void)g.create_edges(mixed);

  auto all = g.find_edges_by_label("KNOWS");
  for (auto& e : g.find_edges_by_label("FOLLOWS")) all.push_back(std::move(e));
  std::sort(all.begin(), all.end(), [](const Edge& a, const Edge& b) { return a.id < b.id; });
  ASSERT_EQ(all.size(), 2500u - 29 + 30 + 1100);
  for (const auto& v : vertices) {
    for (auto direction : {Direction::out, Direction::in, Direction::both}) {
      std::vector<Edge> expected;
      for (const auto& e : all) {
        if ((direction != Direction::in && e.from == v) || (direction != Direction::out && e.to == v)) {
          expected.push_back(e);
        }
      }
      ASSERT_EQ(g.incident_edges(v, {.direction = direction}), expected) << v.str();
    }
  }
}

TEST_P(GraphConformance, IncidentEdgesOfAnUnknownVertexAreEmpty) {
  auto& g = this->graph();
  const auto p = make_people(g);
  const auto gone = node(g, "Gone", "Person");
  link(g, gone, p.alice, "KNOWS");
  link(g, p.bob, gone, "KNOWS");
  ASSERT_TRUE(g.delete_vertex("Person", gone.id));
  auto other = this->other_instance();
  ASSERT_NE(other, nullptr);
  const auto foreign = other->create_vertex("Person", {{"name", "Foreign"}});
  other->create_edge(foreign.id, foreign.id, "KNOWS");
  for (const auto& id : {ElementId("garbage"), ElementId(""), gone.id, foreign.id, p.alice_knows_bob.id}) {
    SCOPED_TRACE(id.str());
    for (auto direction : {Direction::out, Direction::in, Direction::both}) {
      EXPECT_TRUE(g.incident_edges(id, {.direction = direction}).empty());
      EXPECT_TRUE(g.incident_edges(id, {.direction = direction, .edge_label = "KNOWS"}).empty());
      EXPECT_TRUE(g.incident_edges(id, {.direction = direction, .page = {.limit = 1}}).empty());
    }
  }
  // The deleted vertex's edges went with it.
  EXPECT_EQ(g.incident_edges(p.alice.id), (std::vector{p.alice_knows_bob, p.alice_follows_charlie}));
  EXPECT_EQ(g.incident_edges(p.bob.id), (std::vector{p.alice_knows_bob, p.bob_knows_charlie}));
}

// == totals ==================================================================================

TEST_P(GraphConformance, TotalsCountEveryLabel) {
  auto& g = this->graph();
  EXPECT_EQ(g.count_vertices(), 0);
  EXPECT_EQ(g.count_edges(), 0);
  const auto p = make_people(g);
  const auto r1 = node(g, "r1", "Robot");
  node(g, "r2", "Robot");
  link(g, p.charlie, p.charlie, "LIKES");
  link(g, r1, p.charlie, "OWNS");
  // 4 Person + 2 Robot; 3 KNOWS + 1 FOLLOWS + 1 LIKES + 1 OWNS.
  EXPECT_EQ(g.count_vertices(), 6);
  EXPECT_EQ(g.count_edges(), 6);
  // Failed writes count nothing.
  EXPECT_THROW(g.create_edge(p.alice.id, ElementId("garbage"), "KNOWS"), NotFound);
  EXPECT_THROW(g.create_vertex("not a label"), InvalidArgument);
  EXPECT_EQ(g.count_vertices(), 6);
  EXPECT_EQ(g.count_edges(), 6);
  ASSERT_TRUE(g.delete_edge("FOLLOWS", p.alice_follows_charlie.id));
  EXPECT_EQ(g.count_edges(), 5);
  // Charlie's remaining edges (Bob->Charlie, Charlie->Dave, its self-loop, r1->Charlie) go with
  // it; Alice->Bob stays.
  ASSERT_TRUE(g.delete_vertex("Person", p.charlie.id));
  EXPECT_EQ(g.count_vertices(), 5);
  EXPECT_EQ(g.count_edges(), 1);
  const auto ids = g.create_vertices(std::vector<NewVertex>{{"Robot", {}}, {"Thing", {}}, {"Thing", {}}});
  g.create_edges(std::vector<NewEdge>{{ids[0], ids[1], "OWNS", {}}, {ids[1], ids[1], "LIKES", {}}});
  EXPECT_EQ(g.count_vertices(), 8);
  EXPECT_EQ(g.count_edges(), 3);
  ASSERT_TRUE(g.delete_vertex("Robot", r1.id));  // had no edges left
  EXPECT_EQ(g.count_vertices(), 7);
  EXPECT_EQ(g.count_edges(), 3);
  // The totals are the sums of the per-label counts.
  std::int64_t vertices = 0;
  for (const auto& label : g.vertex_labels()) vertices += g.count_vertices(label);
  std::int64_t edges = 0;
  for (const auto& label : g.edge_labels()) edges += g.count_edges(label);
  EXPECT_EQ(vertices, 7);
  EXPECT_EQ(edges, 3);
  EXPECT_EQ(static_cast<std::int64_t>(total_vertices(g)), 7);
  EXPECT_EQ(total_edges(g), 3);
}

// NOLINTEND(readability-function-cognitive-complexity)

}  // namespace propgraph::conformance
