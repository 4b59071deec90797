#include "memory/overlay.hpp"

#include <algorithm>

namespace propgraph::detail {

namespace {
void erase_entry(std::vector<AdjEntry>& list, Slot edge) {
  std::erase_if(list, [&](const AdjEntry& a) { return a.edge == edge; });
}

}  // namespace

std::int64_t Overlay::count_members(ElementKind kind, LabelId label) const noexcept {
  const bool vertices = kind == ElementKind::vertex;
  const auto& table = vertices ? store_->vertices_by_label : store_->edges_by_label;
  std::int64_t n = label < table.size() ? table[label].live : 0;
  const auto& deltas = vertices ? vertex_label_delta_ : edge_label_delta_;
  if (auto it = deltas.find(label); it != deltas.end()) n += it->second;
  return n;
}

std::vector<Slot> Overlay::touched_members(ElementKind kind, LabelId label) const {
  std::vector<Slot> result;
  if (kind == ElementKind::vertex) {
    for (const auto& [v, props] : vertex_props_) {
      if (store_->vertex_label(v) == label) result.push_back(v);
    }
    std::sort(result.begin(), result.end());
    for (Slot i = 0; i < new_vertices_.size(); ++i) {
      if (new_vertices_[i].label == label) result.push_back(vertex_base_ + i);
    }
  } else {
    for (const auto& [e, props] : edge_props_) {
      if (store_->edge_label(e) == label) result.push_back(e);
    }
    std::sort(result.begin(), result.end());
    for (Slot i = 0; i < new_edges_.size(); ++i) {
      if (new_edges_[i].label == label) result.push_back(edge_base_ + i);
    }
  }
  return result;
}

const Overlay::Lists& Overlay::lists(Slot v) const {
  auto [it, fresh] = merged_.try_emplace(v);
  if (!fresh) return it->second;
  auto merge = [&](std::span<const AdjEntry> committed, const std::unordered_map<Slot, std::vector<AdjEntry>>& added,
                   std::vector<AdjEntry>& out) {
    out.reserve(committed.size());
    for (const AdjEntry& a : committed) {
      if (deleted_edges_.empty() || !deleted_edges_.contains(a.edge)) out.push_back(a);
    }
    if (auto more = added.find(v); more != added.end()) out.insert(out.end(), more->second.begin(), more->second.end());
  };
  merge(store_->out(v), added_out_, it->second.first);
  merge(store_->in(v), added_in_, it->second.second);
  return it->second;
}

void Overlay::link_pending() const {
  for (; linked_edges_ < new_edges_.size(); ++linked_edges_) {
    const EdgeRecord& rec = new_edges_[linked_edges_];
    if (!rec.alive) continue;
    const auto e = static_cast<Slot>(edge_base_ + linked_edges_);
    added_out_[rec.from].push_back(AdjEntry{e, rec.to, rec.label});
    added_in_[rec.to].push_back(AdjEntry{e, rec.from, rec.label});
    for (Slot v : {rec.from, rec.to}) {
      if (is_new_vertex(v)) continue;
      dirty_.insert(v);
      touched(v);
    }
  }
}

namespace {
std::span<const AdjEntry> added(const std::unordered_map<Slot, std::vector<AdjEntry>>& lists, Slot v) {
  auto it = lists.find(v);
  return it == lists.end() ? std::span<const AdjEntry>() : std::span<const AdjEntry>(it->second);
}
}  // namespace

std::span<const AdjEntry> Overlay::out(Slot v) const {
  link_pending();
  if (is_new_vertex(v)) return added(added_out_, v);
  if (dirty_.empty() || !dirty_.contains(v)) return store_->out(v);
  return lists(v).first;
}

std::span<const AdjEntry> Overlay::in(Slot v) const {
  link_pending();
  if (is_new_vertex(v)) return added(added_in_, v);
  if (dirty_.empty() || !dirty_.contains(v)) return store_->in(v);
  return lists(v).second;
}

bool Overlay::has_new_properties(ElementKind kind, Slot slot) const noexcept {
  if (kind == ElementKind::vertex) return is_new_vertex(slot) || vertex_props_.contains(slot);
  return is_new_edge(slot) || edge_props_.contains(slot);
}

const std::vector<Slot>* Overlay::overlay_holders(const PropertyIndex& index, const std::string& value_key) const {
  auto it = overlay_index_.find(&index);
  if (it == overlay_index_.end()) return nullptr;
  auto bucket = it->second.find(value_key);
  return bucket == it->second.end() ? nullptr : &bucket->second;
}

void Overlay::index_overlay(ElementKind kind, LabelId label, std::optional<PackedView> before,
                            std::optional<PackedView> after, Slot slot) {
  const IndexTable& table = kind == ElementKind::vertex ? store_->vertex_indexes : store_->edge_indexes;
  if (label >= table.size()) return;
  for (const auto& index : table[label]) {
    if (!index.unique()) continue;
    auto& buckets = overlay_index_[&index];
    if (before) {
      if (auto key = before->index_key(index.key()); !key.empty()) {
        if (auto it = buckets.find(key); it != buckets.end()) std::erase(it->second, slot);
      }
    }
    if (after) {
      if (auto key = after->index_key(index.key()); !key.empty()) buckets[key].push_back(slot);
    }
  }
}

LabelId Overlay::intern(std::string_view label) {
  if (LabelId id = labels().find(label); id != kUnknownLabel) return id;
  if (!labels_) labels_.emplace(store_->labels);
  return labels_->intern(label);
}

Slot Overlay::add_vertex(LabelId label, PackedProperties properties) {
  const auto slot = static_cast<Slot>(vertex_slots());
  index_overlay(ElementKind::vertex, label, std::nullopt, properties.view(), slot);
  new_vertices_.push_back(VertexRecord{label, true, std::move(properties)});
  ++vertex_delta_;
  ++label_delta(ElementKind::vertex, label);
  return slot;
}

Slot Overlay::add_edge(Slot from, Slot to, LabelId label, PackedProperties properties) {
  const auto slot = static_cast<Slot>(edge_slots());
  index_overlay(ElementKind::edge, label, std::nullopt, properties.view(), slot);
  new_edges_.push_back(EdgeRecord{label, true, from, to, std::move(properties)});
  ++edge_delta_;
  ++label_delta(ElementKind::edge, label);
  return slot;
}

void Overlay::set_vertex_properties(Slot v, PackedProperties properties) {
  const LabelId label = vertex_label(v);
  if (is_new_vertex(v)) {
    auto& rec = new_vertices_[v - vertex_base_];
    index_overlay(ElementKind::vertex, label, rec.properties.view(), properties.view(), v);
    rec.properties = std::move(properties);
    return;
  }
  auto it = vertex_props_.find(v);
  index_overlay(ElementKind::vertex, label, it == vertex_props_.end() ? std::nullopt : std::optional(it->second.view()),
                properties.view(), v);
  vertex_props_.insert_or_assign(v, std::move(properties));
}

void Overlay::set_edge_properties(Slot e, PackedProperties properties) {
  const LabelId label = edge_label(e);
  if (is_new_edge(e)) {
    auto& rec = new_edges_[e - edge_base_];
    index_overlay(ElementKind::edge, label, rec.properties.view(), properties.view(), e);
    rec.properties = std::move(properties);
    return;
  }
  auto it = edge_props_.find(e);
  index_overlay(ElementKind::edge, label, it == edge_props_.end() ? std::nullopt : std::optional(it->second.view()),
                properties.view(), e);
  edge_props_.insert_or_assign(e, std::move(properties));
}

void Overlay::remove_edge(Slot e) {
  const Slot from = edge_from(e);
  const Slot to = edge_to(e);
  const LabelId label = edge_label(e);
  if (is_new_edge(e)) {
    auto& mine = new_edges_[e - edge_base_];
    index_overlay(ElementKind::edge, label, mine.properties.view(), std::nullopt, e);
    mine.alive = false;
    mine.properties = {};
    if (e - edge_base_ < linked_edges_) {  // already in the read lists
      if (auto it = added_out_.find(from); it != added_out_.end()) erase_entry(it->second, e);
      if (auto it = added_in_.find(to); it != added_in_.end()) erase_entry(it->second, e);
      touched(from);
      touched(to);
    }
  } else {
    if (auto it = edge_props_.find(e); it != edge_props_.end()) {
      index_overlay(ElementKind::edge, label, it->second.view(), std::nullopt, e);
      edge_props_.erase(it);
    }
    deleted_edges_.insert(e);
    for (Slot v : {from, to}) {  // a committed edge joins committed vertices only
      dirty_.insert(v);
      touched(v);
    }
  }
  --edge_delta_;
  --label_delta(ElementKind::edge, label);
}

void Overlay::remove_vertex(Slot v) {
  // Collect first: remove_edge changes the lists. A self-loop is in both lists once.
  std::vector<Slot> incident;
  for (const AdjEntry& a : out(v)) incident.push_back(a.edge);
  for (const AdjEntry& a : in(v)) {
    if (a.other != v) incident.push_back(a.edge);
  }
  for (Slot e : incident) remove_edge(e);
  const LabelId label = vertex_label(v);
  if (is_new_vertex(v)) {
    auto& rec = new_vertices_[v - vertex_base_];
    index_overlay(ElementKind::vertex, label, rec.properties.view(), std::nullopt, v);
    rec.alive = false;
    rec.properties = {};
  } else {
    if (auto it = vertex_props_.find(v); it != vertex_props_.end()) {
      index_overlay(ElementKind::vertex, label, it->second.view(), std::nullopt, v);
      vertex_props_.erase(it);
    }
    deleted_vertices_.insert(v);
    merged_.erase(v);
  }
  --vertex_delta_;
  --label_delta(ElementKind::vertex, label);
}

void Overlay::apply(Store& store) {
  if (labels_) store.labels = std::move(*labels_);
  for (Slot e : deleted_edges_) store.remove_edge(e);
  for (Slot v : deleted_vertices_) store.remove_isolated_vertex(v);
  for (auto& [v, props] : vertex_props_) store.set_vertex_properties(v, props.view());
  for (auto& [e, props] : edge_props_) store.set_edge_properties(e, props.view());
  store.reserve(new_vertices_.size(), new_edges_.size());
  for (const auto& rec : new_vertices_) {
    if (rec.alive) {
      store.push_vertex(rec.label, rec.properties.view());
    } else {
      store.push_dead_vertex();
    }
  }
  for (const auto& rec : new_edges_) {
    if (rec.alive) {
      store.push_edge(rec.from, rec.to, rec.label, rec.properties.view());
    } else {
      store.push_dead_edge();
    }
  }
  store.link_if_few();
  ++store.version;
}

void Overlay::clear() noexcept {
  labels_.reset();
  new_vertices_.clear();
  new_edges_.clear();
  vertex_props_.clear();
  edge_props_.clear();
  deleted_vertices_.clear();
  deleted_edges_.clear();
}

void Overlay::burn(Store& store) {
  if (new_vertices_.empty() && new_edges_.empty()) return;
  for (std::size_t i = 0; i < new_vertices_.size(); ++i) store.push_dead_vertex();
  for (std::size_t i = 0; i < new_edges_.size(); ++i) store.push_dead_edge();
  ++store.version;
}

}  // namespace propgraph::detail
