// MemoryGraph's unweighted shortest_path searches from both ends, yet must return exactly the
// path of the one-sided breadth-first search from `from` (the contract's tie rule: the path found
// first expanding edges in id order): the same vertices and the same edges, for every direction,
// with and without an edge label filter, under max_depth bounds that cut paths, through
// self-loops, parallel edges and two-edge cycles. The reference is that one-sided search as
// GraphOperations::bfs runs it. Small graphs get their lists appended to edge by edge, medium ones
// laid out in bulk, and one pass runs inside a transaction with pending writes.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "propgraph/deadline.hpp"
#include "propgraph/errors.hpp"
#include "propgraph/generate.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace propgraph {
namespace {

constexpr int kUnbounded = std::numeric_limits<int>::max();

/// A path as ids: what "the same path" compares.
struct Route {
  std::vector<ElementId> vertices;
  std::vector<ElementId> edges;
  friend bool operator==(const Route&, const Route&) = default;
};

std::optional<Route> route(const std::optional<Path>& p) {
  if (!p) return std::nullopt;
  Route r;
  for (const auto& v : p->vertices) r.vertices.push_back(v.id);
  for (const auto& e : p->edges) r.edges.push_back(e.id);
  return r;
}

std::string describe(const std::optional<Route>& r) {
  if (!r) return "no path";
  std::string text;
  for (std::size_t i = 0; i < r->vertices.size(); ++i) {
    if (i > 0) text += fmt::format(" -{}- ", r->edges[i - 1].str());
    text += r->vertices[i].str();
  }
  return text;
}

std::string_view name(Direction d) { return d == Direction::out ? "out" : d == Direction::in ? "in" : "both"; }

/// Incident edges by (vertex, direction, label), ascending id, fetched once per graph state.
class Incident {
 public:
  explicit Incident(GraphOperations& g) : g_(g) {}
  const std::vector<Edge>& of(const ElementId& v, Direction d, const std::optional<std::string>& label) {
    auto key = std::make_tuple(std::string(v.str()), d, label.value_or(""));
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, g_.incident_edges(v, {.direction = d, .edge_label = label})).first;
    return it->second;
  }

 private:
  GraphOperations& g_;
  std::map<std::tuple<std::string, Direction, std::string>, std::vector<Edge>> cache_;
};

/// The vertex at the other end of e from v (e is not a self-loop).
const ElementId& far_end(const Edge& e, const ElementId& v) { return e.from == v ? e.to : e.from; }

/// The one-sided search from `from` under `options`. GraphOperations::bfs runs it (levels in
/// order, each vertex's entries in edge-id order, a vertex's parent the first vertex to reach
/// it), and its tree edge into a vertex is the first entry of the parent's list reaching it:
/// the lowest-id edge from the parent to it under the filter.
class OneSided {
 public:
  OneSided(GraphOperations& g, Incident& incident, const ElementId& from, const PathOptions& options)
      : incident_(incident), options_(options) {
    const TraversalOptions all{.edge_label = options.edge_label,
                               .direction = options.direction,
                               .max_depth = options.max_depth,
                               .max_vertices = std::numeric_limits<std::size_t>::max()};
    for (auto& visit : g.bfs(from, all)) {
      order_.push_back(visit.vertex.id);
      tree_.emplace(visit.vertex.id, std::make_pair(visit.depth, std::move(visit.parent)));
    }
  }

  /// The vertices reached, in visit order.
  [[nodiscard]] const std::vector<ElementId>& order() const { return order_; }
  [[nodiscard]] bool reached(const ElementId& v) const { return tree_.contains(v); }

  [[nodiscard]] std::optional<Route> path_to(const ElementId& to) const {
    if (!reached(to)) return std::nullopt;
    Route r;
    for (ElementId v = to;;) {
      r.vertices.push_back(v);
      const auto& parent = tree_.at(v).second;
      if (!parent) break;
      for (const auto& e : incident_.of(*parent, options_.direction, options_.edge_label)) {
        if (e.from != e.to && far_end(e, *parent) == v) {
          r.edges.push_back(e.id);
          break;
        }
      }
      v = *parent;
    }
    std::reverse(r.vertices.begin(), r.vertices.end());
    std::reverse(r.edges.begin(), r.edges.end());
    return r;
  }

  /// Edges into `to` from vertices one level nearer the start: two or more mean several
  /// shortest paths, a tie the rule has to break.
  [[nodiscard]] int last_step_choices(const ElementId& to) const {
    const int depth = tree_.at(to).first;
    const Direction back = options_.direction == Direction::out  ? Direction::in
                           : options_.direction == Direction::in ? Direction::out
                                                                 : Direction::both;
    int choices = 0;
    for (const auto& e : incident_.of(to, back, options_.edge_label)) {
      if (e.from == e.to) continue;
      const auto it = tree_.find(far_end(e, to));
      choices += it != tree_.end() && it->second.first == depth - 1;
    }
    return choices;
  }

 private:
  Incident& incident_;
  PathOptions options_;
  std::vector<ElementId> order_;
  std::unordered_map<ElementId, std::pair<int, std::optional<ElementId>>> tree_;
};

/// What a comparison covered.
struct Coverage {
  int paths = 0;        // a path, the same on both sides
  int cut = 0;          // a path exists, but not within max_depth
  int unreachable = 0;  // no path at any depth
  int ties = 0;         // paths whose last step had several shortest choices
};

/// Compares shortest_path with the one-sided search from each start to targets near and far
/// (the farthest reached, random reached ones, random vertices, the start itself), for every
/// direction, without a label filter and with label "B", at several max_depth.
Coverage compare(GraphOperations& g, const std::vector<ElementId>& vertices, const std::vector<ElementId>& starts,
                 std::uint32_t seed) {
  Coverage c;
  Incident incident(g);
  std::mt19937 random(seed);
  auto pick = [&](const std::vector<ElementId>& from) { return from[random() % from.size()]; };
  for (const auto& start : starts) {
    for (Direction d : {Direction::out, Direction::in, Direction::both}) {
      for (const std::optional<std::string>& label : {std::optional<std::string>{}, std::optional<std::string>{"B"}}) {
        const OneSided unbounded(g, incident, start, {.edge_label = label, .direction = d, .max_depth = kUnbounded});
        const auto& reached = unbounded.order();
        std::vector<ElementId> targets{start, reached.back(), reached[reached.size() / 2]};
        for (int i = 0; i < 4; ++i) targets.push_back(pick(reached));
        for (int i = 0; i < 3; ++i) targets.push_back(pick(vertices));
        for (int depth : {0, 1, 2, 3, 5, kUnbounded}) {
          const PathOptions options{.edge_label = label, .direction = d, .max_depth = depth};
          std::optional<OneSided> cut;
          if (depth != kUnbounded) cut.emplace(g, incident, start, options);
          const OneSided& one_sided = cut ? *cut : unbounded;
          for (const auto& target : targets) {
            const auto expected = one_sided.path_to(target);
            const auto actual = route(g.shortest_path(start, target, options));
            if (actual != expected) {
              ADD_FAILURE() << start.str() << " to " << target.str() << ", direction " << name(d) << ", label "
                            << label.value_or("any") << ", max_depth " << depth << "\n  expected " << describe(expected)
                            << "\n  got      " << describe(actual);
              return c;
            }
            if (expected) {
              ++c.paths;
              c.ties += unbounded.last_step_choices(target) >= 2;
            } else {
              ++(unbounded.reached(target) ? c.cut : c.unreachable);
            }
          }
        }
      }
    }
  }
  return c;
}

/// A generated graph in a MemoryGraph: edge i labelled "B" when i % 3 == 0, else "A"; ids by
/// vertex number and by edge position.
struct Loaded {
  MemoryGraph graph;
  std::vector<ElementId> vertices;
  std::vector<ElementId> edges;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> list;

  explicit Loaded(generate::EdgeList l) : list(std::move(l.edges)) {
    vertices = generate::load(graph, {l.vertex_count, {}}, {.vertex_label = "Node"});
    std::vector<NewEdge> batch;
    for (std::size_t i = 0; i < list.size(); ++i) {
      batch.push_back({vertices[list[i].first], vertices[list[i].second], i % 3 == 0 ? "B" : "A", {}});
    }
    edges = graph.create_edges(batch);
  }

  /// Starts: the vertex of highest out-degree (lowest number on ties) and `n` random ones.
  [[nodiscard]] std::vector<ElementId> starts(int n, std::uint32_t seed) const {
    std::vector<std::uint32_t> degree(vertices.size());
    for (auto [u, v] : list) ++degree[u];
    std::vector<ElementId> result{
        vertices[static_cast<std::size_t>(std::max_element(degree.begin(), degree.end()) - degree.begin())]};
    std::mt19937 random(seed);
    for (int i = 0; i < n; ++i) result.push_back(vertices[random() % vertices.size()]);
    return result;
  }
};

/// `list` plus, appended (so with higher ids), a parallel copy of every 37th edge, the reverse
/// of every 53rd and a self-loop on every 61st vertex.
generate::EdgeList with_multi_edges(generate::EdgeList list) {
  const std::size_t m = list.edges.size();
  for (std::size_t i = 0; i < m; i += 37) list.edges.push_back(list.edges[i]);
  for (std::size_t i = 0; i < m; i += 53) list.edges.emplace_back(list.edges[i].second, list.edges[i].first);
  for (std::uint32_t v = 0; v < list.vertex_count; v += 61) list.edges.emplace_back(v, v);
  return list;
}

void expect_covered(const Coverage& c) {
  EXPECT_GT(c.paths, 100);
  EXPECT_GT(c.cut, 10);
  EXPECT_GT(c.ties, 10) << "the graphs must offer several shortest paths, or the rule is not tested";
}

TEST(ShortestPathBothEnds, SmallGraphsOnLiveListsGiveTheOneSidedPath) {
  Coverage total;
  for (auto list : {with_multi_edges(generate::random_graph(400, 2000, 1)), generate::rmat_graph(512, 3000, 2)}) {
    Loaded g(std::move(list));
    const auto c = compare(g.graph, g.vertices, g.starts(8, 11), 12);
    expect_covered(c);
    total.unreachable += c.unreachable;
  }
  EXPECT_GT(total.unreachable, 0);
}

TEST(ShortestPathBothEnds, MediumGraphsLoadedInBulkGiveTheOneSidedPath) {
  Coverage total;
  for (auto list : {with_multi_edges(generate::random_graph(6000, 48000, 3)), generate::rmat_graph(8192, 65536, 4),
                    with_multi_edges(generate::random_graph(5000, 7500, 5))}) {
    Loaded g(std::move(list));
    const auto c = compare(g.graph, g.vertices, g.starts(8, 21), 22);
    expect_covered(c);
    total.unreachable += c.unreachable;
  }
  EXPECT_GT(total.unreachable, 0);
}

TEST(ShortestPathBothEnds, ATransactionsPendingWritesGiveTheOneSidedPath) {
  Loaded g(with_multi_edges(generate::random_graph(3000, 12000, 6)));
  auto tx = g.graph.begin();
  std::mt19937 random(31);
  auto vertex = [&] { return g.vertices[random() % g.vertices.size()]; };
  for (int i = 0; i < 300; ++i) (void)tx->create_edge(vertex(), vertex(), i % 2 == 0 ? "A" : "B");
  for (int i = 0; i < 200; ++i) {
    const std::size_t e = random() % g.edges.size();
    (void)tx->delete_edge(e % 3 == 0 ? "B" : "A", g.edges[e]);
  }
  expect_covered(compare(*tx, g.vertices, g.starts(5, 32), 33));
  tx->rollback();
}

TEST(ShortestPathBothEnds, ASearchStoppedByItsDeadlineLeavesNothingBehind) {
  // Two copies of one graph: from a vertex of the first to one of the second there is no path,
  // and both searches grow through a whole copy (half a million entries) before that is known.
  const auto one = generate::random_graph(30000, 240000, 7);
  generate::EdgeList two{2 * one.vertex_count, one.edges};
  for (auto [u, v] : one.edges) two.edges.emplace_back(u + one.vertex_count, v + one.vertex_count);
  Loaded g(std::move(two));
  const ElementId& from = g.vertices[1];
  const ElementId& to = g.vertices[one.vertex_count + 2];
  const PathOptions out{.direction = Direction::out, .max_depth = kUnbounded};
  {
    DeadlineScope scope(std::chrono::microseconds(500));
    EXPECT_THROW((void)g.graph.shortest_path(from, to, out), Timeout);
  }
  // The next searches on this thread start clean: the same answers as the one-sided search.
  EXPECT_EQ(g.graph.shortest_path(from, to, out), std::nullopt);
  expect_covered(compare(g.graph, g.vertices, {from, to}, 41));
}

}  // namespace
}  // namespace propgraph
