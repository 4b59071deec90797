// MemoryGraph at input extremes: traversals over 100k-step paths on a 64 KiB fiber stack, and
// edge weights that are not finite.
#include <climits>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "propgraph/errors.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "small_fiber.hpp"

namespace propgraph {
namespace {

constexpr std::size_t kSmallStack = 64 * 1024;
constexpr std::size_t kSteps = 100'000;

template <typename Fn>
void on_small_fiber(Fn&& fn) {
  conformance::on_small_fiber(kSmallStack, std::forward<Fn>(fn));
}

std::vector<ElementId> make_cycle(MemoryGraph& g, std::size_t n) {
  const std::vector<ElementId> ids = g.create_vertices(std::vector<NewVertex>(n, NewVertex{"Node", {}}));
  std::vector<NewEdge> edges;
  for (std::size_t i = 0; i < n; ++i) edges.push_back(NewEdge{ids[i], ids[(i + 1) % n], "NEXT", {}});
  (void)g.create_edges(edges);
  return ids;
}

TEST(DeepTraversal, DfsFollowsA100kStepPathOnA64KiBStack) {
  MemoryGraph g;
  const auto ids = make_cycle(g, kSteps);
  on_small_fiber([&] {
    const auto visits = g.dfs(ids[0], {.max_depth = INT_MAX, .max_vertices = kSteps});
    ASSERT_EQ(visits.size(), kSteps);
    EXPECT_EQ(visits.back().vertex.id, ids.back());
    EXPECT_EQ(visits.back().depth, static_cast<int>(kSteps - 1));
    // Both directions: the walk goes round one way, and the last vertex is the start's in-neighbour.
    EXPECT_EQ(g.dfs(ids[0], {.direction = Direction::both, .max_depth = INT_MAX, .max_vertices = kSteps}).size(),
              kSteps);
  });
}

TEST(DeepTraversal, DetectCyclesFindsA100kStepCycleOnA64KiBStack) {
  MemoryGraph g;
  const auto ids = make_cycle(g, kSteps);
  on_small_fiber([&] {
    const auto cycles = g.detect_cycles({.max_depth = INT_MAX});
    ASSERT_EQ(cycles.size(), 1U);
    EXPECT_EQ(cycles[0].path.length(), kSteps);
    EXPECT_EQ(cycles[0].path.vertices.front().id, ids[0]);
    EXPECT_EQ(cycles[0].path.vertices.back().id, ids[0]);
    // One edge short of the ring: no cycle.
    EXPECT_TRUE(g.detect_cycles({.max_depth = static_cast<int>(kSteps) - 1}).empty());
  });
}

TEST(DeepTraversal, AllPathsAlongA5kStepChainOnA64KiBStack) {
  MemoryGraph g;
  const auto ids = make_cycle(g, 5000);
  on_small_fiber([&] {
    const auto paths = g.all_paths(ids[0], ids.back(), {.direction = Direction::out, .max_depth = INT_MAX});
    ASSERT_EQ(paths.size(), 1U);
    EXPECT_EQ(paths[0].length(), 4999U);
  });
}

TEST(DeepTraversal, NonFiniteWeightsAreRejected) {
  MemoryGraph g;
  const auto s = g.create_vertex("Node", {});
  const auto t = g.create_vertex("Node", {});
  const auto road = g.create_edge(s.id, t.id, "ROAD", {{"km", std::numeric_limits<double>::infinity()}});
  EXPECT_THROW((void)g.shortest_path(s.id, t.id, {.weight_property = "km"}), InvalidArgument);
  ASSERT_TRUE(g.update_edge("ROAD", road.id, {{"km", std::numeric_limits<double>::quiet_NaN()}}));
  EXPECT_THROW((void)g.shortest_path(s.id, t.id, {.weight_property = "km"}), InvalidArgument);
}

}  // namespace
}  // namespace propgraph
