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

  [[nodiscard]] bool passes(const AdjEntry& a) const {
    return (filter.edge_label == kAnyLabel || a.label == filter.edge_label) &&
           store->vertex_in(a.other, filter.vertex_label);
  }
};

/// An edge as the view sees it: oriented along the traversal (source is the expanded vertex).
struct ViewEdge {
  Slot source = 0;
  Slot target = 0;
  Slot edge = 0;
  friend bool operator==(const ViewEdge&, const ViewEdge&) = default;
};

class ViewOutEdgeIterator
    : public boost::iterator_facade<ViewOutEdgeIterator, ViewEdge, boost::forward_traversal_tag,
                                    ViewEdge> {
 public:
  ViewOutEdgeIterator() = default;
  ViewOutEdgeIterator(const StoreView* view, Slot v, bool at_end) : view_(view), v_(v) {
    if (at_end) {
      phase_ = 2;
      return;
    }
    enter_phase();
    settle();
  }

 private:
  friend class boost::iterator_core_access;

  // Phase 0 walks the out list, phase 1 the in list, phase 2 is the end.
  void enter_phase() {
    const Direction d = view_->filter.direction;
    while (phase_ < 2) {
      if (phase_ == 0 ? d != Direction::in : d != Direction::out) {
        const auto& rec = view_->store->vertices[v_];
        const auto& list = phase_ == 0 ? rec.out : rec.in;
        cur_ = list.data();
        end_ = cur_ + list.size();
        return;
      }
      ++phase_;
    }
    cur_ = end_ = nullptr;
  }
  void settle() {
    while (phase_ < 2) {
      while (cur_ != end_ && !view_->passes(*cur_)) ++cur_;
      if (cur_ != end_) return;
      ++phase_;
      enter_phase();
    }
  }
  void increment() {
    ++cur_;
    settle();
  }
  [[nodiscard]] bool equal(const ViewOutEdgeIterator& o) const {
    return phase_ == o.phase_ && cur_ == o.cur_;
  }
  [[nodiscard]] ViewEdge dereference() const { return {v_, cur_->other, cur_->edge}; }

  const StoreView* view_ = nullptr;
  Slot v_ = 0;
  int phase_ = 0;
  const AdjEntry* cur_ = nullptr;
  const AdjEntry* end_ = nullptr;
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
