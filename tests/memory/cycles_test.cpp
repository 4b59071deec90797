// detect_cycles against two references on many small random graphs (self-loops, parallel
// edges, deleted elements, two vertex and two edge labels; committed and inside a transaction):
//   - which cycles: every vertex sequence that closes a simple cycle, tried one by one;
//   - in which order: the unpruned depth-first search the contract describes (roots by
//     ascending id, edges in id order, the lowest-id edge of parallel ones).
#include <algorithm>
#include <climits>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "propgraph/memory/memory_graph.hpp"

namespace propgraph {
namespace {

/// The graph as the test built it: indexes in creation order (the ids' order).
struct Model {
  struct V {
    std::string label;
    bool alive = true;
  };
  struct E {
    int from = 0;
    int to = 0;
    std::string label;
    bool alive = true;
  };
  std::vector<V> vertices;
  std::vector<E> edges;
};

/// A cycle as vertex indexes (first == last) and edge indexes.
struct Found {
  std::vector<int> vertices;
  std::vector<int> edges;
  friend bool operator==(const Found&, const Found&) = default;
  friend auto operator<=>(const Found&, const Found&) = default;
};

bool vertex_ok(const Model& m, int v, const CycleOptions& o) {
  return m.vertices[v].alive && (!o.vertex_label || m.vertices[v].label == *o.vertex_label);
}

/// The edge from `from` to `to` a cycle takes: the lowest-id live edge of the label, or -1.
int edge_between(const Model& m, int from, int to, const CycleOptions& o) {
  for (int e = 0; e < static_cast<int>(m.edges.size()); ++e) {
    const auto& edge = m.edges[e];
    if (edge.alive && edge.from == from && edge.to == to && (!o.edge_label || edge.label == *o.edge_label)) return e;
  }
  return -1;
}

/// Every simple cycle of at most max_depth edges, by trying each sequence of distinct, joined
/// vertices that starts at its smallest (max_cycles is not applied).
std::set<Found> all_cycles(const Model& m, const CycleOptions& o) {
  std::set<Found> out;
  const int n = static_cast<int>(m.vertices.size());
  std::vector<int> seq;
  std::vector<bool> used(n, false);
  std::function<void()> extend = [&] {
    // Close the sequence.
    const int e = edge_between(m, seq.back(), seq.front(), o);
    if (e >= 0) {
      Found c;
      c.vertices = seq;
      c.vertices.push_back(seq.front());
      for (std::size_t i = 0; i + 1 < seq.size(); ++i) c.edges.push_back(edge_between(m, seq[i], seq[i + 1], o));
      c.edges.push_back(e);
      out.insert(c);
    }
    if (static_cast<long>(seq.size()) >= o.max_depth) return;
    for (int v = seq.front() + 1; v < n; ++v) {
      if (used[v] || !vertex_ok(m, v, o) || edge_between(m, seq.back(), v, o) < 0) continue;
      used[v] = true;
      seq.push_back(v);
      extend();
      seq.pop_back();
      used[v] = false;
    }
  };
  for (int root = 0; root < n; ++root) {
    if (!vertex_ok(m, root, o)) continue;
    seq.assign(1, root);
    used[root] = true;
    extend();
    used[root] = false;
  }
  return out;
}

/// The contract's order: from each root (ascending), a depth-first walk along edges in id order
/// through larger vertices, reporting each edge back to the root; stops at max_cycles.
std::vector<Found> in_order(const Model& m, const CycleOptions& o) {
  std::vector<Found> out;
  const int n = static_cast<int>(m.vertices.size());
  std::vector<std::vector<int>> adjacency(n);  // live edges of the label, ascending id
  for (int e = 0; e < static_cast<int>(m.edges.size()); ++e) {
    const auto& edge = m.edges[e];
    if (edge.alive && (!o.edge_label || edge.label == *o.edge_label)) adjacency[edge.from].push_back(e);
  }
  std::vector<int> vs, es;
  std::vector<bool> on_path(n, false);
  std::function<void(int)> walk = [&](int v) {
    std::set<int> taken;  // targets reached already: parallel edges count once
    for (int e : adjacency[v]) {
      if (out.size() >= o.max_cycles) return;
      const int w = m.edges[e].to;
      if (w < vs.front() || !vertex_ok(m, w, o) || !taken.insert(w).second) continue;
      if (w == vs.front()) {
        Found c{vs, es};
        c.vertices.push_back(w);
        c.edges.push_back(e);
        out.push_back(c);
      } else if (static_cast<long>(es.size()) + 1 < o.max_depth && !on_path[w]) {
        on_path[w] = true;
        vs.push_back(w);
        es.push_back(e);
        walk(w);
        vs.pop_back();
        es.pop_back();
        on_path[w] = false;
      }
    }
  };
  for (int root = 0; root < n && out.size() < o.max_cycles; ++root) {
    if (!vertex_ok(m, root, o)) continue;
    vs.assign(1, root);
    es.clear();
    on_path[root] = true;
    walk(root);
    on_path[root] = false;
  }
  return out;
}

/// Adds a random graph to `g` (and `m`): up to `most` vertices, up to 4 edges per new vertex
/// (self-loops, parallel edges, edges to older vertices), then a few deletions.
void build(GraphOperations& g, Model& m, std::vector<ElementId>& vids, std::vector<ElementId>& eids, std::mt19937& rng,
           int most) {
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  const int base = static_cast<int>(m.vertices.size());
  const int n = 1 + pick(most);
  for (int i = 0; i < n; ++i) {
    const std::string label = pick(3) == 0 ? "B" : "A";
    vids.push_back(g.create_vertex(label).id);
    m.vertices.push_back({label});
  }
  const int total = static_cast<int>(m.vertices.size());
  const int edges = pick(4 * n + 1);
  for (int i = 0; i < edges; ++i) {
    int from = base + pick(n);
    int to = pick(4) == 0 ? from : pick(total);  // self-loops; also edges into earlier vertices
    if (!m.vertices[from].alive || !m.vertices[to].alive) continue;
    const std::string label = pick(3) == 0 ? "Y" : "X";
    eids.push_back(g.create_edge(vids[from], vids[to], label).id);
    m.edges.push_back({from, to, label});
    if (pick(6) == 0) {  // a parallel edge, of either label
      const std::string other = pick(2) == 0 ? "Y" : "X";
      eids.push_back(g.create_edge(vids[from], vids[to], other).id);
      m.edges.push_back({from, to, other});
    }
  }
  if (!m.edges.empty() && pick(3) == 0) {
    const int e = pick(static_cast<int>(m.edges.size()));
    if (m.edges[e].alive) {
      ASSERT_TRUE(g.delete_edge(m.edges[e].label, eids[e]));
      m.edges[e].alive = false;
    }
  }
  if (pick(4) == 0) {
    const int v = base + pick(n);
    if (m.vertices[v].alive) {
      ASSERT_TRUE(g.delete_vertex(m.vertices[v].label, vids[v]));
      m.vertices[v].alive = false;
      for (auto& e : m.edges) {
        if (e.from == v || e.to == v) e.alive = false;
      }
    }
  }
}

/// Compares detect_cycles on `g` with the references for many option sets.
void compare(GraphOperations& g, const Model& m, const std::vector<ElementId>& vids, const std::vector<ElementId>& eids,
             const std::string& what) {
  std::map<std::string, int> vertex_index, edge_index;
  for (std::size_t i = 0; i < vids.size(); ++i) vertex_index[std::string(vids[i].str())] = static_cast<int>(i);
  for (std::size_t i = 0; i < eids.size(); ++i) edge_index[std::string(eids[i].str())] = static_cast<int>(i);
  for (int depth : {1, 2, 3, 4, 5, 8, INT_MAX}) {
    for (const std::optional<std::string>& vertex_label :
         {std::optional<std::string>{}, std::optional<std::string>{"A"}}) {
      for (const std::optional<std::string>& edge_label :
           {std::optional<std::string>{}, std::optional<std::string>{"X"}}) {
        for (std::size_t max_cycles : {std::size_t{1'000'000}, std::size_t{1}, std::size_t{3}}) {
          const CycleOptions o{
              .vertex_label = vertex_label, .edge_label = edge_label, .max_depth = depth, .max_cycles = max_cycles};
          std::vector<Found> got;
          for (const Cycle& c : g.detect_cycles(o)) {
            Found f;
            for (const auto& v : c.path.vertices) f.vertices.push_back(vertex_index.at(std::string(v.id.str())));
            for (const auto& e : c.path.edges) f.edges.push_back(edge_index.at(std::string(e.id.str())));
            got.push_back(f);
          }
          const std::string where = what + ", max_depth " + std::to_string(depth) + ", vertex label " +
                                    vertex_label.value_or("any") + ", edge label " + edge_label.value_or("any") +
                                    ", max_cycles " + std::to_string(max_cycles);
          ASSERT_EQ(got, in_order(m, o)) << where;
          if (max_cycles == 1'000'000) {
            ASSERT_EQ(std::set<Found>(got.begin(), got.end()), all_cycles(m, o)) << where;
            ASSERT_EQ(std::set<Found>(got.begin(), got.end()).size(), got.size()) << where << ": a cycle came twice";
          }
        }
      }
    }
  }
}

TEST(DetectCycles, MatchesBruteForceOnRandomSmallGraphs) {
  std::mt19937 rng(20261201);
  std::size_t cycles_seen = 0;
  for (int round = 0; round < 1000; ++round) {
    MemoryGraph g;
    Model m;
    std::vector<ElementId> vids, eids;
    build(g, m, vids, eids, rng, 9);
    if (HasFatalFailure()) return;
    compare(g, m, vids, eids, "graph " + std::to_string(round));
    if (HasFatalFailure()) return;
    cycles_seen += all_cycles(m, CycleOptions{.max_depth = INT_MAX}).size();
  }
  // The graphs do hold cycles (not a comparison of empty lists).
  EXPECT_GT(cycles_seen, 1000u);
}

TEST(DetectCycles, MatchesBruteForceInsideATransaction) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    MemoryGraph g;
    Model m;
    std::vector<ElementId> vids, eids;
    build(g, m, vids, eids, rng, 5);
    if (HasFatalFailure()) return;
    auto tx = g.begin();
    build(*tx, m, vids, eids, rng, 4);  // more vertices and edges, some into the committed ones
    if (HasFatalFailure()) return;
    compare(*tx, m, vids, eids, "transaction " + std::to_string(round));
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace propgraph
