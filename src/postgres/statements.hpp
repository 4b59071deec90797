// The SQL that PostgresGraph sends. Labels, property keys, values and ids travel as parameters,
// with two exceptions that are spliced into statement text: schema names (built from the
// validated catalog_schema option and an integer graph number) and, for property indexes, the
// indexed label and key. An index is a partial expression index, and PostgreSQL matches an
// index to a query only when the query spells the same expression and predicate with
// constants: the label is a validated label ([A-Za-z0-9_]) and the key is written as an
// escaped string literal (sql_literal), so neither can change the statement's meaning.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "propgraph/model.hpp"

namespace propgraph::postgres_detail {

/// `"name"`: a double-quoted identifier (names here are validated labels, so no escaping).
[[nodiscard]] std::string quoted(std::string_view name);
/// `E'text'`: a string literal with quotes and backslashes escaped, read the same whatever
/// standard_conforming_strings says. `text` must not hold a NUL character.
[[nodiscard]] std::string sql_literal(std::string_view text);

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

/// A property index a statement should use: its label and key (see the file comment).
struct IndexedKey {
  std::string label;
  std::string key;
};

/// The two tables of a graph.
enum class Table { vertices, edges };

/// What a filtered label scan returns.
enum class Scan {
  page,        ///< rows by id, paged: ... $after::bigint, $limit::bigint (NULL: no limit)
  lock_first,  ///< the first two rows by id, locked FOR UPDATE (upsert)
  count,       ///< count(*)
};

/// Statements over one graph's tables.
struct GraphSql {
  explicit GraphSql(const std::string& schema);

  std::string vertex_labels, edge_labels, truncate;

  std::string insert_vertex, find_vertex, find_vertex_any, update_vertex;
  /// $1 id, $2 label: deletes the vertex; the foreign keys' ON DELETE CASCADE deletes its edges.
  std::string delete_vertex;
  /// $1 bigint[] of vertex ids -> those that do not exist: a bulk write's endpoint check in
  /// rebuild mode, and locating its missing endpoint after the foreign key refused it.
  std::string missing_vertices;
  // Graphs created by versions without the foreign keys get them when opened (one transaction):
  std::string foreign_keys;           ///< -> how many ON DELETE CASCADE foreign keys edges has
  std::string lock_for_foreign_keys;  ///< holds off writers until the keys are in place
  std::string delete_dangling_edges;  ///< edges whose endpoint is gone: what delete_vertex missed
  std::string add_foreign_keys;       ///< adds both keys (validating every edge)
  // Bulk edge loads that rebuild the edges' plain indexes and foreign keys instead of
  // maintaining them row by row (PostgresOptions::bulk_rebuild_min_edges):
  /// $1 bigint n -> whether the role owns the tables, min(edge count, n + 1), how many of the
  /// two foreign keys exist
  std::string rebuild_check;
  /// both tables ACCESS EXCLUSIVE, NOWAIT (55P03 when another transaction holds either)
  std::string lock_for_rebuild;
  /// -> name, definition of edges' non-unique column indexes (no expression, no predicate)
  std::string plain_edge_indexes;
  std::string drop_foreign_keys;  ///< drops both keys
  /// `CONSTRAINT edges_<column>_fkey FOREIGN KEY (<column>) REFERENCES <schema>.vertices (id)
  /// ON DELETE CASCADE`; `schema` unquoted.
  [[nodiscard]] static std::string foreign_key(const std::string& schema, std::string_view column);
  std::string count_vertices, count_all_vertices;
  std::string insert_edge, find_edge, find_edge_any, update_edge, delete_edge, count_edges, count_all_edges;
  std::string degree, degree_labeled;
  /// $1 text: serialises upserts of one (label, match) (transaction-scoped advisory lock).
  std::string upsert_lock;

  // The index catalog: one row per (label, key) with the names of its two PostgreSQL indexes.
  std::string create_index_catalog;  // for graphs created before the catalog existed
  std::string index_catalog_exists;  // -> bool
  std::string lock_indexes;          // serialises index changes of this graph
  std::string list_indexes;          // -> label, key, is_unique, vertex_index, edge_index by label, key
  std::string find_index;            // $1 label, $2 key -> 1
  std::string insert_index;          // $1 label, $2 key, $3 unique, $4 vertex index, $5 edge index
  std::string delete_index;          // $1 label, $2 key -> vertex_index, edge_index
  std::string delete_all_indexes;    // -> vertex_index, edge_index

  /// `(properties -> E'key')`: the expression an index on `key` covers.
  [[nodiscard]] static std::string index_expression(std::string_view key);
  /// The rows an index on (label, key) covers: that label, holding the key, no NaN in its
  /// value (NaN equals nothing, so such values never collide under a unique index).
  [[nodiscard]] static std::string index_predicate(const IndexedKey& index);
  /// CREATE [UNIQUE] INDEX `name` on `table` for `index`.
  [[nodiscard]] std::string create_index(Table table, const std::string& name, const IndexedKey& index,
                                         bool unique) const;
  [[nodiscard]] std::string drop_index(const std::string& name) const;
  /// The first value of `index.key` held by two rows of `table` within the index's predicate:
  /// -> {"v": value} as jsonb text, ids ascending.
  [[nodiscard]] std::string first_duplicate(Table table, const IndexedKey& index) const;

  /// A label scan of `table`. Parameters, in order: $1 label; with a filter, contained jsonb
  /// and absent keys text[]; with `indexed`, the indexed key's value as jsonb; for Scan::page,
  /// after (bigint row id, 0: from the start) and limit (bigint, NULL: no limit).
  /// Rows: vertices id, properties; edges id, from_id, to_id, properties.
  [[nodiscard]] std::string scan(Table table, FilterShape shape, const IndexedKey* indexed, Scan what) const;

  /// incident_edges: $1 vertex, $2 after, $3 limit[, $4 edge label] -> id, label, from_id,
  /// to_id, properties by id; a self-loop once.
  [[nodiscard]] std::string incident(Direction direction, bool labeled) const;
  /// neighbors: $1 start, $2 max_depth, $3 after, $4 limit[, $5 edge label] -> id, label,
  /// properties by id.
  [[nodiscard]] std::string neighbors(Direction direction, bool labeled) const;
  // -- bulk paths (COPY). COPY takes no parameters, so these spell their values as literals:
  // integers, and labels through sql_literal (callers pass validated labels or "").

  /// `n` ($1) fresh row ids of `table`'s identity sequence (not necessarily in order).
  [[nodiscard]] std::string reserve_ids(Table table) const;
  /// COPY `table` FROM STDIN in binary format; vertices (id, label, properties), edges (id,
  /// label, from_id, to_id, properties).
  [[nodiscard]] std::string copy_from(Table table) const;
  /// COPY (select) TO STDOUT in binary format.
  [[nodiscard]] static std::string copy_to(const std::string& select);
  /// Rows of a subgraph: kind (bigint: 0 vertex, 1 edge), id, label, from_id, to_id,
  /// properties (NULL for edges without edge_properties).
  /// reachable: the subgraph within max_depth hops from `start` along `direction`, or
  /// everything reachable without max_depth; vertices then edges, each by id.
  [[nodiscard]] std::string reachable(Direction direction, const std::optional<std::string>& edge_label,
                                      std::int64_t start, std::optional<int> max_depth) const;
  /// whole: every vertex [with vertex_label] and the edges [with edge_label] between them, in
  /// table order (the reader sorts).
  [[nodiscard]] std::string whole(const std::optional<std::string>& vertex_label,
                                  const std::optional<std::string>& edge_label, bool edge_properties) const;

  [[nodiscard]] const std::string& table(Table t) const { return t == Table::vertices ? vertices_ : edges_; }

 private:
  std::string schema_;            // quoted
  std::string vertices_, edges_;  // quoted, schema-qualified table names
  std::string indexes_;           // the index catalog table
  [[nodiscard]] std::string expand(Direction direction, const std::string& label_param) const;
};

}  // namespace propgraph::postgres_detail
