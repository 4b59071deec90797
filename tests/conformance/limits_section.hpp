// Conformance: inputs at the limits. Any max_depth is safe on any graph (traversals keep their
// path on the heap, all_paths stops once no longer path can exist), and huge finite weights
// still order paths.
#pragma once

#include <cfloat>
#include <chrono>
#include <climits>
#include <cstddef>
#include <vector>

#include "conformance_fixture.hpp"
#include "propgraph/deadline.hpp"
#include "small_fiber.hpp"

namespace propgraph::conformance {

/// A directed chain v0 -> v1 -> ... -> v(n-1) built in bulk; with `closed`, v(n-1) -> v0 too.
inline std::vector<ElementId> make_chain(GraphOperations& g, std::size_t n, bool closed) {
  std::vector<NewVertex> vertices(n, NewVertex{"Node", {}});
  const std::vector<ElementId> ids = g.create_vertices(vertices);
  std::vector<NewEdge> edges;
  for (std::size_t i = 0; i + 1 < n; ++i) edges.push_back(NewEdge{ids[i], ids[i + 1], "NEXT", {}});
  if (closed) edges.push_back(NewEdge{ids[n - 1], ids[0], "NEXT", {}});
  (void)g.create_edges(edges);
  return ids;
}

// NOLINTBEGIN(readability-function-cognitive-complexity)

TEST_P(GraphConformance, DeepTraversalsRunOnASmallFiberStack) {
  auto& g = this->graph();
  constexpr std::size_t n = 5000;  // recursion per step would need several times the stack below
  const auto ids = make_chain(g, n, true);
  on_small_fiber(256 * 1024, [&] {
    const auto visits = g.dfs(ids[0], {.max_depth = INT_MAX, .max_vertices = n + 1});
    ASSERT_EQ(visits.size(), n);
    EXPECT_EQ(visits.back().vertex.id, ids[n - 1]);
    EXPECT_EQ(visits.back().depth, static_cast<int>(n - 1));
    const auto cycles = g.detect_cycles({.max_depth = INT_MAX});
    ASSERT_EQ(cycles.size(), 1U);
    EXPECT_EQ(cycles[0].path.edges.size(), n);
    const auto paths = g.all_paths(ids[0], ids[n - 1], {.direction = Direction::out, .max_depth = INT_MAX});
    ASSERT_EQ(paths.size(), 1U);
    EXPECT_EQ(paths[0].edges.size(), n - 1);
  });
}

TEST_P(GraphConformance, AllPathsStopWhenNoLongerPathCanExist) {
  auto& g = this->graph();
  const auto a = node(g, "A");
  const auto b = node(g, "B");
  const auto c = node(g, "C");
  (void)link(g, a, b);
  // One pass per length up to INT_MAX would run for minutes; the deadline turns that into a
  // failure instead of a hang.
  DeadlineScope scope(std::chrono::seconds(60));
  EXPECT_TRUE(g.all_paths(a.id, c.id, {.max_depth = INT_MAX}).empty());
  EXPECT_EQ(render(g.all_paths(a.id, b.id, {.max_depth = INT_MAX})), (Strings{"A -LINK-> B"}));
}

TEST_P(GraphConformance, WeightedShortestPathOrdersHugeWeights) {
  auto& g = this->graph();
  const auto s = node(g, "S");
  const auto a = node(g, "A");
  const auto b = node(g, "B");
  const auto c = node(g, "C");
  const auto t = node(g, "T");
  // Both routes cost more than DBL_MAX in total; the two-edge one is cheaper.
  (void)link(g, s, b, "ROAD", {{"km", DBL_MAX}});
  (void)link(g, b, c, "ROAD", {{"km", DBL_MAX}});
  (void)link(g, c, t, "ROAD", {{"km", DBL_MAX}});
  (void)link(g, s, a, "ROAD", {{"km", DBL_MAX}});
  (void)link(g, a, t, "ROAD", {{"km", DBL_MAX}});
  const auto path = g.shortest_path(s.id, t.id, {.weight_property = "km"});
  ASSERT_TRUE(path);
  EXPECT_EQ(render(*path), "S -ROAD-> A -ROAD-> T");
  const auto one = g.shortest_path(s.id, b.id, {.weight_property = "km"});
  ASSERT_TRUE(one);
  EXPECT_EQ(render(*one), "S -ROAD-> B");
}

/// `depth` lists, one inside the other, around the integer 7: [[...[7]...]].
inline Value nested_list(int depth) {
  Value v(std::int64_t{7});
  for (int i = 0; i < depth; ++i) {
    ValueList list;
    list.push_back(std::move(v));  // not ValueList{...}: an initializer list would copy
    v = Value(std::move(list));
  }
  return v;
}

TEST_P(GraphConformance, ListValuesNestAtMostMaxValueDepth) {
  auto& g = this->graph();
  const Vertex deepest = g.create_vertex("Deep", {{"v", nested_list(max_value_depth)}});
  const auto read = g.find_vertex(deepest.id);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->properties["v"], nested_list(max_value_depth));
  // One level deeper: refused by every write path, and nothing is written.
  const Properties too_deep{{"v", nested_list(max_value_depth + 1)}};
  EXPECT_THROW((void)g.create_vertex("Deep", too_deep), InvalidArgument);
  EXPECT_THROW((void)g.update_vertex("Deep", deepest.id, too_deep), InvalidArgument);
  EXPECT_THROW((void)g.create_edge(deepest.id, deepest.id, "SELF", too_deep), InvalidArgument);
  EXPECT_THROW((void)g.create_vertices(std::vector<NewVertex>{{"Deep", too_deep}}), InvalidArgument);
  // Far deeper: refused too (copying such a value recurses, in the caller's code as in any
  // decorator that keeps a copy, so the depth stays one a thread's stack holds).
  const Properties far_too_deep{{"v", nested_list(1'000)}};
  EXPECT_THROW((void)g.create_vertex("Deep", far_too_deep), InvalidArgument);
  EXPECT_EQ(g.count_vertices("Deep"), 1);
  EXPECT_EQ(g.find_vertex(deepest.id)->properties["v"], nested_list(max_value_depth));
}

// NOLINTEND(readability-function-cognitive-complexity)

}  // namespace propgraph::conformance
