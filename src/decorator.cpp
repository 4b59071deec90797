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
};
}  // namespace

std::string_view to_string(Operation op) noexcept {
  const auto i = static_cast<std::size_t>(op);
  return i < kOperationNames.size() ? kOperationNames[i] : std::string_view("unknown");
}

GraphDecorator::GraphDecorator(std::shared_ptr<GraphOperations> inner) : owner_(std::move(inner)), inner_(owner_.get()) {
  if (inner_ == nullptr) throw InvalidArgument("GraphDecorator: null inner graph");
}

void GraphDecorator::around(Operation, CallRef call) { call(); }

// forward() is defined before its uses so that every instantiation sees it.
template <class Fn>
auto GraphDecorator::forward(Operation op, Fn&& fn) -> std::invoke_result_t<Fn&, GraphOperations&> {
  using R = std::invoke_result_t<Fn&, GraphOperations&>;
  std::optional<R> result;
  auto call = [&] { result.emplace(fn(*inner_)); };
  around(op, CallRef(call));
  if (!result) throw Error(fmt::format("decorator's around({}) returned without running the call", to_string(op)));
  return std::move(*result);
}

using O = Operation;
using G = GraphOperations;

bool GraphDecorator::create_graph(std::string_view name) { return forward(O::create_graph, [&](G& g) { return g.create_graph(name); }); }
bool GraphDecorator::drop_graph(std::string_view name) { return forward(O::drop_graph, [&](G& g) { return g.drop_graph(name); }); }
bool GraphDecorator::graph_exists(std::string_view name) { return forward(O::graph_exists, [&](G& g) { return g.graph_exists(name); }); }
std::vector<std::string> GraphDecorator::vertex_labels() { return forward(O::vertex_labels, [&](G& g) { return g.vertex_labels(); }); }
std::vector<std::string> GraphDecorator::edge_labels() { return forward(O::edge_labels, [&](G& g) { return g.edge_labels(); }); }

Vertex GraphDecorator::create_vertex(std::string_view label, const Properties& properties) { return forward(O::create_vertex, [&](G& g) { return g.create_vertex(label, properties); }); }
std::optional<Vertex> GraphDecorator::find_vertex_by_id(std::string_view label, const ElementId& id) { return forward(O::find_vertex_by_id, [&](G& g) { return g.find_vertex_by_id(label, id); }); }
std::optional<Vertex> GraphDecorator::find_vertex(const ElementId& id) { return forward(O::find_vertex, [&](G& g) { return g.find_vertex(id); }); }
std::vector<Vertex> GraphDecorator::find_vertices_by_label(std::string_view label, const Properties& filter, const Page& page) { return forward(O::find_vertices_by_label, [&](G& g) { return g.find_vertices_by_label(label, filter, page); }); }
std::optional<Vertex> GraphDecorator::update_vertex(std::string_view label, const ElementId& id, const Properties& properties) { return forward(O::update_vertex, [&](G& g) { return g.update_vertex(label, id, properties); }); }
bool GraphDecorator::delete_vertex(std::string_view label, const ElementId& id) { return forward(O::delete_vertex, [&](G& g) { return g.delete_vertex(label, id); }); }
std::int64_t GraphDecorator::count_vertices(std::string_view label) { return forward(O::count_vertices, [&](G& g) { return g.count_vertices(label); }); }
std::int64_t GraphDecorator::count_vertices() { return forward(O::count_vertices, [&](G& g) { return g.count_vertices(); }); }
Upserted GraphDecorator::upsert_vertex(std::string_view label, const Properties& match, const Properties& properties) { return forward(O::upsert_vertex, [&](G& g) { return g.upsert_vertex(label, match, properties); }); }

Edge GraphDecorator::create_edge(const ElementId& from, const ElementId& to, std::string_view label, const Properties& properties) { return forward(O::create_edge, [&](G& g) { return g.create_edge(from, to, label, properties); }); }
std::optional<Edge> GraphDecorator::find_edge_by_id(std::string_view label, const ElementId& id) { return forward(O::find_edge_by_id, [&](G& g) { return g.find_edge_by_id(label, id); }); }
std::optional<Edge> GraphDecorator::find_edge(const ElementId& id) { return forward(O::find_edge, [&](G& g) { return g.find_edge(id); }); }
std::vector<Edge> GraphDecorator::find_edges_by_label(std::string_view label, const Properties& filter, const Page& page) { return forward(O::find_edges_by_label, [&](G& g) { return g.find_edges_by_label(label, filter, page); }); }
std::vector<Edge> GraphDecorator::incident_edges(const ElementId& vertex, const EdgeQuery& query) { return forward(O::incident_edges, [&](G& g) { return g.incident_edges(vertex, query); }); }
std::optional<Edge> GraphDecorator::update_edge(std::string_view label, const ElementId& id, const Properties& properties) { return forward(O::update_edge, [&](G& g) { return g.update_edge(label, id, properties); }); }
bool GraphDecorator::delete_edge(std::string_view label, const ElementId& id) { return forward(O::delete_edge, [&](G& g) { return g.delete_edge(label, id); }); }
std::int64_t GraphDecorator::count_edges(std::string_view label) { return forward(O::count_edges, [&](G& g) { return g.count_edges(label); }); }
std::int64_t GraphDecorator::count_edges() { return forward(O::count_edges, [&](G& g) { return g.count_edges(); }); }

bool GraphDecorator::create_index(std::string_view label, std::string_view key, const IndexOptions& options) { return forward(O::create_index, [&](G& g) { return g.create_index(label, key, options); }); }
bool GraphDecorator::drop_index(std::string_view label, std::string_view key) { return forward(O::drop_index, [&](G& g) { return g.drop_index(label, key); }); }
std::vector<IndexInfo> GraphDecorator::indexes() { return forward(O::indexes, [&](G& g) { return g.indexes(); }); }

std::vector<ElementId> GraphDecorator::create_vertices(std::span<const NewVertex> vertices) { return forward(O::create_vertices, [&](G& g) { return g.create_vertices(vertices); }); }
std::vector<ElementId> GraphDecorator::create_edges(std::span<const NewEdge> edges) { return forward(O::create_edges, [&](G& g) { return g.create_edges(edges); }); }

std::vector<Vertex> GraphDecorator::neighbors(const ElementId& start, const NeighborOptions& options) { return forward(O::neighbors, [&](G& g) { return g.neighbors(start, options); }); }
std::optional<Path> GraphDecorator::shortest_path(const ElementId& from, const ElementId& to, const PathOptions& options) { return forward(O::shortest_path, [&](G& g) { return g.shortest_path(from, to, options); }); }
std::vector<Path> GraphDecorator::all_paths(const ElementId& from, const ElementId& to, const PathOptions& options) { return forward(O::all_paths, [&](G& g) { return g.all_paths(from, to, options); }); }

std::vector<PageRankScore> GraphDecorator::page_rank(const PageRankOptions& options) { return forward(O::page_rank, [&](G& g) { return g.page_rank(options); }); }
std::optional<Degree> GraphDecorator::degree_centrality(const ElementId& id, const DegreeOptions& options) { return forward(O::degree_centrality, [&](G& g) { return g.degree_centrality(id, options); }); }
std::vector<Component> GraphDecorator::connected_components(const ComponentOptions& options) { return forward(O::connected_components, [&](G& g) { return g.connected_components(options); }); }
std::vector<Visit> GraphDecorator::bfs(const ElementId& start, const TraversalOptions& options) { return forward(O::bfs, [&](G& g) { return g.bfs(start, options); }); }
std::vector<Visit> GraphDecorator::dfs(const ElementId& start, const TraversalOptions& options) { return forward(O::dfs, [&](G& g) { return g.dfs(start, options); }); }
std::vector<Cycle> GraphDecorator::detect_cycles(const CycleOptions& options) { return forward(O::detect_cycles, [&](G& g) { return g.detect_cycles(options); }); }

}  // namespace propgraph
