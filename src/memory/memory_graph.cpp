// MemoryGraph: locking, writes, lookups and indexes. The read algorithms live in algorithms/,
// written against the View of view.hpp.
#include "propgraph/memory/memory_graph.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <set>
#include <shared_mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "memory/algorithms.hpp"
#include "memory/snapshot.hpp"
#include "memory/store.hpp"
#include "memory/view.hpp"
#include "propgraph/fmt.hpp"

namespace propgraph {

using detail::AdjEntry;
using detail::ElementKind;
using detail::kAnyLabel;
using detail::kNoSlot;
using detail::kUnknownLabel;
using detail::LabelId;
using detail::Slot;

namespace {

std::atomic<std::uint64_t> next_graph_tag{1};

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

}  // namespace

struct MemoryGraph::Impl {
  std::string graph_name;
  std::set<std::string, std::less<>> catalog;
  std::string prefix;  // "g<tag>:"
  mutable std::shared_mutex mutex;
  detail::Store store;
  detail::SnapshotCache snapshots;

  explicit Impl(std::string name) : graph_name(std::move(name)) {
    validate_label(graph_name, "graph name");
    catalog.insert(graph_name);
    renew_prefix();
  }

  void renew_prefix() { prefix = fmt::format("g{}:", next_graph_tag.fetch_add(1)); }

  /// The committed graph, for reads (caller holds a lock).
  [[nodiscard]] detail::CommittedView view() const noexcept { return {store, prefix, snapshots}; }

  [[nodiscard]] ElementId id(ElementKind kind, Slot slot) const { return detail::make_id(view(), kind, slot); }

  // -- label membership --------------------------------------------------------------------

  static detail::LabelMembers& members(std::vector<detail::LabelMembers>& table, LabelId label) {
    if (table.size() <= label) table.resize(label + 1);
    return table[label];
  }

  template <typename Records>
  static void forget_member(std::vector<detail::LabelMembers>& table, LabelId label, const Records& records) {
    auto& m = table[label];
    --m.live;
    // Compact once dead slots outnumber live ones: amortised O(1) per delete.
    if (++m.dead > m.live && m.dead > 16) {
      std::erase_if(m.slots, [&](Slot s) { return !records[s].alive; });
      m.dead = 0;
    }
  }

  // -- property indexes ----------------------------------------------------------------------

  [[nodiscard]] detail::IndexTable& index_table(ElementKind kind) {
    return kind == ElementKind::vertex ? store.vertex_indexes : store.edge_indexes;
  }
  [[nodiscard]] const detail::IndexTable& index_table(ElementKind kind) const {
    return kind == ElementKind::vertex ? store.vertex_indexes : store.edge_indexes;
  }
  static std::vector<detail::PropertyIndex>* indexes_of(detail::IndexTable& table, LabelId label) {
    return label < table.size() && !table[label].empty() ? &table[label] : nullptr;
  }
  static void index_element(detail::IndexTable& table, LabelId label, const detail::PackedProperties& props, Slot slot) {
    if (auto* list = indexes_of(table, label)) {
      for (auto& index : *list) index.add(props.index_key(index.key()), slot);
    }
  }
  static void unindex_element(detail::IndexTable& table, LabelId label, const detail::PackedProperties& props,
                              Slot slot) {
    if (auto* list = indexes_of(table, label)) {
      for (auto& index : *list) index.remove(props.index_key(index.key()), slot);
    }
  }

  [[noreturn]] void throw_duplicate(ElementKind kind, LabelId label, const detail::PropertyIndex& index,
                                    const Value& value, std::string_view holder) const {
    throw AlreadyExists(fmt::format("unique index on {}.{}: value {} is already held by {} {}", store.labels.name(label),
                                    index.key(), value, kind_name(kind), holder));
  }

  /// Throws AlreadyExists when giving `slot` (of `label`) the properties `next` would put a
  /// second element into a bucket of a unique index. `batch` holds the values a bulk write
  /// claims before its elements exist (index position -> value key -> batch element), or is
  /// null for single writes.
  using BatchClaims = std::unordered_map<std::size_t, std::unordered_map<std::string, std::string>>;
  void check_unique(ElementKind kind, LabelId label, const detail::PackedProperties& next, Slot slot,
                    BatchClaims* batch = nullptr, std::string_view batch_name = {}) const {
    const auto& table = index_table(kind);
    if (label >= table.size()) return;
    for (std::size_t i = 0; i < table[label].size(); ++i) {
      const auto& index = table[label][i];
      if (!index.unique()) continue;
      const Value value = next.get(index.key());
      if (value.is_null() || contains_nan(value)) continue;
      const std::string key = detail::PackedProperties::value_key(value);
      if (const auto* bucket = index.find(key)) {
        for (Slot holder : *bucket) {
          if (holder != slot) throw_duplicate(kind, label, index, value, id(kind, holder).str());
        }
      }
      if (batch != nullptr) {
        auto [it, fresh] = (*batch)[i].emplace(key, std::string(batch_name));
        if (!fresh) throw_duplicate(kind, label, index, value, fmt::format("{} of the same batch", it->second));
      }
    }
  }

  /// Replaces an element's properties by `merged` (unique indexes checked first), moving it
  /// between index buckets.
  void repack(ElementKind kind, LabelId label, detail::PackedProperties& props, const Properties& merged, Slot slot) {
    detail::PackedProperties next(merged);
    check_unique(kind, label, next, slot);
    if (auto* list = indexes_of(index_table(kind), label)) {
      for (auto& index : *list) {
        auto before = props.index_key(index.key());
        auto after = next.index_key(index.key());
        if (before == after) continue;
        index.remove(before, slot);
        index.add(after, slot);
      }
    }
    props = std::move(next);
  }

  /// Ascending slots of label's elements that may match filter, from the most selective usable
  /// index (a non-null filter value on an indexed key); nullptr when no index applies.
  [[nodiscard]] const std::vector<Slot>* indexed_candidates(ElementKind kind, LabelId label,
                                                            const Properties& filter) const {
    static const std::vector<Slot> none;
    const auto& table = index_table(kind);
    if (filter.empty() || label >= table.size() || table[label].empty()) return nullptr;
    const std::vector<Slot>* best = nullptr;
    for (const auto& index : table[label]) {
      const Value* want = filter.find(index.key());
      if (!want || want->is_null()) continue;
      const auto* bucket = index.find(detail::PackedProperties::value_key(*want));
      if (!bucket) return &none;  // no element holds that value
      if (!best || bucket->size() < best->size()) best = bucket;
    }
    return best;
  }

  /// fn(slot) for the live elements of `label` matching `filter`, ascending slot, starting after
  /// page.after and stopping after page.limit of them (0: no limit). Uses an index when one
  /// applies. Returns nothing; fn sees at most limit slots.
  template <typename Fn>
  void scan(ElementKind kind, std::string_view label, const Properties& filter, const Page& page, Fn&& fn) const {
    const LabelId l = store.labels.find(label);
    if (l == kUnknownLabel) return;
    const auto g = view();
    auto alive = [&](Slot s) { return kind == ElementKind::vertex ? store.vertices[s].alive : store.edges[s].alive; };
    auto props = [&](Slot s) -> const detail::PackedProperties& {
      return kind == ElementKind::vertex ? store.vertices[s].properties : store.edges[s].properties;
    };
    const std::vector<Slot>* slots = indexed_candidates(kind, l, filter);
    const bool indexed = slots != nullptr;
    if (!indexed) {
      const auto& table = kind == ElementKind::vertex ? store.vertices_by_label : store.edges_by_label;
      if (l >= table.size()) return;
      slots = &table[l].slots;
    }
    std::size_t taken = 0;
    for (auto it = detail::first_after(g, kind, slots->begin(), slots->end(), page.after); it != slots->end(); ++it) {
      const Slot s = *it;
      if (!indexed && !alive(s)) continue;  // index buckets hold live slots only
      if (!filter.empty() && !props(s).matches(filter)) continue;
      fn(s);
      if (++taken == page.limit) return;
    }
  }

  // -- writes (caller holds the unique lock) -------------------------------------------------

  template <typename Records>
  static void reserve_slots(Records& records, std::size_t more, std::string_view kind) {
    if (records.size() + more >= kNoSlot - 1) {
      throw InvalidArgument(fmt::format("MemoryGraph is full: {} slots are limited to 2^32 - 2", kind));
    }
  }

  Slot insert_vertex(LabelId l, detail::PackedProperties props) {
    const auto slot = static_cast<Slot>(store.vertices.size());
    store.vertices.push_back(detail::VertexRecord{l, true, std::move(props), {}, {}});
    index_element(store.vertex_indexes, l, store.vertices.back().properties, slot);
    snapshots.invalidate();
    auto& m = members(store.vertices_by_label, l);
    m.slots.push_back(slot);
    ++m.live;
    ++store.live_vertices;
    return slot;
  }

  /// Both endpoint slots; NotFound names the missing one.
  std::pair<Slot, Slot> endpoints(const ElementId& from, const ElementId& to) const {
    Slot f = detail::vertex_slot(view(), from);
    if (f == kNoSlot) throw NotFound(fmt::format("create_edge: source vertex '{}' not found", from.str()));
    Slot t = detail::vertex_slot(view(), to);
    if (t == kNoSlot) throw NotFound(fmt::format("create_edge: target vertex '{}' not found", to.str()));
    return {f, t};
  }

  Slot insert_edge(Slot f, Slot t, LabelId l, detail::PackedProperties props) {
    const auto slot = static_cast<Slot>(store.edges.size());
    store.edges.push_back(detail::EdgeRecord{l, true, f, t, std::move(props)});
    index_element(store.edge_indexes, l, store.edges.back().properties, slot);
    snapshots.invalidate();
    store.vertices[f].out.push_back(AdjEntry{slot, t, l});
    store.vertices[t].in.push_back(AdjEntry{slot, f, l});
    auto& m = members(store.edges_by_label, l);
    m.slots.push_back(slot);
    ++m.live;
    ++store.live_edges;
    return slot;
  }

  static void unlink(std::vector<AdjEntry>& list, Slot edge) {
    auto it = std::lower_bound(list.begin(), list.end(), edge, [](const AdjEntry& a, Slot e) { return a.edge < e; });
    if (it != list.end() && it->edge == edge) list.erase(it);
  }

  void remove_edge(Slot e) {
    auto& rec = store.edges[e];
    unlink(store.vertices[rec.from].out, e);
    unlink(store.vertices[rec.to].in, e);
    unindex_element(store.edge_indexes, rec.label, rec.properties, e);
    snapshots.invalidate();
    rec.alive = false;
    rec.properties = {};
    --store.live_edges;
    forget_member(store.edges_by_label, rec.label, store.edges);
  }

  void remove_vertex(Slot v) {
    auto& rec = store.vertices[v];
    // Collect first: remove_edge edits these lists.
    std::vector<Slot> incident;
    incident.reserve(rec.out.size() + rec.in.size());
    for (const auto& a : rec.out) incident.push_back(a.edge);
    for (const auto& a : rec.in) {
      if (a.other != v) incident.push_back(a.edge);  // a self-loop is already listed
    }
    for (Slot e : incident) remove_edge(e);
    unindex_element(store.vertex_indexes, rec.label, rec.properties, v);
    snapshots.invalidate();
    rec.alive = false;
    rec.properties = {};
    rec.out = {};
    rec.in = {};
    --store.live_vertices;
    forget_member(store.vertices_by_label, rec.label, store.vertices);
  }

  /// Creates a vertex after checking unique indexes (caller holds the unique lock and validated
  /// label and properties).
  Slot create_vertex_checked(std::string_view label, const Properties& properties) {
    reserve_slots(store.vertices, 1, "vertex");
    detail::PackedProperties packed(without_nulls(properties));
    const LabelId l = store.labels.intern(label);
    check_unique(ElementKind::vertex, l, packed, kNoSlot);
    return insert_vertex(l, std::move(packed));
  }
};

// -- MemoryGraph --------------------------------------------------------------------------------

MemoryGraph::MemoryGraph(std::string graph_name) : impl_(std::make_unique<Impl>(std::move(graph_name))) {}
MemoryGraph::~MemoryGraph() = default;

const std::string& MemoryGraph::graph_name() const noexcept { return impl_->graph_name; }

bool MemoryGraph::create_graph(std::string_view name) {
  validate_label(name, "graph name");
  std::unique_lock lock(impl_->mutex);
  return impl_->catalog.emplace(name).second;
}

bool MemoryGraph::drop_graph(std::string_view name) {
  std::unique_lock lock(impl_->mutex);
  if (name == impl_->graph_name) {
    impl_->store = detail::Store{};
    impl_->snapshots.invalidate();
    impl_->renew_prefix();  // ids issued before the drop must stay unknown
    return true;
  }
  auto it = impl_->catalog.find(name);
  if (it == impl_->catalog.end()) return false;
  impl_->catalog.erase(it);
  return true;
}

bool MemoryGraph::graph_exists(std::string_view name) {
  std::shared_lock lock(impl_->mutex);
  return impl_->catalog.contains(name);
}

namespace {
std::vector<std::string> live_labels(const detail::Store& s, const std::vector<detail::LabelMembers>& table) {
  std::vector<std::string> result;
  for (LabelId l = 0; l < table.size(); ++l) {
    if (table[l].live > 0) result.push_back(s.labels.name(l));
  }
  std::sort(result.begin(), result.end());
  return result;
}
}  // namespace

std::vector<std::string> MemoryGraph::vertex_labels() {
  std::shared_lock lock(impl_->mutex);
  return live_labels(impl_->store, impl_->store.vertices_by_label);
}

std::vector<std::string> MemoryGraph::edge_labels() {
  std::shared_lock lock(impl_->mutex);
  return live_labels(impl_->store, impl_->store.edges_by_label);
}

// -- indexes --------------------------------------------------------------------------------------

bool MemoryGraph::create_index(std::string_view label, std::string_view key, const IndexOptions& options) {
  validate_label(label);
  if (key.empty()) throw InvalidArgument("create_index: the property key is empty");
  std::unique_lock lock(impl_->mutex);
  auto& s = impl_->store;
  const LabelId existing = s.labels.find(label);
  if (existing != kUnknownLabel && existing < s.vertex_indexes.size() &&
      std::any_of(s.vertex_indexes[existing].begin(), s.vertex_indexes[existing].end(),
                  [&](const auto& i) { return i.key() == key; })) {
    return false;
  }
  // Build both indexes before changing anything: a unique one may find duplicates.
  auto build = [&](ElementKind kind, const auto& records, const std::vector<detail::LabelMembers>& table) {
    detail::PropertyIndex index{std::string(key), options.unique};
    if (existing != kUnknownLabel && existing < table.size()) {
      for (Slot slot : table[existing].slots) {
        if (records[slot].alive) index.add(records[slot].properties.index_key(key), slot);
      }
    }
    if (options.unique) {
      // Buckets group equal encodings; NaN-bearing values are exempt (they equal nothing).
      index.for_each_shared_bucket([&](const std::vector<Slot>& slots) {
        const Value value = records[slots.front()].properties.get(key);
        if (contains_nan(value)) return;
        throw AlreadyExists(fmt::format("create_index: {}s {} and {} of label {} both hold {} = {}", kind_name(kind),
                                        impl_->id(kind, slots[0]).str(), impl_->id(kind, slots[1]).str(), label, key,
                                        value));
      });
    }
    return index;
  };
  auto vertex_index = build(ElementKind::vertex, s.vertices, s.vertices_by_label);
  auto edge_index = build(ElementKind::edge, s.edges, s.edges_by_label);
  const LabelId l = s.labels.intern(label);
  for (auto* table : {&s.vertex_indexes, &s.edge_indexes}) {
    if (table->size() <= l) table->resize(l + 1);
  }
  s.vertex_indexes[l].push_back(std::move(vertex_index));
  s.edge_indexes[l].push_back(std::move(edge_index));
  return true;
}

bool MemoryGraph::drop_index(std::string_view label, std::string_view key) {
  std::unique_lock lock(impl_->mutex);
  auto& s = impl_->store;
  const LabelId l = s.labels.find(label);
  auto drop = [&](detail::IndexTable& table) {
    return l < table.size() && std::erase_if(table[l], [&](const auto& i) { return i.key() == key; }) > 0;
  };
  const bool had = drop(s.vertex_indexes);
  drop(s.edge_indexes);
  return had;
}

std::vector<IndexInfo> MemoryGraph::indexes() {
  std::shared_lock lock(impl_->mutex);
  std::vector<IndexInfo> result;
  const auto& s = impl_->store;
  for (LabelId l = 0; l < s.vertex_indexes.size(); ++l) {
    for (const auto& index : s.vertex_indexes[l]) result.push_back({s.labels.name(l), index.key(), index.unique()});
  }
  std::sort(result.begin(), result.end(),
            [](const IndexInfo& a, const IndexInfo& b) { return std::tie(a.label, a.key) < std::tie(b.label, b.key); });
  return result;
}

// -- vertices -------------------------------------------------------------------------------------

Vertex MemoryGraph::create_vertex(std::string_view label, const Properties& properties) {
  validate_label(label);
  validate_properties(properties);
  std::unique_lock lock(impl_->mutex);
  return detail::make_vertex(impl_->view(), impl_->create_vertex_checked(label, properties));
}

std::vector<ElementId> MemoryGraph::create_vertices(std::span<const NewVertex> vertices) {
  for (const auto& v : vertices) {
    validate_label(v.label);
    validate_properties(v.properties);
  }
  std::vector<detail::PackedProperties> packed;
  packed.reserve(vertices.size());
  for (const auto& v : vertices) packed.emplace_back(without_nulls(v.properties));
  std::vector<ElementId> ids;
  ids.reserve(vertices.size());
  std::unique_lock lock(impl_->mutex);
  auto& s = impl_->store;
  Impl::reserve_slots(s.vertices, vertices.size(), "vertex");
  // Unique indexes: against the graph and within the batch, before the first insert. Labels
  // are interned only once the batch is known to be valid.
  std::vector<LabelId> labels(vertices.size());
  std::unordered_map<LabelId, Impl::BatchClaims> claims;
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    labels[i] = s.labels.find(vertices[i].label);
    if (labels[i] == kUnknownLabel) continue;  // a new label has no index
    impl_->check_unique(ElementKind::vertex, labels[i], packed[i], kNoSlot, &claims[labels[i]],
                        fmt::format("vertices[{}]", i));
  }
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    const LabelId l = labels[i] == kUnknownLabel ? s.labels.intern(vertices[i].label) : labels[i];
    ids.push_back(impl_->id(ElementKind::vertex, impl_->insert_vertex(l, std::move(packed[i]))));
  }
  return ids;
}

std::optional<Vertex> MemoryGraph::find_vertex_by_id(std::string_view label, const ElementId& id) {
  std::shared_lock lock(impl_->mutex);
  const auto g = impl_->view();
  Slot v = detail::vertex_slot(g, label, id);
  if (v == kNoSlot) return std::nullopt;
  return Vertex{id, std::string(label), g.vertex_properties(v).unpack()};
}

std::optional<Vertex> MemoryGraph::find_vertex(const ElementId& id) {
  std::shared_lock lock(impl_->mutex);
  const auto g = impl_->view();
  Slot v = detail::vertex_slot(g, id);
  if (v == kNoSlot) return std::nullopt;
  return Vertex{id, g.labels().name(g.vertex_label(v)), g.vertex_properties(v).unpack()};
}

std::vector<Vertex> MemoryGraph::find_vertices_by_label(std::string_view label, const Properties& filter,
                                                        const Page& page) {
  std::shared_lock lock(impl_->mutex);
  std::vector<Vertex> result;
  const auto g = impl_->view();
  const LabelId l = g.labels().find(label);
  if (page.limit != 0) {
    result.reserve(page.limit);
  } else if (filter.empty()) {
    result.reserve(static_cast<std::size_t>(g.count_members(ElementKind::vertex, l)));
  }
  impl_->scan(ElementKind::vertex, label, filter, page, [&](Slot v) { detail::emplace_vertex(g, result, v); });
  return result;
}

std::optional<Vertex> MemoryGraph::update_vertex(std::string_view label, const ElementId& id,
                                                 const Properties& properties) {
  validate_properties(properties);
  std::unique_lock lock(impl_->mutex);
  Slot v = detail::vertex_slot(impl_->view(), label, id);
  if (v == kNoSlot) return std::nullopt;
  auto& rec = impl_->store.vertices[v];
  Properties merged = rec.properties.unpack();
  merged.merge(properties);
  impl_->repack(ElementKind::vertex, rec.label, rec.properties, merged, v);
  return detail::make_vertex(impl_->view(), v);
}

bool MemoryGraph::delete_vertex(std::string_view label, const ElementId& id) {
  std::unique_lock lock(impl_->mutex);
  Slot v = detail::vertex_slot(impl_->view(), label, id);
  if (v == kNoSlot) return false;
  impl_->remove_vertex(v);
  return true;
}

std::int64_t MemoryGraph::count_vertices(std::string_view label) {
  std::shared_lock lock(impl_->mutex);
  const auto g = impl_->view();
  return g.count_members(ElementKind::vertex, g.labels().find(label));
}

std::int64_t MemoryGraph::count_vertices() {
  std::shared_lock lock(impl_->mutex);
  return impl_->store.live_vertices;
}

Upserted MemoryGraph::upsert_vertex(std::string_view label, const Properties& match, const Properties& properties) {
  validate_label(label);
  validate_properties(match);
  validate_properties(properties);
  std::unique_lock lock(impl_->mutex);
  std::vector<Slot> found;
  impl_->scan(ElementKind::vertex, label, match, Page{.limit = 2}, [&](Slot v) { found.push_back(v); });
  if (found.size() > 1) {
    std::int64_t n = 0;
    impl_->scan(ElementKind::vertex, label, match, Page{}, [&](Slot) { ++n; });
    throw InvalidArgument(fmt::format("upsert_vertex: {} vertices of label {} match {}", n, label, match));
  }
  const auto g = impl_->view();
  if (found.empty()) {
    Properties initial = match;
    initial.merge(properties);
    return Upserted{detail::make_vertex(g, impl_->create_vertex_checked(label, initial)), true};
  }
  const Slot v = found.front();
  auto& rec = impl_->store.vertices[v];
  Properties merged = rec.properties.unpack();
  merged.merge(properties);
  impl_->repack(ElementKind::vertex, rec.label, rec.properties, merged, v);
  return Upserted{detail::make_vertex(g, v), false};
}

// -- edges ----------------------------------------------------------------------------------------

Edge MemoryGraph::create_edge(const ElementId& from, const ElementId& to, std::string_view label,
                              const Properties& properties) {
  validate_label(label);
  validate_properties(properties);
  detail::PackedProperties packed(without_nulls(properties));
  std::unique_lock lock(impl_->mutex);
  auto [f, t] = impl_->endpoints(from, to);
  Impl::reserve_slots(impl_->store.edges, 1, "edge");
  const LabelId l = impl_->store.labels.intern(label);
  impl_->check_unique(ElementKind::edge, l, packed, kNoSlot);
  return detail::make_edge(impl_->view(), impl_->insert_edge(f, t, l, std::move(packed)));
}

std::vector<ElementId> MemoryGraph::create_edges(std::span<const NewEdge> edges) {
  for (const auto& e : edges) {
    validate_label(e.label);
    validate_properties(e.properties);
  }
  std::vector<detail::PackedProperties> packed;
  packed.reserve(edges.size());
  for (const auto& e : edges) packed.emplace_back(without_nulls(e.properties));
  std::vector<ElementId> ids;
  ids.reserve(edges.size());
  std::unique_lock lock(impl_->mutex);
  auto& s = impl_->store;
  // Resolve every endpoint and check unique indexes before the first insert: a failure then
  // changes nothing.
  std::vector<std::pair<Slot, Slot>> ends;
  ends.reserve(edges.size());
  for (const auto& e : edges) ends.push_back(impl_->endpoints(e.from, e.to));
  Impl::reserve_slots(s.edges, edges.size(), "edge");
  std::vector<LabelId> labels(edges.size());
  std::unordered_map<LabelId, Impl::BatchClaims> claims;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    labels[i] = s.labels.find(edges[i].label);
    if (labels[i] == kUnknownLabel) continue;
    impl_->check_unique(ElementKind::edge, labels[i], packed[i], kNoSlot, &claims[labels[i]],
                        fmt::format("edges[{}]", i));
  }
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const LabelId l = labels[i] == kUnknownLabel ? s.labels.intern(edges[i].label) : labels[i];
    ids.push_back(impl_->id(ElementKind::edge, impl_->insert_edge(ends[i].first, ends[i].second, l, std::move(packed[i]))));
  }
  return ids;
}

std::optional<Edge> MemoryGraph::find_edge_by_id(std::string_view label, const ElementId& id) {
  std::shared_lock lock(impl_->mutex);
  const auto g = impl_->view();
  Slot e = detail::edge_slot(g, label, id);
  if (e == kNoSlot) return std::nullopt;
  return detail::make_edge(g, e);
}

std::optional<Edge> MemoryGraph::find_edge(const ElementId& id) {
  std::shared_lock lock(impl_->mutex);
  const auto g = impl_->view();
  Slot e = detail::edge_slot(g, id);
  if (e == kNoSlot) return std::nullopt;
  return detail::make_edge(g, e);
}

std::vector<Edge> MemoryGraph::find_edges_by_label(std::string_view label, const Properties& filter, const Page& page) {
  std::shared_lock lock(impl_->mutex);
  std::vector<Edge> result;
  const auto g = impl_->view();
  if (page.limit != 0) result.reserve(page.limit);
  impl_->scan(ElementKind::edge, label, filter, page, [&](Slot e) { result.push_back(detail::make_edge(g, e)); });
  return result;
}

std::vector<Edge> MemoryGraph::incident_edges(const ElementId& vertex, const EdgeQuery& query) {
  std::shared_lock lock(impl_->mutex);
  const auto g = impl_->view();
  const Slot v = detail::vertex_slot(g, vertex);
  if (v == kNoSlot) return {};
  const LabelId l = g.labels().filter(query.edge_label);
  if (l == kUnknownLabel) return {};
  const auto& rec = impl_->store.vertices[v];
  std::span<const AdjEntry> out;
  std::span<const AdjEntry> in;
  if (query.direction != Direction::in) out = rec.out;
  if (query.direction != Direction::out) in = rec.in;
  // Both lists ascend by edge id: start each after page.after, then merge (a self-loop is in
  // both lists under one id and is taken once).
  auto start = [&](std::span<const AdjEntry> list) {
    if (!query.page.after) return list.begin();
    return std::partition_point(list.begin(), list.end(), [&](const AdjEntry& a) {
      return !(*query.page.after < impl_->id(ElementKind::edge, a.edge));
    });
  };
  auto o = start(out);
  auto i = start(in);
  std::vector<Edge> result;
  while (o != out.end() || i != in.end()) {
    Slot e;
    if (i == in.end() || (o != out.end() && o->edge < i->edge)) {
      e = (o++)->edge;
    } else if (o == out.end() || i->edge < o->edge) {
      e = (i++)->edge;
    } else {
      e = o->edge;  // the same edge in both lists: a self-loop
      ++o;
      ++i;
    }
    if (l != kAnyLabel && g.edge_label(e) != l) continue;
    result.push_back(detail::make_edge(g, e));
    if (result.size() == query.page.limit) break;
  }
  return result;
}

std::optional<Edge> MemoryGraph::update_edge(std::string_view label, const ElementId& id,
                                             const Properties& properties) {
  validate_properties(properties);
  std::unique_lock lock(impl_->mutex);
  Slot e = detail::edge_slot(impl_->view(), label, id);
  if (e == kNoSlot) return std::nullopt;
  auto& rec = impl_->store.edges[e];
  Properties merged = rec.properties.unpack();
  merged.merge(properties);
  impl_->repack(ElementKind::edge, rec.label, rec.properties, merged, e);
  return detail::make_edge(impl_->view(), e);
}

bool MemoryGraph::delete_edge(std::string_view label, const ElementId& id) {
  std::unique_lock lock(impl_->mutex);
  Slot e = detail::edge_slot(impl_->view(), label, id);
  if (e == kNoSlot) return false;
  impl_->remove_edge(e);
  return true;
}

std::int64_t MemoryGraph::count_edges(std::string_view label) {
  std::shared_lock lock(impl_->mutex);
  const auto g = impl_->view();
  return g.count_members(ElementKind::edge, g.labels().find(label));
}

std::int64_t MemoryGraph::count_edges() {
  std::shared_lock lock(impl_->mutex);
  return impl_->store.live_edges;
}

// -- traversal and algorithms ------------------------------------------------------------------

std::vector<Vertex> MemoryGraph::neighbors(const ElementId& start, const NeighborOptions& options) {
  if (options.max_depth < 1) throw InvalidArgument("neighbors max_depth must be >= 1");
  std::shared_lock lock(impl_->mutex);
  const auto g = impl_->view();
  Slot v = detail::vertex_slot(g, start);
  if (v == kNoSlot) return {};
  return detail::neighbors(g, v, options);
}

std::optional<Path> MemoryGraph::shortest_path(const ElementId& from, const ElementId& to, const PathOptions& options) {
  detail::check_depth(options.max_depth, "max_depth");
  std::shared_lock lock(impl_->mutex);
  const auto g = impl_->view();
  Slot f = detail::vertex_slot(g, from);
  Slot t = detail::vertex_slot(g, to);
  if (f == kNoSlot || t == kNoSlot) return std::nullopt;
  return detail::shortest_path(g, f, t, options);
}

std::vector<Path> MemoryGraph::all_paths(const ElementId& from, const ElementId& to, const PathOptions& options) {
  detail::check_depth(options.max_depth, "max_depth");
  std::shared_lock lock(impl_->mutex);
  const auto g = impl_->view();
  Slot f = detail::vertex_slot(g, from);
  Slot t = detail::vertex_slot(g, to);
  if (f == kNoSlot || t == kNoSlot) return {};
  return detail::all_paths(g, f, t, options);
}

std::vector<PageRankScore> MemoryGraph::page_rank(const PageRankOptions& options) {
  std::shared_lock lock(impl_->mutex);
  return detail::page_rank(impl_->view(), options);
}

std::optional<Degree> MemoryGraph::degree_centrality(const ElementId& id, const DegreeOptions& options) {
  std::shared_lock lock(impl_->mutex);
  Slot v = detail::vertex_slot(impl_->view(), id);
  if (v == kNoSlot) return std::nullopt;
  const LabelId l = impl_->store.labels.filter(options.edge_label);
  auto count = [&](const std::vector<AdjEntry>& list) {
    return static_cast<std::int64_t>(
        std::count_if(list.begin(), list.end(), [&](const AdjEntry& a) { return l == kAnyLabel || a.label == l; }));
  };
  const auto& rec = impl_->store.vertices[v];
  Degree d{id, 0, 0};
  if (options.direction != Direction::out) d.in = count(rec.in);
  if (options.direction != Direction::in) d.out = count(rec.out);
  return d;
}

std::vector<Component> MemoryGraph::connected_components(const ComponentOptions& options) {
  std::shared_lock lock(impl_->mutex);
  return detail::connected_components(impl_->view(), options);
}

std::vector<Visit> MemoryGraph::bfs(const ElementId& start, const TraversalOptions& options) {
  detail::check_depth(options.max_depth, "max_depth");
  std::shared_lock lock(impl_->mutex);
  const auto g = impl_->view();
  Slot v = detail::vertex_slot(g, start);
  if (v == kNoSlot) return {};
  return detail::bfs(g, v, options);
}

std::vector<Visit> MemoryGraph::dfs(const ElementId& start, const TraversalOptions& options) {
  detail::check_depth(options.max_depth, "max_depth");
  std::shared_lock lock(impl_->mutex);
  const auto g = impl_->view();
  Slot v = detail::vertex_slot(g, start);
  if (v == kNoSlot) return {};
  return detail::dfs(g, v, options);
}

std::vector<Cycle> MemoryGraph::detect_cycles(const CycleOptions& options) {
  std::shared_lock lock(impl_->mutex);
  return detail::detect_cycles(impl_->view(), options);
}

}  // namespace propgraph
