// MemoryGraph's reads, once, over any View: MemoryGraph runs them on the committed graph, a
// transaction on its TxView. Option checks that do not depend on the graph come first, as the
// contract wants them whether or not the ids exist.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "memory/algorithms.hpp"
#include "propgraph/errors.hpp"

namespace propgraph::detail::reads {

template <typename View>
std::vector<std::string> labels_in_use(const View& g, ElementKind kind) {
  std::vector<std::string> result;
  for (LabelId l = 0; l < g.labels().size(); ++l) {
    if (g.count_members(kind, l) > 0) result.push_back(g.labels().name(l));
  }
  std::sort(result.begin(), result.end());
  return result;
}

template <typename View>
std::optional<Vertex> find_vertex_by_id(const View& g, std::string_view label, const ElementId& id) {
  const Slot v = vertex_slot(g, label, id);
  if (v == kNoSlot) return std::nullopt;
  return std::optional<Vertex>(std::in_place, id, std::string(label), g.vertex_properties(v).unpack());
}

template <typename View>
std::optional<Vertex> find_vertex(const View& g, const ElementId& id) {
  const Slot v = vertex_slot(g, id);
  if (v == kNoSlot) return std::nullopt;
  return std::optional<Vertex>(std::in_place, id, g.labels().name(g.vertex_label(v)), g.vertex_properties(v).unpack());
}

template <typename View>
std::vector<Vertex> find_vertices_by_label(const View& g, std::string_view label, const Properties& filter,
                                           const Page& page) {
  std::vector<Vertex> result;
  const LabelId l = g.labels().find(label);
  if (page.limit != 0) {
    result.reserve(
        std::min<std::size_t>(page.limit, static_cast<std::size_t>(g.count_members(ElementKind::vertex, l))));
  } else if (filter.empty()) {
    result.reserve(static_cast<std::size_t>(g.count_members(ElementKind::vertex, l)));
  }
  g.scan(ElementKind::vertex, l, filter, page, [&](Slot v) { emplace_vertex(g, result, v); });
  return result;
}

template <typename View>
std::optional<Edge> find_edge_by_id(const View& g, std::string_view label, const ElementId& id) {
  const Slot e = edge_slot(g, label, id);
  if (e == kNoSlot) return std::nullopt;
  return make_edge(g, e);
}

template <typename View>
std::optional<Edge> find_edge(const View& g, const ElementId& id) {
  const Slot e = edge_slot(g, id);
  if (e == kNoSlot) return std::nullopt;
  return make_edge(g, e);
}

template <typename View>
std::vector<Edge> find_edges_by_label(const View& g, std::string_view label, const Properties& filter,
                                      const Page& page) {
  std::vector<Edge> result;
  const LabelId l = g.labels().find(label);
  if (page.limit != 0) {
    result.reserve(std::min<std::size_t>(page.limit, static_cast<std::size_t>(g.count_members(ElementKind::edge, l))));
  }
  g.scan(ElementKind::edge, l, filter, page, [&](Slot e) { result.push_back(make_edge(g, e)); });
  return result;
}

/// Both lists ascend by edge id: each starts after page.after, then they merge (a self-loop
/// is in both lists under one id and is taken once).
template <typename View>
std::vector<Edge> incident_edges(const View& g, const ElementId& vertex, const EdgeQuery& query) {
  const Slot v = vertex_slot(g, vertex);
  if (v == kNoSlot) return {};
  const LabelId l = g.labels().filter(query.edge_label);
  if (l == kUnknownLabel) return {};
  return g.with_adjacency([&](const auto& adj) {
    std::span<const AdjEntry> out;
    std::span<const AdjEntry> in;
    if (query.direction != Direction::in) out = adj.out(v);
    if (query.direction != Direction::out) in = adj.in(v);
    auto start = [&](std::span<const AdjEntry> list) {
      if (!query.page.after) return list.begin();
      return std::partition_point(list.begin(), list.end(), [&](const AdjEntry& a) {
        return !(*query.page.after < make_id(g, ElementKind::edge, a.edge));
      });
    };
    auto o = start(out);
    auto i = start(in);
    boost::container::small_vector<ListedEdge, 32> edges;  // first from the lists, then built
    const auto listed = static_cast<std::size_t>((out.end() - o) + (in.end() - i));
    edges.reserve(query.page.limit == 0 ? listed : std::min(listed, query.page.limit));
    while (o != out.end() || i != in.end()) {
      const AdjEntry* a;
      bool from_v = true;
      if (i == in.end() || (o != out.end() && o->edge < i->edge)) {
        a = &*o++;
      } else if (o == out.end() || i->edge < o->edge) {
        a = &*i++;
        from_v = false;
      } else {
        a = &*o;  // in both lists: a self-loop
        ++o;
        ++i;
      }
      if (!has_label(g, *a, l)) continue;  // the list carries the label
      edges.push_back(listed_edge(g, v, *a, from_v));
      if (edges.size() == query.page.limit) break;
    }
    return make_edges(g, edges.data(), edges.size());
  });
}

template <typename View>
std::int64_t count(const View& g, ElementKind kind, std::string_view label) {
  return g.count_members(kind, g.labels().find(label));
}

template <typename View>
std::optional<Degree> degree_centrality(const View& g, const ElementId& id, const DegreeOptions& options) {
  const Slot v = vertex_slot(g, id);
  if (v == kNoSlot) return std::nullopt;
  const LabelId l = g.labels().filter(options.edge_label);
  return g.with_adjacency([&](const auto& adj) {
    auto count = [&](std::span<const AdjEntry> list) {
      return static_cast<std::int64_t>(
          std::count_if(list.begin(), list.end(), [&](const AdjEntry& a) { return has_label(g, a, l); }));
    };
    Degree d{id, 0, 0};
    if (options.direction != Direction::out) d.in = count(adj.in(v));
    if (options.direction != Direction::in) d.out = count(adj.out(v));
    return d;
  });
}

// -- traversals and algorithms: resolve ids, then run the algorithm ------------------------------

template <typename View>
std::vector<Vertex> neighbors(const View& g, const ElementId& start, const NeighborOptions& options) {
  const Slot v = vertex_slot(g, start);
  if (v == kNoSlot) return {};
  return detail::neighbors(g, v, options);
}

template <typename View>
std::optional<Path> shortest_path(const View& g, const ElementId& from, const ElementId& to,
                                  const PathOptions& options) {
  const Slot f = vertex_slot(g, from);
  const Slot t = vertex_slot(g, to);
  if (f == kNoSlot || t == kNoSlot) return std::nullopt;
  return detail::shortest_path(g, f, t, options);
}

template <typename View>
std::vector<Path> all_paths(const View& g, const ElementId& from, const ElementId& to, const PathOptions& options) {
  const Slot f = vertex_slot(g, from);
  const Slot t = vertex_slot(g, to);
  if (f == kNoSlot || t == kNoSlot) return {};
  return detail::all_paths(g, f, t, options);
}

template <typename View>
std::vector<Visit> bfs(const View& g, const ElementId& start, const TraversalOptions& options) {
  const Slot v = vertex_slot(g, start);
  if (v == kNoSlot) return {};
  return detail::bfs(g, v, options);
}

template <typename View>
std::vector<Visit> dfs(const View& g, const ElementId& start, const TraversalOptions& options) {
  const Slot v = vertex_slot(g, start);
  if (v == kNoSlot) return {};
  return detail::dfs(g, v, options);
}

}  // namespace propgraph::detail::reads
