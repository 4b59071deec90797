#include "memory/store.hpp"

#include <fmt/format.h>

#include "memory/run_both.hpp"
#include "propgraph/errors.hpp"

namespace propgraph::detail {

namespace {

/// Edges that may wait for the next read of adjacency instead of being linked by their commit.
constexpr std::size_t kLinkAtCommit = 4096;

LabelMembers& members(std::vector<LabelMembers>& table, LabelId label) {
  if (table.size() <= label) table.resize(label + 1);
  return table[label];
}

std::vector<PropertyIndex>* indexes_of(IndexTable& table, LabelId label) {
  return label < table.size() && !table[label].empty() ? &table[label] : nullptr;
}

void index_element(IndexTable& table, LabelId label, PackedView props, Slot slot) {
  if (auto* list = indexes_of(table, label)) {
    for (auto& index : *list) index.add(props.index_key(index.key()), slot);
  }
}

void unindex_element(IndexTable& table, LabelId label, PackedView props, Slot slot) {
  if (auto* list = indexes_of(table, label)) {
    for (auto& index : *list) index.remove(props.index_key(index.key()), slot);
  }
}

void reindex(IndexTable& table, LabelId label, PackedView before, PackedView after, Slot slot) {
  if (auto* list = indexes_of(table, label)) {
    for (auto& index : *list) {
      auto old_key = before.index_key(index.key());
      auto new_key = after.index_key(index.key());
      if (old_key == new_key) continue;
      index.remove(old_key, slot);
      index.add(new_key, slot);
    }
  }
}

}  // namespace

void Store::join(std::vector<LabelMembers>& table, LabelId label, Slot slot) {
  auto& m = members(table, label);
  m.slots.push_back(slot);
  ++m.live;
}

template <typename IsAlive>
void Store::leave(std::vector<LabelMembers>& table, LabelId label, IsAlive&& alive) {
  auto& m = table[label];
  --m.live;
  // Compact once dead slots outnumber live ones: amortised O(1) per delete.
  if (++m.dead > m.live && m.dead > 16) {
    m.slots.erase_if([&](Slot s) { return !alive(s); });
    m.dead = 0;
  }
}

std::size_t Store::table_bytes() const noexcept {
  return vertices_.size() * sizeof(VertexSlot) + vertex_alive_.size() * 8 + edges_.size() * sizeof(EdgeSlot) +
         (out_.capacity_entries() + in_.capacity_entries()) * sizeof(AdjEntry) + heap_.words() * 4 +
         edge_runs_.size() * sizeof(EdgeRun);
}

void Store::reserve(std::size_t more_vertices, std::size_t more_edges) {
  vertices_.reserve(vertices_.size() + more_vertices);
  edges_.reserve(edges_.size() + more_edges);
}

Slot Store::push_vertex(LabelId label, PackedView properties) {
  const auto slot = static_cast<Slot>(vertices_.size());
  VertexSlot rec;
  rec.label = label + 1;
  rec.properties.assign(properties.bytes(), heap_);
  grow_alive_bits(slot);
  count_slot(vertex_group_live_, slot, true);
  vertices_.push_back(rec);
  mark_vertex(slot, true);
  index_element(vertex_indexes, label, properties, slot);
  join(vertices_by_label, label, slot);
  ++live_vertices;
  return slot;
}

Slot Store::push_edge(Slot from, Slot to, LabelId label, PackedView properties) {
  const auto slot = static_cast<Slot>(edges_.size());
  count_slot(edge_group_live_, slot, true);
  edges_.push_back(EdgeSlot{from, to, label + 1, heap_.store(properties.bytes())});
  note_edge_map(slot, edges_.back().properties);
  index_element(edge_indexes, label, properties, slot);
  join(edges_by_label, label, slot);
  ++live_edges;
  return slot;
}

void Store::push_dead_vertex() {
  grow_alive_bits(static_cast<Slot>(vertices_.size()));
  count_slot(vertex_group_live_, static_cast<Slot>(vertices_.size()), false);
  vertices_.push_back(VertexSlot{});
}

void Store::push_dead_edge() {
  const bool was_linked = linked();
  count_slot(edge_group_live_, static_cast<Slot>(edges_.size()), false);
  edges_.push_back(EdgeSlot{});
  note_edge_map(static_cast<Slot>(edges_.size() - 1), std::nullopt);
  if (was_linked) linked_edges_ = edges_.size();  // nothing to link for a dead slot
}

void Store::set_vertex_properties(Slot v, PackedView properties) {
  auto& rec = vertices_[v];
  reindex(vertex_indexes, rec.label - 1, rec.properties.view(heap_), properties, v);
  rec.properties.clear(heap_);
  rec.properties.assign(properties.bytes(), heap_);
}

void Store::set_edge_properties(Slot e, PackedView properties) {
  reindex(edge_indexes, edges_[e].label - 1, heap_.view(edges_[e].properties), properties, e);
  const PropertyHandle old = edges_[e].properties;
  const PropertyHandle fresh = heap_.store(properties.bytes());
  heap_.free(old);
  edges_[e].properties = fresh;
  edge_runs_[e / kEdgeRun].state = EdgeRun::kUneven;
}

void Store::note_edge_map(Slot e, std::optional<PropertyHandle> map) {
  const std::size_t k = e % kEdgeRun;
  if (k == 0) {
    edge_runs_.push_back(EdgeRun{map.value_or(0), 0, map ? EdgeRun::kOne : EdgeRun::kUneven});
    return;
  }
  EdgeRun& run = edge_runs_.back();
  if (run.state == EdgeRun::kUneven) return;
  if (!map) {
    run.state = EdgeRun::kUneven;
  } else if (run.state == EdgeRun::kOne) {
    const bool fits = *map >= run.first && *map - run.first <= std::numeric_limits<std::uint8_t>::max();
    run.stride = fits ? static_cast<std::uint8_t>(*map - run.first) : 0;
    run.state = fits ? EdgeRun::kEven : EdgeRun::kUneven;
  } else if (std::uint64_t{run.first} + k * run.stride != *map) {
    run.state = EdgeRun::kUneven;
  }
}

void Store::remove_edge(Slot e) {
  const EdgeSlot rec = edges_[e];
  const LabelId label = rec.label - 1;
  if (e < linked_edges_) {
    out_.erase(vertices_[rec.from].out, e);
    in_.erase(vertices_[rec.to].in, e);
  }
  unindex_element(edge_indexes, label, heap_.view(rec.properties), e);
  heap_.free(rec.properties);
  edges_[e] = EdgeSlot{};
  uncount_slot(edge_group_live_, edges_, e);
  --live_edges;
  leave(edges_by_label, label, [&](Slot s) { return edge_alive(s); });
}

void Store::remove_isolated_vertex(Slot v) {
  auto& rec = vertices_[v];
  const LabelId label = rec.label - 1;
  unindex_element(vertex_indexes, label, rec.properties.view(heap_), v);
  rec.properties.clear(heap_);
  out_.release(rec.out);
  in_.release(rec.in);
  rec = VertexSlot{};
  mark_vertex(v, false);
  uncount_slot(vertex_group_live_, vertices_, v);
  --live_vertices;
  leave(vertices_by_label, label, [&](Slot s) { return vertex_alive(s); });
}

void Store::link() {
  const std::size_t n = edges_.size();
  const std::size_t waiting = n - linked_edges_;
  if (waiting == 0) return;
  if (4 * waiting >= linked_edges_ + vertices_.size()) {
    rebuild_lists();
    return;
  }
  for (std::size_t e = linked_edges_; e < n; ++e) {
    const EdgeSlot& rec = edges_[e];
    if (rec.label == 0) continue;
    const auto slot = static_cast<Slot>(e);
    out_.append(vertices_[rec.from].out, AdjEntry{slot, rec.to, rec.label - 1});
    in_.append(vertices_[rec.to].in, AdjEntry{slot, rec.from, rec.label - 1});
  }
  linked_edges_ = n;
}

void Store::link_if_few() {
  if (edges_.size() - linked_edges_ <= kLinkAtCommit) link();
}

template <bool kOut>
void Store::lay_out_lists() {
  const std::size_t n = vertices_.size();
  AdjacencyArena& arena = kOut ? out_ : in_;
  const auto list_of = [this](std::size_t v) -> AdjList& { return kOut ? vertices_[v].out : vertices_[v].in; };
  std::vector<std::uint32_t> cursor(n, 0);
  for_each_live_edge([&](Slot, const EdgeSlot& rec) { ++cursor[kOut ? rec.from : rec.to]; });
  // The degrees lay the lists out; then each cursor becomes its list's first entry. A dead
  // vertex's lists stay empty and its slot unwritten (its page may have been given back).
  arena.build(cursor, [&](std::size_t v, AdjList l) {
    if (vertex_alive(static_cast<Slot>(v))) list_of(v) = l;
  });
  for (std::size_t v = 0; v < n; ++v) {
    if (vertex_alive(static_cast<Slot>(v))) cursor[v] = list_of(v).offset;
  }
  AdjEntry* entries = arena.entries();
  for_each_live_edge([&](Slot slot, const EdgeSlot& rec) {  // ascending: lists end up in edge-id order
    entries[cursor[kOut ? rec.from : rec.to]++] = AdjEntry{slot, kOut ? rec.to : rec.from, rec.label - 1};
  });
}

void Store::rebuild_lists() {
  const std::size_t m = edges_.size();
  if (m < kParallelRebuild) {
    lay_out_lists<true>();
    lay_out_lists<false>();
  } else {
    // The two directions share nothing but the (read-only) edge slots: one thread each.
    run_both([this] { lay_out_lists<true>(); }, [this] { lay_out_lists<false>(); });
  }
  linked_edges_ = m;
}

void Store::assign_edges() {
  const std::size_t m = edges_.size();
  const std::size_t n = vertices_.size();
  edge_group_live_.reserve(m / kGroup + 1);
  for (std::size_t e = 0; e < m; ++e) {
    const EdgeSlot& rec = edges_[e];
    const auto slot = static_cast<Slot>(e);
    const bool alive = rec.label != 0;
    count_slot(edge_group_live_, slot, alive);
    note_edge_map(slot, alive ? std::optional(rec.properties) : std::nullopt);
    if (!alive) continue;
    if (rec.from >= n || rec.to >= n || !vertex_alive(rec.from) || !vertex_alive(rec.to)) {
      throw StorageError(
          fmt::format("edge slot {} joins vertex slots {} and {}, which do not both exist", e, rec.from, rec.to));
    }
    const LabelId label = rec.label - 1;
    if (auto* list = indexes_of(edge_indexes, label)) {  // else the map's memory is not read
      for (auto& index : *list) index.add(heap_.view(rec.properties).index_key(index.key()), slot);
    }
    join(edges_by_label, label, slot);
    ++live_edges;
  }
}

void Store::assign(StoreRecords&& records) {
  Store s;
  s.labels = std::move(records.labels);
  s.vertex_indexes = std::move(records.vertex_indexes);
  s.edge_indexes = std::move(records.edge_indexes);
  for (auto* table : {&s.vertex_indexes, &s.edge_indexes}) {
    for (auto& list : *table) {
      for (auto& index : list) index = PropertyIndex(index.key(), index.unique());
    }
  }
  // The edges' slots and maps as they are; the vertices' large maps go into the same heap.
  s.edges_ = std::move(records.edges);
  s.heap_ = std::move(records.edge_properties);
  const std::size_t n = records.vertices.size();
  s.vertices_.reserve(n);
  s.vertices_.populate(0, n);  // written next: one call instead of a fault per page
  s.vertex_alive_.reserve(n / 64 + 1);
  for (const VertexRecord& rec : records.vertices) {
    if (rec.alive) {
      s.push_vertex(rec.label, rec.properties.view());
    } else {
      s.push_dead_vertex();
    }
  }
  s.assign_edges();
  s.rebuild_lists();
  // Groups of slots that hold no element any more need no memory (see kGroup).
  release_dead_groups(s.vertex_group_live_, s.vertices_);
  release_dead_groups(s.edge_group_live_, s.edges_);
  s.version = version + 1;
  *this = std::move(s);
}

}  // namespace propgraph::detail
