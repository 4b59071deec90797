// PostgresGraph: traversals and algorithms. Subgraphs are loaded through COPY and handed to
// MemoryGraph's own algorithms; neighbors within a few hops is one recursive CTE.

#include <algorithm>
#include <iterator>

#include "postgres/copy_binary.hpp"
#include "postgres/graph_impl.hpp"
#include "postgres/json_codec.hpp"
#include "propgraph/backend/query_executor.hpp"

namespace propgraph {

namespace {

/// Traversals deeper than this fetch everything reachable instead of using the depth-bounded
/// CTE: that CTE may expand a vertex once per depth at which a walk reaches it, so its cost
/// grows with max_depth, while the reachable set is fetched with each vertex expanded once.
constexpr int kMaxCteDepth = 10;

/// The elements of an ascending-id result that `page` selects.
template <typename T>
std::vector<T> paged(std::vector<T> all, const Page& page) {
  auto first = all.begin();
  if (page.after) {
    first = std::partition_point(all.begin(), all.end(), [&](const T& e) { return !(*page.after < e.id); });
  }
  auto last = all.end();
  if (page.limit != 0 && static_cast<std::size_t>(last - first) > page.limit)
    last = first + static_cast<std::ptrdiff_t>(page.limit);
  return std::vector<T>(std::make_move_iterator(first), std::make_move_iterator(last));
}

}  // namespace

// -- subgraphs --------------------------------------------------------------------------------

backend::Subgraph PostgresGraph::Impl::load(const std::string& select, bool edge_records,
                                            const std::string* weight_key) {
  return read([&](Connection& c) {
    backend::Subgraph sub(*naming);
    CopyReader reader;
    std::vector<CopyField> f;
    DeadlineTicker<4096> ticker("PostgresGraph");
    c.copy_out(GraphSql::copy_to(select), [&](std::string_view message) {
      if (!reader.row(message, f, 6)) return;
      ticker.tick();
      if (f[0].int8() == 0) {
        sub.add_vertex(f[1].int8(), f[2].bytes, std::string(f[5].jsonb()));
      } else {
        sub.add_edge(f[1].int8(), f[3].int8(), f[4].int8(), f[2].bytes,
                     f[5].null ? std::string("{}") : std::string(f[5].jsonb()), edge_records, weight_key);
      }
    });
    return sub;
  });
}

backend::Subgraph PostgresGraph::Impl::reachable(const ElementId& start, Direction direction,
                                                 const std::optional<std::string>& edge_label, int max_depth,
                                                 const std::string* weight_key) {
  const auto start_row = ids->row(start, kVertexId);
  if (!start_row) return backend::Subgraph(*naming);
  const bool bounded = max_depth >= 0 && max_depth <= kMaxCteDepth;
  return load(sql->reachable(direction, label_filter(edge_label), std::stoll(*start_row),
                             bounded ? std::optional<int>(max_depth) : std::nullopt),
              true, weight_key);
}

backend::Subgraph PostgresGraph::Impl::whole(const std::optional<std::string>& vertex_label,
                                             const std::optional<std::string>& edge_label, bool edge_records) {
  return load(sql->whole(label_filter(vertex_label), label_filter(edge_label), edge_records), edge_records);
}

// -- traversal --------------------------------------------------------------------------------

std::vector<Vertex> PostgresGraph::neighbors(const ElementId& start, const NeighborOptions& options) {
  validate(options);
  if (options.max_depth > kMaxCteDepth) {
    backend::Subgraph sub = impl_->reachable(start, options.direction, options.edge_label, options.max_depth);
    NeighborOptions unpaged = options;
    unpaged.page = {};
    return paged(sub.vertices(sub.graph().neighbors(sub.memory_vertex(start), unpaged)), options.page);
  }
  const auto row = impl_->ids->row(start, kVertexId);
  if (!row) return {};
  const auto label = label_filter(options.edge_label);
  const PageArgs p = impl_->page(options.page, kVertexId);
  if (p.empty) return {};
  ParamList params;
  params.text(*row).integer(options.max_depth).text(p.after);
  if (p.limit) params.text(*p.limit);
  else params.null();
  if (label) params.text(*label);
  Result r = impl_->query(impl_->sql->neighbors(options.direction, label.has_value()), params.view());
  std::vector<Vertex> result;
  result.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    result.push_back(
        Vertex{impl_->ids->make(kVertexId, r.text(i, 0)), std::string(r.text(i, 1)), decode_properties(r.text(i, 2))});
  }
  return result;
}

std::optional<Path> PostgresGraph::shortest_path(const ElementId& from, const ElementId& to,
                                                 const PathOptions& options) {
  validate(options);
  const std::string* weight = options.weight_property ? &*options.weight_property : nullptr;
  // A weighted search is not bounded by max_depth: it needs everything reachable.
  const int depth = weight ? -1 : options.max_depth;
  backend::Subgraph sub = impl_->reachable(from, options.direction, options.edge_label, depth, weight);
  try {
    auto path = sub.graph().shortest_path(sub.memory_vertex(from), sub.memory_vertex(to), options);
    if (!path) return std::nullopt;
    return sub.path(*path);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(sub.translate_ids(e.what()));  // name the database's edge ids
  }
}

std::vector<Path> PostgresGraph::all_paths(const ElementId& from, const ElementId& to, const PathOptions& options) {
  validate(options);
  backend::Subgraph sub = impl_->reachable(from, options.direction, options.edge_label, options.max_depth);
  return sub.paths(sub.graph().all_paths(sub.memory_vertex(from), sub.memory_vertex(to), options));
}

// -- algorithms -------------------------------------------------------------------------------

std::vector<PageRankScore> PostgresGraph::page_rank(const PageRankOptions& options) {
  validate(options);
  backend::Subgraph sub = impl_->whole(options.vertex_label, options.edge_label, false);
  return sub.scores(sub.graph().page_rank(options));
}

std::optional<Degree> PostgresGraph::degree_centrality(const ElementId& id, const DegreeOptions& options) {
  const auto row = impl_->ids->row(id, kVertexId);
  if (!row) return std::nullopt;
  const auto label = label_filter(options.edge_label);
  Result r = label ? impl_->query(impl_->sql->degree_labeled, {row->c_str(), label->c_str()})
                   : impl_->query(impl_->sql->degree, {row->c_str()});
  if (r.rows() == 0) return std::nullopt;
  Degree d{id, 0, 0};
  if (options.direction != Direction::out) d.in = r.int64(0, 0);
  if (options.direction != Direction::in) d.out = r.int64(0, 1);
  return d;
}

std::vector<Component> PostgresGraph::connected_components(const ComponentOptions& options) {
  backend::Subgraph sub = impl_->whole(options.vertex_label, options.edge_label, false);
  return sub.components(sub.graph().connected_components(options));
}

backend::Subgraph PostgresGraph::Impl::traversed(const ElementId& start, const TraversalOptions& options) {
  if (options.max_vertices == 0) return backend::Subgraph(*naming);
  return reachable(start, options.direction, options.edge_label, options.max_depth);
}

std::vector<Visit> PostgresGraph::bfs(const ElementId& start, const TraversalOptions& options) {
  validate(options);
  backend::Subgraph sub = impl_->traversed(start, options);
  return sub.visits(sub.graph().bfs(sub.memory_vertex(start), options));
}

std::vector<Visit> PostgresGraph::dfs(const ElementId& start, const TraversalOptions& options) {
  validate(options);
  backend::Subgraph sub = impl_->traversed(start, options);
  return sub.visits(sub.graph().dfs(sub.memory_vertex(start), options));
}

std::vector<Cycle> PostgresGraph::detect_cycles(const CycleOptions& options) {
  validate(options);
  backend::Subgraph sub = impl_->whole(options.vertex_label, options.edge_label, true);
  return sub.cycles(sub.graph().detect_cycles(options));
}

// The generic executor for now: one round trip per call it makes.
QueryResult PostgresGraph::query(const Query& statement, const Parameters& parameters) {
  return backend::execute_query(*this, statement, parameters);
}

}  // namespace propgraph
