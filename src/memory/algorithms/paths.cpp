// shortest_path (unweighted: breadth-first; weighted: Boost's Dijkstra) and all_paths.
#include <boost/graph/dijkstra_shortest_paths.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include "memory/algorithms.hpp"
#include "memory/algorithms/breadth_first.hpp"
#include "memory/boost_view.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/errors.hpp"

namespace propgraph::detail {

namespace {

/// Edge weights read from the edge properties: missing means 1, negative or non-numeric is the
/// caller's error.
template <typename View>
struct WeightMap {
  using key_type = ViewEdge;
  using value_type = double;
  using reference = double;
  using category = boost::readable_property_map_tag;
  const View* view;
  const std::string* key;
};

template <typename View>
double get(const WeightMap<View>& m, const ViewEdge& e) {
  const Value v = m.view->edge_properties(e.edge).get(*m.key);
  if (v.is_null()) return 1.0;
  if (!v.is_number()) {
    throw InvalidArgument(fmt::format("edge {}e{}: weight property '{}' is {}, not a number", m.view->id_prefix(),
                                      e.edge, *m.key, to_string(v.type())));
  }
  const double w = v.as_number();
  if (w < 0 || !std::isfinite(w)) {
    throw InvalidArgument(fmt::format("edge {}e{}: weight property '{}' is {} ({})", m.view->id_prefix(), e.edge,
                                      *m.key, w < 0 ? "negative" : "not finite", w));
  }
  return w;
}

struct TargetReached {};

struct DijkstraRecorder : boost::default_dijkstra_visitor {
  Slot target;
  std::vector<Slot>* pred_edge;
  DeadlineTicker<>* ticker;
  template <typename Graph>
  void edge_relaxed(const ViewEdge& e, const Graph&) const {
    (*pred_edge)[e.target] = e.edge;
  }
  template <typename Graph>
  void examine_vertex(Slot v, const Graph&) const {
    ticker->tick();
    if (v == target) throw TargetReached{};
  }
};

template <typename View, typename Adjacency>
std::optional<Path> dijkstra(const View& g, const Adjacency& adj, Slot from, Slot to, const EdgeFilter& f,
                             const std::string& weight_key) {
  BoostGraphView<View, Adjacency> graph{&g, &adj, f};
  const std::size_t n = g.vertex_slots();
  std::vector<Slot> pred(n);
  // Distances in long double with an infinite "unreached": finite weights up to DBL_MAX and their
  // sums along any path stay finite and ordered (no saturation into "no path").
  using Distance = long double;
  std::vector<Distance> dist(n);
  std::vector<Slot> pred_edge(n, kNoSlot);
  boost::typed_identity_property_map<Slot> index;
  DeadlineTicker ticker("shortest_path");
  try {
    boost::dijkstra_shortest_paths(graph, from,
                                   boost::predecessor_map(boost::make_iterator_property_map(pred.begin(), index))
                                       .distance_map(boost::make_iterator_property_map(dist.begin(), index))
                                       .distance_inf(std::numeric_limits<Distance>::infinity())
                                       .distance_zero(Distance{0})
                                       .distance_combine(std::plus<Distance>())
                                       .distance_compare(std::less<Distance>())
                                       .weight_map(WeightMap<View>{&g, &weight_key})
                                       .vertex_index_map(index)
                                       .visitor(DijkstraRecorder{{}, to, &pred_edge, &ticker}));
  } catch (const TargetReached&) {
    // Early exit: `to` was settled, its distance and predecessor are final.
  }
  if (from != to && pred_edge[to] == kNoSlot) return std::nullopt;
  std::vector<Slot> vs{to};
  std::vector<Slot> es;
  for (Slot v = to; v != from; v = pred[v]) {
    es.push_back(pred_edge[v]);
    vs.push_back(pred[v]);
  }
  return make_path(g, vs.rbegin(), vs.rend(), es.rbegin(), es.rend());
}

// Boost has no bounded simple-path enumeration. Iterative deepening: one depth-first pass per
// length L = 1..max_depth emits the paths of exactly L edges, so results come shortest first
// and enumeration stops as soon as max_paths are found, or when a pass finds no simple path of
// L - 1 edges avoiding `to` (then no longer path exists either). The open path is an explicit
// stack of cursors: no recursion as deep as the input.
template <typename View, typename Adjacency>
std::vector<Path> enumerate_paths(const View& g, const Adjacency& adj, Slot from, Slot to, const EdgeFilter& f,
                                  int max_depth, std::size_t max_paths) {
  std::vector<Path> result;
  if (max_paths == 0) return result;
  if (from == to) {
    result.push_back(make_path(g, &from, &from + 1, &from, &from));
    return result;  // the only simple path from a vertex to itself
  }
  Marks& on_path = scratch2();
  std::vector<AdjacencyCursor<View>> stack;  // stack[i] extends the prefix vs[0..i]
  std::vector<Slot> vs;
  std::vector<Slot> es;
  DeadlineTicker ticker("all_paths");
  bool prefix_reached = true;  // some simple path of length - 1 edges avoids `to`
  for (std::int64_t length = 1; length <= max_depth && prefix_reached && result.size() < max_paths; ++length) {
    prefix_reached = length == 1;
    on_path.reset(g.vertex_slots());
    on_path.mark(from);
    vs.assign(1, from);
    es.clear();
    stack.assign(1, AdjacencyCursor<View>(g, adj, from, f));
    while (!stack.empty() && result.size() < max_paths) {
      ticker.tick();
      AdjacencyCursor<View>& top = stack.back();
      if (top.done()) {
        stack.pop_back();
        if (!stack.empty()) {
          on_path.unmark(vs.back());
          vs.pop_back();
          es.pop_back();
        }
        continue;
      }
      const AdjEntry a = top.current();
      top.next();
      if (on_path.marked(a.other)) continue;
      const bool last = static_cast<std::int64_t>(es.size()) + 1 == length;
      if (last ? a.other != to : a.other == to) continue;  // `to` ends the path, exactly at length
      if (last) {
        vs.push_back(a.other);
        es.push_back(a.edge);
        result.push_back(make_path(g, vs.begin(), vs.end(), es.begin(), es.end()));
        vs.pop_back();
        es.pop_back();
        continue;
      }
      on_path.mark(a.other);
      vs.push_back(a.other);
      es.push_back(a.edge);
      if (static_cast<std::int64_t>(es.size()) + 1 == length) prefix_reached = true;
      stack.emplace_back(g, adj, a.other, f);
    }
  }
  return result;
}

}  // namespace

template <typename View>
std::optional<Path> shortest_path(const View& g, Slot from, Slot to, const PathOptions& options) {
  const EdgeFilter filter = make_filter(g, options.direction, options.edge_label);
  return g.with_adjacency([&](const auto& adj) -> std::optional<Path> {
    if (options.weight_property) return dijkstra(g, adj, from, to, filter, *options.weight_property);
    bool reached = false;
    breadth_first(g, adj, from, filter, options.max_depth, [&](Slot u, int) { return !(reached = u == to); },
                  "shortest_path");
    if (!reached) return std::nullopt;
    return path_to(g, to);
  });
}

template <typename View>
std::vector<Path> all_paths(const View& g, Slot from, Slot to, const PathOptions& options) {
  return g.with_adjacency([&](const auto& adj) {
    return enumerate_paths(g, adj, from, to, make_filter(g, options.direction, options.edge_label), options.max_depth,
                           options.max_paths);
  });
}

#define PROPGRAPH_INSTANTIATE(View)                                                         \
  template std::optional<Path> shortest_path(const View&, Slot, Slot, const PathOptions&);  \
  template std::vector<Path> all_paths(const View&, Slot, Slot, const PathOptions&);
PROPGRAPH_FOR_EACH_VIEW(PROPGRAPH_INSTANTIATE)

}  // namespace propgraph::detail
