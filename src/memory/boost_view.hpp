// A Boost.Graph view of a View's adjacency under an EdgeFilter: models VertexListGraph and
// IncidenceGraph without copying anything, so Boost's algorithms (Dijkstra, strong components)
// run directly on MemoryGraph's adjacency (live lists or snapshot). Vertices are slots (dead
// slots have no edges).
#pragma once

#include <optional>
#include <type_traits>
#include <utility>

#include <boost/graph/graph_traits.hpp>
#include <boost/graph/properties.hpp>
#include <boost/iterator/counting_iterator.hpp>
#include <boost/iterator/iterator_facade.hpp>
#include <boost/property_map/property_map.hpp>

#include "memory/view.hpp"

namespace propgraph::detail {

template <typename View, typename Adjacency>
struct BoostGraphView {
  const View* view;
  const Adjacency* adjacency;
  EdgeFilter filter;
};

/// An edge as the view sees it: oriented along the traversal (source is the expanded vertex).
struct ViewEdge {
  Slot source = 0;
  Slot target = 0;
  Slot edge = 0;
  friend bool operator==(const ViewEdge&, const ViewEdge&) = default;
};

/// Walks the same entries in the same order as for_each_adjacent (an AdjacencyCursor); the end
/// iterator is an exhausted cursor.
template <typename Graph>
class ViewOutEdgeIterator
    : public boost::iterator_facade<ViewOutEdgeIterator<Graph>, ViewEdge, boost::forward_traversal_tag, ViewEdge> {
 public:
  using Cursor = AdjacencyCursor<std::remove_cvref_t<decltype(*Graph::view)>>;
  ViewOutEdgeIterator() = default;
  ViewOutEdgeIterator(const Graph* graph, Slot v, bool at_end) : v_(v) {
    if (!at_end) cursor_.emplace(*graph->view, *graph->adjacency, v, graph->filter);
    if (cursor_ && cursor_->done()) cursor_.reset();
  }

 private:
  friend class boost::iterator_core_access;

  void increment() {
    cursor_->next();
    if (cursor_->done()) cursor_.reset();
  }
  [[nodiscard]] bool equal(const ViewOutEdgeIterator& o) const { return cursor_ == o.cursor_; }
  [[nodiscard]] ViewEdge dereference() const {
    const AdjEntry& a = cursor_->current();
    return {v_, a.other, a.edge};
  }

  Slot v_ = 0;
  std::optional<Cursor> cursor_;  // empty at the end
};

struct BoostGraphViewTraversal : boost::incidence_graph_tag, boost::vertex_list_graph_tag {};

template <typename V, typename A>
std::pair<ViewOutEdgeIterator<BoostGraphView<V, A>>, ViewOutEdgeIterator<BoostGraphView<V, A>>> out_edges(
    Slot v, const BoostGraphView<V, A>& g) {
  return {ViewOutEdgeIterator<BoostGraphView<V, A>>(&g, v, false),
          ViewOutEdgeIterator<BoostGraphView<V, A>>(&g, v, true)};
}
template <typename V, typename A>
std::size_t out_degree(Slot v, const BoostGraphView<V, A>& g) {
  auto [it, end] = out_edges(v, g);
  return static_cast<std::size_t>(std::distance(it, end));
}
template <typename V, typename A>
Slot source(const ViewEdge& e, const BoostGraphView<V, A>&) {
  return e.source;
}
template <typename V, typename A>
Slot target(const ViewEdge& e, const BoostGraphView<V, A>&) {
  return e.target;
}
template <typename V, typename A>
std::pair<boost::counting_iterator<Slot>, boost::counting_iterator<Slot>> vertices(const BoostGraphView<V, A>& g) {
  return {boost::counting_iterator<Slot>(0), boost::counting_iterator<Slot>(static_cast<Slot>(g.view->vertex_slots()))};
}
template <typename V, typename A>
std::size_t num_vertices(const BoostGraphView<V, A>& g) {
  return g.view->vertex_slots();
}
template <typename V, typename A>
boost::typed_identity_property_map<Slot> get(boost::vertex_index_t, const BoostGraphView<V, A>&) {
  return {};
}

}  // namespace propgraph::detail

namespace boost {

template <typename V, typename A>
struct graph_traits<propgraph::detail::BoostGraphView<V, A>> {
  using vertex_descriptor = propgraph::detail::Slot;
  using edge_descriptor = propgraph::detail::ViewEdge;
  using directed_category = directed_tag;
  using edge_parallel_category = allow_parallel_edge_tag;
  using traversal_category = propgraph::detail::BoostGraphViewTraversal;
  using out_edge_iterator = propgraph::detail::ViewOutEdgeIterator<propgraph::detail::BoostGraphView<V, A>>;
  using vertex_iterator = boost::counting_iterator<propgraph::detail::Slot>;
  using degree_size_type = std::size_t;
  using vertices_size_type = std::size_t;
  using edges_size_type = std::size_t;
  using adjacency_iterator = void;
  using in_edge_iterator = void;
  using edge_iterator = void;
  static vertex_descriptor null_vertex() { return std::numeric_limits<vertex_descriptor>::max(); }
};

template <typename V, typename A>
struct property_map<propgraph::detail::BoostGraphView<V, A>, vertex_index_t> {
  using type = typed_identity_property_map<propgraph::detail::Slot>;
  using const_type = type;
};

}  // namespace boost
