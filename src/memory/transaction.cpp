#include "memory/transaction.hpp"

#include <algorithm>
#include <tuple>

#include "memory/reads.hpp"
#include "memory/writes.hpp"

namespace propgraph::detail {

MemoryTransaction::~MemoryTransaction() { end(); }

void MemoryTransaction::end() noexcept {
  open_ = false;
  if (overlay_) {
    graph_.discard(*overlay_);  // spent after commit; otherwise its ids are burned
    overlay_.reset();
    graph_.gate.leave();
  }
}

void MemoryTransaction::ensure_open(std::string_view operation) const {
  if (!open_) throw InvalidArgument(fmt::format("{}: the transaction has ended (committed or rolled back)", operation));
}

void MemoryTransaction::not_transactional(std::string_view operation) const {
  ensure_open(operation);
  throw InvalidArgument(fmt::format("{} is not transactional: call it outside the transaction", operation));
}

template <typename Fn>
decltype(auto) MemoryTransaction::read(std::string_view operation, Fn&& fn) {
  ensure_open(operation);
  check_deadline(operation);
  if (overlay_) return fn(TxView(*overlay_, graph_.prefix));  // this transaction is the only writer
  return graph_.after_seen_durable(operation, GraphState::SeenWait::read, [&](std::uint64_t& seen) {
    std::shared_lock lock(graph_.mutex);
    while (!graph_.store.linked()) {  // the reads of a transaction see one linked store
      lock.unlock();
      graph_.ensure_linked();
      lock.lock();
    }
    seen = graph_.seen_lsn();
    if (!read_version_) {
      read_version_ = graph_.store.version;
    } else if (*read_version_ != graph_.store.version) {
      throw TransactionConflict(fmt::format(
          "{}: the graph changed since this transaction's first read; run the transaction again", operation));
    }
    return fn(graph_.view());
  });
}

template <typename Fn>
decltype(auto) MemoryTransaction::write(std::string_view operation, Fn&& fn) {
  ensure_open(operation);
  check_deadline(operation);  // a write to the overlay is quick, but a passed deadline refuses every call
  if (!overlay_) {
    graph_.enter_gate(operation);
    if (read_version_ && *read_version_ != graph_.store.version) {
      graph_.gate.leave();
      throw TransactionConflict(fmt::format(
          "{}: the graph changed since this transaction's first read; run the transaction again", operation));
    }
    graph_.ensure_linked();  // no edge waits while this transaction holds the gate
    overlay_ = std::make_unique<Overlay>(graph_.store);
    seen_ = graph_.seen_lsn();
  }
  return fn(*overlay_, TxView(*overlay_, graph_.prefix));
}

void MemoryTransaction::commit() {
  ensure_open("commit");
  std::uint64_t lsn = 0;
  if (overlay_) {
    try {
      check_deadline("commit");
      lsn = graph_.commit(*overlay_);
    } catch (...) {
      end();
      throw;
    }
  }
  end();
  graph_.wait_durable(std::max(lsn, seen_));  // after leaving the gate: concurrent commits share one sync
}

void MemoryTransaction::rollback() { end(); }

// -- catalog and schema: not transactional ---------------------------------------------------------

bool MemoryTransaction::create_graph(std::string_view) { not_transactional("create_graph"); }
bool MemoryTransaction::drop_graph(std::string_view) { not_transactional("drop_graph"); }
bool MemoryTransaction::create_index(std::string_view, std::string_view, const IndexOptions&) {
  not_transactional("create_index");
}
bool MemoryTransaction::drop_index(std::string_view, std::string_view) { not_transactional("drop_index"); }

bool MemoryTransaction::graph_exists(std::string_view name) {
  return read("graph_exists", [&](const auto&) { return graph_.catalog.contains(name); });
}

std::vector<IndexInfo> MemoryTransaction::indexes() {
  return read("indexes", [&](const auto&) {
    std::vector<IndexInfo> result;
    const auto& s = graph_.store;
    for (LabelId l = 0; l < s.vertex_indexes.size(); ++l) {
      for (const auto& index : s.vertex_indexes[l]) result.push_back({s.labels.name(l), index.key(), index.unique()});
    }
    std::sort(result.begin(), result.end(),
              [](const IndexInfo& a, const IndexInfo& b) { return std::tie(a.label, a.key) < std::tie(b.label, b.key); });
    return result;
  });
}

std::vector<std::string> MemoryTransaction::vertex_labels() {
  return read("vertex_labels", [](const auto& g) { return reads::labels_in_use(g, ElementKind::vertex); });
}
std::vector<std::string> MemoryTransaction::edge_labels() {
  return read("edge_labels", [](const auto& g) { return reads::labels_in_use(g, ElementKind::edge); });
}

// -- vertices -----------------------------------------------------------------------------------------

Vertex MemoryTransaction::create_vertex(std::string_view label, const Properties& properties) {
  return write("create_vertex", [&](Overlay& o, const TxView& g) {
    return make_vertex(g, writes::create_vertex(o, g, label, properties));
  });
}

std::vector<ElementId> MemoryTransaction::create_vertices(std::span<const NewVertex> vertices) {
  return write("create_vertices", [&](Overlay& o, const TxView& g) {
    std::vector<ElementId> ids;
    for (Slot v : writes::create_vertices(o, g, vertices)) ids.push_back(make_id(g, ElementKind::vertex, v));
    return ids;
  });
}

std::optional<Vertex> MemoryTransaction::find_vertex_by_id(std::string_view label, const ElementId& id) {
  return read("find_vertex_by_id", [&](const auto& g) { return reads::find_vertex_by_id(g, label, id); });
}
std::optional<Vertex> MemoryTransaction::find_vertex(const ElementId& id) {
  return read("find_vertex", [&](const auto& g) { return reads::find_vertex(g, id); });
}
std::vector<Vertex> MemoryTransaction::find_vertices_by_label(std::string_view label, const Properties& filter,
                                                              const Page& page) {
  return read("find_vertices_by_label",
              [&](const auto& g) { return reads::find_vertices_by_label(g, label, filter, page); });
}

std::optional<Vertex> MemoryTransaction::update_vertex(std::string_view label, const ElementId& id,
                                                       const Properties& properties) {
  return write("update_vertex", [&](Overlay& o, const TxView& g) -> std::optional<Vertex> {
    const Slot v = writes::update_vertex(o, g, label, id, properties);
    if (v == kNoSlot) return std::nullopt;
    return make_vertex(g, v);
  });
}

bool MemoryTransaction::delete_vertex(std::string_view label, const ElementId& id) {
  return write("delete_vertex", [&](Overlay& o, const TxView& g) { return writes::delete_vertex(o, g, label, id); });
}

std::int64_t MemoryTransaction::count_vertices(std::string_view label) {
  return read("count_vertices", [&](const auto& g) { return reads::count(g, ElementKind::vertex, label); });
}
std::int64_t MemoryTransaction::count_vertices() {
  return read("count_vertices", [](const auto& g) { return g.live_vertices(); });
}

Upserted MemoryTransaction::upsert_vertex(std::string_view label, const Properties& match, const Properties& properties) {
  return write("upsert_vertex", [&](Overlay& o, const TxView& g) {
    auto [v, created] = writes::upsert_vertex(o, g, label, match, properties);
    return Upserted{make_vertex(g, v), created};
  });
}

// -- edges --------------------------------------------------------------------------------------------

Edge MemoryTransaction::create_edge(const ElementId& from, const ElementId& to, std::string_view label,
                                    const Properties& properties) {
  return write("create_edge", [&](Overlay& o, const TxView& g) {
    return make_edge(g, writes::create_edge(o, g, from, to, label, properties));
  });
}

std::vector<ElementId> MemoryTransaction::create_edges(std::span<const NewEdge> edges) {
  return write("create_edges", [&](Overlay& o, const TxView& g) {
    std::vector<ElementId> ids;
    for (Slot e : writes::create_edges(o, g, edges)) ids.push_back(make_id(g, ElementKind::edge, e));
    return ids;
  });
}

std::optional<Edge> MemoryTransaction::find_edge_by_id(std::string_view label, const ElementId& id) {
  return read("find_edge_by_id", [&](const auto& g) { return reads::find_edge_by_id(g, label, id); });
}
std::optional<Edge> MemoryTransaction::find_edge(const ElementId& id) {
  return read("find_edge", [&](const auto& g) { return reads::find_edge(g, id); });
}
std::vector<Edge> MemoryTransaction::find_edges_by_label(std::string_view label, const Properties& filter,
                                                         const Page& page) {
  return read("find_edges_by_label", [&](const auto& g) { return reads::find_edges_by_label(g, label, filter, page); });
}
std::vector<Edge> MemoryTransaction::incident_edges(const ElementId& vertex, const EdgeQuery& query) {
  return read("incident_edges", [&](const auto& g) { return reads::incident_edges(g, vertex, query); });
}

std::optional<Edge> MemoryTransaction::update_edge(std::string_view label, const ElementId& id,
                                                   const Properties& properties) {
  return write("update_edge", [&](Overlay& o, const TxView& g) -> std::optional<Edge> {
    const Slot e = writes::update_edge(o, g, label, id, properties);
    if (e == kNoSlot) return std::nullopt;
    return make_edge(g, e);
  });
}

bool MemoryTransaction::delete_edge(std::string_view label, const ElementId& id) {
  return write("delete_edge", [&](Overlay& o, const TxView& g) { return writes::delete_edge(o, g, label, id); });
}

std::int64_t MemoryTransaction::count_edges(std::string_view label) {
  return read("count_edges", [&](const auto& g) { return reads::count(g, ElementKind::edge, label); });
}
std::int64_t MemoryTransaction::count_edges() {
  return read("count_edges", [](const auto& g) { return g.live_edges(); });
}

// -- traversal and algorithms ---------------------------------------------------------------------

std::vector<Vertex> MemoryTransaction::neighbors(const ElementId& start, const NeighborOptions& options) {
  validate(options);
  return read("neighbors", [&](const auto& g) { return reads::neighbors(g, start, options); });
}
std::optional<Path> MemoryTransaction::shortest_path(const ElementId& from, const ElementId& to,
                                                     const PathOptions& options) {
  validate(options);
  return read("shortest_path", [&](const auto& g) { return reads::shortest_path(g, from, to, options); });
}
std::vector<Path> MemoryTransaction::all_paths(const ElementId& from, const ElementId& to, const PathOptions& options) {
  validate(options);
  return read("all_paths", [&](const auto& g) { return reads::all_paths(g, from, to, options); });
}
std::vector<PageRankScore> MemoryTransaction::page_rank(const PageRankOptions& options) {
  validate(options);
  return read("page_rank", [&](const auto& g) { return detail::page_rank(g, options); });
}
std::optional<Degree> MemoryTransaction::degree_centrality(const ElementId& id, const DegreeOptions& options) {
  return read("degree_centrality", [&](const auto& g) { return reads::degree_centrality(g, id, options); });
}
std::vector<Component> MemoryTransaction::connected_components(const ComponentOptions& options) {
  return read("connected_components", [&](const auto& g) { return detail::connected_components(g, options); });
}
std::vector<Visit> MemoryTransaction::bfs(const ElementId& start, const TraversalOptions& options) {
  validate(options);
  return read("bfs", [&](const auto& g) { return reads::bfs(g, start, options); });
}
std::vector<Visit> MemoryTransaction::dfs(const ElementId& start, const TraversalOptions& options) {
  validate(options);
  return read("dfs", [&](const auto& g) { return reads::dfs(g, start, options); });
}
std::vector<Cycle> MemoryTransaction::detect_cycles(const CycleOptions& options) {
  validate(options);
  return read("detect_cycles", [&](const auto& g) { return detail::detect_cycles(g, options); });
}

}  // namespace propgraph::detail
