#include "postgres/statements.hpp"

#include <fmt/format.h>

namespace propgraph::postgres_detail {

std::string quoted(std::string_view name) { return fmt::format("\"{}\"", name); }

// -- catalog ----------------------------------------------------------------------------------

CatalogSql::CatalogSql(const std::string& schema) : catalog_schema(schema) {
  const std::string graphs = quoted(schema) + ".graphs";
  catalog_exists = fmt::format("SELECT to_regclass('{}') IS NOT NULL", graphs);
  create_schema = fmt::format("CREATE SCHEMA IF NOT EXISTS {}", quoted(schema));
  create_table = fmt::format(
      "CREATE TABLE IF NOT EXISTS {} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
      "name text COLLATE \"C\" NOT NULL UNIQUE)",
      graphs);
  lock = "SELECT pg_advisory_xact_lock(hashtext('propgraph catalog ' || $1::text))";
  insert_graph = fmt::format("INSERT INTO {} (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING id", graphs);
  delete_graph = fmt::format("DELETE FROM {} WHERE name = $1 RETURNING id", graphs);
  graph_id = fmt::format("SELECT id FROM {} WHERE name = $1", graphs);
}

std::string CatalogSql::graph_schema(std::int64_t id) const { return fmt::format("{}_g{}", catalog_schema, id); }

std::vector<std::string> CatalogSql::create_graph_ddl(std::int64_t id) const {
  const std::string s = quoted(graph_schema(id));
  return {
      fmt::format("CREATE SCHEMA {}", s),
      fmt::format("CREATE TABLE {}.vertices (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                  "label text COLLATE \"C\" NOT NULL, properties jsonb NOT NULL DEFAULT '{{}}')",
                  s),
      fmt::format("CREATE TABLE {0}.edges (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                  "label text COLLATE \"C\" NOT NULL, "
                  "from_id bigint NOT NULL REFERENCES {0}.vertices (id) ON DELETE CASCADE, "
                  "to_id bigint NOT NULL REFERENCES {0}.vertices (id) ON DELETE CASCADE, "
                  "properties jsonb NOT NULL DEFAULT '{{}}')",
                  s),
      fmt::format("CREATE INDEX ON {}.vertices (label, id)", s),
      fmt::format("CREATE INDEX ON {}.vertices USING gin (properties jsonb_path_ops)", s),
      fmt::format("CREATE INDEX ON {}.edges (label, id)", s),
      fmt::format("CREATE INDEX ON {}.edges (from_id, id)", s),
      fmt::format("CREATE INDEX ON {}.edges (to_id, id)", s),
      fmt::format("CREATE INDEX ON {}.edges USING gin (properties jsonb_path_ops)", s),
  };
}

std::string CatalogSql::drop_graph_ddl(std::int64_t id) const {
  return fmt::format("DROP SCHEMA IF EXISTS {} CASCADE", quoted(graph_schema(id)));
}

// -- one graph --------------------------------------------------------------------------------

namespace {

/// Distinct labels by a loose index scan over (label, id): one index probe per label instead
/// of reading every row. The label columns use the "C" collation, so the order is bytewise.
std::string distinct_labels(const std::string& table) {
  return fmt::format(
      "WITH RECURSIVE l(label) AS ((SELECT label FROM {0} ORDER BY label LIMIT 1) UNION ALL "
      "SELECT (SELECT t.label FROM {0} t WHERE t.label > l.label ORDER BY t.label LIMIT 1) "
      "FROM l WHERE l.label IS NOT NULL) "
      "SELECT label FROM l WHERE label IS NOT NULL",
      table);
}

std::string filtered(std::string_view select, FilterShape shape) {
  std::string sql(select);
  sql += " WHERE label = $1";
  if (shape != FilterShape::none) {
    // Containment uses the GIN index and is exact for scalars (doubles are wrapped objects);
    // lists additionally need equality, as containment ignores order and extra elements.
    sql += " AND properties @> $2::jsonb AND NOT (properties ?| $3::text[])";
  }
  if (shape == FilterShape::with_lists) {
    sql += " AND NOT EXISTS (SELECT 1 FROM jsonb_each($2::jsonb) AS f (key, value) "
           "WHERE jsonb_typeof(f.value) = 'array' AND properties -> f.key <> f.value)";
  }
  sql += " ORDER BY id";
  return sql;
}

}  // namespace

GraphSql::GraphSql(const std::string& schema)
    : vertices_(quoted(schema) + ".vertices"), edges_(quoted(schema) + ".edges") {
  const auto& V = vertices_;
  const auto& E = edges_;
  vertex_labels = distinct_labels(V);
  edge_labels = distinct_labels(E);
  truncate = fmt::format("TRUNCATE {}, {}", E, V);

  insert_vertex = fmt::format("INSERT INTO {} (label, properties) VALUES ($1, $2::jsonb) RETURNING id", V);
  find_vertex = fmt::format("SELECT properties FROM {} WHERE id = $1::bigint AND label = $2", V);
  update_vertex = fmt::format(
      "UPDATE {} SET properties = (properties || $3::jsonb) - $4::text[] "
      "WHERE id = $1::bigint AND label = $2 RETURNING properties",
      V);
  delete_vertex = fmt::format("DELETE FROM {} WHERE id = $1::bigint AND label = $2", V);
  count_vertices = fmt::format("SELECT count(*) FROM {} WHERE label = $1", V);

  // One statement: checks both endpoints, inserts only when both exist, reports which exist.
  insert_edge = fmt::format(
      "WITH endpoints AS (SELECT (SELECT id FROM {0} WHERE id = $1::bigint) AS from_id, "
      "(SELECT id FROM {0} WHERE id = $2::bigint) AS to_id), "
      "inserted AS (INSERT INTO {1} (label, from_id, to_id, properties) "
      "SELECT $3, from_id, to_id, $4::jsonb FROM endpoints "
      "WHERE from_id IS NOT NULL AND to_id IS NOT NULL RETURNING id) "
      "SELECT (SELECT id FROM inserted), from_id IS NOT NULL, to_id IS NOT NULL FROM endpoints",
      V, E);
  find_edge = fmt::format("SELECT from_id, to_id, properties FROM {} WHERE id = $1::bigint AND label = $2", E);
  update_edge = fmt::format(
      "UPDATE {} SET properties = (properties || $3::jsonb) - $4::text[] "
      "WHERE id = $1::bigint AND label = $2 RETURNING from_id, to_id, properties",
      E);
  delete_edge = fmt::format("DELETE FROM {} WHERE id = $1::bigint AND label = $2", E);
  count_edges = fmt::format("SELECT count(*) FROM {} WHERE label = $1", E);

  const auto degree_sql = [&](std::string_view label_condition) {
    return fmt::format(
        "SELECT (SELECT count(*) FROM {1} e WHERE e.to_id = v.id{2}), "
        "(SELECT count(*) FROM {1} e WHERE e.from_id = v.id{2}) FROM {0} v WHERE v.id = $1::bigint",
        V, E, label_condition);
  };
  degree = degree_sql("");
  degree_labeled = degree_sql(" AND e.label = $2");

  for (auto shape : {FilterShape::none, FilterShape::scalars, FilterShape::with_lists}) {
    find_vertices_[static_cast<int>(shape)] = filtered(fmt::format("SELECT id, properties FROM {}", V), shape);
    find_edges_[static_cast<int>(shape)] =
        filtered(fmt::format("SELECT id, from_id, to_id, properties FROM {}", E), shape);
  }
}

const std::string& GraphSql::find_vertices(FilterShape shape) const { return find_vertices_[static_cast<int>(shape)]; }
const std::string& GraphSql::find_edges(FilterShape shape) const { return find_edges_[static_cast<int>(shape)]; }

std::string GraphSql::expand(Direction direction, const std::string& label_param) const {
  const std::string label = label_param.empty() ? "" : " AND e.label = " + label_param;
  const std::string out = fmt::format("SELECT e.to_id AS id FROM {} e WHERE e.from_id = w.id{}", edges_, label);
  const std::string in = fmt::format("SELECT e.from_id AS id FROM {} e WHERE e.to_id = w.id{}", edges_, label);
  switch (direction) {
    case Direction::out: return out;
    case Direction::in: return in;
    case Direction::both: break;
  }
  return out + " UNION ALL " + in;
}

std::string GraphSql::neighbors(Direction direction, bool labeled) const {
  // UNION removes repeated (vertex, depth) rows, so each level holds each vertex once.
  return fmt::format(
      "WITH RECURSIVE walk (id, depth) AS ("
      "SELECT id, 0 FROM {0} WHERE id = $1::bigint "
      "UNION SELECT n.id, w.depth + 1 FROM walk w CROSS JOIN LATERAL ({1}) AS n WHERE w.depth < $2::int) "
      "SELECT v.id, v.label, v.properties FROM {0} v "
      "WHERE v.id IN (SELECT id FROM walk) AND v.id <> $1::bigint ORDER BY v.id",
      vertices_, expand(direction, labeled ? "$3" : ""));
}

std::string GraphSql::reachable(Direction direction, bool labeled, bool bounded) const {
  const std::string label_param = labeled ? (bounded ? "$3" : "$2") : "";
  const std::string label = labeled ? " AND e.label = " + label_param : "";
  std::string walk;
  std::string near;  // vertices whose edges belong to the subgraph
  if (bounded) {
    walk = fmt::format(
        "walk (id, depth) AS (SELECT id, 0 FROM {0} WHERE id = $1::bigint "
        "UNION SELECT n.id, w.depth + 1 FROM walk w CROSS JOIN LATERAL ({1}) AS n WHERE w.depth < $2::int), "
        "reached AS (SELECT id, min(depth) AS depth FROM walk GROUP BY id), ",
        vertices_, expand(direction, label_param));
    near = "(SELECT id FROM reached WHERE depth < $2::int)";
  } else {
    walk = fmt::format(
        "walk (id) AS (SELECT id FROM {0} WHERE id = $1::bigint "
        "UNION SELECT n.id FROM walk w CROSS JOIN LATERAL ({1}) AS n), "
        "reached AS (SELECT id FROM walk), ",
        vertices_, expand(direction, label_param));
    near = "(SELECT id FROM reached)";
  }
  const std::string out_edges = fmt::format("SELECT e.id FROM {} e WHERE e.from_id IN {}{}", edges_, near, label);
  const std::string in_edges = fmt::format("SELECT e.id FROM {} e WHERE e.to_id IN {}{}", edges_, near, label);
  std::string picked;
  switch (direction) {
    case Direction::out: picked = out_edges; break;
    case Direction::in: picked = in_edges; break;
    case Direction::both: picked = out_edges + " UNION " + in_edges; break;
  }
  return fmt::format(
      "WITH RECURSIVE {0}picked AS ({1}) "
      "SELECT 0 AS kind, v.id, v.label, NULL::bigint AS from_id, NULL::bigint AS to_id, v.properties "
      "FROM {2} v WHERE v.id IN (SELECT id FROM reached) "
      "UNION ALL SELECT 1, e.id, e.label, e.from_id, e.to_id, e.properties "
      "FROM {3} e WHERE e.id IN (SELECT id FROM picked) ORDER BY kind, id",
      walk, picked, vertices_, edges_);
}

std::string GraphSql::whole(bool vertex_labeled, bool edge_labeled, bool edge_properties) const {
  std::string sql = fmt::format(
      "SELECT 0 AS kind, v.id, v.label, NULL::bigint AS from_id, NULL::bigint AS to_id, v.properties FROM {} v{} "
      "UNION ALL SELECT 1, e.id, e.label, e.from_id, e.to_id, {} FROM {} e",
      vertices_, vertex_labeled ? " WHERE v.label = $1" : "", edge_properties ? "e.properties" : "'{}'::jsonb",
      edges_);
  if (vertex_labeled) {
    sql += fmt::format(" JOIN {0} f ON f.id = e.from_id AND f.label = $1 JOIN {0} t ON t.id = e.to_id AND t.label = $1",
                       vertices_);
  }
  if (edge_labeled) sql += fmt::format(" WHERE e.label = ${}", vertex_labeled ? 2 : 1);
  sql += " ORDER BY kind, id";
  return sql;
}

}  // namespace propgraph::postgres_detail
