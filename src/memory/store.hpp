// MemoryGraph's storage: a slot per vertex (48 bytes: label, adjacency headers, small
// properties inline) and per edge (16 bytes: endpoints, label, property handle), the adjacency
// lists in an arena (adjacency.hpp), larger property maps in a heap (property_heap.hpp), and
// per label the slots holding it. Slots are never reused, so an id stays unique for the life of
// the graph. Not thread-safe by itself; MemoryGraph guards it with a reader/writer lock.
//
// Edges reach the adjacency lists in bulk: a commit of many edges only appends their slots, and
// link() puts every edge not yet linked into the lists before the next read of adjacency, as a
// counting sort over the whole graph when they are many (lists then lie in vertex order, exactly
// sized, like a compressed-sparse-row graph), one append per edge when they are few.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "memory/adjacency.hpp"
#include "memory/large_block_allocator.hpp"
#include "memory/mapped_array.hpp"
#include "memory/property_heap.hpp"
#include "memory/property_index.hpp"
#include "memory/slot_runs.hpp"
#include "packed_properties.hpp"
#include "prefetch.hpp"
#include "propgraph/model.hpp"
#include "propgraph/options.hpp"

namespace propgraph::detail {

/// Matches every label in a filter.
inline constexpr LabelId kAnyLabel = std::numeric_limits<LabelId>::max();
/// A label that was asked for but has never been used: matches nothing.
inline constexpr LabelId kUnknownLabel = kAnyLabel - 1;
/// Slots (of either kind) a store can hold: label membership keeps slots in 31 bits.
inline constexpr std::size_t kMaxSlots = (std::size_t{1} << 31) - 2;

/// A vertex or edge as a writer (an Overlay) or recovery holds it before it joins a store.
struct VertexRecord {
  LabelId label = 0;
  bool alive = false;
  PackedProperties properties;
};

struct EdgeRecord {
  LabelId label = 0;
  bool alive = false;
  Slot from = 0;
  Slot to = 0;
  PackedProperties properties;
};

/// A vertex in the store. All zero bytes: a dead (or burned) slot.
struct VertexSlot {
  LabelId label = 0;  // label id + 1; 0: dead
  AdjList out;        // ascending edge slot
  AdjList in;         // ascending edge slot
  InlineProperties properties;
};
static_assert(sizeof(VertexSlot) == 48);
static_assert(256 * sizeof(VertexSlot) % 4096 == 0);

/// An edge in the store. All zero bytes: a dead (or burned) slot.
struct EdgeSlot {
  Slot from = 0;
  Slot to = 0;
  LabelId label = 0;  // label id + 1; 0: dead
  PropertyHandle properties = 0;
};
static_assert(sizeof(EdgeSlot) == 16);
static_assert(256 * sizeof(EdgeSlot) % 4096 == 0);

/// The property indexes of each label (indexed by LabelId), for vertices or for edges.
using IndexTable = std::vector<std::vector<PropertyIndex>>;

/// Slots of one label, ascending; deleted slots are skipped and compacted lazily.
struct LabelMembers {
  SlotRuns slots;
  std::int64_t live = 0;
  std::int64_t dead = 0;
};

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

/// Interned label names shared by vertices and edges.
class LabelTable {
 public:
  /// Id of an existing label, kUnknownLabel otherwise.
  [[nodiscard]] LabelId find(std::string_view name) const {
    auto it = ids_.find(name);
    return it == ids_.end() ? kUnknownLabel : it->second;
  }
  /// kAnyLabel for nullopt, else find().
  [[nodiscard]] LabelId filter(const std::optional<std::string>& name) const { return name ? find(*name) : kAnyLabel; }
  LabelId intern(std::string_view name) {
    if (auto id = find(name); id != kUnknownLabel) return id;
    auto id = static_cast<LabelId>(names_.size());
    names_.emplace_back(name);
    ids_.emplace(names_.back(), id);
    return id;
  }
  [[nodiscard]] const std::string& name(LabelId id) const { return names_[id]; }
  [[nodiscard]] std::size_t size() const noexcept { return names_.size(); }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, LabelId, StringHash, std::equal_to<>> ids_;
};

/// Which adjacency a traversal follows.
struct EdgeFilter {
  Direction direction = Direction::out;
  LabelId edge_label = kAnyLabel;
  LabelId vertex_label = kAnyLabel;  // both endpoints must carry it
};

/// A graph as records (recovery reads files into one), for Store::assign. The edges come in
/// the store's own form, slots over a heap of their property maps, which assign() takes over
/// as they are: the many edges are written once.
struct StoreRecords {
  LargeVector<VertexRecord> vertices;
  MappedArray<EdgeSlot> edges;  // label 0: a dead slot
  PropertyHeap edge_properties;  // the maps edges' slots name
  LabelTable labels;
  IndexTable vertex_indexes;  // definitions; their entries come from the records
  IndexTable edge_indexes;
};

/// The committed graph. Changed only by its one writer (MemoryGraph's writer gate) under the
/// exclusive lock, through the calls below; they keep label membership, indexes and counts in
/// step with the slots. None validates: callers (writes.cpp, Overlay::apply) do.
class Store {
 public:
  Store() = default;
  Store(Store&&) noexcept = default;
  Store& operator=(Store&&) noexcept = default;

  // -- reading ----------------------------------------------------------------------------------
  [[nodiscard]] std::size_t vertex_slots() const noexcept { return vertices_.size(); }
  /// From a bitmap (128 KiB a million vertices): checking many random endpoints stays in cache.
  [[nodiscard]] bool vertex_alive(Slot v) const noexcept { return (vertex_alive_[v / 64] >> (v % 64) & 1) != 0; }
  [[nodiscard]] LabelId vertex_label(Slot v) const noexcept { return vertices_[v].label - 1; }
  [[nodiscard]] PackedView vertex_properties(Slot v) const noexcept { return vertices_[v].properties.view(heap_); }
  [[nodiscard]] std::size_t edge_slots() const noexcept { return edges_.size(); }
  /// A slot of a released group (see kGroup) is dead without a read of its page: reading a
  /// page given back would bring it back.
  [[nodiscard]] bool edge_alive(Slot e) const noexcept {
    return edge_group_live_[e / kGroup] != 0 && edges_[e].label != 0;
  }
  [[nodiscard]] LabelId edge_label(Slot e) const noexcept { return edges_[e].label - 1; }
  [[nodiscard]] Slot edge_from(Slot e) const noexcept { return edges_[e].from; }
  [[nodiscard]] Slot edge_to(Slot e) const noexcept { return edges_[e].to; }
  [[nodiscard]] PackedView edge_properties(Slot e) const noexcept { return heap_.view(edges_[e].properties); }
  /// Edge slots a run holds (see EdgeRun): 8 bytes a run, 128 KiB for 16M edges.
  static constexpr std::size_t kEdgeRun = 1024;
  /// Whether edge e's map is found from its slot number alone (its run lays maps out evenly,
  /// see EdgeRun).
  [[nodiscard]] bool edge_map_by_run(Slot e) const noexcept { return edge_runs_[e / kEdgeRun].state == EdgeRun::kEven; }
  /// edge_properties() of a live edge, without reading its slot when edge_map_by_run(e).
  [[nodiscard]] PackedView listed_edge_properties(Slot e) const noexcept {
    return heap_.view(edge_map_by_run(e) ? edge_runs_[e / kEdgeRun].handle(e % kEdgeRun) : edges_[e].properties);
  }

  /// A vertex's lists; only while every edge is linked (see linked()).
  [[nodiscard]] std::span<const AdjEntry> out(Slot v) const noexcept { return out_.list(vertices_[v].out); }
  [[nodiscard]] std::span<const AdjEntry> in(Slot v) const noexcept { return in_.list(vertices_[v].in); }

  /// Cache hints: the slot, a vertex's property bytes in the heap, its out-list entries.
  void prefetch_vertex(Slot v) const noexcept {
    const char* slot = reinterpret_cast<const char*>(&vertices_[v]);
    detail::prefetch(slot);
    detail::prefetch(slot + sizeof(VertexSlot) - 1);  // a slot may straddle two lines
  }
  void prefetch_vertex_payload(Slot v) const noexcept { heap_.prefetch(vertices_[v].properties.handle()); }
  void prefetch_out(Slot v) const noexcept { detail::prefetch(out_.data(vertices_[v].out)); }
  void prefetch_in(Slot v) const noexcept { detail::prefetch(in_.data(vertices_[v].in)); }
  void prefetch_edge(Slot e) const noexcept { detail::prefetch(&edges_[e]); }
  void prefetch_edge_payload(Slot e) const noexcept { heap_.prefetch(edges_[e].properties); }
  /// Hints for listed_edge_properties(): the map itself when its run lies evenly, else the
  /// slot, and then (a few steps later) the map the slot names.
  void prefetch_listed_edge(Slot e) const noexcept {
    if (edge_map_by_run(e)) {
      const EdgeRun& run = edge_runs_[e / kEdgeRun];
      heap_.prefetch(run.handle(e % kEdgeRun), run.stride);
    } else {
      prefetch_edge(e);
    }
  }
  void prefetch_listed_edge_payload(Slot e) const noexcept {
    if (!edge_map_by_run(e)) prefetch_edge_payload(e);
  }

  /// Whether every edge is in the adjacency lists. Reads of adjacency need it; link() makes it
  /// so (exclusive access).
  [[nodiscard]] bool linked() const noexcept { return linked_edges_ == edges_.size(); }

  /// Bytes the store's tables hold (slots, lists, properties), for memory accounting.
  [[nodiscard]] std::size_t table_bytes() const noexcept;
  /// Bytes of the vertex and edge slot tables in memory: released groups do not count.
  [[nodiscard]] std::size_t resident_slot_bytes() const { return vertices_.resident_bytes() + edges_.resident_bytes(); }

  LabelTable labels;
  std::vector<LabelMembers> vertices_by_label;  // indexed by LabelId
  std::vector<LabelMembers> edges_by_label;
  IndexTable vertex_indexes;
  IndexTable edge_indexes;
  std::int64_t live_vertices = 0;
  std::int64_t live_edges = 0;
  /// Counts applied changes: a reader that saw one version sees the same graph while it holds.
  std::uint64_t version = 0;

  // -- writing (exclusive access) ----------------------------------------------------------------
  /// Room for this many more slots without moving the tables.
  void reserve(std::size_t more_vertices, std::size_t more_edges);
  /// Appends a live vertex.
  Slot push_vertex(LabelId label, PackedView properties);
  /// Appends a live edge; it reaches its endpoints' lists when the store is next linked.
  Slot push_edge(Slot from, Slot to, LabelId label, PackedView properties);
  /// Appends a dead slot: its id is burned, never issued.
  void push_dead_vertex();
  void push_dead_edge();
  /// Replaces the properties of a live element, moving it between index buckets.
  void set_vertex_properties(Slot v, PackedView properties);
  void set_edge_properties(Slot e, PackedView properties);
  /// Deletes a live edge.
  void remove_edge(Slot e);
  /// Deletes a live vertex whose edges are already deleted.
  void remove_isolated_vertex(Slot v);
  /// Puts every edge not yet linked into its endpoints' lists: appends when they are few, else
  /// lays all lists out anew in vertex order (O(V + E)).
  void link();
  /// Links at once when few edges wait (a commit of a few writes), so that readers after it
  /// find nothing to do; many wait for the next read of adjacency.
  void link_if_few();

  /// Replaces the whole store with the graph the records hold, building everything derived in
  /// bulk (adjacency in vertex order, label membership, counts, index entries). Throws
  /// StorageError when an edge names a dead or missing vertex. O(V + E).
  void assign(StoreRecords&& records);

 private:
  void join(std::vector<LabelMembers>& table, LabelId label, Slot slot);
  template <typename IsAlive>
  void leave(std::vector<LabelMembers>& table, LabelId label, IsAlive&& alive);
  /// Lays out every live edge, in slot order, into fresh exact lists: the out- and in-lists
  /// on two threads from kParallelRebuild edge slots on.
  void rebuild_lists();
  template <bool kOut>
  void lay_out_lists();
  static constexpr std::size_t kParallelRebuild = std::size_t{1} << 20;
  /// assign()'s edges, once taken over: checks, label membership, counts, index entries and
  /// edge runs.
  void assign_edges();
  /// fn(slot, record) for every live edge, ascending; groups with no live edge are not read.
  template <typename Fn>
  void for_each_live_edge(Fn&& fn) const {
    const std::size_t m = edges_.size();
    for (std::size_t group = 0; group * kGroup < m; ++group) {
      if (edge_group_live_[group] == 0) continue;
      const std::size_t last = std::min(m, (group + 1) * kGroup);
      for (std::size_t e = group * kGroup; e < last; ++e) {
        if (edges_[e].label != 0) fn(static_cast<Slot>(e), edges_[e]);
      }
    }
  }

  /// Slots are counted alive per group of kGroup; a group whose last element dies (but for the
  /// one still filling) gives its pages back (MappedArray::release: they read as dead slots),
  /// so that memory follows the live elements although slots are never reused. kGroup slots of
  /// either kind fill whole 4 KiB pages.
  static constexpr std::size_t kGroup = 256;
  static void count_slot(std::vector<std::uint16_t>& live, Slot s, bool alive) {
    if (s / kGroup >= live.size()) live.push_back(0);
    if (alive) ++live[s / kGroup];
  }
  template <typename Slots>
  static void uncount_slot(std::vector<std::uint16_t>& live, Slots& slots, Slot s) noexcept {
    const std::size_t group = s / kGroup;
    if (--live[group] == 0 && group + 1 < live.size()) slots.release(group * kGroup, (group + 1) * kGroup);
  }
  /// Gives back every group with no live element but the one still filling (after a bulk build).
  template <typename Slots>
  static void release_dead_groups(const std::vector<std::uint16_t>& live, Slots& slots) noexcept {
    for (std::size_t group = 0; group + 1 < live.size(); ++group) {
      if (live[group] == 0) slots.release(group * kGroup, (group + 1) * kGroup);
    }
  }

  /// Where the maps of kEdgeRun consecutive edge slots lie in the heap. Even: slot k of the run
  /// (counted from its first) names the map at first + k * stride words, as a bulk load lays
  /// out edges whose maps take the same room: the same keys with values of one encoded size
  /// (fixed-width numbers, strings of one length), or no properties at all (stride 0). Then a
  /// map is found from the edge's slot number alone, and reading a vertex's random edges
  /// (incident_edges) costs one cache miss an edge instead of two: the lists carry the rest.
  /// Checked as each slot is pushed; a slot pushed dead or a replaced map makes its run uneven
  /// for good (a deleted edge leaves the lists, so the reuse of its map cannot mislead).
  struct EdgeRun {
    enum State : std::uint8_t { kOne, kEven, kUneven };
    PropertyHandle first = 0;
    std::uint8_t stride = 0;
    State state = kOne;
    [[nodiscard]] PropertyHandle handle(std::size_t k) const noexcept {
      return first + static_cast<PropertyHandle>(k) * stride;
    }
  };
  /// Records the map of the slot just pushed (nullopt: a dead slot) in its run.
  void note_edge_map(Slot e, std::optional<PropertyHandle> map);

  void mark_vertex(Slot v, bool alive) noexcept {
    const std::uint64_t bit = std::uint64_t{1} << (v % 64);
    vertex_alive_[v / 64] = alive ? vertex_alive_[v / 64] | bit : vertex_alive_[v / 64] & ~bit;
  }
  /// A new vertex slot: its bitmap word exists (zero bits for slots to come).
  void grow_alive_bits(Slot v) {
    if (v / 64 >= vertex_alive_.size()) vertex_alive_.push_back(0);
  }

  MappedArray<VertexSlot> vertices_;
  MappedArray<std::uint64_t> vertex_alive_;  // a bit per vertex slot: the slot's label != 0
  MappedArray<EdgeSlot> edges_;
  std::vector<std::uint16_t> vertex_group_live_;  // live vertices of each kGroup slots
  std::vector<std::uint16_t> edge_group_live_;
  std::vector<EdgeRun> edge_runs_;  // one for each kEdgeRun edge slots
  AdjacencyArena out_;
  AdjacencyArena in_;
  PropertyHeap heap_;
  std::size_t linked_edges_ = 0;  // edge slots below this are in the lists
};

}  // namespace propgraph::detail
