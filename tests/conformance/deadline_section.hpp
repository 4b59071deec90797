// Conformance: deadlines (DeadlineScope) through the interface. A call under a deadline that has
// passed throws Timeout and has no effect; scopes nest without extending; a scope belongs to the
// thread (or fiber) that made it.
#pragma once

#include <chrono>
#include <exception>
#include <optional>
#include <thread>
#include <vector>

#include "conformance_fixture.hpp"
#include "propgraph/deadline.hpp"

namespace propgraph::conformance {

/// A deadline one second in the past.
inline DeadlineClock::time_point passed_deadline() { return DeadlineClock::now() - std::chrono::seconds(1); }

// NOLINTBEGIN(readability-function-cognitive-complexity)

TEST_P(GraphConformance, PassedDeadlineFailsEveryCallWithoutEffect) {
  auto& g = this->graph();
  const auto p = make_people(g);
  ASSERT_TRUE(g.create_index("Person", "name"));
  const auto before = state_of(g);
  const auto graph_name = unique_graph_name();
  {
    DeadlineScope scope(passed_deadline());
    // Writes.
    EXPECT_THROW(g.create_vertex("Person", {{"name", "Eve"}}), Timeout);
    EXPECT_THROW(g.create_edge(p.alice.id, p.dave.id, "KNOWS"), Timeout);
    EXPECT_THROW(g.update_vertex("Person", p.alice.id, {{"age", 31}}), Timeout);
    EXPECT_THROW(g.update_edge("KNOWS", p.alice_knows_bob.id, {{"since", 1999}}), Timeout);
    EXPECT_THROW(g.delete_vertex("Person", p.bob.id), Timeout);
    EXPECT_THROW(g.delete_edge("FOLLOWS", p.alice_follows_charlie.id), Timeout);
    EXPECT_THROW(g.upsert_vertex("Person", {{"name", "Eve"}}), Timeout);
    EXPECT_THROW(g.upsert_vertex("Person", {{"name", "Alice"}}, {{"age", 99}}), Timeout);
    EXPECT_THROW(g.create_vertices(std::vector<NewVertex>{{"Person", {{"name", "Eve"}}}}), Timeout);
    EXPECT_THROW(g.create_edges(std::vector<NewEdge>{{p.dave.id, p.alice.id, "KNOWS", {}}}), Timeout);
    EXPECT_THROW(g.create_index("Person", "age"), Timeout);
    EXPECT_THROW(g.drop_index("Person", "name"), Timeout);
    EXPECT_THROW(g.create_graph(graph_name), Timeout);
    // Reads.
    EXPECT_THROW((void)g.find_vertex(p.alice.id), Timeout);
    EXPECT_THROW((void)g.find_vertex_by_id("Person", p.alice.id), Timeout);
    EXPECT_THROW((void)g.find_vertices_by_label("Person"), Timeout);
    EXPECT_THROW((void)g.find_vertices_by_label("Person", {{"name", "Alice"}}, {.limit = 1}), Timeout);
    EXPECT_THROW((void)g.find_edge(p.alice_knows_bob.id), Timeout);
    EXPECT_THROW((void)g.find_edge_by_id("KNOWS", p.alice_knows_bob.id), Timeout);
    EXPECT_THROW((void)g.find_edges_by_label("KNOWS"), Timeout);
    EXPECT_THROW((void)g.incident_edges(p.alice.id), Timeout);
    EXPECT_THROW((void)g.count_vertices(), Timeout);
    EXPECT_THROW((void)g.count_vertices("Person"), Timeout);
    EXPECT_THROW((void)g.count_edges(), Timeout);
    EXPECT_THROW((void)g.count_edges("KNOWS"), Timeout);
    EXPECT_THROW((void)g.indexes(), Timeout);
    EXPECT_THROW((void)g.vertex_labels(), Timeout);
    EXPECT_THROW((void)g.graph_exists(graph_name), Timeout);
    EXPECT_THROW((void)g.neighbors(p.alice.id, {.max_depth = 3}), Timeout);
    EXPECT_THROW((void)g.shortest_path(p.alice.id, p.dave.id), Timeout);
    EXPECT_THROW((void)g.all_paths(p.alice.id, p.dave.id), Timeout);
    EXPECT_THROW((void)g.bfs(p.alice.id), Timeout);
    EXPECT_THROW((void)g.dfs(p.alice.id), Timeout);
    EXPECT_THROW((void)g.page_rank(), Timeout);
    EXPECT_THROW((void)g.degree_centrality(p.alice.id), Timeout);
    EXPECT_THROW((void)g.connected_components(), Timeout);
    EXPECT_THROW((void)g.detect_cycles(), Timeout);
  }
  // Nothing happened; outside the scope every call works again.
  EXPECT_EQ(state_of(g), before);
  EXPECT_FALSE(g.graph_exists(graph_name));
  const auto eve = g.create_vertex("Person", {{"name", "Eve"}});
  EXPECT_EQ(g.find_vertex(eve.id), eve);
  EXPECT_EQ(g.count_vertices(), 5);
}

TEST_P(GraphConformance, TimeoutIsAGraphError) {
  auto& g = this->graph();
  DeadlineScope scope(passed_deadline());
  try {
    (void)g.count_vertices();
    ADD_FAILURE() << "no Timeout";
  } catch (const Error& e) {  // Timeout is a propgraph::Error like every other failure
    EXPECT_NE(dynamic_cast<const Timeout*>(&e), nullptr) << e.what();
  }
}

TEST_P(GraphConformance, InnerDeadlineScopeCannotExtendTheOuter) {
  auto& g = this->graph();
  const auto p = make_people(g);
  {
    DeadlineScope outer(passed_deadline());
    {
      DeadlineScope inner(std::chrono::hours(1));
      EXPECT_EQ(inner.deadline(), outer.deadline());
      EXPECT_THROW(g.create_vertex("Person", {{"name", "Eve"}}), Timeout);
      EXPECT_THROW((void)g.find_vertex(p.alice.id), Timeout);
    }
    EXPECT_THROW(g.create_vertex("Person", {{"name", "Eve"}}), Timeout);
  }
  // An inner scope can shorten a generous outer one; leaving it restores the outer budget.
  {
    DeadlineScope outer(std::chrono::hours(1));
    {
      DeadlineScope inner(passed_deadline());
      EXPECT_LT(inner.deadline(), outer.deadline());
      EXPECT_THROW(g.create_vertex("Person", {{"name", "Eve"}}), Timeout);
      EXPECT_THROW((void)g.neighbors(p.alice.id), Timeout);
    }
    const auto eve = g.create_vertex("Person", {{"name", "Eve"}});
    EXPECT_EQ(g.find_vertex(eve.id), eve);
    EXPECT_EQ(names(g.neighbors(p.alice.id)), (Strings{"Bob", "Charlie"}));
  }
  EXPECT_EQ(g.count_vertices(), 5) << "only the Eve created outside the passed deadlines";
  EXPECT_EQ(g.count_edges(), 4);
}

TEST_P(GraphConformance, GenerousOrNoDeadlineChangesNothing) {
  auto& g = this->graph();
  const auto p = make_people(g);
  struct Results {
    std::vector<Vertex> vertices;
    std::vector<Edge> edges;
    std::vector<Vertex> neighbors;
    std::optional<Path> path;
    std::vector<PageRankScore> ranks;
    std::vector<Component> components;
    std::int64_t edge_count = 0;
  };
  auto read = [&] {
    return Results{g.find_vertices_by_label("Person", {}, {.limit = 3}),
                   g.incident_edges(p.charlie.id),
                   g.neighbors(p.alice.id, {.max_depth = 2}),
                   g.shortest_path(p.alice.id, p.dave.id),
                   g.page_rank(),
                   g.connected_components(),
                   g.count_edges()};
  };
  const auto unscoped = read();
  EXPECT_EQ(names(unscoped.neighbors), (Strings{"Bob", "Charlie", "Dave"}));
  auto expect_as_unscoped = [&](const Results& r) {
    EXPECT_EQ(r.vertices, unscoped.vertices);
    EXPECT_EQ(r.edges, unscoped.edges);
    EXPECT_EQ(r.neighbors, unscoped.neighbors);
    EXPECT_EQ(r.path, unscoped.path);
    EXPECT_EQ(r.ranks, unscoped.ranks);
    EXPECT_EQ(r.components, unscoped.components);
    EXPECT_EQ(r.edge_count, unscoped.edge_count);
  };
  {
    DeadlineScope generous(std::chrono::hours(1));
    expect_as_unscoped(read());
    const auto eve = g.create_vertex("Person", {{"name", "Eve"}});
    EXPECT_EQ(g.find_vertex(eve.id), eve);
    ASSERT_TRUE(g.delete_vertex("Person", eve.id));
  }
  {
    DeadlineScope longest(std::chrono::hours::max());  // saturates instead of overflowing
    EXPECT_EQ(longest.deadline(), DeadlineClock::time_point::max());
    expect_as_unscoped(read());
  }
  {
    DeadlineScope endless(DeadlineClock::time_point::max());
    expect_as_unscoped(read());
  }
  expect_as_unscoped(read());
}

TEST_P(GraphConformance, DeadlineScopeBelongsToItsThread) {
  auto& g = this->graph();
  const auto p = make_people(g);
  DeadlineScope scope(passed_deadline());
  std::optional<Vertex> created;
  std::exception_ptr error;
  std::thread other([&] {
    try {
      created = g.create_vertex("Person", {{"name", "Eve"}});
      EXPECT_EQ(g.find_vertex(p.alice.id), p.alice);
    } catch (...) {
      error = std::current_exception();
    }
  });
  other.join();
  if (error) std::rethrow_exception(error);
  ASSERT_TRUE(created) << "the other thread has no deadline";
  EXPECT_THROW((void)g.find_vertex(created->id), Timeout) << "this thread still has one";
}

// NOLINTEND(readability-function-cognitive-complexity)

}  // namespace propgraph::conformance
