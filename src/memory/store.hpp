// MemoryGraph's storage: slot vectors of vertex and edge records with per-vertex adjacency
// lists kept in edge-id order. Slots are never reused, so an id stays unique for the life of
// the graph. Not thread-safe by itself; MemoryGraph guards it with a reader/writer lock.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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
  Properties properties;
  std::vector<AdjEntry> out;  // ascending edge slot
  std::vector<AdjEntry> in;   // ascending edge slot
};

struct EdgeRecord {
  LabelId label = 0;
  bool alive = false;
  Slot from = 0;
  Slot to = 0;
  Properties properties;
};

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

struct Store {
  std::vector<VertexRecord> vertices;
  std::vector<EdgeRecord> edges;
  LabelTable labels;
  std::vector<LabelMembers> vertices_by_label;  // indexed by LabelId
  std::vector<LabelMembers> edges_by_label;
  std::int64_t live_vertices = 0;
  std::int64_t live_edges = 0;

  [[nodiscard]] bool vertex_in(Slot v, LabelId label) const {
    return label == kAnyLabel || vertices[v].label == label;
  }

  [[nodiscard]] bool passes(const AdjEntry& a, const EdgeFilter& f) const {
    return (f.edge_label == kAnyLabel || a.label == f.edge_label) &&
           (f.vertex_label == kAnyLabel || vertices[a.other].label == f.vertex_label);
  }

  /// Calls fn(const AdjEntry&) for each edge leaving v under the filter, in edge-id order (with
  /// Direction::both, out- and in-lists are merged by edge id; a self-loop comes twice).
  /// Only call on live vertices.
  template <typename Fn>
  void for_each_adjacent(Slot v, const EdgeFilter& f, Fn&& fn) const {
    const auto& rec = vertices[v];
    if (f.direction != Direction::both) {
      for (const auto& a : f.direction == Direction::out ? rec.out : rec.in) {
        if (passes(a, f)) fn(a);
      }
      return;
    }
    auto o = rec.out.begin();
    auto i = rec.in.begin();
    while (o != rec.out.end() || i != rec.in.end()) {
      const bool take_out = i == rec.in.end() || (o != rec.out.end() && o->edge <= i->edge);
      const AdjEntry& a = take_out ? *o++ : *i++;
      if (passes(a, f)) fn(a);
    }
  }
};

}  // namespace propgraph::detail
