// MemoryGraph's operations, once for both contexts: the bodies of MemoryOperations<Context>.
// Included by memory_graph.cpp and transaction.cpp, which instantiate them for their context
// and define their class's overrides beside them (generated from PROPGRAPH_GRAPH_OPERATIONS),
// so that each body inlines into its override and each file stays the size it was.
#pragma once

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "memory/contexts.hpp"
#include "memory/operations.hpp"
#include "memory/reads.hpp"
#include "memory/writes.hpp"
#include "propgraph/backend/query_executor.hpp"
#include "propgraph/fmt.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "query/graph_reader.hpp"

namespace propgraph::detail {

namespace {

std::string catalog_record(bool add, std::string_view name) {
  std::string payload;
  durable::ByteWriter w(payload);
  durable::encode_catalog(w, add, name);
  return payload;
}

bool contains_nan(const Value& v) {
  if (const auto* d = v.get_if<double>()) return std::isnan(*d);
  if (const auto* list = v.get_if<ValueList>()) return std::any_of(list->begin(), list->end(), contains_nan);
  return false;
}

// Answers of writes, built from the view the caller sees the write in.
template <typename View>
std::vector<ElementId> ids(const View& g, ElementKind kind, const std::vector<Slot>& slots) {
  std::vector<ElementId> out;
  out.reserve(slots.size());
  for (Slot s : slots) out.push_back(make_id(g, kind, s));
  return out;
}
constexpr auto vertex_of = [](const auto& g, Slot v) { return make_vertex(g, v); };
constexpr auto edge_of = [](const auto& g, Slot e) { return make_edge(g, e); };
constexpr auto vertex_or_none = [](const auto& g, Slot v) -> std::optional<Vertex> {
  if (v == kNoSlot) return std::nullopt;
  return make_vertex(g, v);
};
constexpr auto edge_or_none = [](const auto& g, Slot e) -> std::optional<Edge> {
  if (e == kNoSlot) return std::nullopt;
  return make_edge(g, e);
};
constexpr auto as_is = [](const auto&, auto answer) { return answer; };
/// For schema calls whose arguments need no check.
constexpr auto no_check = [] {};

}  // namespace

// -- session and catalog -------------------------------------------------------------------------

template <class Context>
bool MemoryOperations<Context>::create_graph(std::string_view name) {
  const auto check = [&] { validate_label(name, "graph name"); };
  return context_.schema("create_graph", check, [&](std::uint64_t& lsn) {
    GraphState& g = context_.state();
    if (g.catalog.contains(name)) return false;
    lsn = g.log(durable::RecordType::catalog, catalog_record(true, name));
    std::unique_lock lock(g.mutex);
    g.catalog.emplace(name);
    return true;
  });
}

template <class Context>
bool MemoryOperations<Context>::drop_graph(std::string_view name) {
  return context_.schema("drop_graph", no_check, [&](std::uint64_t& lsn) {
    GraphState& g = context_.state();
    if (name == g.graph_name) {
      const std::string old_prefix = g.prefix;
      g.renew_prefix();  // ids issued before the drop must stay unknown
      try {
        std::string payload;
        durable::ByteWriter w(payload);
        durable::encode_clear_graph(w, g.prefix);
        lsn = g.log(durable::RecordType::clear_graph, payload);
      } catch (...) {
        g.prefix = old_prefix;
        throw;
      }
      std::unique_lock lock(g.mutex);
      const std::uint64_t version = g.store.version;
      g.store = Store{};
      g.store.version = version + 1;
    } else {
      if (!g.catalog.contains(name)) return false;
      lsn = g.log(durable::RecordType::catalog, catalog_record(false, name));
      std::unique_lock lock(g.mutex);
      g.catalog.erase(g.catalog.find(name));
    }
    return true;
  });
}

template <class Context>
bool MemoryOperations<Context>::graph_exists(std::string_view name) {
  return context_.read("graph_exists", [&](const auto&) { return context_.state().catalog.contains(name); });
}

template <class Context>
std::vector<std::string> MemoryOperations<Context>::vertex_labels() {
  return context_.read("vertex_labels", [](const auto& g) { return reads::labels_in_use(g, ElementKind::vertex); });
}

template <class Context>
std::vector<std::string> MemoryOperations<Context>::edge_labels() {
  return context_.read("edge_labels", [](const auto& g) { return reads::labels_in_use(g, ElementKind::edge); });
}

// -- indexes ----------------------------------------------------------------------------------------

template <class Context>
bool MemoryOperations<Context>::create_index(std::string_view label, std::string_view key,
                                             const IndexOptions& options) {
  const auto check = [&] {
    validate_label(label);
    validate_index_key(key, "create_index");
  };
  return context_.schema("create_index", check, [&](std::uint64_t& lsn) {
    GraphState& graph = context_.state();
    auto& s = graph.store;
    const LabelId existing = s.labels.find(label);
    if (existing != kUnknownLabel && existing < s.vertex_indexes.size() &&
        std::any_of(s.vertex_indexes[existing].begin(), s.vertex_indexes[existing].end(),
                    [&](const auto& i) { return i.key() == key; })) {
      return false;
    }
    // Built outside the exclusive lock (this writer alone changes the store), before anything
    // changes: a unique index may find duplicates.
    auto build = [&](ElementKind kind, const std::vector<LabelMembers>& table) {
      PropertyIndex index{std::string(key), options.unique};
      const auto g = graph.view();
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
                                          vertices ? "vertex" : "edge", make_id(g, kind, slots[0]).str(),
                                          make_id(g, kind, slots[1]).str(), label, key, value));
        });
      }
      return index;
    };
    auto vertex_index = build(ElementKind::vertex, s.vertices_by_label);
    auto edge_index = build(ElementKind::edge, s.edges_by_label);
    std::string payload;
    durable::ByteWriter w(payload);
    durable::encode_create_index(w, label, key, options.unique);
    lsn = graph.log(durable::RecordType::create_index, payload);
    std::unique_lock lock(graph.mutex);
    const LabelId l = s.labels.intern(label);
    for (auto* table : {&s.vertex_indexes, &s.edge_indexes}) {
      if (table->size() <= l) table->resize(l + 1);
    }
    s.vertex_indexes[l].push_back(std::move(vertex_index));
    s.edge_indexes[l].push_back(std::move(edge_index));
    return true;
  });
}

template <class Context>
bool MemoryOperations<Context>::drop_index(std::string_view label, std::string_view key) {
  return context_.schema("drop_index", no_check, [&](std::uint64_t& lsn) {
    GraphState& graph = context_.state();
    auto& s = graph.store;
    const LabelId l = s.labels.find(label);
    auto has = [&](const IndexTable& table) {
      return l < table.size() &&
             std::any_of(table[l].begin(), table[l].end(), [&](const auto& i) { return i.key() == key; });
    };
    if (!has(s.vertex_indexes)) return false;
    std::string payload;
    durable::ByteWriter w(payload);
    durable::encode_drop_index(w, label, key);
    lsn = graph.log(durable::RecordType::drop_index, payload);
    std::unique_lock lock(graph.mutex);
    for (auto* table : {&s.vertex_indexes, &s.edge_indexes}) {
      std::erase_if((*table)[l], [&](const auto& i) { return i.key() == key; });
    }
    return true;
  });
}

template <class Context>
std::vector<IndexInfo> MemoryOperations<Context>::indexes() {
  return context_.read("indexes", [&](const auto&) {
    std::vector<IndexInfo> result;
    const auto& s = context_.state().store;
    for (LabelId l = 0; l < s.vertex_indexes.size(); ++l) {
      for (const auto& index : s.vertex_indexes[l]) result.push_back({s.labels.name(l), index.key(), index.unique()});
    }
    std::sort(result.begin(), result.end(), [](const IndexInfo& a, const IndexInfo& b) {
      return std::tie(a.label, a.key) < std::tie(b.label, b.key);
    });
    return result;
  });
}

// -- vertices -------------------------------------------------------------------------------------

template <class Context>
Vertex MemoryOperations<Context>::create_vertex(std::string_view label, const Properties& properties) {
  return context_.write(
      "create_vertex", [&](Overlay& o, const TxView& g) { return writes::create_vertex(o, g, label, properties); },
      vertex_of);
}

template <class Context>
std::vector<ElementId> MemoryOperations<Context>::create_vertices(std::span<const NewVertex> vertices) {
  return context_.write(
      "create_vertices", [&](Overlay& o, const TxView& g) { return writes::create_vertices(o, g, vertices); },
      [](const auto& g, const std::vector<Slot>& slots) { return ids(g, ElementKind::vertex, slots); });
}

template <class Context>
std::optional<Vertex> MemoryOperations<Context>::find_vertex_by_id(std::string_view label, const ElementId& id) {
  return context_.read("find_vertex_by_id", [&](const auto& g) { return reads::find_vertex_by_id(g, label, id); });
}

template <class Context>
std::optional<Vertex> MemoryOperations<Context>::find_vertex(const ElementId& id) {
  return context_.read("find_vertex", [&](const auto& g) { return reads::find_vertex(g, id); });
}

template <class Context>
std::vector<Vertex> MemoryOperations<Context>::find_vertices_by_label(std::string_view label, const Properties& filter,
                                                                      const Page& page) {
  return context_.read("find_vertices_by_label",
                       [&](const auto& g) { return reads::find_vertices_by_label(g, label, filter, page); });
}

template <class Context>
std::optional<Vertex> MemoryOperations<Context>::update_vertex(std::string_view label, const ElementId& id,
                                                               const Properties& properties) {
  return context_.write(
      "update_vertex", [&](Overlay& o, const TxView& g) { return writes::update_vertex(o, g, label, id, properties); },
      vertex_or_none);
}

template <class Context>
bool MemoryOperations<Context>::delete_vertex(std::string_view label, const ElementId& id) {
  return context_.write(
      "delete_vertex",
      [&](Overlay& o, const TxView& g) {
        context_.state().ensure_linked();  // the vertex's edges go with it
        return writes::delete_vertex(o, g, label, id);
      },
      as_is);
}

template <class Context>
std::int64_t MemoryOperations<Context>::count_vertices(std::string_view label) {
  return context_.read("count_vertices", [&](const auto& g) { return reads::count(g, ElementKind::vertex, label); });
}

template <class Context>
std::int64_t MemoryOperations<Context>::count_vertices() {
  return context_.read("count_vertices", [](const auto& g) { return g.live_vertices(); });
}

template <class Context>
Upserted MemoryOperations<Context>::upsert_vertex(std::string_view label, const Properties& match,
                                                  const Properties& properties) {
  return context_.write(
      "upsert_vertex",
      [&](Overlay& o, const TxView& g) { return writes::upsert_vertex(o, g, label, match, properties); },
      [](const auto& g, std::pair<Slot, bool> r) {
        return Upserted{make_vertex(g, r.first), r.second};
      });
}

// -- edges ----------------------------------------------------------------------------------------

template <class Context>
Edge MemoryOperations<Context>::create_edge(const ElementId& from, const ElementId& to, std::string_view label,
                                            const Properties& properties) {
  return context_.write(
      "create_edge",
      [&](Overlay& o, const TxView& g) { return writes::create_edge(o, g, from, to, label, properties); }, edge_of);
}

template <class Context>
std::vector<ElementId> MemoryOperations<Context>::create_edges(std::span<const NewEdge> edges) {
  return context_.write(
      "create_edges", [&](Overlay& o, const TxView& g) { return writes::create_edges(o, g, edges); },
      [](const auto& g, const std::vector<Slot>& slots) { return ids(g, ElementKind::edge, slots); });
}

template <class Context>
std::optional<Edge> MemoryOperations<Context>::find_edge_by_id(std::string_view label, const ElementId& id) {
  return context_.read("find_edge_by_id", [&](const auto& g) { return reads::find_edge_by_id(g, label, id); });
}

template <class Context>
std::optional<Edge> MemoryOperations<Context>::find_edge(const ElementId& id) {
  return context_.read("find_edge", [&](const auto& g) { return reads::find_edge(g, id); });
}

template <class Context>
std::vector<Edge> MemoryOperations<Context>::find_edges_by_label(std::string_view label, const Properties& filter,
                                                                 const Page& page) {
  return context_.read("find_edges_by_label",
                       [&](const auto& g) { return reads::find_edges_by_label(g, label, filter, page); });
}

template <class Context>
std::vector<Edge> MemoryOperations<Context>::incident_edges(const ElementId& vertex, const EdgeQuery& query) {
  return context_.read_adjacency("incident_edges",
                                 [&](const auto& g) { return reads::incident_edges(g, vertex, query); });
}

template <class Context>
std::optional<Edge> MemoryOperations<Context>::update_edge(std::string_view label, const ElementId& id,
                                                           const Properties& properties) {
  return context_.write(
      "update_edge", [&](Overlay& o, const TxView& g) { return writes::update_edge(o, g, label, id, properties); },
      edge_or_none);
}

template <class Context>
bool MemoryOperations<Context>::delete_edge(std::string_view label, const ElementId& id) {
  return context_.write(
      "delete_edge", [&](Overlay& o, const TxView& g) { return writes::delete_edge(o, g, label, id); }, as_is);
}

template <class Context>
std::int64_t MemoryOperations<Context>::count_edges(std::string_view label) {
  return context_.read("count_edges", [&](const auto& g) { return reads::count(g, ElementKind::edge, label); });
}

template <class Context>
std::int64_t MemoryOperations<Context>::count_edges() {
  return context_.read("count_edges", [](const auto& g) { return g.live_edges(); });
}

// -- traversal and algorithms: options first, whether or not the ids exist ----------------------

template <class Context>
std::vector<Vertex> MemoryOperations<Context>::neighbors(const ElementId& start, const NeighborOptions& options) {
  validate(options);
  return context_.read_adjacency("neighbors", [&](const auto& g) { return reads::neighbors(g, start, options); });
}

template <class Context>
std::optional<Path> MemoryOperations<Context>::shortest_path(const ElementId& from, const ElementId& to,
                                                             const PathOptions& options) {
  validate(options);
  return context_.read_adjacency("shortest_path",
                                 [&](const auto& g) { return reads::shortest_path(g, from, to, options); });
}

template <class Context>
std::vector<Path> MemoryOperations<Context>::all_paths(const ElementId& from, const ElementId& to,
                                                       const PathOptions& options) {
  validate(options);
  return context_.read_adjacency("all_paths", [&](const auto& g) { return reads::all_paths(g, from, to, options); });
}

template <class Context>
std::vector<PageRankScore> MemoryOperations<Context>::page_rank(const PageRankOptions& options) {
  validate(options);
  return context_.read_adjacency("page_rank", [&](const auto& g) { return detail::page_rank(g, options); });
}

template <class Context>
std::optional<Degree> MemoryOperations<Context>::degree_centrality(const ElementId& id, const DegreeOptions& options) {
  return context_.read_adjacency("degree_centrality",
                                 [&](const auto& g) { return reads::degree_centrality(g, id, options); });
}

template <class Context>
std::vector<Component> MemoryOperations<Context>::connected_components(const ComponentOptions& options) {
  return context_.read_adjacency("connected_components",
                                 [&](const auto& g) { return detail::connected_components(g, options); });
}

template <class Context>
std::vector<Visit> MemoryOperations<Context>::bfs(const ElementId& start, const TraversalOptions& options) {
  validate(options);
  return context_.read_adjacency("bfs", [&](const auto& g) { return reads::bfs(g, start, options); });
}

template <class Context>
std::vector<Visit> MemoryOperations<Context>::dfs(const ElementId& start, const TraversalOptions& options) {
  validate(options);
  return context_.read_adjacency("dfs", [&](const auto& g) { return reads::dfs(g, start, options); });
}

template <class Context>
std::vector<Cycle> MemoryOperations<Context>::detect_cycles(const CycleOptions& options) {
  validate(options);
  return context_.read_adjacency("detect_cycles", [&](const auto& g) { return detail::detect_cycles(g, options); });
}

/// The query executor's reads straight from one view of the store (reads.hpp), with no
/// GraphOperations call between: the reader of MemoryGraph's native read path.
template <typename View>
class ViewReader final : public query::GraphReader {
 public:
  explicit ViewReader(const View& view) noexcept : g_(view) {}
  std::vector<std::string> vertex_labels() override { return reads::labels_in_use(g_, ElementKind::vertex); }
  std::vector<Vertex> find_vertices_by_label(std::string_view label, const Properties& filter) override {
    return reads::find_vertices_by_label(g_, label, filter, Page{});
  }
  std::optional<Vertex> find_vertex(const ElementId& id) override { return reads::find_vertex(g_, id); }
  std::optional<Edge> find_edge(const ElementId& id) override { return reads::find_edge(g_, id); }
  std::vector<Edge> incident_edges(const ElementId& vertex, const EdgeQuery& query) override {
    return reads::incident_edges(g_, vertex, query);
  }

 private:
  const View& g_;
};

/// A read-only statement runs natively: the executor reads one view of the store, taken once
/// (one shared lock, one durability wait) for the whole statement, so every row is answered from
/// the same state of the graph. A statement that writes runs through the generic executor over
/// this graph's or transaction's calls (backend::execute_query: atomic, in a transaction).
template <class Context>
QueryResult MemoryOperations<Context>::query(const Query& statement, const Parameters& parameters) {
  if (statement.is_write()) return backend::execute_query(self_, statement, parameters);
  return context_.read_adjacency("query", [&](const auto& g) {
    ViewReader<std::decay_t<decltype(g)>> reader(g);
    return query::execute_read(reader, statement, parameters);
  });
}

}  // namespace propgraph::detail
