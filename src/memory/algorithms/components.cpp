// connected_components: weak (union-find) and strong (Boost's Tarjan).
#include <boost/graph/strong_components.hpp>
#include <boost/pending/disjoint_sets.hpp>

#include "memory/algorithms.hpp"
#include "memory/boost_view.hpp"
#include "propgraph/deadline.hpp"

namespace propgraph::detail {

template <typename View>
std::vector<Component> connected_components(const View& g, const ComponentOptions& options) {
  const EdgeFilter f = make_filter(g, Direction::out, options.edge_label, options.vertex_label);
  if (f.vertex_label == kUnknownLabel) return {};
  const std::size_t n = g.vertex_slots();
  auto participates = [&](Slot v) { return g.vertex_alive(v) && vertex_in(g, v, f.vertex_label); };
  std::vector<Slot> component_of(n);
  DeadlineTicker ticker("connected_components");
  g.with_adjacency([&](const auto& adj) {
    boost::typed_identity_property_map<Slot> index;
    if (options.weakly) {
      // Weak components: union-find over the edges (Boost's connected_components needs an
      // undirected graph; disjoint_sets gives the same result on the directed adjacency).
      std::vector<Slot> rank(n, 0);
      auto rank_map = boost::make_iterator_property_map(rank.begin(), index);
      auto parent_map = boost::make_iterator_property_map(component_of.begin(), index);
      boost::disjoint_sets<decltype(rank_map), decltype(parent_map)> sets(rank_map, parent_map);
      for (Slot v = 0; v < n; ++v) sets.make_set(v);
      for (Slot v = 0; v < n; ++v) {
        ticker.tick();
        if (v + kPayloadAhead < n && g.vertex_alive(v + kPayloadAhead)) adj.prefetch(v + kPayloadAhead);
        if (!participates(v)) continue;
        for_each_adjacent(g, adj, v, f, [&](const AdjEntry& a) { sets.union_set(v, Slot{a.other}); });
      }
      for (Slot v = 0; v < n; ++v) component_of[v] = sets.find_set(v);
    } else {
      using Graph = BoostGraphView<View, std::decay_t<decltype(adj)>>;
      Graph graph{&g, &adj, f};
      ticker.check();
      boost::strong_components(graph, boost::make_iterator_property_map(component_of.begin(), index),
                               boost::vertex_index_map(index));
    }
  });
  // Group by component, ordered by each component's smallest slot (slots are visited in order).
  std::vector<Slot> position(n, kNoSlot);  // component representative -> group
  std::vector<std::vector<Slot>> groups;
  for (Slot v = 0; v < n; ++v) {
    ticker.tick();
    if (!participates(v)) continue;
    Slot& group = position[component_of[v]];
    if (group == kNoSlot) {
      group = static_cast<Slot>(groups.size());
      groups.emplace_back();
    }
    groups[group].push_back(v);
  }
  std::vector<Component> result;
  for (auto& members : groups) {
    if (members.size() < options.min_size) continue;
    result.push_back(Component{static_cast<std::int64_t>(result.size()), make_vertices(g, members.data(), members.size())});
  }
  return result;
}

#define PROPGRAPH_INSTANTIATE(View) \
  template std::vector<Component> connected_components(const View&, const ComponentOptions&);
PROPGRAPH_FOR_EACH_VIEW(PROPGRAPH_INSTANTIATE)

}  // namespace propgraph::detail
