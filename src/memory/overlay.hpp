// Pending writes over MemoryGraph's committed store: the write set of a transaction (or of one
// single write), and the View (TxView) that reads the store as those writes would leave it.
//
// An Overlay is built by the one writer that holds MemoryGraph's writer gate, so the committed
// store does not change under it: new elements get the slots they will have once committed
// (the store's sizes when the overlay started, counting up). MemoryGraph::commit applies it to
// the store in one exclusive critical section (apply() below).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "memory/view.hpp"

namespace propgraph::detail {

class Overlay {
 public:
  explicit Overlay(const Store& store) noexcept
      : store_(&store),
        vertex_base_(static_cast<Slot>(store.vertex_slots())),
        edge_base_(static_cast<Slot>(store.edge_slots())) {}
  Overlay(const Overlay&) = delete;
  Overlay& operator=(const Overlay&) = delete;

  [[nodiscard]] const Store& store() const noexcept { return *store_; }
  [[nodiscard]] bool empty() const noexcept {
    return new_vertices_.empty() && new_edges_.empty() && vertex_props_.empty() && edge_props_.empty() &&
           deleted_vertices_.empty() && deleted_edges_.empty();
  }
  [[nodiscard]] Slot vertex_base() const noexcept { return vertex_base_; }
  [[nodiscard]] Slot edge_base() const noexcept { return edge_base_; }
  [[nodiscard]] bool is_new_vertex(Slot v) const noexcept { return v >= vertex_base_; }
  [[nodiscard]] bool is_new_edge(Slot e) const noexcept { return e >= edge_base_; }

  // -- reading through the overlay ---------------------------------------------------------------

  [[nodiscard]] const LabelTable& labels() const noexcept { return labels_ ? *labels_ : store_->labels; }
  [[nodiscard]] std::size_t vertex_slots() const noexcept { return vertex_base_ + new_vertices_.size(); }
  [[nodiscard]] std::size_t edge_slots() const noexcept { return edge_base_ + new_edges_.size(); }
  [[nodiscard]] const VertexRecord& new_vertex(Slot v) const { return new_vertices_[v - vertex_base_]; }
  [[nodiscard]] const EdgeRecord& new_edge(Slot e) const { return new_edges_[e - edge_base_]; }

  [[nodiscard]] bool vertex_alive(Slot v) const noexcept {
    if (is_new_vertex(v)) return new_vertex(v).alive;
    return store_->vertex_alive(v) && (deleted_vertices_.empty() || !deleted_vertices_.contains(v));
  }
  [[nodiscard]] LabelId vertex_label(Slot v) const noexcept {
    return is_new_vertex(v) ? new_vertex(v).label : store_->vertex_label(v);
  }
  [[nodiscard]] PackedView vertex_properties(Slot v) const noexcept {
    if (is_new_vertex(v)) return new_vertex(v).properties.view();
    if (auto it = vertex_props_.find(v); it != vertex_props_.end()) return it->second.view();
    return store_->vertex_properties(v);
  }
  [[nodiscard]] bool edge_alive(Slot e) const noexcept {
    if (is_new_edge(e)) return new_edge(e).alive;
    return store_->edge_alive(e) && (deleted_edges_.empty() || !deleted_edges_.contains(e));
  }
  [[nodiscard]] LabelId edge_label(Slot e) const noexcept {
    return is_new_edge(e) ? new_edge(e).label : store_->edge_label(e);
  }
  [[nodiscard]] Slot edge_from(Slot e) const noexcept {
    return is_new_edge(e) ? new_edge(e).from : store_->edge_from(e);
  }
  [[nodiscard]] Slot edge_to(Slot e) const noexcept { return is_new_edge(e) ? new_edge(e).to : store_->edge_to(e); }
  [[nodiscard]] PackedView edge_properties(Slot e) const noexcept {
    if (is_new_edge(e)) return new_edge(e).properties.view();
    if (auto it = edge_props_.find(e); it != edge_props_.end()) return it->second.view();
    return store_->edge_properties(e);
  }
  [[nodiscard]] std::int64_t live_vertices() const noexcept { return store_->live_vertices + vertex_delta_; }
  [[nodiscard]] std::int64_t live_edges() const noexcept { return store_->live_edges + edge_delta_; }
  /// Live elements of a label.
  [[nodiscard]] std::int64_t count_members(ElementKind kind, LabelId label) const noexcept;
  /// fn(slot) for each live element of the label, ascending slot.
  template <typename Fn>
  void for_each_member(ElementKind kind, LabelId label, Fn&& fn) const;
  /// Ascending slots of elements of `label` whose properties the overlay holds (new, or
  /// committed with new properties), alive or not.
  [[nodiscard]] std::vector<Slot> touched_members(ElementKind kind, LabelId label) const;

  /// A vertex's adjacency as the overlay leaves it: the committed list without deleted edges,
  /// followed by the edges added (their ids are larger than every committed one). New edges
  /// reach these lists only when adjacency is first read after them (writes just append the
  /// edge), and a changed vertex's lists are materialized then and cached until it changes.
  [[nodiscard]] std::span<const AdjEntry> out(Slot v) const;
  [[nodiscard]] std::span<const AdjEntry> in(Slot v) const;

  /// Whether the overlay holds the element's properties (a new element, or a committed one with
  /// new properties): then its value for a unique index is among overlay_holders(), not in the
  /// committed index.
  [[nodiscard]] bool has_new_properties(ElementKind kind, Slot slot) const noexcept;
  /// Slots holding `value_key` under a unique `index` among the elements the overlay holds.
  [[nodiscard]] const std::vector<Slot>* overlay_holders(const PropertyIndex& index,
                                                         const std::string& value_key) const;

  // -- writing -----------------------------------------------------------------------------------
  // Each call changes the overlay only; callers validate first (writes.cpp).

  /// The label's id, interning it in the overlay's own copy of the label table when new.
  LabelId intern(std::string_view label);
  /// Room for this many more new elements (a bulk write).
  void reserve(std::size_t vertices, std::size_t edges) {
    new_vertices_.reserve(new_vertices_.size() + vertices);
    new_edges_.reserve(new_edges_.size() + edges);
  }
  Slot add_vertex(LabelId label, PackedProperties properties);
  Slot add_edge(Slot from, Slot to, LabelId label, PackedProperties properties);
  void set_vertex_properties(Slot v, PackedProperties properties);
  void set_edge_properties(Slot e, PackedProperties properties);
  /// Deletes a live edge.
  void remove_edge(Slot e);
  /// Deletes a live vertex and its edges.
  void remove_vertex(Slot v);

  // -- what the overlay holds, for the write-ahead log ------------------------------------------
  [[nodiscard]] const LargeVector<VertexRecord>& new_vertices() const noexcept { return new_vertices_; }
  [[nodiscard]] const LargeVector<EdgeRecord>& new_edges() const noexcept { return new_edges_; }
  [[nodiscard]] const std::unordered_map<Slot, PackedProperties>& vertex_updates() const noexcept {
    return vertex_props_;
  }
  [[nodiscard]] const std::unordered_map<Slot, PackedProperties>& edge_updates() const noexcept { return edge_props_; }
  [[nodiscard]] const std::unordered_set<Slot>& deleted_vertices() const noexcept { return deleted_vertices_; }
  [[nodiscard]] const std::unordered_set<Slot>& deleted_edges() const noexcept { return deleted_edges_; }

  // -- committing (MemoryGraph::commit, under the exclusive lock) ---------------------------------

  /// Applies every pending change to the store the overlay was made over. The overlay is spent
  /// afterwards: clear() it (outside the exclusive section: freeing what it held takes time)
  /// before anything else. Cannot fail but for bad_alloc.
  void apply(Store& store);
  /// Drops every pending change: nothing is left to apply or burn.
  void clear() noexcept;
  /// Burns the slots the overlay handed out (dead slots), so that their ids are never issued
  /// again; nothing else of the overlay reaches the store.
  void burn(Store& store);

 private:
  using Lists = std::pair<std::vector<AdjEntry>, std::vector<AdjEntry>>;
  const Lists& lists(Slot v) const;
  /// Puts the edges added since the last call into added_out_/added_in_.
  void link_pending() const;
  void touched(Slot v) const { merged_.erase(v); }
  void index_overlay(ElementKind kind, LabelId label, std::optional<PackedView> before, std::optional<PackedView> after,
                     Slot slot);
  std::int64_t& label_delta(ElementKind kind, LabelId label) {
    // Bulk writes change one label again and again: the last counter is kept at hand (map
    // values stay in place).
    auto& last = kind == ElementKind::vertex ? last_vertex_delta_ : last_edge_delta_;
    if (last.second == nullptr || last.first != label) {
      last = {label, &(kind == ElementKind::vertex ? vertex_label_delta_ : edge_label_delta_)[label]};
    }
    return *last.second;
  }

  const Store* store_;
  Slot vertex_base_;
  Slot edge_base_;
  std::optional<LabelTable> labels_;  // copy of the store's table once a label is interned
  LargeVector<VertexRecord> new_vertices_;  // their adjacency: see added_out_
  LargeVector<EdgeRecord> new_edges_;
  std::unordered_map<Slot, PackedProperties> vertex_props_;  // committed vertices, new properties
  std::unordered_map<Slot, PackedProperties> edge_props_;
  std::unordered_set<Slot> deleted_vertices_;  // committed ones
  std::unordered_set<Slot> deleted_edges_;
  // Adjacency for reads, brought up to date lazily (link_pending): the live new edges of each
  // vertex (committed or new), the committed vertices whose lists differ from the store's, and
  // the materialized lists of those.
  mutable std::size_t linked_edges_ = 0;  // new edges already in added_out_/added_in_
  mutable std::unordered_map<Slot, std::vector<AdjEntry>> added_out_;
  mutable std::unordered_map<Slot, std::vector<AdjEntry>> added_in_;
  mutable std::unordered_set<Slot> dirty_;
  mutable std::unordered_map<Slot, Lists> merged_;
  std::int64_t vertex_delta_ = 0;
  std::int64_t edge_delta_ = 0;
  std::unordered_map<LabelId, std::int64_t> vertex_label_delta_;
  std::unordered_map<LabelId, std::int64_t> edge_label_delta_;
  std::pair<LabelId, std::int64_t*> last_vertex_delta_{0, nullptr};
  std::pair<LabelId, std::int64_t*> last_edge_delta_{0, nullptr};
  // Values of indexed keys held by overlay elements: index -> value key -> ascending slots.
  std::unordered_map<const PropertyIndex*, std::unordered_map<std::string, std::vector<Slot>>> overlay_index_;
};

template <typename Fn>
void Overlay::for_each_member(ElementKind kind, LabelId label, Fn&& fn) const {
  const bool vertices = kind == ElementKind::vertex;
  const auto& table = vertices ? store_->vertices_by_label : store_->edges_by_label;
  if (label < table.size()) {
    table[label].slots.for_each([&](Slot s) {
      if (vertices ? vertex_alive(s) : edge_alive(s)) fn(s);
    });
  }
  if (vertices) {
    for (Slot i = 0; i < new_vertices_.size(); ++i) {
      if (new_vertices_[i].alive && new_vertices_[i].label == label) fn(vertex_base_ + i);
    }
  } else {
    for (Slot i = 0; i < new_edges_.size(); ++i) {
      if (new_edges_[i].alive && new_edges_[i].label == label) fn(edge_base_ + i);
    }
  }
}

/// The adjacency a TxView traverses.
struct OverlayAdjacency {
  const Overlay* overlay;
  [[nodiscard]] std::span<const AdjEntry> out(Slot v) const { return overlay->out(v); }
  [[nodiscard]] std::span<const AdjEntry> in(Slot v) const { return overlay->in(v); }
  void prefetch(Slot) const noexcept {}
  void prefetch_in(Slot) const noexcept {}
};

/// The graph as a transaction sees it: the committed store with the overlay's writes.
class TxView {
 public:
  TxView(const Overlay& overlay, const std::string& prefix) noexcept : o_(overlay), prefix_(prefix) {}

  [[nodiscard]] const Overlay& overlay() const noexcept { return o_; }
  [[nodiscard]] const std::string& id_prefix() const noexcept { return prefix_; }
  [[nodiscard]] const LabelTable& labels() const noexcept { return o_.labels(); }

  [[nodiscard]] std::size_t vertex_slots() const noexcept { return o_.vertex_slots(); }
  [[nodiscard]] bool vertex_alive(Slot v) const noexcept { return o_.vertex_alive(v); }
  [[nodiscard]] LabelId vertex_label(Slot v) const noexcept { return o_.vertex_label(v); }
  [[nodiscard]] PackedView vertex_properties(Slot v) const noexcept { return o_.vertex_properties(v); }
  [[nodiscard]] std::int64_t live_vertices() const noexcept { return o_.live_vertices(); }

  [[nodiscard]] std::size_t edge_slots() const noexcept { return o_.edge_slots(); }
  [[nodiscard]] bool edge_alive(Slot e) const noexcept { return o_.edge_alive(e); }
  [[nodiscard]] LabelId edge_label(Slot e) const noexcept { return o_.edge_label(e); }
  [[nodiscard]] Slot edge_from(Slot e) const noexcept { return o_.edge_from(e); }
  [[nodiscard]] Slot edge_to(Slot e) const noexcept { return o_.edge_to(e); }
  [[nodiscard]] PackedView edge_properties(Slot e) const noexcept { return o_.edge_properties(e); }
  [[nodiscard]] std::int64_t live_edges() const noexcept { return o_.live_edges(); }

  template <typename Fn>
  void for_each_member(ElementKind kind, LabelId label, Fn&& fn) const {
    o_.for_each_member(kind, label, std::forward<Fn>(fn));
  }
  [[nodiscard]] std::int64_t count_members(ElementKind kind, LabelId label) const noexcept {
    return o_.count_members(kind, label);
  }

  /// fn(slot) for the live elements of `label` matching `filter`, ascending slot, after
  /// page.after, at most page.limit (0: all). Committed index buckets narrow the committed part;
  /// the elements the overlay holds are checked one by one.
  template <typename Fn>
  void scan(ElementKind kind, LabelId label, const Properties& filter, const Page& page, Fn&& fn) const;

  template <typename Fn>
  decltype(auto) with_adjacency(Fn&& fn) const {
    return fn(OverlayAdjacency{&o_});
  }
  /// Cache hints for committed elements (the overlay's own are in its vectors).
  void prefetch_vertex(Slot v) const noexcept {
    if (!o_.is_new_vertex(v)) o_.store().prefetch_vertex(v);
  }
  void prefetch_payload(Slot) const noexcept {}
  void prefetch_edge(Slot e) const noexcept {
    if (!o_.is_new_edge(e)) o_.store().prefetch_edge(e);
  }
  void prefetch_edge_payload(Slot) const noexcept {}
  [[nodiscard]] PackedView listed_edge_properties(Slot e) const noexcept { return o_.edge_properties(e); }
  void prefetch_listed_edge(Slot e) const noexcept { prefetch_edge(e); }
  void prefetch_listed_edge_payload(Slot) const noexcept {}
  template <typename Adjacency>
  static constexpr bool lists_in_records = false;

 private:
  const Overlay& o_;
  const std::string& prefix_;
};

template <typename Fn>
void TxView::scan(ElementKind kind, LabelId label, const Properties& filter, const Page& page, Fn&& fn) const {
  if (label == kUnknownLabel) return;
  const Store& s = o_.store();
  const bool vertices = kind == ElementKind::vertex;
  const Slot first = slot_after(*this, kind, page.after);
  std::vector<Slot> candidates = o_.touched_members(kind, label);
  if (const auto bucket = index_candidates(vertices ? s.vertex_indexes : s.edge_indexes, label, filter)) {
    candidates.insert(candidates.end(), std::lower_bound(bucket->begin(), bucket->end(), first), bucket->end());
  } else if (const auto& table = vertices ? s.vertices_by_label : s.edges_by_label; label < table.size()) {
    table[label].slots.for_each_from(first, [&](Slot x) {
      candidates.push_back(x);
      return true;
    });
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::size_t taken = 0;
  DeadlineTicker ticker("label scan");
  for (auto it = std::lower_bound(candidates.begin(), candidates.end(), first); it != candidates.end(); ++it) {
    ticker.tick();
    const Slot x = *it;
    if (!(vertices ? vertex_alive(x) : edge_alive(x))) continue;
    if (!filter.empty() && !(vertices ? vertex_properties(x) : edge_properties(x)).matches(filter)) continue;
    fn(x);
    if (++taken == page.limit) return;
  }
}

}  // namespace propgraph::detail
