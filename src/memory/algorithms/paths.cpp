// shortest_path (unweighted: breadth-first; weighted: Boost's Dijkstra) and all_paths.
#include <boost/graph/dijkstra_shortest_paths.hpp>

#include <cmath>

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
  double w = v.as_number();
  if (w < 0 || std::isnan(w)) {
    throw InvalidArgument(
        fmt::format("edge {}e{}: weight property '{}' is negative ({})", m.view->id_prefix(), e.edge, *m.key, w));
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
  std::vector<double> dist(n);
  std::vector<Slot> pred_edge(n, kNoSlot);
  boost::typed_identity_property_map<Slot> index;
  DeadlineTicker ticker("shortest_path");
  try {
    boost::dijkstra_shortest_paths(graph, from,
                                   boost::predecessor_map(boost::make_iterator_property_map(pred.begin(), index))
                                       .distance_map(boost::make_iterator_property_map(dist.begin(), index))
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
// length L = 0..max_depth emits the paths of exactly L edges, so results come shortest first
// and enumeration stops as soon as max_paths are found.
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
  std::vector<Slot> vs{from};
  std::vector<Slot> es;
  DeadlineTicker ticker("all_paths");
  for (int length = 1; length <= max_depth && result.size() < max_paths; ++length) {
    on_path.reset(g.vertex_slots());
    on_path.mark(from);
    // Recursive lambda: depth is bounded by max_depth.
    auto extend = [&](auto& self, Slot v) -> void {
      for_each_adjacent(g, adj, v, f, [&](const AdjEntry& a) {
        ticker.tick();
        if (result.size() >= max_paths || on_path.marked(a.other)) return;
        const bool last = static_cast<int>(es.size()) + 1 == length;
        if (last ? a.other != to : a.other == to) return;  // `to` ends the path, exactly at length
        vs.push_back(a.other);
        es.push_back(a.edge);
        if (last) {
          result.push_back(make_path(g, vs.begin(), vs.end(), es.begin(), es.end()));
        } else {
          on_path.mark(a.other);
          self(self, a.other);
          on_path.unmark(a.other);
        }
        vs.pop_back();
        es.pop_back();
      });
    };
    extend(extend, from);
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
