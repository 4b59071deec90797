#include "memory/writes.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "propgraph/errors.hpp"
#include "propgraph/fmt.hpp"

namespace propgraph::detail::writes {

namespace {

Properties without_nulls(const Properties& props) {
  bool any_null = std::any_of(props.begin(), props.end(), [](const auto& e) { return e.second.is_null(); });
  if (!any_null) return props;  // shares the caller's map: O(1)
  Properties result;
  for (const auto& [key, value] : props) {
    if (!value.is_null()) result.set(key, value);
  }
  return result;
}

bool contains_nan(const Value& v) {
  if (const auto* d = v.get_if<double>()) return std::isnan(*d);
  if (const auto* list = v.get_if<ValueList>()) return std::any_of(list->begin(), list->end(), contains_nan);
  return false;
}

std::string_view kind_name(ElementKind kind) { return kind == ElementKind::vertex ? "vertex" : "edge"; }

bool alive(const TxView& g, ElementKind kind, Slot s) {
  return kind == ElementKind::vertex ? g.vertex_alive(s) : g.edge_alive(s);
}

void check_room(std::size_t used, std::size_t more, ElementKind kind) {
  if (used + more > kMaxSlots) {
    throw InvalidArgument(fmt::format("MemoryGraph is full: {} slots are limited to 2^31 - 2", kind_name(kind)));
  }
}

/// Values a bulk write claims before its elements exist: index -> value key -> batch position.
using BatchClaims = std::unordered_map<const PropertyIndex*, std::unordered_map<std::string, std::size_t>>;

/// Throws AlreadyExists when giving `self` (kNoSlot: a new element) of `label` the properties
/// `next` would make two live elements of the kind share a value of a unique index. Values with
/// NaN equal nothing and never conflict. `batch`/`position` check a bulk write's own elements.
void check_unique(const TxView& g, ElementKind kind, LabelId label, const PackedProperties& next, Slot self,
                  BatchClaims* batch = nullptr, std::size_t position = 0) {
  const Overlay& o = g.overlay();
  const IndexTable& table = kind == ElementKind::vertex ? o.store().vertex_indexes : o.store().edge_indexes;
  if (label >= table.size()) return;
  for (const auto& index : table[label]) {
    if (!index.unique()) continue;
    const Value value = next.get(index.key());
    if (value.is_null() || contains_nan(value)) continue;
    const std::string key = PackedProperties::value_key(value);
    auto conflict = [&](std::string holder) {
      throw AlreadyExists(fmt::format("unique index on {}.{}: value {} is already held by {} {}",
                                      g.labels().name(label), index.key(), value, kind_name(kind), holder));
    };
    for (Slot s : index.find(key)) {
      // Committed holders, unless the overlay changed or deleted them.
      if (s != self && alive(g, kind, s) && !o.has_new_properties(kind, s))
        conflict(std::string(make_id(g, kind, s).str()));
    }
    if (const auto* holders = o.overlay_holders(index, key)) {
      for (Slot s : *holders) {
        if (s != self && alive(g, kind, s)) conflict(std::string(make_id(g, kind, s).str()));
      }
    }
    if (batch != nullptr) {
      auto [it, fresh] = (*batch)[&index].emplace(key, position);
      if (!fresh) conflict(fmt::format("{}s[{}] of the same batch", kind_name(kind), it->second));
    }
  }
}

[[noreturn]] void missing_endpoint(const ElementId& id, std::string_view which) {
  throw NotFound(fmt::format("create_edge: {} vertex '{}' not found", which, id.str()));
}

/// The live vertex an id names, for an edge endpoint; NotFound otherwise.
Slot endpoint(const TxView& g, const ElementId& id, std::string_view which) {
  const Slot v = vertex_slot(g, id);
  if (v == kNoSlot) missing_endpoint(id, which);
  return v;
}

/// endpoint() for a batch: ids are parsed first, then each vertex is checked with the slots a
/// few edges ahead already on their way into the cache (a bulk load's endpoints lie all over
/// the vertex table).
std::vector<std::pair<Slot, Slot>> endpoints(const TxView& g, std::span<const NewEdge> edges) {
  constexpr std::size_t kAhead = 16;
  const std::size_t limit = g.vertex_slots();
  std::vector<std::pair<Slot, Slot>> ends;
  ends.reserve(edges.size());
  for (const auto& e : edges) {
    ends.emplace_back(parse_id(g.id_prefix(), e.from, ElementKind::vertex, limit),
                      parse_id(g.id_prefix(), e.to, ElementKind::vertex, limit));
  }
  for (std::size_t i = 0; i < ends.size(); ++i) {
    if (i + kAhead < ends.size()) {
      const auto [from, to] = ends[i + kAhead];
      if (from != kNoSlot) g.prefetch_vertex(from);
      if (to != kNoSlot) g.prefetch_vertex(to);
    }
    const auto [from, to] = ends[i];
    if (from == kNoSlot || !g.vertex_alive(from)) missing_endpoint(edges[i].from, "source");
    if (to == kNoSlot || !g.vertex_alive(to)) missing_endpoint(edges[i].to, "target");
  }
  return ends;
}

/// Validates the labels and properties of a bulk write and gives each element's label id
/// (kUnknownLabel for a label the graph does not know yet). A run of equal labels, as bulk
/// loads send them, is validated and looked up once.
template <typename Element>
std::vector<LabelId> batch_labels(const TxView& g, std::span<const Element> elements) {
  std::vector<LabelId> labels;
  labels.reserve(elements.size());
  const std::string* previous = nullptr;
  for (const auto& element : elements) {
    if (previous == nullptr || element.label != *previous) {
      validate_label(element.label);
      labels.push_back(g.labels().find(element.label));
      previous = &element.label;
    } else {
      labels.push_back(labels.back());
    }
    if (!element.properties.empty()) validate_properties(element.properties);
  }
  return labels;
}

/// The packed properties of a bulk write's elements, nulls dropped.
template <typename Element>
std::vector<PackedProperties> batch_properties(std::span<const Element> elements) {
  std::vector<PackedProperties> packed;
  packed.reserve(elements.size());
  for (const auto& element : elements) {
    if (element.properties.empty()) {
      packed.emplace_back();
    } else {
      packed.emplace_back(without_nulls(element.properties));
    }
  }
  return packed;
}

/// Merges `patch` into the element's properties; checks unique indexes.
PackedProperties merged(const TxView& g, ElementKind kind, LabelId label, Slot slot, const Properties& patch) {
  Properties props = (kind == ElementKind::vertex ? g.vertex_properties(slot) : g.edge_properties(slot)).unpack();
  props.merge(patch);
  PackedProperties next(props);
  check_unique(g, kind, label, next, slot);
  return next;
}

}  // namespace

Slot create_vertex(Overlay& o, const TxView& g, std::string_view label, const Properties& properties) {
  validate_label(label);
  validate_properties(properties);
  check_room(g.vertex_slots(), 1, ElementKind::vertex);
  PackedProperties packed(without_nulls(properties));
  const LabelId known = g.labels().find(label);
  if (known != kUnknownLabel) check_unique(g, ElementKind::vertex, known, packed, kNoSlot);
  return o.add_vertex(known != kUnknownLabel ? known : o.intern(label), std::move(packed));
}

std::vector<Slot> create_vertices(Overlay& o, const TxView& g, std::span<const NewVertex> vertices) {
  const std::vector<LabelId> labels = batch_labels(g, vertices);
  check_room(g.vertex_slots(), vertices.size(), ElementKind::vertex);
  std::vector<PackedProperties> packed = batch_properties(vertices);
  BatchClaims claims;
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    if (labels[i] != kUnknownLabel) check_unique(g, ElementKind::vertex, labels[i], packed[i], kNoSlot, &claims, i);
  }
  std::vector<Slot> slots;
  slots.reserve(vertices.size());
  o.reserve(vertices.size(), 0);
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    const LabelId label = labels[i] != kUnknownLabel ? labels[i] : o.intern(vertices[i].label);
    slots.push_back(o.add_vertex(label, std::move(packed[i])));
  }
  return slots;
}

Slot update_vertex(Overlay& o, const TxView& g, std::string_view label, const ElementId& id,
                   const Properties& properties) {
  validate_properties(properties);
  const Slot v = vertex_slot(g, label, id);
  if (v == kNoSlot) return kNoSlot;
  o.set_vertex_properties(v, merged(g, ElementKind::vertex, g.vertex_label(v), v, properties));
  return v;
}

bool delete_vertex(Overlay& o, const TxView& g, std::string_view label, const ElementId& id) {
  const Slot v = vertex_slot(g, label, id);
  if (v == kNoSlot) return false;
  o.remove_vertex(v);
  return true;
}

std::pair<Slot, bool> upsert_vertex(Overlay& o, const TxView& g, std::string_view label, const Properties& match,
                                    const Properties& properties) {
  validate_label(label);
  validate_properties(match);
  validate_properties(properties);
  const LabelId l = g.labels().find(label);
  std::vector<Slot> found;
  g.scan(ElementKind::vertex, l, match, Page{.limit = 2}, [&](Slot v) { found.push_back(v); });
  if (found.size() > 1) {
    std::int64_t n = 0;
    g.scan(ElementKind::vertex, l, match, Page{}, [&](Slot) { ++n; });
    throw InvalidArgument(fmt::format("upsert_vertex: {} vertices of label {} match {}", n, label, match));
  }
  if (found.empty()) {
    Properties initial = match;
    initial.merge(properties);
    return {create_vertex(o, g, label, initial), true};
  }
  const Slot v = found.front();
  o.set_vertex_properties(v, merged(g, ElementKind::vertex, l, v, properties));
  return {v, false};
}

Slot create_edge(Overlay& o, const TxView& g, const ElementId& from, const ElementId& to, std::string_view label,
                 const Properties& properties) {
  validate_label(label);
  validate_properties(properties);
  const Slot f = endpoint(g, from, "source");
  const Slot t = endpoint(g, to, "target");
  check_room(g.edge_slots(), 1, ElementKind::edge);
  PackedProperties packed(without_nulls(properties));
  const LabelId known = g.labels().find(label);
  if (known != kUnknownLabel) check_unique(g, ElementKind::edge, known, packed, kNoSlot);
  return o.add_edge(f, t, known != kUnknownLabel ? known : o.intern(label), std::move(packed));
}

std::vector<Slot> create_edges(Overlay& o, const TxView& g, std::span<const NewEdge> edges) {
  const std::vector<LabelId> labels = batch_labels(g, edges);
  // Resolve every endpoint and check unique indexes before the first change.
  const std::vector<std::pair<Slot, Slot>> ends = endpoints(g, edges);
  check_room(g.edge_slots(), edges.size(), ElementKind::edge);
  std::vector<PackedProperties> packed = batch_properties(edges);
  BatchClaims claims;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    if (labels[i] != kUnknownLabel) check_unique(g, ElementKind::edge, labels[i], packed[i], kNoSlot, &claims, i);
  }
  std::vector<Slot> slots;
  slots.reserve(edges.size());
  o.reserve(0, edges.size());
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const LabelId label = labels[i] != kUnknownLabel ? labels[i] : o.intern(edges[i].label);
    slots.push_back(o.add_edge(ends[i].first, ends[i].second, label, std::move(packed[i])));
  }
  return slots;
}

Slot update_edge(Overlay& o, const TxView& g, std::string_view label, const ElementId& id,
                 const Properties& properties) {
  validate_properties(properties);
  const Slot e = edge_slot(g, label, id);
  if (e == kNoSlot) return kNoSlot;
  o.set_edge_properties(e, merged(g, ElementKind::edge, g.edge_label(e), e, properties));
  return e;
}

bool delete_edge(Overlay& o, const TxView& g, std::string_view label, const ElementId& id) {
  const Slot e = edge_slot(g, label, id);
  if (e == kNoSlot) return false;
  o.remove_edge(e);
  return true;
}

}  // namespace propgraph::detail::writes
