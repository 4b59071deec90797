// A Boost.Graph view of the live Store under an EdgeFilter: models VertexListGraph and
// IncidenceGraph without copying anything, so Boost's algorithms (Dijkstra, strong components)
// run directly on MemoryGraph's adjacency. Vertices are slots (dead slots have no edges).
#pragma once

#include <boost/graph/graph_traits.hpp>
#include <boost/graph/properties.hpp>
#include <boost/iterator/counting_iterator.hpp>
#include <boost/iterator/iterator_facade.hpp>
#include <boost/property_map/property_map.hpp>

#include <utility>

#include "memory/store.hpp"

namespace propgraph::detail {

struct StoreView {
  const Store* store;
  EdgeFilter filter;
};

/// An edge as the view sees it: oriented along the traversal (source is the expanded vertex).
struct ViewEdge {
  Slot source = 0;
  Slot target = 0;
  Slot edge = 0;
  friend bool operator==(const ViewEdge&, const ViewEdge&) = default;
};

/// Walks the same entries in the same order as Store::for_each_adjacent: the out- and in-lists
/// the direction selects, merged by edge id, skipping entries the filter rejects.
class ViewOutEdgeIterator
    : public boost::iterator_facade<ViewOutEdgeIterator, ViewEdge, boost::forward_traversal_tag,
                                    ViewEdge> {
 public:
  ViewOutEdgeIterator() = default;
  ViewOutEdgeIterator(const StoreView* view, Slot v, bool at_end) : view_(view), v_(v) {
    if (at_end) return;  // all cursors empty
    const auto& rec = view->store->vertices[v];
    const Direction d = view->filter.direction;
    if (d != Direction::in) {
      out_ = rec.out.data();
      out_end_ = out_ + rec.out.size();
    }
    if (d != Direction::out) {
      in_ = rec.in.data();
      in_end_ = in_ + rec.in.size();
    }
    settle();
  }

 private:
  friend class boost::iterator_core_access;

  void settle() {
    while (out_ != out_end_ && !view_->store->passes(*out_, view_->filter)) ++out_;
    while (in_ != in_end_ && !view_->store->passes(*in_, view_->filter)) ++in_;
    if (out_ == out_end_) out_ = out_end_ = nullptr;
    if (in_ == in_end_) in_ = in_end_ = nullptr;
  }
  [[nodiscard]] bool out_first() const {
    return in_ == nullptr || (out_ != nullptr && out_->edge <= in_->edge);
  }
  void increment() {
    if (out_first()) {
      ++out_;
    } else {
      ++in_;
    }
    settle();
  }
  [[nodiscard]] bool equal(const ViewOutEdgeIterator& o) const { return out_ == o.out_ && in_ == o.in_; }
  [[nodiscard]] ViewEdge dereference() const {
    const AdjEntry& a = out_first() ? *out_ : *in_;
    return {v_, a.other, a.edge};
  }

  const StoreView* view_ = nullptr;
  Slot v_ = 0;
  const AdjEntry* out_ = nullptr;
  const AdjEntry* out_end_ = nullptr;
  const AdjEntry* in_ = nullptr;
  const AdjEntry* in_end_ = nullptr;
};

struct StoreViewTraversal : boost::incidence_graph_tag, boost::vertex_list_graph_tag {};

inline std::pair<ViewOutEdgeIterator, ViewOutEdgeIterator> out_edges(Slot v, const StoreView& g) {
  return {ViewOutEdgeIterator(&g, v, false), ViewOutEdgeIterator(&g, v, true)};
}
inline std::size_t out_degree(Slot v, const StoreView& g) {
  auto [it, end] = out_edges(v, g);
  return static_cast<std::size_t>(std::distance(it, end));
}
inline Slot source(const ViewEdge& e, const StoreView&) { return e.source; }
inline Slot target(const ViewEdge& e, const StoreView&) { return e.target; }
inline std::pair<boost::counting_iterator<Slot>, boost::counting_iterator<Slot>> vertices(
    const StoreView& g) {
  return {boost::counting_iterator<Slot>(0),
          boost::counting_iterator<Slot>(static_cast<Slot>(g.store->vertices.size()))};
}
inline std::size_t num_vertices(const StoreView& g) { return g.store->vertices.size(); }
inline boost::typed_identity_property_map<Slot> get(boost::vertex_index_t, const StoreView&) {
  return {};
}

}  // namespace propgraph::detail

namespace boost {

template <>
struct graph_traits<propgraph::detail::StoreView> {
  using vertex_descriptor = propgraph::detail::Slot;
  using edge_descriptor = propgraph::detail::ViewEdge;
  using directed_category = directed_tag;
  using edge_parallel_category = allow_parallel_edge_tag;
  using traversal_category = propgraph::detail::StoreViewTraversal;
  using out_edge_iterator = propgraph::detail::ViewOutEdgeIterator;
  using vertex_iterator = boost::counting_iterator<propgraph::detail::Slot>;
  using degree_size_type = std::size_t;
  using vertices_size_type = std::size_t;
  using edges_size_type = std::size_t;
  using adjacency_iterator = void;
  using in_edge_iterator = void;
  using edge_iterator = void;
  static vertex_descriptor null_vertex() { return std::numeric_limits<vertex_descriptor>::max(); }
};

template <>
struct property_map<propgraph::detail::StoreView, vertex_index_t> {
  using type = typed_identity_property_map<propgraph::detail::Slot>;
  using const_type = type;
};

}  // namespace boost
