// PostgresGraph's connection pool from plain threads only (no fibers): for the tsan preset,
// which cannot follow Boost.Context's stack switches (see CMakeLists.txt). Runs in every build.
#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "pg_test_support.hpp"

namespace {

using namespace std::chrono_literals;

TEST(ThreadOnlyPostgres, PoolServesManyThreadsWithinItsSize) {
  auto g = propgraph::pgtest::scratch_graph({.pool_size = 3, .acquire_timeout = 10000ms});
  if (!g) GTEST_SKIP() << propgraph::pgtest::skip_reason();
  const auto hub = g->create_vertex("P", {{"name", "hub"}});
  std::atomic<int> found{0};
  std::atomic<std::size_t> most_open{0};
  auto work = [&](int t) {
    for (int i = 0; i < 12; ++i) {
      if (g->find_vertex_by_id("P", hub.id)) ++found;
      const auto v = g->create_vertex("P", {{"thread", t}, {"i", i}});
      g->create_edge(hub.id, v.id, "HAS");
      if (i % 4 == 0) (void)g->neighbors(hub.id);
      const auto open = g->pool_status().open;
      std::size_t seen = most_open.load();
      while (open > seen && !most_open.compare_exchange_weak(seen, open)) {
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) threads.emplace_back(work, t);
  for (auto& t : threads) t.join();
  EXPECT_EQ(found.load(), 6 * 12);
  EXPECT_LE(most_open.load(), 3u);
  EXPECT_EQ(g->count_vertices("P"), 1 + 6 * 12);
  EXPECT_EQ(g->count_edges("HAS"), 6 * 12);
  EXPECT_EQ(g->neighbors(hub.id).size(), 6u * 12u);
}

}  // namespace
