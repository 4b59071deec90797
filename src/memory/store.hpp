// MemoryGraph's storage: slot vectors of vertex and edge records with per-vertex adjacency
// lists kept in edge-id order. Slots are never reused, so an id stays unique for the life of
// the graph. Not thread-safe by itself; MemoryGraph guards it with a reader/writer lock.
#pragma once

#include <algorithm>
#include <optional>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "memory/large_block_allocator.hpp"
#include "packed_properties.hpp"
#include "propgraph/model.hpp"
#include "propgraph/options.hpp"

namespace propgraph::detail {

using Slot = std::uint32_t;
using LabelId = std::uint32_t;

/// Matches every label in a filter.
inline constexpr LabelId kAnyLabel = std::numeric_limits<LabelId>::max();
/// A label that was asked for but has never been used: matches nothing.
inline constexpr LabelId kUnknownLabel = kAnyLabel - 1;

/// One adjacency entry: the edge and the vertex at its other end, label copied for filtering.
struct AdjEntry {
  Slot edge;
  Slot other;
  LabelId label;
};

struct VertexRecord {
  LabelId label = 0;
  bool alive = false;
  PackedProperties properties;
  std::vector<AdjEntry> out;  // ascending edge slot
  std::vector<AdjEntry> in;   // ascending edge slot
};

struct EdgeRecord {
  LabelId label = 0;
  bool alive = false;
  Slot from = 0;
  Slot to = 0;
  PackedProperties properties;
};

/// Equality index over one property of the elements of one label: the canonical encoding of
/// each value present (PackedProperties::index_key) to the ascending slots holding it.
/// Elements without the property are not in it.
class PropertyIndex {
 public:
  explicit PropertyIndex(std::string key, bool unique = false) : key_(std::move(key)), unique_(unique) {}
  [[nodiscard]] const std::string& key() const noexcept { return key_; }
  /// Unique: MemoryGraph refuses writes that would put two slots in one bucket (equal values;
  /// values containing NaN equal nothing and are exempt).
  [[nodiscard]] bool unique() const noexcept { return unique_; }

  /// Adds slot under value; O(log b + b) for a bucket of b slots, O(1) when slot is the
  /// largest so far (inserts of new elements).
  void add(const std::string& value, Slot slot) {
    if (value.empty()) return;
    auto& bucket = buckets_[value];
    if (bucket.empty() || bucket.back() < slot) {
      bucket.push_back(slot);
    } else {
      bucket.insert(std::lower_bound(bucket.begin(), bucket.end(), slot), slot);
    }
  }
  /// Removes slot from value's bucket (dropping an emptied bucket); O(log b + b).
  void remove(const std::string& value, Slot slot) {
    if (value.empty()) return;
    auto it = buckets_.find(value);
    if (it == buckets_.end()) return;
    auto& bucket = it->second;
    auto pos = std::lower_bound(bucket.begin(), bucket.end(), slot);
    if (pos != bucket.end() && *pos == slot) bucket.erase(pos);
    if (bucket.empty()) buckets_.erase(it);
  }
  /// The ascending slots holding value, or nullptr.
  [[nodiscard]] const std::vector<Slot>* find(const std::string& value) const {
    auto it = buckets_.find(value);
    return it == buckets_.end() ? nullptr : &it->second;
  }
  /// fn(slots) for each bucket holding more than one slot (for unique checks).
  template <typename Fn>
  void for_each_shared_bucket(Fn&& fn) const {
    for (const auto& bucket : buckets_) {
      if (bucket.second.size() > 1) fn(bucket.second);
    }
  }

 private:
  std::string key_;
  bool unique_ = false;
  std::unordered_map<std::string, std::vector<Slot>> buckets_;
};

/// The property indexes of each label (indexed by LabelId), for vertices or for edges.
using IndexTable = std::vector<std::vector<PropertyIndex>>;

/// Live slots of one label, ascending; deleted slots are skipped and compacted lazily.
struct LabelMembers {
  std::vector<Slot> slots;
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
  [[nodiscard]] LabelId filter(const std::optional<std::string>& name) const {
    return name ? find(*name) : kAnyLabel;
  }
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

/// The committed graph. Changed only by its one writer (MemoryGraph's writer gate) under the
/// exclusive lock, through the calls below; they keep label membership, indexes and counts in
/// step with the records. None validates: callers (writes.cpp, Overlay::apply) do.
struct Store {
  LargeVector<VertexRecord> vertices;
  LargeVector<EdgeRecord> edges;
  LabelTable labels;
  std::vector<LabelMembers> vertices_by_label;  // indexed by LabelId
  std::vector<LabelMembers> edges_by_label;
  IndexTable vertex_indexes;
  IndexTable edge_indexes;
  std::int64_t live_vertices = 0;
  std::int64_t live_edges = 0;
  /// Counts applied changes: a reader that saw one version sees the same graph while it holds.
  std::uint64_t version = 0;

  /// Appends a vertex record (a dead one burns its slot); `out`/`in` must already hold only live
  /// edges in ascending id order.
  void push_vertex(VertexRecord record);
  /// Appends an edge record; a live one is linked at the end of its endpoints' lists (its id is
  /// the largest) unless `linked` says the lists already hold it.
  void push_edge(EdgeRecord record, bool linked);
  /// Replaces the properties of a live element, moving it between index buckets.
  void set_vertex_properties(Slot v, PackedProperties properties);
  void set_edge_properties(Slot e, PackedProperties properties);
  /// Deletes a live edge.
  void remove_edge(Slot e);
  /// Deletes a live vertex whose edges are already deleted.
  void remove_isolated_vertex(Slot v);

  /// Rebuilds everything derived from the records in bulk: adjacency lists (sized exactly,
  /// filled in edge-id order), label membership, live counts and the entries of the indexes
  /// (whose definitions stay). For a store whose records were set directly (recovery, bulk
  /// loads). Throws StorageError when an edge names a dead or missing vertex. O(V + E).
  void rebuild();
};

/// The live adjacency: each vertex's own vectors.
struct LiveAdjacency {
  const Store* store;
  [[nodiscard]] std::span<const AdjEntry> out(Slot v) const noexcept { return store->vertices[v].out; }
  [[nodiscard]] std::span<const AdjEntry> in(Slot v) const noexcept { return store->vertices[v].in; }
  void prefetch(Slot v) const noexcept { __builtin_prefetch(store->vertices[v].out.data()); }
};

/// The same lists, same order, copied into two compressed-sparse-row arrays. Per-vertex vectors
/// lie scattered over the heap, so a traversal of a large graph pays a cache and TLB miss per
/// vertex reading them; here the lists of all vertices are contiguous, as in Boost's
/// compressed_sparse_row_graph. Immutable once built; any change of the adjacency makes it stale.
class CsrAdjacency {
 public:
  /// O(V + E).
  explicit CsrAdjacency(const Store& store) {
    const std::size_t n = store.vertices.size();
    const auto total = static_cast<std::size_t>(store.live_edges);
    fill(store, n, total, out_begin_, out_, [](const VertexRecord& r) -> const auto& { return r.out; });
    fill(store, n, total, in_begin_, in_, [](const VertexRecord& r) -> const auto& { return r.in; });
  }
  [[nodiscard]] std::span<const AdjEntry> out(Slot v) const noexcept {
    return {out_.data() + out_begin_[v], out_.data() + out_begin_[v + 1]};
  }
  [[nodiscard]] std::span<const AdjEntry> in(Slot v) const noexcept {
    return {in_.data() + in_begin_[v], in_.data() + in_begin_[v + 1]};
  }
  void prefetch(Slot v) const noexcept { __builtin_prefetch(out_.data() + out_begin_[v]); }

 private:
  template <typename List>
  static void fill(const Store& store, std::size_t n, std::size_t total, LargeVector<std::uint32_t>& begin,
                   LargeVector<AdjEntry>& entries, List list) {
    begin.resize(n + 1);
    entries.reserve(total);
    for (std::size_t v = 0; v < n; ++v) {
      begin[v] = static_cast<std::uint32_t>(entries.size());
      const auto& l = list(store.vertices[v]);
      entries.insert(entries.end(), l.begin(), l.end());
    }
    begin[n] = static_cast<std::uint32_t>(entries.size());
  }

  LargeVector<std::uint32_t> out_begin_;  // n + 1 offsets into out_
  LargeVector<AdjEntry> out_;
  LargeVector<std::uint32_t> in_begin_;
  LargeVector<AdjEntry> in_;
};

}  // namespace propgraph::detail
