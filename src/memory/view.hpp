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
//     AdjEntry in edge-id order, prefetch(v) and prefetch_in(v) of the lists' entries)
//   prefetch_vertex(v), prefetch_payload(v): cache hints for loops that build results
//   listed_edge_properties(e), prefetch_listed_edge(e), prefetch_listed_edge_payload(e): an
//     edge's properties and their cache hints when its endpoints and label come from a list
//     (the committed graph may then skip the edge's slot)
// The free functions below build on these.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "memory/store.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/options.hpp"

namespace propgraph::detail {

inline constexpr Slot kNoSlot = std::numeric_limits<Slot>::max();

enum class ElementKind : char { vertex = 'v', edge = 'e' };

/// Ascending slots of label's elements that may match filter, from the most selective usable
/// index of `table` (a non-null filter value on an indexed key); nullopt when no index applies.
/// Index buckets hold live slots only; the span is valid until the index next changes.
[[nodiscard]] inline std::optional<std::span<const Slot>> index_candidates(const IndexTable& table, LabelId label,
                                                                           const Properties& filter) {
  if (filter.empty() || label >= table.size() || table[label].empty()) return std::nullopt;
  std::optional<std::span<const Slot>> best;
  for (const auto& index : table[label]) {
    const Value* want = filter.find(index.key());
    if (!want || want->is_null()) continue;
    const std::span<const Slot> bucket = index.find(PackedProperties::value_key(*want));
    if (bucket.empty()) return bucket;  // no element holds that value
    if (!best || bucket.size() < best->size()) best = bucket;
  }
  return best;
}

template <typename View>
[[nodiscard]] Slot slot_after(const View& g, ElementKind kind, const std::optional<ElementId>& after);

/// The committed adjacency: the store's lists (every edge linked).
struct StoreAdjacency {
  const Store* store;
  [[nodiscard]] std::span<const AdjEntry> out(Slot v) const noexcept { return store->out(v); }
  [[nodiscard]] std::span<const AdjEntry> in(Slot v) const noexcept { return store->in(v); }
  void prefetch(Slot v) const noexcept { store->prefetch_out(v); }
  void prefetch_in(Slot v) const noexcept { store->prefetch_in(v); }
};

/// The committed graph: MemoryGraph's store, read under its shared lock.
class CommittedView {
 public:
  CommittedView(const Store& store, const std::string& prefix) noexcept : store_(store), prefix_(prefix) {}

  [[nodiscard]] const Store& store() const noexcept { return store_; }
  [[nodiscard]] const std::string& id_prefix() const noexcept { return prefix_; }
  [[nodiscard]] const LabelTable& labels() const noexcept { return store_.labels; }

  [[nodiscard]] std::size_t vertex_slots() const noexcept { return store_.vertex_slots(); }
  [[nodiscard]] bool vertex_alive(Slot v) const noexcept { return store_.vertex_alive(v); }
  [[nodiscard]] LabelId vertex_label(Slot v) const noexcept { return store_.vertex_label(v); }
  [[nodiscard]] PackedView vertex_properties(Slot v) const noexcept { return store_.vertex_properties(v); }
  [[nodiscard]] std::int64_t live_vertices() const noexcept { return store_.live_vertices; }

  [[nodiscard]] std::size_t edge_slots() const noexcept { return store_.edge_slots(); }
  [[nodiscard]] bool edge_alive(Slot e) const noexcept { return store_.edge_alive(e); }
  [[nodiscard]] LabelId edge_label(Slot e) const noexcept { return store_.edge_label(e); }
  [[nodiscard]] Slot edge_from(Slot e) const noexcept { return store_.edge_from(e); }
  [[nodiscard]] Slot edge_to(Slot e) const noexcept { return store_.edge_to(e); }
  [[nodiscard]] PackedView edge_properties(Slot e) const noexcept { return store_.edge_properties(e); }
  [[nodiscard]] std::int64_t live_edges() const noexcept { return store_.live_edges; }

  /// fn(slot) for each live element of `label`, ascending slot.
  template <typename Fn>
  void for_each_member(ElementKind kind, LabelId label, Fn&& fn) const {
    const auto& table = kind == ElementKind::vertex ? store_.vertices_by_label : store_.edges_by_label;
    if (label >= table.size()) return;
    table[label].slots.for_each([&](Slot s) {
      if (kind == ElementKind::vertex ? store_.vertex_alive(s) : store_.edge_alive(s)) fn(s);
    });
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
    const Slot first = slot_after(*this, kind, page.after);
    std::size_t taken = 0;
    DeadlineTicker ticker("label scan");
    // True to go on.
    auto consider = [&](Slot x, bool indexed) {
      ticker.tick();
      if (!indexed && !(vertices ? store_.vertex_alive(x) : store_.edge_alive(x))) return true;
      if (!filter.empty() && !(vertices ? store_.vertex_properties(x) : store_.edge_properties(x)).matches(filter)) {
        return true;
      }
      fn(x);
      return ++taken != page.limit;
    };
    if (const auto bucket = index_candidates(vertices ? store_.vertex_indexes : store_.edge_indexes, label, filter)) {
      for (auto it = std::lower_bound(bucket->begin(), bucket->end(), first); it != bucket->end(); ++it) {
        if (!consider(*it, true)) return;
      }
      return;
    }
    const auto& table = vertices ? store_.vertices_by_label : store_.edges_by_label;
    if (label >= table.size()) return;
    table[label].slots.for_each_from(first, [&](Slot x) { return consider(x, false); });
  }

  /// Runs fn on the adjacency; the store must be linked (MemoryGraph links before a read that
  /// needs adjacency).
  template <typename Fn>
  decltype(auto) with_adjacency(Fn&& fn) const {
    assert(store_.linked());
    return fn(StoreAdjacency{&store_});
  }

  void prefetch_vertex(Slot v) const noexcept { store_.prefetch_vertex(v); }
  /// Heap-held property bytes; the slot must have been fetched a few steps before.
  void prefetch_payload(Slot v) const noexcept { store_.prefetch_vertex_payload(v); }
  void prefetch_edge(Slot e) const noexcept { store_.prefetch_edge(e); }
  void prefetch_edge_payload(Slot e) const noexcept { store_.prefetch_edge_payload(e); }
  [[nodiscard]] PackedView listed_edge_properties(Slot e) const noexcept { return store_.listed_edge_properties(e); }
  void prefetch_listed_edge(Slot e) const noexcept { store_.prefetch_listed_edge(e); }
  void prefetch_listed_edge_payload(Slot e) const noexcept { store_.prefetch_listed_edge_payload(e); }
  /// Whether reading an adjacency list of `Adjacency` needs the vertex slot first.
  template <typename Adjacency>
  static constexpr bool lists_in_records = std::is_same_v<Adjacency, StoreAdjacency>;

 private:
  const Store& store_;
  const std::string& prefix_;
};

// -- ids ----------------------------------------------------------------------------------------

}  // namespace propgraph::detail

namespace propgraph::detail {

/// Builds ElementIds in their inline form, in place.
struct ElementIdAccess {
  static constexpr std::size_t kInline = ElementId::inline_capacity;
  /// The inline buffer (kInline bytes) of a default-constructed id.
  static char* inline_buffer(ElementId& id) noexcept { return id.inline_; }
  /// Makes the first `size` (at most kInline) bytes of the inline buffer the id.
  static void set_inline_size(ElementId& id, std::size_t size) noexcept { id.size_ = static_cast<std::uint8_t>(size); }
};

/// Decimal digits of `x`.
[[nodiscard]] constexpr std::size_t decimal_digits(std::uint32_t x) noexcept {
  std::size_t n = 1;
  for (; x >= 10000; x /= 10000) n += 4;
  if (x >= 1000) return n + 3;
  if (x >= 100) return n + 2;
  return x >= 10 ? n + 1 : n;
}

/// "<prefix><kind><slot>", e.g. "g3:v17". Written straight into ElementId's inline buffer:
/// no allocation, no intermediate copy (building it in a local buffer and copying that made
/// every read of the result wait for the bytes' stores).
template <typename View>
[[nodiscard]] ElementId make_id(const View& g, ElementKind kind, Slot slot) {
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  const std::string& prefix = g.id_prefix();
  const std::size_t n = prefix.size();
  const std::size_t size = n + 1 + decimal_digits(slot);
  ElementId id;  // the one object returned (NRVO): built where the caller wants it
  if (size > ElementIdAccess::kInline) {  // a long prefix: ElementId stores the id on the heap
    std::string text = prefix;
    text += static_cast<char>(kind);
    text += std::to_string(slot);
    id = ElementId(text);
    return id;
  }
  char* out = ElementIdAccess::inline_buffer(id);
  for (std::size_t i = 0; i < n; ++i) out[i] = prefix[i];
  out[n] = static_cast<char>(kind);
  char* d = out + size;
  for (; slot >= 100; slot /= 100) {  // two digits a step, from the last
    d -= 2;
    std::memcpy(d, kPairs + 2 * (slot % 100), 2);
  }
  if (slot >= 10) {
    std::memcpy(d - 2, kPairs + 2 * slot, 2);
  } else {
    d[-1] = static_cast<char>('0' + slot);
  }
  ElementIdAccess::set_inline_size(id, size);
  return id;
}

/// The slot an id of this graph names (canonical form only, below `limit`), or kNoSlot.
[[nodiscard]] inline Slot parse_id(std::string_view prefix, const ElementId& id, ElementKind kind, std::size_t limit) {
  std::string_view s = id.str();
  if (s.size() < prefix.size() + 2 || s.size() > prefix.size() + 11) return kNoSlot;
  for (std::size_t i = 0; i < prefix.size(); ++i) {  // short: a loop beats a call to memcmp
    if (s[i] != prefix[i]) return kNoSlot;
  }
  if (s[prefix.size()] != static_cast<char>(kind)) return kNoSlot;
  const std::string_view digits = s.substr(prefix.size() + 1);
  if (digits.size() > 1 && digits[0] == '0') return kNoSlot;
  std::uint64_t slot = 0;
  for (char c : digits) {
    const auto digit = static_cast<unsigned>(c - '0');
    if (digit > 9) return kNoSlot;
    slot = slot * 10 + digit;
  }
  return slot < limit && slot < kNoSlot ? static_cast<Slot>(slot) : kNoSlot;
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
/// name == label, without string_view::compare's ordering work (a call per lookup by id).
[[nodiscard]] inline bool same_label(const std::string& name, std::string_view label) noexcept {
  return name.size() == label.size() && std::memcmp(name.data(), label.data(), label.size()) == 0;
}
/// The live vertex an id names if it has this label, else kNoSlot.
template <typename View>
[[nodiscard]] Slot vertex_slot(const View& g, std::string_view label, const ElementId& id) {
  Slot v = vertex_slot(g, id);
  return v != kNoSlot && same_label(g.labels().name(g.vertex_label(v)), label) ? v : kNoSlot;
}
template <typename View>
[[nodiscard]] Slot edge_slot(const View& g, std::string_view label, const ElementId& id) {
  Slot e = edge_slot(g, id);
  return e != kNoSlot && same_label(g.labels().name(g.edge_label(e)), label) ? e : kNoSlot;
}

/// The smallest slot whose id sorts after `after` (0 without one). Ids of one kind of a graph
/// sort in slot order (ElementId's order: shorter first, then bytes), so this is exact for any
/// `after`, also an id of another graph, kind or form: O(1) for one of this graph's ids, else a
/// binary search over slot numbers.
template <typename View>
Slot slot_after(const View& g, ElementKind kind, const std::optional<ElementId>& after) {
  if (!after) return 0;
  const Slot own = parse_id(g.id_prefix(), *after, kind, kNoSlot);
  if (own != kNoSlot) return own + 1;
  std::uint64_t lo = 0;  // id(lo - 1) <= after < id(hi), over the slots below kMaxSlots
  std::uint64_t hi = kMaxSlots;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (*after < make_id(g, kind, static_cast<Slot>(mid))) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return static_cast<Slot>(lo);
}

/// The first position in the ascending slots [first, last) whose id sorts after `after`;
/// first when there is no after.
template <typename View, typename It>
It first_after(const View& g, ElementKind kind, It first, It last, const std::optional<ElementId>& after) {
  if (!after) return first;
  return std::lower_bound(first, last, slot_after(g, kind, after));
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

/// Whether the entry's edge has `label` (kAnyLabel: any); the entry carries labels that fit
/// 16 bits, others are read from the edge.
template <typename View>
[[nodiscard]] bool has_label(const View& g, const AdjEntry& a, LabelId label) noexcept {
  if (label == kAnyLabel) return true;
  if (a.label16 != kWideLabel) return a.label16 == label;
  return g.edge_label(a.edge) == label;
}

template <typename View>
[[nodiscard]] bool passes(const View& g, const AdjEntry& a, const EdgeFilter& f) noexcept {
  return has_label(g, a, f.edge_label) && (f.vertex_label == kAnyLabel || g.vertex_label(a.other) == f.vertex_label);
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

/// The entries for_each_adjacent walks, as a resumable cursor: explicit-stack traversals keep
/// one per open vertex instead of recursing. The lists must outlive the cursor.
template <typename View>
class AdjacencyCursor {
 public:
  template <typename Adjacency>
  AdjacencyCursor(const View& g, const Adjacency& adj, Slot v, const EdgeFilter& f) : g_(&g), f_(&f) {
    if (f.direction != Direction::in) {
      const auto list = adj.out(v);
      out_ = list.data();
      out_end_ = out_ + list.size();
    }
    if (f.direction != Direction::out) {
      const auto list = adj.in(v);
      in_ = list.data();
      in_end_ = in_ + list.size();
    }
    settle();
  }
  [[nodiscard]] bool done() const noexcept { return out_ == nullptr && in_ == nullptr; }
  /// The current entry; only when !done().
  [[nodiscard]] const AdjEntry& current() const noexcept { return out_first() ? *out_ : *in_; }
  void next() noexcept {
    if (out_first()) {
      ++out_;
    } else {
      ++in_;
    }
    settle();
  }
  friend bool operator==(const AdjacencyCursor& a, const AdjacencyCursor& b) noexcept {
    return a.out_ == b.out_ && a.in_ == b.in_;
  }

 private:
  void settle() noexcept {
    while (out_ != out_end_ && !passes(*g_, *out_, *f_)) ++out_;
    while (in_ != in_end_ && !passes(*g_, *in_, *f_)) ++in_;
    if (out_ == out_end_) out_ = out_end_ = nullptr;
    if (in_ == in_end_) in_ = in_end_ = nullptr;
  }
  [[nodiscard]] bool out_first() const noexcept {
    return in_ == nullptr || (out_ != nullptr && out_->edge <= in_->edge);
  }

  const View* g_;
  const EdgeFilter* f_;
  const AdjEntry* out_ = nullptr;
  const AdjEntry* out_end_ = nullptr;
  const AdjEntry* in_ = nullptr;
  const AdjEntry* in_end_ = nullptr;
};

// -- prefetching ----------------------------------------------------------------------------------
// Results and traversals visit records in an order unrelated to memory (BFS order, component
// members); each record and its property bytes would be a cache miss in turn. Fetching them a
// few steps ahead overlaps those misses.

inline constexpr std::size_t kRecordAhead = 12;
inline constexpr std::size_t kPayloadAhead = 6;

/// Results this short are fetched whole before the first is built.
inline constexpr std::size_t kShortResult = 32;

/// Step i of a loop over items[0, n) (slots, or entries naming them): fetches the record
/// kRecordAhead steps ahead and the property bytes of the one kPayloadAhead ahead (its record is
/// in cache by then). Step 0 also fetches the records the loop would never fetch ahead, all at
/// once. A short result (a vertex's sixteen edges) is fetched whole at step 0: every record,
/// then every record's property bytes, so its misses overlap in two rounds instead of following
/// one another.
template <typename T, typename PrefetchRecord, typename PrefetchPayload>
void prefetch_step(const T* items, std::size_t i, std::size_t n, PrefetchRecord&& record,
                   PrefetchPayload&& payload) noexcept {
  if (n <= kShortResult) {
    if (i == 0) {
      for (std::size_t j = 0; j < n; ++j) record(items[j]);
      for (std::size_t j = 0; j < n; ++j) payload(items[j]);
    }
    return;
  }
  if (i == 0) {
    for (std::size_t j = 0; j < std::min(n, kRecordAhead); ++j) record(items[j]);
  }
  if (i + kRecordAhead < n) record(items[i + kRecordAhead]);
  if (i + kPayloadAhead < n) payload(items[i + kPayloadAhead]);
}

template <typename View>
void prefetch_ahead(const View& g, const Slot* slots, std::size_t i, std::size_t n) noexcept {
  prefetch_step(
      slots, i, n, [&](Slot v) { g.prefetch_vertex(v); }, [&](Slot v) { g.prefetch_payload(v); });
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
  return Vertex{make_id(g, ElementKind::vertex, v), g.labels().name(g.vertex_label(v)),
                g.vertex_properties(v).unpack()};
}

/// Appends the vertex constructed in place (saves a move per result element).
template <typename View>
void emplace_vertex(const View& g, std::vector<Vertex>& out, Slot v) {
  out.emplace_back(make_id(g, ElementKind::vertex, v), g.labels().name(g.vertex_label(v)),
                   g.vertex_properties(v).unpack());
}

template <typename View>
[[nodiscard]] Edge make_edge(const View& g, Slot e) {
  return Edge{make_id(g, ElementKind::edge, e), g.labels().name(g.edge_label(e)),
              make_id(g, ElementKind::vertex, g.edge_from(e)), make_id(g, ElementKind::vertex, g.edge_to(e)),
              g.edge_properties(e).unpack()};
}

/// An edge as an adjacency list gives it: all of it but its properties.
struct ListedEdge {
  Slot edge;
  Slot from;
  Slot to;
  LabelId label;
};

/// Appends the edge constructed in place (saves a move per result element).
template <typename View>
void emplace_edge(const View& g, std::vector<Edge>& out, const ListedEdge& x, PackedView properties) {
  out.emplace_back(make_id(g, ElementKind::edge, x.edge), g.labels().name(x.label),
                   make_id(g, ElementKind::vertex, x.from), make_id(g, ElementKind::vertex, x.to), properties.unpack());
}

/// emplace_edge of the edge in slot e.
template <typename View>
void emplace_edge(const View& g, std::vector<Edge>& out, Slot e) {
  emplace_edge(g, out, ListedEdge{e, g.edge_from(e), g.edge_to(e), g.edge_label(e)}, g.edge_properties(e));
}

/// The edge of list entry `a` of vertex v's out-list (out) or in-list.
template <typename View>
[[nodiscard]] ListedEdge listed_edge(const View& g, Slot v, const AdjEntry& a, bool out) noexcept {
  const Slot e = a.edge;
  const LabelId label = a.label16 != kWideLabel ? LabelId{a.label16} : g.edge_label(e);
  return out ? ListedEdge{e, v, a.other, label} : ListedEdge{e, a.other, v, label};
}

/// The listed edges in order, fetching their property bytes a few steps ahead (a vertex's
/// edges lie all over the edge table; the lists spare reading their slots, see
/// listed_edge_properties).
template <typename View>
[[nodiscard]] std::vector<Edge> make_edges(const View& g, const ListedEdge* edges, std::size_t n) {
  std::vector<Edge> result;
  result.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    prefetch_step(
        edges, i, n, [&](const ListedEdge& x) { g.prefetch_listed_edge(x.edge); },
        [&](const ListedEdge& x) { g.prefetch_listed_edge_payload(x.edge); });
    emplace_edge(g, result, edges[i], g.listed_edge_properties(edges[i].edge));
  }
  return result;
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

/// Appends a Visit: one aggregate built in place of the result and moved once (cheaper than
/// assigning its fields one by one into a value-initialised element).
template <typename View>
void emplace_visit(const View& g, std::vector<Visit>& out, Slot v, int depth, Slot parent) {
  out.push_back(Visit{
      Vertex{make_id(g, ElementKind::vertex, v), g.labels().name(g.vertex_label(v)), g.vertex_properties(v).unpack()},
      depth, parent == kNoSlot ? std::nullopt : std::optional<ElementId>(make_id(g, ElementKind::vertex, parent))});
}

/// The path through vertex slots [vb, ve) and edge slots [eb, ee).
template <typename View, typename VIt, typename EIt>
[[nodiscard]] Path make_path(const View& g, VIt vb, VIt ve, EIt eb, EIt ee) {
  Path p;
  p.vertices.reserve(static_cast<std::size_t>(std::distance(vb, ve)));
  p.edges.reserve(static_cast<std::size_t>(std::distance(eb, ee)));
  for (; vb != ve; ++vb) emplace_vertex(g, p.vertices, *vb);
  for (; eb != ee; ++eb) emplace_edge(g, p.edges, *eb);
  return p;
}

}  // namespace propgraph::detail
