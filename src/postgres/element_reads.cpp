// PostgresGraph: reads of elements (lookups, label scans with filters and pages, counts, incident
// edges).

#include <algorithm>
#include <limits>

#include "postgres/graph_impl.hpp"
#include "postgres/json_codec.hpp"

namespace propgraph {

// -- statement arguments -------------------------------------------------------------------

Filter PostgresGraph::Impl::filter(std::string_view label, const Properties& filter) {
  Filter f;
  if (filter.empty()) return f;
  Properties present;
  std::vector<std::string_view> absent;
  bool lists = false;
  for (const auto& [key, value] : filter) {
    if (value.is_null()) {
      // No stored key holds a NUL character: such a key is always absent.
      if (key.find('\0') == std::string::npos) absent.push_back(key);
    } else {
      if (contains_nan(value)) f.matches_nothing = true;  // NaN equals nothing
      lists = lists || value.is_list();
      present.set(key, comparable(value));
    }
  }
  try {
    f.contained = encode_properties(present);
  } catch (const InvalidArgument&) {
    f.matches_nothing = true;  // a NUL character: no stored key or value holds one
    return f;
  }
  f.absent = text_array(absent);
  f.shape = lists ? FilterShape::with_lists : FilterShape::scalars;
  if (!f.matches_nothing) {
    f.indexed = indexes().usable_for(label, filter);
    if (f.indexed) append_json(f.indexed_value, comparable(filter[f.indexed->key]));
  }
  return f;
}

PageArgs PostgresGraph::Impl::page(const Page& page, IdKind kind) const {
  PageArgs p;
  if (page.after) {
    auto bound = ids->rows_after(*page.after, kind);
    if (!bound) return PageArgs{.empty = true};
    p.after = decimal(*bound);
  }
  if (page.limit != 0) {
    p.limit = decimal(static_cast<std::int64_t>(
        std::min<std::size_t>(page.limit, static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max()))));
  }
  return p;
}

ParamList PostgresGraph::Impl::scan_params(std::string_view label, const Filter& f, const PageArgs* page) {
  ParamList p;
  p.text(std::string(label));
  if (f.shape != FilterShape::none) p.text(f.contained).text(f.absent);
  if (f.indexed) p.text(f.indexed_value);
  if (page) {
    p.text(page->after);
    if (page->limit) p.text(*page->limit);
    else p.null();
  }
  return p;
}

std::optional<Result> PostgresGraph::Impl::scan_page(Table table, std::string_view label, const Properties& filter,
                                                     const Page& page) {
  if (!is_valid_label(label)) return std::nullopt;
  const Filter f = this->filter(label, filter);
  const PageArgs p = this->page(page, table == Table::vertices ? kVertexId : kEdgeId);
  if (f.matches_nothing || p.empty) return std::nullopt;
  ParamList params = scan_params(label, f, &p);
  return query(sql->scan(table, f.shape, f.indexed ? &*f.indexed : nullptr, Scan::page), params.view());
}

// -- rows --------------------------------------------------------------------------------

Edge PostgresGraph::Impl::edge_from(const Result& r, int row, ElementId id, std::string label, int from_col) const {
  return Edge{std::move(id), std::move(label), ids->make(kVertexId, r.text(row, from_col)),
              ids->make(kVertexId, r.text(row, from_col + 1)), decode_properties(r.text(row, from_col + 2))};
}

// -- vertices ---------------------------------------------------------------------------------

std::optional<Vertex> PostgresGraph::find_vertex_by_id(std::string_view label, const ElementId& id) {
  if (!is_valid_label(label)) return std::nullopt;
  const auto row = impl_->ids->row(id, kVertexId);
  if (!row) return std::nullopt;
  std::string l(label);
  Result r = impl_->query(impl_->sql->find_vertex, {row->c_str(), l.c_str()});
  if (r.rows() == 0) return std::nullopt;
  return Vertex{id, std::move(l), decode_properties(r.text(0, 0))};
}

std::optional<Vertex> PostgresGraph::find_vertex(const ElementId& id) {
  const auto row = impl_->ids->row(id, kVertexId);
  if (!row) return std::nullopt;
  Result r = impl_->query(impl_->sql->find_vertex_any, {row->c_str()});
  if (r.rows() == 0) return std::nullopt;
  return Vertex{id, std::string(r.text(0, 0)), decode_properties(r.text(0, 1))};
}

std::vector<Vertex> PostgresGraph::find_vertices_by_label(std::string_view label, const Properties& filter,
                                                          const Page& page) {
  const auto found = impl_->scan_page(Table::vertices, label, filter, page);
  if (!found) return {};
  const Result& r = *found;
  const std::string l(label);
  std::vector<Vertex> result;
  result.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    result.push_back(Vertex{impl_->ids->make(kVertexId, r.text(i, 0)), l, decode_properties(r.text(i, 1))});
  }
  return result;
}

std::int64_t PostgresGraph::count_vertices(std::string_view label) {
  if (!is_valid_label(label)) return 0;
  const std::string l(label);
  return impl_->query(impl_->sql->count_vertices, {l.c_str()}).int64(0, 0);
}

std::int64_t PostgresGraph::count_vertices() { return impl_->query(impl_->sql->count_all_vertices, {}).int64(0, 0); }

// -- edges ------------------------------------------------------------------------------------

std::optional<Edge> PostgresGraph::find_edge_by_id(std::string_view label, const ElementId& id) {
  if (!is_valid_label(label)) return std::nullopt;
  const auto row = impl_->ids->row(id, kEdgeId);
  if (!row) return std::nullopt;
  std::string l(label);
  Result r = impl_->query(impl_->sql->find_edge, {row->c_str(), l.c_str()});
  if (r.rows() == 0) return std::nullopt;
  return impl_->edge_from(r, 0, id, std::move(l), 0);
}

std::optional<Edge> PostgresGraph::find_edge(const ElementId& id) {
  const auto row = impl_->ids->row(id, kEdgeId);
  if (!row) return std::nullopt;
  Result r = impl_->query(impl_->sql->find_edge_any, {row->c_str()});
  if (r.rows() == 0) return std::nullopt;
  return impl_->edge_from(r, 0, id, std::string(r.text(0, 0)), 1);
}

std::vector<Edge> PostgresGraph::find_edges_by_label(std::string_view label, const Properties& filter,
                                                     const Page& page) {
  const auto found = impl_->scan_page(Table::edges, label, filter, page);
  if (!found) return {};
  const Result& r = *found;
  const std::string l(label);
  std::vector<Edge> result;
  result.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i)
    result.push_back(impl_->edge_from(r, i, impl_->ids->make(kEdgeId, r.text(i, 0)), l, 1));
  return result;
}

std::vector<Edge> PostgresGraph::incident_edges(const ElementId& vertex, const EdgeQuery& query) {
  const auto row = impl_->ids->row(vertex, kVertexId);
  if (!row) return {};
  const auto label = label_filter(query.edge_label);
  const PageArgs p = impl_->page(query.page, kEdgeId);
  if (p.empty) return {};
  ParamList params;
  params.text(*row).text(p.after);
  if (p.limit) params.text(*p.limit);
  else params.null();
  if (label) params.text(*label);
  Result r = impl_->query(impl_->sql->incident(query.direction, label.has_value()), params.view());
  std::vector<Edge> result;
  result.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    result.push_back(impl_->edge_from(r, i, impl_->ids->make(kEdgeId, r.text(i, 0)), std::string(r.text(i, 1)), 2));
  }
  return result;
}

std::int64_t PostgresGraph::count_edges(std::string_view label) {
  if (!is_valid_label(label)) return 0;
  const std::string l(label);
  return impl_->query(impl_->sql->count_edges, {l.c_str()}).int64(0, 0);
}

std::int64_t PostgresGraph::count_edges() { return impl_->query(impl_->sql->count_all_edges, {}).int64(0, 0); }

}  // namespace propgraph
