// MemoryGraph from plain threads: writers, readers whose filters go through property indexes
// while another thread creates and drops those indexes, and traversals that build and reuse
// the adjacency snapshot while writes invalidate it. Meant for the tsan preset (it runs in
// every build); the checks that do not depend on timing hold under any interleaving.
#include <atomic>
#include <cmath>
#include <latch>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "propgraph/fmt.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace {

using propgraph::Direction;
using propgraph::ElementId;
using propgraph::MemoryGraph;
using propgraph::Properties;

constexpr int kWriters = 2;
constexpr int kReaders = 2;
constexpr int kOperations = 400;

TEST(ThreadOnly, IndexesSnapshotsAndWritesFromManyThreads) {
  MemoryGraph g;
  std::vector<ElementId> seed;
  for (int i = 0; i < 20; ++i) seed.push_back(g.create_vertex("Node", {{"bucket", i % 4}, {"n", i}}).id);
  for (int i = 1; i < 20; ++i) g.create_edge(seed[i - 1], seed[i], "LINK", {{"bucket", i % 4}});
  std::atomic<int> violations{0};
  std::latch start(kWriters + kReaders + 1);

  auto writer = [&](int t) {
    std::mt19937 rng(77 + t);
    std::vector<ElementId> mine;
    start.arrive_and_wait();
    for (int op = 0; op < kOperations; ++op) {
      const int bucket = static_cast<int>(rng() % 4);
      switch (rng() % 5) {
        case 0:
        case 1: mine.push_back(g.create_vertex("Node", {{"bucket", bucket}, {"owner", t}}).id); break;
        case 2:
          if (!mine.empty()) (void)g.update_vertex("Node", mine[rng() % mine.size()], {{"bucket", bucket}});
          break;
        case 3:
          if (!mine.empty()) {
            try {
              g.create_edge(mine[rng() % mine.size()], seed[rng() % seed.size()], "LINK", {{"bucket", bucket}});
            } catch (const propgraph::NotFound&) {
              ++violations;  // only this thread deletes its vertices, and seeds are never deleted
            }
          }
          break;
        default:
          if (!mine.empty()) {
            const auto at = rng() % mine.size();
            if (!g.delete_vertex("Node", mine[at])) ++violations;
            mine.erase(mine.begin() + static_cast<std::ptrdiff_t>(at));
          }
      }
    }
  };
  auto reader = [&](int t) {
    std::mt19937 rng(1000 + t);
    start.arrive_and_wait();
    for (int op = 0; op < kOperations; ++op) {
      const int bucket = static_cast<int>(rng() % 4);
      switch (rng() % 5) {
        case 0:
          for (const auto& v : g.find_vertices_by_label("Node", {{"bucket", bucket}})) {
            if (v.properties["bucket"] != propgraph::Value(bucket)) ++violations;
          }
          break;
        case 1:
          for (const auto& e : g.find_edges_by_label("LINK", {{"bucket", bucket}})) {
            if (e.properties["bucket"] != propgraph::Value(bucket)) ++violations;
          }
          break;
        case 2: {
          const auto visits = g.bfs(seed[rng() % seed.size()], {.direction = Direction::both, .max_depth = 3});
          if (visits.empty()) ++violations;  // seeds always exist
          break;
        }
        case 3: {
          double sum = 0;
          for (const auto& s : g.page_rank({.iterations = 5})) sum += s.score;
          if (std::abs(sum - 1.0) > 1e-6) ++violations;
          break;
        }
        default:
          (void)g.neighbors(seed[rng() % seed.size()], {.direction = Direction::both, .max_depth = 2});
          (void)g.connected_components({.min_size = 2});
      }
    }
  };
  auto indexer = [&] {
    start.arrive_and_wait();
    for (int round = 0; round < 40; ++round) {
      g.create_index("Node", "bucket");
      g.create_index("LINK", "bucket");
      std::this_thread::yield();
      g.drop_index("Node", "bucket");
      g.drop_index("LINK", "bucket");
    }
    g.create_index("Node", "bucket");
  };

  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) threads.emplace_back(writer, t);
  for (int t = 0; t < kReaders; ++t) threads.emplace_back(reader, t);
  threads.emplace_back(indexer);
  for (auto& t : threads) t.join();
  EXPECT_EQ(violations.load(), 0);

  // At rest: indexed lookups equal an unindexed scan.
  for (int bucket = 0; bucket < 4; ++bucket) {
    std::vector<ElementId> scanned;
    for (const auto& v : g.find_vertices_by_label("Node")) {
      if (v.properties["bucket"] == propgraph::Value(bucket)) scanned.push_back(v.id);
    }
    std::vector<ElementId> indexed;
    for (const auto& v : g.find_vertices_by_label("Node", {{"bucket", bucket}})) indexed.push_back(v.id);
    EXPECT_EQ(indexed, scanned) << "bucket " << bucket;
  }
}

}  // namespace
