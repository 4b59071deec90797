// The SQL that PostgresGraph sends. Only two things are ever spliced into statement text: the
// schema names, built from the validated catalog_schema option and an integer graph number,
// and fixed fragments chosen by option flags. Labels, property keys, values and ids are always
// parameters.
#pragma once

#include <string>
#include <vector>

#include "propgraph/model.hpp"

namespace propgraph::postgres_detail {

/// `"name"`: a double-quoted identifier (names here are validated labels, so no escaping).
[[nodiscard]] std::string quoted(std::string_view name);

/// The catalog's statements.
struct CatalogSql {
  explicit CatalogSql(const std::string& catalog_schema);
  std::string catalog_exists;  // -> regclass or NULL
  std::string create_schema;
  std::string create_table;
  std::string lock;            // $1 catalog name: serialises catalog changes (transaction lock)
  std::string insert_graph;    // $1 name -> id, no row when it exists
  std::string delete_graph;    // $1 name -> id of the deleted entry
  std::string graph_id;        // $1 name -> id
  std::string catalog_schema;  // unquoted
  /// Unquoted schema name of graph `id`.
  [[nodiscard]] std::string graph_schema(std::int64_t id) const;
  /// DDL creating graph `id`'s schema, tables and indexes, in order.
  [[nodiscard]] std::vector<std::string> create_graph_ddl(std::int64_t id) const;
  [[nodiscard]] std::string drop_graph_ddl(std::int64_t id) const;
};

/// How a property filter is checked: which parameters the statement takes.
enum class FilterShape { none, scalars, with_lists };

/// Statements over one graph's tables.
struct GraphSql {
  explicit GraphSql(const std::string& schema);

  std::string vertex_labels, edge_labels, truncate;
  std::string insert_vertex, find_vertex, update_vertex, delete_vertex, count_vertices;
  std::string insert_edge, find_edge, update_edge, delete_edge, count_edges;
  std::string degree, degree_labeled;

  /// Label scan with a filter of the given shape: $1 label[, $2 contained jsonb, $3 absent
  /// keys text[]]; vertices: id, properties; edges: id, from_id, to_id, properties.
  [[nodiscard]] const std::string& find_vertices(FilterShape shape) const;
  [[nodiscard]] const std::string& find_edges(FilterShape shape) const;

  /// neighbors: $1 start, $2 max_depth[, $3 edge label] -> id, label, properties by id.
  [[nodiscard]] std::string neighbors(Direction direction, bool labeled) const;
  /// The subgraph within max_depth hops along direction: $1 start, $2 max_depth[, $3 label];
  /// unbounded (everything reachable): $1 start[, $2 label]. Rows: kind (0 vertex, 1 edge),
  /// id, label, from_id, to_id, properties; vertices then edges, each by id.
  [[nodiscard]] std::string reachable(Direction direction, bool labeled, bool bounded) const;
  /// All vertices [with label $1] and the edges between them [with label $1 or $2].
  [[nodiscard]] std::string whole(bool vertex_labeled, bool edge_labeled, bool edge_properties) const;

 private:
  std::string vertices_, edges_;  // quoted, schema-qualified table names
  std::string find_vertices_[3], find_edges_[3];
  [[nodiscard]] std::string expand(Direction direction, const std::string& label_param) const;
};

}  // namespace propgraph::postgres_detail
