// MemoryGraph used from several threads at once: mixed writes and reads on one graph, then a
// check that the final graph is exactly what the successful writes imply.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <latch>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "propgraph/errors.hpp"
#include "propgraph/fmt.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace {

using propgraph::Direction;
using propgraph::ElementId;
using propgraph::MemoryGraph;

constexpr int kThreads = 4;
constexpr int kOperationsPerThread = 1500;
constexpr const char* kVertexLabel = "Node";
constexpr const char* kEdgeLabel = "LINK";

/// Vertex ids any thread may link to (some of them deleted by now).
class VertexPool {
 public:
  void add(const ElementId& id) {
    std::lock_guard lock(mutex_);
    ids_.push_back(id);
  }
  std::optional<ElementId> pick(std::mt19937& rng) {
    std::lock_guard lock(mutex_);
    if (ids_.empty()) return std::nullopt;
    return ids_[std::uniform_int_distribution<std::size_t>(0, ids_.size() - 1)(rng)];
  }

 private:
  std::mutex mutex_;
  std::vector<ElementId> ids_;
};

struct CreatedEdge {
  ElementId id, from, to;
};

/// What one thread did. Only the owner deletes its vertices and edges, so "alive" is exact.
struct ThreadLog {
  std::vector<ElementId> alive_vertices;
  std::vector<ElementId> deleted_vertices;
  std::vector<CreatedEdge> created_edges;
  std::unordered_set<ElementId> deleted_edges;    // delete_edge returned true
  std::vector<ElementId> vanished_edges;          // delete_edge returned false: an endpoint died
  std::vector<std::size_t> live_edge_positions;   // into created_edges, not yet deleted by us
  int failed_edge_creates = 0;
  std::vector<std::string> violations;

  void violation(std::string what) {
    if (violations.size() < 20) violations.push_back(std::move(what));
  }
};

void run_worker(MemoryGraph& g, VertexPool& pool, ThreadLog& log, int thread, std::latch& start) {
  std::mt19937 rng(1234 + thread);
  auto percent = std::uniform_int_distribution<int>(0, 99);
  auto index = [&](std::size_t size) { return std::uniform_int_distribution<std::size_t>(0, size - 1)(rng); };
  start.arrive_and_wait();

  for (int op = 0; op < kOperationsPerThread; ++op) {
    const int roll = percent(rng);
    if (roll < 28 || log.alive_vertices.empty()) {
      auto v = g.create_vertex(kVertexLabel, {{"owner", thread}, {"seq", op}});
      log.alive_vertices.push_back(v.id);
      pool.add(v.id);
    } else if (roll < 52) {
      // From one of ours (alive) to anyone's (maybe deleted meanwhile: NotFound is fine).
      const auto from = log.alive_vertices[index(log.alive_vertices.size())];
      const auto to = pool.pick(rng).value_or(from);
      try {
        auto e = g.create_edge(from, to, kEdgeLabel, {{"owner", thread}});
        if (e.from != from || e.to != to) log.violation("create_edge returned other endpoints");
        log.live_edge_positions.push_back(log.created_edges.size());
        log.created_edges.push_back({e.id, from, to});
      } catch (const propgraph::NotFound&) {
        ++log.failed_edge_creates;
      }
    } else if (roll < 60) {
      const auto at = index(log.alive_vertices.size());
      const auto id = log.alive_vertices[at];
      if (!g.delete_vertex(kVertexLabel, id)) log.violation("delete_vertex of an own live vertex failed");
      log.alive_vertices.erase(log.alive_vertices.begin() + static_cast<std::ptrdiff_t>(at));
      log.deleted_vertices.push_back(id);
    } else if (roll < 68) {
      if (log.live_edge_positions.empty()) continue;
      const auto at = index(log.live_edge_positions.size());
      const auto& edge = log.created_edges[log.live_edge_positions[at]];
      if (g.delete_edge(kEdgeLabel, edge.id)) {
        log.deleted_edges.insert(edge.id);
      } else {
        log.vanished_edges.push_back(edge.id);
      }
      log.live_edge_positions.erase(log.live_edge_positions.begin() + static_cast<std::ptrdiff_t>(at));
    } else if (roll < 78) {
      const auto start_id = pool.pick(rng);
      if (!start_id) continue;
      for (const auto& v : g.neighbors(*start_id, {.direction = Direction::both, .max_depth = 2})) {
        if (v.id == *start_id) log.violation("neighbors returned the start");
      }
    } else if (roll < 86) {
      const auto start_id = pool.pick(rng);
      if (!start_id) continue;
      const auto visits = (roll % 2 == 0) ? g.bfs(*start_id) : g.dfs(*start_id);
      if (!visits.empty() &&
          (visits.front().vertex.id != *start_id || visits.front().depth != 0 || visits.front().parent)) {
        log.violation("traversal did not start at its start");
      }
    } else if (roll < 90) {
      const auto scores = g.page_rank({.top_k = 5});
      if (scores.size() > 5) log.violation("page_rank ignored top_k");
    } else if (roll < 96) {
      // Only this thread deletes its vertices: a live one must be found, with its degree.
      const auto id = log.alive_vertices[index(log.alive_vertices.size())];
      if (!g.find_vertex_by_id(kVertexLabel, id)) log.violation("own live vertex not found");
      if (!g.degree_centrality(id)) log.violation("own live vertex has no degree");
    } else {
      const auto from = pool.pick(rng);
      const auto to = pool.pick(rng);
      if (from && to) (void)g.shortest_path(*from, *to, {.direction = Direction::out});
      (void)g.count_edges(kEdgeLabel);
      (void)g.connected_components({.min_size = 2});
    }
  }
}

TEST(MemoryGraphConcurrency, MixedWritesAndReadsLeaveAConsistentGraph) {
  MemoryGraph g;
  VertexPool pool;
  std::vector<ThreadLog> logs(kThreads);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { run_worker(g, pool, logs[static_cast<std::size_t>(t)], t, start); });
  }
  for (auto& th : threads) th.join();

  for (int t = 0; t < kThreads; ++t) {
    for (const auto& v : logs[static_cast<std::size_t>(t)].violations) {
      ADD_FAILURE() << "thread " << t << ": " << v;
    }
  }

  // Vertices: exactly the ones created and not deleted.
  std::unordered_set<ElementId> alive;
  std::size_t deleted_count = 0;
  for (const auto& log : logs) {
    alive.insert(log.alive_vertices.begin(), log.alive_vertices.end());
    deleted_count += log.deleted_vertices.size();
  }
  std::size_t created_count = alive.size() + deleted_count;
  std::size_t edge_creates = 0, edge_deletes = 0, vanished = 0, failed_creates = 0;
  for (const auto& log : logs) {
    edge_creates += log.created_edges.size();
    edge_deletes += log.deleted_edges.size();
    vanished += log.vanished_edges.size();
    failed_creates += static_cast<std::size_t>(log.failed_edge_creates);
  }
  // The mix exercised every kind of write.
  EXPECT_GT(deleted_count, 0u);
  EXPECT_GT(edge_creates, 0u);
  EXPECT_GT(edge_deletes, 0u);
  EXPECT_GT(vanished, 0u) << "no edge was taken away by delete_vertex";
  RecordProperty("vertices_created", static_cast<int>(created_count));
  RecordProperty("vertices_deleted", static_cast<int>(deleted_count));
  RecordProperty("edges_created", static_cast<int>(edge_creates));
  RecordProperty("edges_deleted", static_cast<int>(edge_deletes));
  RecordProperty("edges_gone_with_a_vertex", static_cast<int>(vanished));
  RecordProperty("edge_creates_not_found", static_cast<int>(failed_creates));
  EXPECT_EQ(g.count_vertices(kVertexLabel), static_cast<std::int64_t>(alive.size()))
      << created_count << " created, " << deleted_count << " deleted";
  for (int t = 0; t < kThreads; ++t) {
    const auto& log = logs[static_cast<std::size_t>(t)];
    for (const auto& id : log.alive_vertices) {
      EXPECT_TRUE(g.find_vertex_by_id(kVertexLabel, id)) << "live vertex missing: " << id.str();
    }
    for (const auto& id : log.deleted_vertices) {
      EXPECT_FALSE(g.find_vertex_by_id(kVertexLabel, id)) << "deleted vertex found: " << id.str();
    }
    std::vector<ElementId> expected = log.alive_vertices;
    std::sort(expected.begin(), expected.end());
    std::vector<ElementId> found;
    for (const auto& v : g.find_vertices_by_label(kVertexLabel, {{"owner", t}})) {
      found.push_back(v.id);
    }
    EXPECT_EQ(found, expected) << "vertices of thread " << t;
  }

  // Edges: created, not deleted by their creator, and both endpoints still alive. An edge whose
  // delete_edge found nothing must have lost an endpoint.
  std::unordered_set<ElementId> created_edge_ids;
  std::int64_t expected_edges = 0;
  for (const auto& log : logs) {
    std::unordered_map<ElementId, const CreatedEdge*> by_id;
    for (const auto& e : log.created_edges) {
      created_edge_ids.insert(e.id);
      by_id[e.id] = &e;
      const bool should_exist = !log.deleted_edges.contains(e.id) && alive.contains(e.from) && alive.contains(e.to);
      expected_edges += should_exist ? 1 : 0;
      EXPECT_EQ(g.find_edge_by_id(kEdgeLabel, e.id).has_value(), should_exist)
          << "edge " << e.id.str() << " " << e.from.str() << "->" << e.to.str();
    }
    for (const auto& id : log.vanished_edges) {
      const auto* e = by_id.at(id);
      EXPECT_FALSE(alive.contains(e->from) && alive.contains(e->to))
          << "delete_edge found nothing although both endpoints live: " << id.str();
    }
  }
  EXPECT_EQ(g.count_edges(kEdgeLabel), expected_edges);
  const auto edges = g.find_edges_by_label(kEdgeLabel);
  EXPECT_EQ(static_cast<std::int64_t>(edges.size()), expected_edges);
  for (const auto& e : edges) {
    EXPECT_TRUE(created_edge_ids.contains(e.id)) << "edge nobody created: " << e.id.str();
    EXPECT_TRUE(g.find_vertex_by_id(kVertexLabel, e.from)) << "dangling edge " << e.id.str();
    EXPECT_TRUE(g.find_vertex_by_id(kVertexLabel, e.to)) << "dangling edge " << e.id.str();
  }
  // Degrees agree with the edge list.
  std::int64_t out_degrees = 0;
  for (const auto& id : alive) out_degrees += g.degree_centrality(id, {.direction = Direction::out})->out;
  EXPECT_EQ(out_degrees, expected_edges);
}

TEST(MemoryGraphConcurrency, ConcurrentCreatesGetDistinctIds) {
  constexpr int kPerThread = 200;
  MemoryGraph g;
  std::vector<std::vector<ElementId>> vertex_ids(kThreads);
  std::vector<std::vector<ElementId>> edge_ids(kThreads);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto& mine = vertex_ids[static_cast<std::size_t>(t)];
      start.arrive_and_wait();
      for (int i = 0; i < kPerThread; ++i) {
        mine.push_back(g.create_vertex("Node", {{"owner", t}}).id);
        if (i > 0) {
          edge_ids[static_cast<std::size_t>(t)].push_back(
              g.create_edge(mine[static_cast<std::size_t>(i) - 1], mine.back(), "LINK").id);
        }
      }
    });
  }
  for (auto& th : threads) th.join();

  std::set<ElementId> all_vertices;
  std::set<ElementId> all_edges;
  for (int t = 0; t < kThreads; ++t) {
    const auto& mine = vertex_ids[static_cast<std::size_t>(t)];
    all_vertices.insert(mine.begin(), mine.end());
    all_edges.insert(edge_ids[static_cast<std::size_t>(t)].begin(), edge_ids[static_cast<std::size_t>(t)].end());
    // One thread's ids ascend in its creation order.
    EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
  }
  EXPECT_EQ(all_vertices.size(), static_cast<std::size_t>(kThreads * kPerThread));
  EXPECT_EQ(all_edges.size(), static_cast<std::size_t>(kThreads * (kPerThread - 1)));
  EXPECT_EQ(g.count_vertices("Node"), kThreads * kPerThread);
  EXPECT_EQ(g.count_edges("LINK"), kThreads * (kPerThread - 1));
  // Each thread built one chain: kThreads weak components of kPerThread vertices.
  const auto components = g.connected_components();
  ASSERT_EQ(components.size(), static_cast<std::size_t>(kThreads));
  for (const auto& c : components) EXPECT_EQ(c.vertices.size(), static_cast<std::size_t>(kPerThread));
}

}  // namespace
