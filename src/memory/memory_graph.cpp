// MemoryGraph: locking and the public calls. Reads are reads.hpp over the committed view, writes
// are writes.cpp on an Overlay that commit() applies; the algorithms live in algorithms/.
#include "propgraph/memory/memory_graph.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "memory/graph_state.hpp"
#include "memory/reads.hpp"
#include "memory/transaction.hpp"
#include "memory/writes.hpp"
#include "propgraph/fmt.hpp"

namespace propgraph {

using detail::ElementKind;
using detail::kNoSlot;
using detail::kUnknownLabel;
using detail::LabelId;
using detail::Slot;

namespace detail {

namespace {
std::atomic<std::uint64_t> next_graph_tag{1};
}  // namespace

GraphState::GraphState(const MemoryOptions& options) : graph_name(options.graph_name) {
  validate_label(graph_name, "graph name");
  if (options.data_dir) {
    if (options.data_dir->empty()) throw InvalidArgument("MemoryOptions::data_dir is empty");
    durability = std::make_unique<durable::Durability>(*this, options);
    return;
  }
  catalog.insert(graph_name);
  renew_prefix();
}

GraphState::~GraphState() = default;

void GraphState::renew_prefix() {
  prefix = durability ? durable::Durability::new_prefix() : fmt::format("g{}:", next_graph_tag.fetch_add(1));
}

std::uint64_t GraphState::log(durable::RecordType type, const std::string& payload) {
  return durability ? durability->log(type, payload) : 0;
}

void GraphState::enter_gate(std::string_view operation) {
  const auto deadline = current_deadline();
  if (deadline && DeadlineClock::now() >= *deadline) throw_timeout(operation);
  if (!gate.enter(deadline)) throw_timeout(operation);
}

std::uint64_t GraphState::commit(Overlay& overlay) {
  if (overlay.empty()) return 0;
  std::uint64_t lsn = 0;
  if (durability) {
    std::string payload;
    durable::ByteWriter w(payload);
    durable::encode_change(overlay, w, false);
    lsn = durability->log(durable::RecordType::change, payload);
  }
  {
    std::unique_lock lock(mutex);
    overlay.apply(store);
  }
  overlay.clear();
  return lsn;
}

void GraphState::discard(Overlay& overlay) noexcept {
  if (overlay.new_vertices().empty() && overlay.new_edges().empty()) return;
  try {
    if (durability) {
      std::string payload;
      durable::ByteWriter w(payload);
      durable::encode_change(overlay, w, true);
      durability->log(durable::RecordType::change, payload);
    }
    std::unique_lock lock(mutex);
    overlay.burn(store);
  } catch (const std::exception&) {
    // Not logged or out of memory: the slots stay unissued and the next writer gets them
    // (their ids were never visible outside the rolled-back transaction). Nothing else changed.
  }
}

}  // namespace detail

struct MemoryGraph::Impl : detail::GraphState {
  using GraphState::GraphState;

  /// fn(committed view) under the shared lock, after a deadline check; returned once what it
  /// saw is durable (after_seen_durable). With kAdjacency (calls that follow adjacency) the
  /// store's edges are linked first.
  template <bool kAdjacency = false, typename Fn>
  decltype(auto) read(std::string_view operation, Fn&& fn) {
    check_deadline(operation);
    return after_seen_durable(operation, SeenWait::read, [&](std::uint64_t& seen) {
      std::shared_lock lock(mutex);
      while (kAdjacency && !store.linked()) {
        lock.unlock();
        ensure_linked();
        lock.lock();
      }
      seen = seen_lsn();
      return fn(view());
    });
  }
  template <typename Fn>
  decltype(auto) read_adjacency(std::string_view operation, Fn&& fn) {
    return read<true>(operation, std::forward<Fn>(fn));
  }

  /// fn() inside the writer gate; returned once what it saw and logged is durable, waiting
  /// outside the gate (concurrent commits share one sync). fn returns its record's lsn through
  /// its argument (0: none).
  template <typename Fn>
  auto gated(std::string_view operation, Fn&& fn) {
    return after_seen_durable(operation, SeenWait::write, [&](std::uint64_t& seen) {
      enter_gate(operation);
      detail::GateGuard guard(gate);
      seen = seen_lsn();
      std::uint64_t logged = 0;
      auto answer = fn(logged);
      seen = std::max(seen, logged);
      return answer;
    });
  }

  /// One write as a transaction of its own: change(overlay, tx view) records it, commit applies
  /// it, then result(committed view, what change returned) builds the answer while this writer
  /// still holds the gate (the store cannot change under it).
  template <typename Change, typename Result>
  auto write(std::string_view operation, Change&& change, Result&& result) {
    return gated(operation, [&](std::uint64_t& logged) {
      detail::Overlay overlay(store);
      auto changed = change(overlay, detail::TxView(overlay, prefix));
      logged = commit(overlay);
      return result(view(), changed);
    });
  }
};

// -- MemoryGraph --------------------------------------------------------------------------------

MemoryGraph::MemoryGraph() : MemoryGraph(MemoryOptions{}) {}
MemoryGraph::MemoryGraph(MemoryOptions options) : impl_(std::make_unique<Impl>(options)) {}

MemoryGraph::~MemoryGraph() = default;

const std::string& MemoryGraph::graph_name() const noexcept { return impl_->graph_name; }

std::unique_ptr<Transaction> MemoryGraph::begin() { return std::make_unique<detail::MemoryTransaction>(*impl_); }

void MemoryGraph::checkpoint() {
  if (impl_->durability) impl_->durability->checkpoint();
}

namespace {
/// Held by the calls that change what a checkpoint copies besides records (see Durability).
std::unique_lock<std::mutex> schema_lock(detail::GraphState& g) {
  return g.durability ? std::unique_lock(g.durability->schema_mutex) : std::unique_lock<std::mutex>();
}
std::string catalog_record(bool add, std::string_view name) {
  std::string payload;
  detail::durable::ByteWriter w(payload);
  detail::durable::encode_catalog(w, add, name);
  return payload;
}
}  // namespace

bool MemoryGraph::create_graph(std::string_view name) {
  validate_label(name, "graph name");
  auto schema = schema_lock(*impl_);
  return impl_->gated("create_graph", [&](std::uint64_t& lsn) {
    if (impl_->catalog.contains(name)) return false;
    lsn = impl_->log(detail::durable::RecordType::catalog, catalog_record(true, name));
    std::unique_lock lock(impl_->mutex);
    impl_->catalog.emplace(name);
    return true;
  });
}

bool MemoryGraph::drop_graph(std::string_view name) {
  auto schema = schema_lock(*impl_);
  return impl_->gated("drop_graph", [&](std::uint64_t& lsn) {
    if (name == impl_->graph_name) {
      const std::string old_prefix = impl_->prefix;
      impl_->renew_prefix();  // ids issued before the drop must stay unknown
      try {
        std::string payload;
        detail::durable::ByteWriter w(payload);
        detail::durable::encode_clear_graph(w, impl_->prefix);
        lsn = impl_->log(detail::durable::RecordType::clear_graph, payload);
      } catch (...) {
        impl_->prefix = old_prefix;
        throw;
      }
      std::unique_lock lock(impl_->mutex);
      const std::uint64_t version = impl_->store.version;
      impl_->store = detail::Store{};
      impl_->store.version = version + 1;
    } else {
      if (!impl_->catalog.contains(name)) return false;
      lsn = impl_->log(detail::durable::RecordType::catalog, catalog_record(false, name));
      std::unique_lock lock(impl_->mutex);
      impl_->catalog.erase(impl_->catalog.find(name));
    }
    return true;
  });
}

bool MemoryGraph::graph_exists(std::string_view name) {
  return impl_->read("graph_exists", [&](const auto&) { return impl_->catalog.contains(name); });
}

std::vector<std::string> MemoryGraph::vertex_labels() {
  return impl_->read("vertex_labels", [&](const auto& g) { return detail::reads::labels_in_use(g, ElementKind::vertex); });
}

std::vector<std::string> MemoryGraph::edge_labels() {
  return impl_->read("edge_labels", [&](const auto& g) { return detail::reads::labels_in_use(g, ElementKind::edge); });
}

// -- indexes --------------------------------------------------------------------------------------

namespace {
bool contains_nan(const Value& v) {
  if (const auto* d = v.get_if<double>()) return std::isnan(*d);
  if (const auto* list = v.get_if<ValueList>()) return std::any_of(list->begin(), list->end(), contains_nan);
  return false;
}
}  // namespace

bool MemoryGraph::create_index(std::string_view label, std::string_view key, const IndexOptions& options) {
  validate_label(label);
  validate_index_key(key, "create_index");
  auto schema = schema_lock(*impl_);
  return impl_->gated("create_index", [&](std::uint64_t& lsn) {
    auto& s = impl_->store;
    const LabelId existing = s.labels.find(label);
    if (existing != kUnknownLabel && existing < s.vertex_indexes.size() &&
        std::any_of(s.vertex_indexes[existing].begin(), s.vertex_indexes[existing].end(),
                    [&](const auto& i) { return i.key() == key; })) {
      return false;
    }
    // Built outside the exclusive lock (this writer alone changes the store), before anything
    // changes: a unique index may find duplicates.
    auto build = [&](ElementKind kind, const std::vector<detail::LabelMembers>& table) {
      detail::PropertyIndex index{std::string(key), options.unique};
      const auto g = impl_->view();
      const bool vertices = kind == ElementKind::vertex;
      auto properties = [&](Slot slot) { return vertices ? g.vertex_properties(slot) : g.edge_properties(slot); };
      if (existing != kUnknownLabel && existing < table.size()) {
        table[existing].slots.for_each([&](Slot slot) {
          if (vertices ? g.vertex_alive(slot) : g.edge_alive(slot)) index.add(properties(slot).index_key(key), slot);
        });
      }
      if (options.unique) {
        index.for_each_shared_bucket([&](std::span<const Slot> slots) {
          const Value value = properties(slots.front()).get(key);
          if (contains_nan(value)) return;  // NaN equals nothing
          throw AlreadyExists(fmt::format("create_index: {}s {} and {} of label {} both hold {} = {}",
                                          vertices ? "vertex" : "edge", detail::make_id(g, kind, slots[0]).str(),
                                          detail::make_id(g, kind, slots[1]).str(), label, key, value));
        });
      }
      return index;
    };
    auto vertex_index = build(ElementKind::vertex, s.vertices_by_label);
    auto edge_index = build(ElementKind::edge, s.edges_by_label);
    std::string payload;
    detail::durable::ByteWriter w(payload);
    detail::durable::encode_create_index(w, label, key, options.unique);
    lsn = impl_->log(detail::durable::RecordType::create_index, payload);
    std::unique_lock lock(impl_->mutex);
    const LabelId l = s.labels.intern(label);
    for (auto* table : {&s.vertex_indexes, &s.edge_indexes}) {
      if (table->size() <= l) table->resize(l + 1);
    }
    s.vertex_indexes[l].push_back(std::move(vertex_index));
    s.edge_indexes[l].push_back(std::move(edge_index));
    return true;
  });
}

bool MemoryGraph::drop_index(std::string_view label, std::string_view key) {
  auto schema = schema_lock(*impl_);
  return impl_->gated("drop_index", [&](std::uint64_t& lsn) {
    auto& s = impl_->store;
    const LabelId l = s.labels.find(label);
    auto has = [&](const detail::IndexTable& table) {
      return l < table.size() && std::any_of(table[l].begin(), table[l].end(), [&](const auto& i) { return i.key() == key; });
    };
    if (!has(s.vertex_indexes)) return false;
    std::string payload;
    detail::durable::ByteWriter w(payload);
    detail::durable::encode_drop_index(w, label, key);
    lsn = impl_->log(detail::durable::RecordType::drop_index, payload);
    std::unique_lock lock(impl_->mutex);
    for (auto* table : {&s.vertex_indexes, &s.edge_indexes}) {
      std::erase_if((*table)[l], [&](const auto& i) { return i.key() == key; });
    }
    return true;
  });
}

std::vector<IndexInfo> MemoryGraph::indexes() {
  return impl_->read("indexes", [&](const auto&) {
    std::vector<IndexInfo> result;
    const auto& s = impl_->store;
    for (LabelId l = 0; l < s.vertex_indexes.size(); ++l) {
      for (const auto& index : s.vertex_indexes[l]) result.push_back({s.labels.name(l), index.key(), index.unique()});
    }
    std::sort(result.begin(), result.end(),
              [](const IndexInfo& a, const IndexInfo& b) { return std::tie(a.label, a.key) < std::tie(b.label, b.key); });
    return result;
  });
}

// -- vertices -------------------------------------------------------------------------------------

namespace {
/// Results of writes, built from the committed view after commit.
std::vector<ElementId> ids(const detail::CommittedView& g, ElementKind kind, const std::vector<Slot>& slots) {
  std::vector<ElementId> out;
  out.reserve(slots.size());
  for (Slot s : slots) out.push_back(detail::make_id(g, kind, s));
  return out;
}
std::optional<Vertex> vertex_or_none(const detail::CommittedView& g, Slot v) {
  if (v == kNoSlot) return std::nullopt;
  return detail::make_vertex(g, v);
}
std::optional<Edge> edge_or_none(const detail::CommittedView& g, Slot e) {
  if (e == kNoSlot) return std::nullopt;
  return detail::make_edge(g, e);
}
}  // namespace

Vertex MemoryGraph::create_vertex(std::string_view label, const Properties& properties) {
  return impl_->write(
      "create_vertex", [&](auto& o, const auto& g) { return detail::writes::create_vertex(o, g, label, properties); },
      [](const auto& g, Slot v) { return detail::make_vertex(g, v); });
}

std::vector<ElementId> MemoryGraph::create_vertices(std::span<const NewVertex> vertices) {
  return impl_->write(
      "create_vertices", [&](auto& o, const auto& g) { return detail::writes::create_vertices(o, g, vertices); },
      [](const auto& g, const std::vector<Slot>& slots) { return ids(g, ElementKind::vertex, slots); });
}

std::optional<Vertex> MemoryGraph::find_vertex_by_id(std::string_view label, const ElementId& id) {
  return impl_->read("find_vertex_by_id", [&](const auto& g) { return detail::reads::find_vertex_by_id(g, label, id); });
}

std::optional<Vertex> MemoryGraph::find_vertex(const ElementId& id) {
  return impl_->read("find_vertex", [&](const auto& g) { return detail::reads::find_vertex(g, id); });
}

std::vector<Vertex> MemoryGraph::find_vertices_by_label(std::string_view label, const Properties& filter,
                                                        const Page& page) {
  return impl_->read("find_vertices_by_label",
                     [&](const auto& g) { return detail::reads::find_vertices_by_label(g, label, filter, page); });
}

std::optional<Vertex> MemoryGraph::update_vertex(std::string_view label, const ElementId& id,
                                                 const Properties& properties) {
  return impl_->write(
      "update_vertex", [&](auto& o, const auto& g) { return detail::writes::update_vertex(o, g, label, id, properties); },
      vertex_or_none);
}

bool MemoryGraph::delete_vertex(std::string_view label, const ElementId& id) {
  return impl_->write(
      "delete_vertex",
      [&](auto& o, const auto& g) {
        impl_->ensure_linked();  // the vertex's edges go with it
        return detail::writes::delete_vertex(o, g, label, id);
      },
      [](const auto&, bool deleted) { return deleted; });
}

std::int64_t MemoryGraph::count_vertices(std::string_view label) {
  return impl_->read("count_vertices", [&](const auto& g) { return detail::reads::count(g, ElementKind::vertex, label); });
}

std::int64_t MemoryGraph::count_vertices() {
  return impl_->read("count_vertices", [](const auto& g) { return g.live_vertices(); });
}

Upserted MemoryGraph::upsert_vertex(std::string_view label, const Properties& match, const Properties& properties) {
  return impl_->write(
      "upsert_vertex",
      [&](auto& o, const auto& g) { return detail::writes::upsert_vertex(o, g, label, match, properties); },
      [](const auto& g, std::pair<Slot, bool> r) { return Upserted{detail::make_vertex(g, r.first), r.second}; });
}

// -- edges ----------------------------------------------------------------------------------------

Edge MemoryGraph::create_edge(const ElementId& from, const ElementId& to, std::string_view label,
                              const Properties& properties) {
  return impl_->write(
      "create_edge",
      [&](auto& o, const auto& g) { return detail::writes::create_edge(o, g, from, to, label, properties); },
      [](const auto& g, Slot e) { return detail::make_edge(g, e); });
}

std::vector<ElementId> MemoryGraph::create_edges(std::span<const NewEdge> edges) {
  return impl_->write(
      "create_edges", [&](auto& o, const auto& g) { return detail::writes::create_edges(o, g, edges); },
      [](const auto& g, const std::vector<Slot>& slots) { return ids(g, ElementKind::edge, slots); });
}

std::optional<Edge> MemoryGraph::find_edge_by_id(std::string_view label, const ElementId& id) {
  return impl_->read("find_edge_by_id", [&](const auto& g) { return detail::reads::find_edge_by_id(g, label, id); });
}

std::optional<Edge> MemoryGraph::find_edge(const ElementId& id) {
  return impl_->read("find_edge", [&](const auto& g) { return detail::reads::find_edge(g, id); });
}

std::vector<Edge> MemoryGraph::find_edges_by_label(std::string_view label, const Properties& filter, const Page& page) {
  return impl_->read("find_edges_by_label",
                     [&](const auto& g) { return detail::reads::find_edges_by_label(g, label, filter, page); });
}

std::vector<Edge> MemoryGraph::incident_edges(const ElementId& vertex, const EdgeQuery& query) {
  return impl_->read_adjacency("incident_edges", [&](const auto& g) { return detail::reads::incident_edges(g, vertex, query); });
}

std::optional<Edge> MemoryGraph::update_edge(std::string_view label, const ElementId& id,
                                             const Properties& properties) {
  return impl_->write(
      "update_edge", [&](auto& o, const auto& g) { return detail::writes::update_edge(o, g, label, id, properties); },
      edge_or_none);
}

bool MemoryGraph::delete_edge(std::string_view label, const ElementId& id) {
  return impl_->write(
      "delete_edge", [&](auto& o, const auto& g) { return detail::writes::delete_edge(o, g, label, id); },
      [](const auto&, bool deleted) { return deleted; });
}

std::int64_t MemoryGraph::count_edges(std::string_view label) {
  return impl_->read("count_edges", [&](const auto& g) { return detail::reads::count(g, ElementKind::edge, label); });
}

std::int64_t MemoryGraph::count_edges() {
  return impl_->read("count_edges", [](const auto& g) { return g.live_edges(); });
}

// -- traversal and algorithms ------------------------------------------------------------------

std::vector<Vertex> MemoryGraph::neighbors(const ElementId& start, const NeighborOptions& options) {
  validate(options);
  return impl_->read_adjacency("neighbors", [&](const auto& g) { return detail::reads::neighbors(g, start, options); });
}

std::optional<Path> MemoryGraph::shortest_path(const ElementId& from, const ElementId& to, const PathOptions& options) {
  validate(options);
  return impl_->read_adjacency("shortest_path", [&](const auto& g) { return detail::reads::shortest_path(g, from, to, options); });
}

std::vector<Path> MemoryGraph::all_paths(const ElementId& from, const ElementId& to, const PathOptions& options) {
  validate(options);
  return impl_->read_adjacency("all_paths", [&](const auto& g) { return detail::reads::all_paths(g, from, to, options); });
}

std::vector<PageRankScore> MemoryGraph::page_rank(const PageRankOptions& options) {
  validate(options);
  return impl_->read_adjacency("page_rank", [&](const auto& g) { return detail::page_rank(g, options); });
}

std::optional<Degree> MemoryGraph::degree_centrality(const ElementId& id, const DegreeOptions& options) {
  return impl_->read_adjacency("degree_centrality", [&](const auto& g) { return detail::reads::degree_centrality(g, id, options); });
}

std::vector<Component> MemoryGraph::connected_components(const ComponentOptions& options) {
  return impl_->read_adjacency("connected_components", [&](const auto& g) { return detail::connected_components(g, options); });
}

std::vector<Visit> MemoryGraph::bfs(const ElementId& start, const TraversalOptions& options) {
  validate(options);
  return impl_->read_adjacency("bfs", [&](const auto& g) { return detail::reads::bfs(g, start, options); });
}

std::vector<Visit> MemoryGraph::dfs(const ElementId& start, const TraversalOptions& options) {
  validate(options);
  return impl_->read_adjacency("dfs", [&](const auto& g) { return detail::reads::dfs(g, start, options); });
}

std::vector<Cycle> MemoryGraph::detect_cycles(const CycleOptions& options) {
  validate(options);
  return impl_->read_adjacency("detect_cycles", [&](const auto& g) { return detail::detect_cycles(g, options); });
}

}  // namespace propgraph
