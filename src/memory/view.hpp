// What MemoryGraph's reads and algorithms see of the graph: a View. Every algorithm is a template
// over it, written against the accessors below, so that the same code serves the committed graph
// (CommittedView: MemoryGraph's own calls) and the graph as a transaction sees it.
//
// A View provides:
//   vertex_slots(), vertex_alive(v), vertex_label(v), vertex_properties(v), live_vertices()
//   edge_slots(), edge_alive(e), edge_label(e), edge_from(e), edge_to(e), edge_properties(e),
//   live_edges(), labels(), id_prefix()
//   for_each_member(kind, label, fn(slot)): the live elements of a label, ascending slot
//   with_adjacency(fn(const Adjacency&)): runs fn on an adjacency (out(v)/in(v) spans of
//     AdjEntry in edge-id order, prefetch(v)); note_work(adjacency, scanned)
//   prefetch_vertex(v), prefetch_payload(v): cache hints for loops that build results
// The free functions below build on these.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "memory/snapshot.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/options.hpp"
#include "memory/store.hpp"

namespace propgraph::detail {

inline constexpr Slot kNoSlot = std::numeric_limits<Slot>::max();

enum class ElementKind : char { vertex = 'v', edge = 'e' };

/// Ascending slots of label's elements that may match filter, from the most selective usable
/// index of `table` (a non-null filter value on an indexed key); nullptr when no index applies.
/// Index buckets hold live slots only.
[[nodiscard]] inline const std::vector<Slot>* index_candidates(const IndexTable& table, LabelId label,
                                                              const Properties& filter) {
  static const std::vector<Slot> none;
  if (filter.empty() || label >= table.size() || table[label].empty()) return nullptr;
  const std::vector<Slot>* best = nullptr;
  for (const auto& index : table[label]) {
    const Value* want = filter.find(index.key());
    if (!want || want->is_null()) continue;
    const auto* bucket = index.find(PackedProperties::value_key(*want));
    if (!bucket) return &none;  // no element holds that value
    if (!best || bucket->size() < best->size()) best = bucket;
  }
  return best;
}

template <typename View, typename It>
[[nodiscard]] It first_after(const View& g, ElementKind kind, It first, It last, const std::optional<ElementId>& after);

/// The committed graph: MemoryGraph's store, read under its shared lock.
class CommittedView {
 public:
  CommittedView(const Store& store, const std::string& prefix, const SnapshotCache& snapshots) noexcept
      : store_(store), prefix_(prefix), snapshots_(snapshots) {}

  [[nodiscard]] const Store& store() const noexcept { return store_; }
  [[nodiscard]] const std::string& id_prefix() const noexcept { return prefix_; }
  [[nodiscard]] const LabelTable& labels() const noexcept { return store_.labels; }

  [[nodiscard]] std::size_t vertex_slots() const noexcept { return store_.vertices.size(); }
  [[nodiscard]] bool vertex_alive(Slot v) const noexcept { return store_.vertices[v].alive; }
  [[nodiscard]] LabelId vertex_label(Slot v) const noexcept { return store_.vertices[v].label; }
  [[nodiscard]] const PackedProperties& vertex_properties(Slot v) const noexcept {
    return store_.vertices[v].properties;
  }
  [[nodiscard]] std::int64_t live_vertices() const noexcept { return store_.live_vertices; }

  [[nodiscard]] std::size_t edge_slots() const noexcept { return store_.edges.size(); }
  [[nodiscard]] bool edge_alive(Slot e) const noexcept { return store_.edges[e].alive; }
  [[nodiscard]] LabelId edge_label(Slot e) const noexcept { return store_.edges[e].label; }
  [[nodiscard]] Slot edge_from(Slot e) const noexcept { return store_.edges[e].from; }
  [[nodiscard]] Slot edge_to(Slot e) const noexcept { return store_.edges[e].to; }
  [[nodiscard]] const PackedProperties& edge_properties(Slot e) const noexcept { return store_.edges[e].properties; }
  [[nodiscard]] std::int64_t live_edges() const noexcept { return store_.live_edges; }

  /// fn(slot) for each live element of `label`, ascending slot.
  template <typename Fn>
  void for_each_member(ElementKind kind, LabelId label, Fn&& fn) const {
    const auto& table = kind == ElementKind::vertex ? store_.vertices_by_label : store_.edges_by_label;
    if (label >= table.size()) return;
    for (Slot s : table[label].slots) {
      if (kind == ElementKind::vertex ? store_.vertices[s].alive : store_.edges[s].alive) fn(s);
    }
  }
  /// Live elements of `label`.
  [[nodiscard]] std::int64_t count_members(ElementKind kind, LabelId label) const noexcept {
    const auto& table = kind == ElementKind::vertex ? store_.vertices_by_label : store_.edges_by_label;
    return label < table.size() ? table[label].live : 0;
  }

  /// fn(slot) for the live elements of `label` matching `filter`, ascending slot, after
  /// page.after, at most page.limit (0: all). Uses an index when one applies: O(log n + bucket
  /// scanned), else O(log n + elements scanned).
  template <typename Fn>
  void scan(ElementKind kind, LabelId label, const Properties& filter, const Page& page, Fn&& fn) const {
    if (label == kUnknownLabel) return;
    const bool vertices = kind == ElementKind::vertex;
    const std::vector<Slot>* slots = index_candidates(vertices ? store_.vertex_indexes : store_.edge_indexes, label, filter);
    const bool indexed = slots != nullptr;
    if (!indexed) {
      const auto& table = vertices ? store_.vertices_by_label : store_.edges_by_label;
      if (label >= table.size()) return;
      slots = &table[label].slots;
    }
    std::size_t taken = 0;
    DeadlineTicker ticker("label scan");
    for (auto it = first_after(*this, kind, slots->begin(), slots->end(), page.after); it != slots->end(); ++it) {
      ticker.tick();
      const Slot x = *it;
      if (!indexed && !(vertices ? store_.vertices[x].alive : store_.edges[x].alive)) continue;
      if (!filter.empty() && !(vertices ? store_.vertices[x].properties : store_.edges[x].properties).matches(filter)) {
        continue;
      }
      fn(x);
      if (++taken == page.limit) return;
    }
  }

  /// Runs fn on the adjacency snapshot when SnapshotCache gives one, else on the live lists
  /// (a call that scans live lists reports its work with note_work).
  template <typename Fn>
  decltype(auto) with_adjacency(Fn&& fn) const {
    if (auto csr = snapshots_.current(store_)) return fn(*csr);
    return fn(LiveAdjacency{&store_});
  }
  template <typename Adjacency>
  void note_work(const Adjacency&, std::uint64_t scanned) const noexcept {
    if constexpr (std::is_same_v<Adjacency, LiveAdjacency>) snapshots_.note_work(scanned);
  }
  /// One pass over every list, in note_work units.
  [[nodiscard]] std::uint64_t full_pass() const noexcept { return SnapshotCache::cost(store_); }

  void prefetch_vertex(Slot v) const noexcept { __builtin_prefetch(&store_.vertices[v]); }
  /// Heap-held property bytes; the record must have been fetched a few steps before.
  void prefetch_payload(Slot v) const noexcept { store_.vertices[v].properties.prefetch(); }
  /// Whether reading an adjacency list of `Adjacency` needs the vertex record first.
  template <typename Adjacency>
  static constexpr bool lists_in_records = std::is_same_v<Adjacency, LiveAdjacency>;

 private:
  const Store& store_;
  const std::string& prefix_;
  const SnapshotCache& snapshots_;
};

// -- ids ----------------------------------------------------------------------------------------

/// "<prefix><kind><slot>", e.g. "g3:v17". Fits ElementId's inline buffer: no allocation.
template <typename View>
[[nodiscard]] ElementId make_id(const View& g, ElementKind kind, Slot slot) {
  char buf[48];
  const std::string& prefix = g.id_prefix();
  const std::size_t n = prefix.size();
  std::memcpy(buf, prefix.data(), n);
  buf[n] = static_cast<char>(kind);
  char* end = std::to_chars(buf + n + 1, buf + sizeof buf, slot).ptr;
  return ElementId(buf, static_cast<std::size_t>(end - buf));
}

/// The slot an id of this graph names (canonical form only, below `limit`), or kNoSlot.
[[nodiscard]] inline Slot parse_id(std::string_view prefix, const ElementId& id, ElementKind kind, std::size_t limit) {
  std::string_view s = id.str();
  if (s.size() < prefix.size() + 2 || s.compare(0, prefix.size(), prefix) != 0) return kNoSlot;
  if (s[prefix.size()] != static_cast<char>(kind)) return kNoSlot;
  std::string_view digits = s.substr(prefix.size() + 1);
  if (digits.size() > 1 && digits[0] == '0') return kNoSlot;
  Slot slot = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), slot);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || slot >= limit) return kNoSlot;
  return slot;
}

/// The live vertex an id names, else kNoSlot.
template <typename View>
[[nodiscard]] Slot vertex_slot(const View& g, const ElementId& id) {
  Slot v = parse_id(g.id_prefix(), id, ElementKind::vertex, g.vertex_slots());
  return v != kNoSlot && g.vertex_alive(v) ? v : kNoSlot;
}
template <typename View>
[[nodiscard]] Slot edge_slot(const View& g, const ElementId& id) {
  Slot e = parse_id(g.id_prefix(), id, ElementKind::edge, g.edge_slots());
  return e != kNoSlot && g.edge_alive(e) ? e : kNoSlot;
}
/// The live vertex an id names if it has this label, else kNoSlot.
template <typename View>
[[nodiscard]] Slot vertex_slot(const View& g, std::string_view label, const ElementId& id) {
  Slot v = vertex_slot(g, id);
  return v != kNoSlot && g.labels().name(g.vertex_label(v)) == label ? v : kNoSlot;
}
template <typename View>
[[nodiscard]] Slot edge_slot(const View& g, std::string_view label, const ElementId& id) {
  Slot e = edge_slot(g, id);
  return e != kNoSlot && g.labels().name(g.edge_label(e)) == label ? e : kNoSlot;
}

/// The first position in the ascending slots [first, last) whose id sorts after `after`
/// (ElementId's order, which is slot order for ids of one kind); first when there is no after.
template <typename View, typename It>
It first_after(const View& g, ElementKind kind, It first, It last, const std::optional<ElementId>& after) {
  if (!after) return first;
  return std::partition_point(first, last, [&](Slot s) { return !(*after < make_id(g, kind, s)); });
}

// -- filters and adjacency ------------------------------------------------------------------------

template <typename View>
[[nodiscard]] EdgeFilter make_filter(const View& g, Direction d, const std::optional<std::string>& edge_label,
                                     const std::optional<std::string>& vertex_label) {
  return EdgeFilter{d, g.labels().filter(edge_label), g.labels().filter(vertex_label)};
}
/// Any vertex label.
template <typename View>
[[nodiscard]] EdgeFilter make_filter(const View& g, Direction d, const std::optional<std::string>& edge_label) {
  return EdgeFilter{d, g.labels().filter(edge_label), kAnyLabel};
}

template <typename View>
[[nodiscard]] bool vertex_in(const View& g, Slot v, LabelId label) noexcept {
  return label == kAnyLabel || g.vertex_label(v) == label;
}

template <typename View>
[[nodiscard]] bool passes(const View& g, const AdjEntry& a, const EdgeFilter& f) noexcept {
  return (f.edge_label == kAnyLabel || a.label == f.edge_label) &&
         (f.vertex_label == kAnyLabel || g.vertex_label(a.other) == f.vertex_label);
}

/// Calls fn(const AdjEntry&) for each edge leaving v under the filter, in edge-id order (with
/// Direction::both, out- and in-lists are merged by edge id; a self-loop comes twice). Only call
/// on live vertices.
template <typename View, typename Adjacency, typename Fn>
void for_each_adjacent(const View& g, const Adjacency& adj, Slot v, const EdgeFilter& f, Fn&& fn) {
  if (f.direction != Direction::both) {
    for (const auto& a : f.direction == Direction::out ? adj.out(v) : adj.in(v)) {
      if (passes(g, a, f)) fn(a);
    }
    return;
  }
  const auto out = adj.out(v);
  const auto in = adj.in(v);
  auto o = out.begin();
  auto i = in.begin();
  while (o != out.end() || i != in.end()) {
    const bool take_out = i == in.end() || (o != out.end() && o->edge <= i->edge);
    const AdjEntry& a = take_out ? *o++ : *i++;
    if (passes(g, a, f)) fn(a);
  }
}

// -- prefetching ----------------------------------------------------------------------------------
// Results and traversals visit records in an order unrelated to memory (BFS order, component
// members); each record and its property bytes would be a cache miss in turn. Fetching them a
// few steps ahead overlaps those misses.

inline constexpr std::size_t kRecordAhead = 12;
inline constexpr std::size_t kPayloadAhead = 6;

template <typename View>
void prefetch_ahead(const View& g, const Slot* slots, std::size_t i, std::size_t n) noexcept {
  if (i + kRecordAhead < n) g.prefetch_vertex(slots[i + kRecordAhead]);
  if (i + kPayloadAhead < n) g.prefetch_payload(slots[i + kPayloadAhead]);
}

/// Prefetching for a traversal queue: live lists need the record, then its list pointer.
template <typename View, typename Adjacency>
void prefetch_lists(const View& g, const Adjacency& adj, const Slot* slots, std::size_t i, std::size_t n) noexcept {
  if constexpr (View::template lists_in_records<Adjacency>) {
    if (i + kRecordAhead < n) g.prefetch_vertex(slots[i + kRecordAhead]);
  }
  if (i + kPayloadAhead < n) adj.prefetch(slots[i + kPayloadAhead]);
}

/// fn(slot) for each slot, prefetching records ahead.
template <typename View, typename Fn>
void for_each_prefetched(const View& g, const Slot* slots, std::size_t n, Fn&& fn) {
  for (std::size_t i = 0; i < n; ++i) {
    prefetch_ahead(g, slots, i, n);
    fn(slots[i]);
  }
}

// -- results ---------------------------------------------------------------------------------------

template <typename View>
[[nodiscard]] Vertex make_vertex(const View& g, Slot v) {
  return Vertex{make_id(g, ElementKind::vertex, v), g.labels().name(g.vertex_label(v)), g.vertex_properties(v).unpack()};
}

/// Appends the vertex constructed in place (saves a move per result element).
template <typename View>
void emplace_vertex(const View& g, std::vector<Vertex>& out, Slot v) {
  out.emplace_back(make_id(g, ElementKind::vertex, v), g.labels().name(g.vertex_label(v)), g.vertex_properties(v).unpack());
}

template <typename View>
[[nodiscard]] Edge make_edge(const View& g, Slot e) {
  return Edge{make_id(g, ElementKind::edge, e), g.labels().name(g.edge_label(e)),
              make_id(g, ElementKind::vertex, g.edge_from(e)), make_id(g, ElementKind::vertex, g.edge_to(e)),
              g.edge_properties(e).unpack()};
}

/// Honours the caller's deadline: a million results take tens of milliseconds to build.
template <typename View>
[[nodiscard]] std::vector<Vertex> make_vertices(const View& g, const Slot* slots, std::size_t n) {
  std::vector<Vertex> result;
  result.reserve(n);
  DeadlineTicker ticker("building results");
  for_each_prefetched(g, slots, n, [&](Slot v) {
    ticker.tick();
    emplace_vertex(g, result, v);
  });
  return result;
}

/// Appends a Visit built in place: results are mostly short strings, so avoiding moves of whole
/// records is most of the cost of building them.
template <typename View>
void emplace_visit(const View& g, std::vector<Visit>& out, Slot v, int depth, Slot parent) {
  Visit& visit = out.emplace_back();
  visit.vertex.id = make_id(g, ElementKind::vertex, v);
  visit.vertex.label = g.labels().name(g.vertex_label(v));
  visit.vertex.properties = g.vertex_properties(v).unpack();
  visit.depth = depth;
  if (parent != kNoSlot) visit.parent.emplace(make_id(g, ElementKind::vertex, parent));
}

/// The path through vertex slots [vb, ve) and edge slots [eb, ee).
template <typename View, typename VIt, typename EIt>
[[nodiscard]] Path make_path(const View& g, VIt vb, VIt ve, EIt eb, EIt ee) {
  Path p;
  p.vertices.reserve(static_cast<std::size_t>(std::distance(vb, ve)));
  p.edges.reserve(static_cast<std::size_t>(std::distance(eb, ee)));
  for (; vb != ve; ++vb) p.vertices.push_back(make_vertex(g, *vb));
  for (; eb != ee; ++eb) p.edges.push_back(make_edge(g, *eb));
  return p;
}

}  // namespace propgraph::detail
