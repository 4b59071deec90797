#include "propgraph/decorator.hpp"

#include <array>

#include <fmt/format.h>

namespace propgraph {

namespace {
constexpr std::array<std::string_view, operation_count> kOperationNames = {
    "create_graph", "drop_graph", "graph_exists", "vertex_labels", "edge_labels",
    "create_vertex", "find_vertex_by_id", "find_vertex", "find_vertices_by_label", "update_vertex", "delete_vertex",
    "count_vertices", "upsert_vertex",
    "create_edge", "find_edge_by_id", "find_edge", "find_edges_by_label", "incident_edges", "update_edge",
    "delete_edge", "count_edges",
    "create_index", "drop_index", "indexes",
    "create_vertices", "create_edges",
    "neighbors", "shortest_path", "all_paths",
    "page_rank", "degree_centrality", "connected_components", "bfs", "dfs", "detect_cycles",
    "begin", "commit", "rollback",
};
}  // namespace

std::string_view to_string(Operation op) noexcept {
  const auto i = static_cast<std::size_t>(op);
  return i < kOperationNames.size() ? kOperationNames[i] : std::string_view("unknown");
}

namespace detail {

// forward() is defined before its uses so that every instantiation sees it.
template <class Base>
template <class Fn>
auto Forwarding<Base>::forward(Operation op, Fn&& fn) -> std::invoke_result_t<Fn&, GraphOperations&> {
  using R = std::invoke_result_t<Fn&, GraphOperations&>;
  std::optional<R> result;
  auto call = [&] { result.emplace(fn(*target_)); };
  around(op, CallRef(call));
  if (!result) throw Error(fmt::format("decorator's around({}) returned without running the call", to_string(op)));
  return std::move(*result);
}

}  // namespace detail

namespace detail {

using O = Operation;
using G = GraphOperations;

template <class Base>
bool Forwarding<Base>::create_graph(std::string_view name) { return forward(O::create_graph, [&](G& g) { return g.create_graph(name); }); }
template <class Base>
bool Forwarding<Base>::drop_graph(std::string_view name) { return forward(O::drop_graph, [&](G& g) { return g.drop_graph(name); }); }
template <class Base>
bool Forwarding<Base>::graph_exists(std::string_view name) { return forward(O::graph_exists, [&](G& g) { return g.graph_exists(name); }); }
template <class Base>
std::vector<std::string> Forwarding<Base>::vertex_labels() { return forward(O::vertex_labels, [&](G& g) { return g.vertex_labels(); }); }
template <class Base>
std::vector<std::string> Forwarding<Base>::edge_labels() { return forward(O::edge_labels, [&](G& g) { return g.edge_labels(); }); }

template <class Base>
Vertex Forwarding<Base>::create_vertex(std::string_view label, const Properties& properties) { return forward(O::create_vertex, [&](G& g) { return g.create_vertex(label, properties); }); }
template <class Base>
std::optional<Vertex> Forwarding<Base>::find_vertex_by_id(std::string_view label, const ElementId& id) { return forward(O::find_vertex_by_id, [&](G& g) { return g.find_vertex_by_id(label, id); }); }
template <class Base>
std::optional<Vertex> Forwarding<Base>::find_vertex(const ElementId& id) { return forward(O::find_vertex, [&](G& g) { return g.find_vertex(id); }); }
template <class Base>
std::vector<Vertex> Forwarding<Base>::find_vertices_by_label(std::string_view label, const Properties& filter, const Page& page) { return forward(O::find_vertices_by_label, [&](G& g) { return g.find_vertices_by_label(label, filter, page); }); }
template <class Base>
std::optional<Vertex> Forwarding<Base>::update_vertex(std::string_view label, const ElementId& id, const Properties& properties) { return forward(O::update_vertex, [&](G& g) { return g.update_vertex(label, id, properties); }); }
template <class Base>
bool Forwarding<Base>::delete_vertex(std::string_view label, const ElementId& id) { return forward(O::delete_vertex, [&](G& g) { return g.delete_vertex(label, id); }); }
template <class Base>
std::int64_t Forwarding<Base>::count_vertices(std::string_view label) { return forward(O::count_vertices, [&](G& g) { return g.count_vertices(label); }); }
template <class Base>
std::int64_t Forwarding<Base>::count_vertices() { return forward(O::count_vertices, [&](G& g) { return g.count_vertices(); }); }
template <class Base>
Upserted Forwarding<Base>::upsert_vertex(std::string_view label, const Properties& match, const Properties& properties) { return forward(O::upsert_vertex, [&](G& g) { return g.upsert_vertex(label, match, properties); }); }

template <class Base>
Edge Forwarding<Base>::create_edge(const ElementId& from, const ElementId& to, std::string_view label, const Properties& properties) { return forward(O::create_edge, [&](G& g) { return g.create_edge(from, to, label, properties); }); }
template <class Base>
std::optional<Edge> Forwarding<Base>::find_edge_by_id(std::string_view label, const ElementId& id) { return forward(O::find_edge_by_id, [&](G& g) { return g.find_edge_by_id(label, id); }); }
template <class Base>
std::optional<Edge> Forwarding<Base>::find_edge(const ElementId& id) { return forward(O::find_edge, [&](G& g) { return g.find_edge(id); }); }
template <class Base>
std::vector<Edge> Forwarding<Base>::find_edges_by_label(std::string_view label, const Properties& filter, const Page& page) { return forward(O::find_edges_by_label, [&](G& g) { return g.find_edges_by_label(label, filter, page); }); }
template <class Base>
std::vector<Edge> Forwarding<Base>::incident_edges(const ElementId& vertex, const EdgeQuery& query) { return forward(O::incident_edges, [&](G& g) { return g.incident_edges(vertex, query); }); }
template <class Base>
std::optional<Edge> Forwarding<Base>::update_edge(std::string_view label, const ElementId& id, const Properties& properties) { return forward(O::update_edge, [&](G& g) { return g.update_edge(label, id, properties); }); }
template <class Base>
bool Forwarding<Base>::delete_edge(std::string_view label, const ElementId& id) { return forward(O::delete_edge, [&](G& g) { return g.delete_edge(label, id); }); }
template <class Base>
std::int64_t Forwarding<Base>::count_edges(std::string_view label) { return forward(O::count_edges, [&](G& g) { return g.count_edges(label); }); }
template <class Base>
std::int64_t Forwarding<Base>::count_edges() { return forward(O::count_edges, [&](G& g) { return g.count_edges(); }); }

template <class Base>
bool Forwarding<Base>::create_index(std::string_view label, std::string_view key, const IndexOptions& options) { return forward(O::create_index, [&](G& g) { return g.create_index(label, key, options); }); }
template <class Base>
bool Forwarding<Base>::drop_index(std::string_view label, std::string_view key) { return forward(O::drop_index, [&](G& g) { return g.drop_index(label, key); }); }
template <class Base>
std::vector<IndexInfo> Forwarding<Base>::indexes() { return forward(O::indexes, [&](G& g) { return g.indexes(); }); }

template <class Base>
std::vector<ElementId> Forwarding<Base>::create_vertices(std::span<const NewVertex> vertices) { return forward(O::create_vertices, [&](G& g) { return g.create_vertices(vertices); }); }
template <class Base>
std::vector<ElementId> Forwarding<Base>::create_edges(std::span<const NewEdge> edges) { return forward(O::create_edges, [&](G& g) { return g.create_edges(edges); }); }

template <class Base>
std::vector<Vertex> Forwarding<Base>::neighbors(const ElementId& start, const NeighborOptions& options) { return forward(O::neighbors, [&](G& g) { return g.neighbors(start, options); }); }
template <class Base>
std::optional<Path> Forwarding<Base>::shortest_path(const ElementId& from, const ElementId& to, const PathOptions& options) { return forward(O::shortest_path, [&](G& g) { return g.shortest_path(from, to, options); }); }
template <class Base>
std::vector<Path> Forwarding<Base>::all_paths(const ElementId& from, const ElementId& to, const PathOptions& options) { return forward(O::all_paths, [&](G& g) { return g.all_paths(from, to, options); }); }

template <class Base>
std::vector<PageRankScore> Forwarding<Base>::page_rank(const PageRankOptions& options) { return forward(O::page_rank, [&](G& g) { return g.page_rank(options); }); }
template <class Base>
std::optional<Degree> Forwarding<Base>::degree_centrality(const ElementId& id, const DegreeOptions& options) { return forward(O::degree_centrality, [&](G& g) { return g.degree_centrality(id, options); }); }
template <class Base>
std::vector<Component> Forwarding<Base>::connected_components(const ComponentOptions& options) { return forward(O::connected_components, [&](G& g) { return g.connected_components(options); }); }
template <class Base>
std::vector<Visit> Forwarding<Base>::bfs(const ElementId& start, const TraversalOptions& options) { return forward(O::bfs, [&](G& g) { return g.bfs(start, options); }); }
template <class Base>
std::vector<Visit> Forwarding<Base>::dfs(const ElementId& start, const TraversalOptions& options) { return forward(O::dfs, [&](G& g) { return g.dfs(start, options); }); }
template <class Base>
std::vector<Cycle> Forwarding<Base>::detect_cycles(const CycleOptions& options) { return forward(O::detect_cycles, [&](G& g) { return g.detect_cycles(options); }); }

template class Forwarding<GraphOperations>;
template class Forwarding<Transaction>;

}  // namespace detail

GraphDecorator::GraphDecorator(std::shared_ptr<GraphOperations> inner)
    : Forwarding(inner ? *inner : throw InvalidArgument("GraphDecorator: null inner graph")), owner_(std::move(inner)) {}

void GraphDecorator::around(Operation, CallRef call) { call(); }

/// The inner graph's transaction, with every call (commit and rollback included) going through
/// the decorator's around().
class DecoratedTransaction final : public detail::Forwarding<Transaction> {
 public:
  DecoratedTransaction(GraphDecorator& decorator, std::unique_ptr<Transaction> tx) noexcept
      : Forwarding(*tx), decorator_(decorator), tx_(std::move(tx)) {}
  ~DecoratedTransaction() override = default;  // the inner transaction rolls back if still open

  void commit() override {
    forward(Operation::commit, [&](GraphOperations&) {
      tx_->commit();
      return true;
    });
  }
  void rollback() override {
    if (!tx_->is_open()) return;
    forward(Operation::rollback, [&](GraphOperations&) {
      tx_->rollback();
      return true;
    });
  }
  [[nodiscard]] bool is_open() const noexcept override { return tx_->is_open(); }

 protected:
  void around(Operation op, CallRef call) override { decorator_.around(op, call); }

 private:
  GraphDecorator& decorator_;
  std::unique_ptr<Transaction> tx_;
};

std::unique_ptr<Transaction> GraphDecorator::begin() {
  auto tx = forward(Operation::begin, [](GraphOperations& g) { return g.begin(); });
  return std::make_unique<DecoratedTransaction>(*this, std::move(tx));
}

}  // namespace propgraph
