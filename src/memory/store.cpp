#include "memory/store.hpp"

#include <fmt/format.h>

#include "propgraph/errors.hpp"

namespace propgraph::detail {

namespace {

LabelMembers& members(std::vector<LabelMembers>& table, LabelId label) {
  if (table.size() <= label) table.resize(label + 1);
  return table[label];
}

void join(std::vector<LabelMembers>& table, LabelId label, Slot slot) {
  auto& m = members(table, label);
  m.slots.push_back(slot);
  ++m.live;
}

template <typename Records>
void leave(std::vector<LabelMembers>& table, LabelId label, const Records& records) {
  auto& m = table[label];
  --m.live;
  // Compact once dead slots outnumber live ones: amortised O(1) per delete.
  if (++m.dead > m.live && m.dead > 16) {
    std::erase_if(m.slots, [&](Slot s) { return !records[s].alive; });
    m.dead = 0;
  }
}

std::vector<PropertyIndex>* indexes_of(IndexTable& table, LabelId label) {
  return label < table.size() && !table[label].empty() ? &table[label] : nullptr;
}

void index_element(IndexTable& table, LabelId label, const PackedProperties& props, Slot slot) {
  if (auto* list = indexes_of(table, label)) {
    for (auto& index : *list) index.add(props.index_key(index.key()), slot);
  }
}

void unindex_element(IndexTable& table, LabelId label, const PackedProperties& props, Slot slot) {
  if (auto* list = indexes_of(table, label)) {
    for (auto& index : *list) index.remove(props.index_key(index.key()), slot);
  }
}

void reindex(IndexTable& table, LabelId label, const PackedProperties& before, const PackedProperties& after,
             Slot slot) {
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

void unlink(std::vector<AdjEntry>& list, Slot edge) {
  auto it = std::lower_bound(list.begin(), list.end(), edge, [](const AdjEntry& a, Slot e) { return a.edge < e; });
  if (it != list.end() && it->edge == edge) list.erase(it);
}

}  // namespace

void Store::push_vertex(VertexRecord record) {
  const auto slot = static_cast<Slot>(vertices.size());
  const bool alive = record.alive;
  const LabelId label = record.label;
  vertices.push_back(std::move(record));
  if (!alive) return;
  index_element(vertex_indexes, label, vertices.back().properties, slot);
  join(vertices_by_label, label, slot);
  ++live_vertices;
}

void Store::push_edge(EdgeRecord record, bool linked) {
  const auto slot = static_cast<Slot>(edges.size());
  edges.push_back(std::move(record));
  const EdgeRecord& rec = edges.back();
  if (!rec.alive) return;
  if (!linked) {
    vertices[rec.from].out.push_back(AdjEntry{slot, rec.to, rec.label});
    vertices[rec.to].in.push_back(AdjEntry{slot, rec.from, rec.label});
  }
  index_element(edge_indexes, rec.label, rec.properties, slot);
  join(edges_by_label, rec.label, slot);
  ++live_edges;
}

void Store::set_vertex_properties(Slot v, PackedProperties properties) {
  auto& rec = vertices[v];
  reindex(vertex_indexes, rec.label, rec.properties, properties, v);
  rec.properties = std::move(properties);
}

void Store::set_edge_properties(Slot e, PackedProperties properties) {
  auto& rec = edges[e];
  reindex(edge_indexes, rec.label, rec.properties, properties, e);
  rec.properties = std::move(properties);
}

void Store::remove_edge(Slot e) {
  auto& rec = edges[e];
  unlink(vertices[rec.from].out, e);
  unlink(vertices[rec.to].in, e);
  unindex_element(edge_indexes, rec.label, rec.properties, e);
  rec.alive = false;
  rec.properties = {};
  --live_edges;
  leave(edges_by_label, rec.label, edges);
}

void Store::remove_isolated_vertex(Slot v) {
  auto& rec = vertices[v];
  unindex_element(vertex_indexes, rec.label, rec.properties, v);
  rec.alive = false;
  rec.properties = {};
  rec.out = {};
  rec.in = {};
  --live_vertices;
  leave(vertices_by_label, rec.label, vertices);
}

void Store::rebuild() {
  const std::size_t n = vertices.size();
  std::vector<std::uint32_t> out_degree(n, 0);
  std::vector<std::uint32_t> in_degree(n, 0);
  for (Slot e = 0; e < edges.size(); ++e) {
    const auto& rec = edges[e];
    if (!rec.alive) continue;
    if (rec.from >= n || rec.to >= n || !vertices[rec.from].alive || !vertices[rec.to].alive) {
      throw StorageError(fmt::format("edge slot {} joins vertex slots {} and {}, which do not both exist", e, rec.from,
                                     rec.to));
    }
    ++out_degree[rec.from];
    ++in_degree[rec.to];
  }
  for (Slot v = 0; v < n; ++v) {
    auto& rec = vertices[v];
    rec.out.clear();
    rec.in.clear();
    rec.out.reserve(out_degree[v]);
    rec.in.reserve(in_degree[v]);
  }
  for (Slot e = 0; e < edges.size(); ++e) {  // ascending: every list ends up in edge-id order
    const auto& rec = edges[e];
    if (!rec.alive) continue;
    vertices[rec.from].out.push_back(AdjEntry{e, rec.to, rec.label});
    vertices[rec.to].in.push_back(AdjEntry{e, rec.from, rec.label});
  }
  vertices_by_label.assign(labels.size(), {});
  edges_by_label.assign(labels.size(), {});
  // Sized exactly first: the member lists of big labels would otherwise be copied as they grow.
  for (const auto& rec : vertices) {
    if (rec.alive) ++vertices_by_label[rec.label].live;
  }
  for (const auto& rec : edges) {
    if (rec.alive) ++edges_by_label[rec.label].live;
  }
  for (auto* table : {&vertices_by_label, &edges_by_label}) {
    for (auto& m : *table) {
      m.slots.reserve(static_cast<std::size_t>(m.live));
      m.live = 0;
    }
  }
  live_vertices = 0;
  live_edges = 0;
  for (auto* table : {&vertex_indexes, &edge_indexes}) {
    for (auto& list : *table) {
      for (auto& index : list) index = PropertyIndex(index.key(), index.unique());
    }
  }
  for (Slot v = 0; v < n; ++v) {
    const auto& rec = vertices[v];
    if (!rec.alive) continue;
    join(vertices_by_label, rec.label, v);
    index_element(vertex_indexes, rec.label, rec.properties, v);
    ++live_vertices;
  }
  for (Slot e = 0; e < edges.size(); ++e) {
    const auto& rec = edges[e];
    if (!rec.alive) continue;
    join(edges_by_label, rec.label, e);
    index_element(edge_indexes, rec.label, rec.properties, e);
    ++live_edges;
  }
}

}  // namespace propgraph::detail
