#include "postgres/statements.hpp"

#include <fmt/format.h>

namespace propgraph::postgres_detail {

std::string quoted(std::string_view name) { return fmt::format("\"{}\"", name); }

std::string sql_literal(std::string_view text) {
  std::string out = "E'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

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
      // The foreign keys keep every edge's endpoints: an edge to a missing vertex is refused,
      // and deleting a vertex deletes its edges (see GraphSql::add_foreign_keys).
      fmt::format("CREATE TABLE {0}.edges (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                  "label text COLLATE \"C\" NOT NULL, from_id bigint NOT NULL, to_id bigint NOT NULL, "
                  "properties jsonb NOT NULL DEFAULT '{{}}', {1}, {2})",
                  s, GraphSql::foreign_key(graph_schema(id), "from_id"),
                  GraphSql::foreign_key(graph_schema(id), "to_id")),
      fmt::format("CREATE INDEX ON {}.vertices (label, id)", s),
      // Vertex filters use the GIN index on properties; edge filters scan the label (or use a
      // property index): a GIN index costs an edge write about a sixth more.
      fmt::format("CREATE INDEX ON {}.vertices USING gin (properties jsonb_path_ops)", s),
      fmt::format("CREATE INDEX ON {}.edges (label, id)", s),
      fmt::format("CREATE INDEX ON {}.edges (from_id, id)", s),
      fmt::format("CREATE INDEX ON {}.edges (to_id, id)", s),
      GraphSql(graph_schema(id)).create_index_catalog,
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

}  // namespace

GraphSql::GraphSql(const std::string& schema)
    : schema_(quoted(schema)),
      vertices_(schema_ + ".vertices"),
      edges_(schema_ + ".edges"),
      indexes_(schema_ + ".property_indexes") {
  const auto& V = vertices_;
  const auto& E = edges_;
  vertex_labels = distinct_labels(V);
  edge_labels = distinct_labels(E);
  truncate = fmt::format("TRUNCATE {}, {}", E, V);

  insert_vertex = fmt::format("INSERT INTO {} (label, properties) VALUES ($1, $2::jsonb) RETURNING id", V);
  find_vertex = fmt::format("SELECT properties FROM {} WHERE id = $1::bigint AND label = $2", V);
  find_vertex_any = fmt::format("SELECT label, properties FROM {} WHERE id = $1::bigint", V);
  update_vertex = fmt::format(
      "UPDATE {} SET properties = (properties || $3::jsonb) - $4::text[] "
      "WHERE id = $1::bigint AND label = $2 RETURNING properties",
      V);
  // Edges' endpoints: the foreign keys of edges (from_id, to_id) on vertices, ON DELETE
  // CASCADE. PostgreSQL's referential-integrity triggers check an inserted edge's endpoints
  // (locking them FOR KEY SHARE, which a vertex delete waits for) and delete a deleted vertex's
  // edges with the latest snapshot. Inside a transaction whose snapshot predates an edge or a
  // delete that committed since, either side is a serialization failure, never a dangling edge.
  delete_vertex = fmt::format("DELETE FROM {} WHERE id = $1::bigint AND label = $2", V);
  missing_vertices =
      fmt::format("SELECT x FROM unnest($1::bigint[]) AS x WHERE NOT EXISTS (SELECT 1 FROM {} v WHERE v.id = x)", V);
  foreign_keys = fmt::format(
      "SELECT count(*) FROM pg_constraint WHERE conrelid = {}::regclass AND contype = 'f' AND confdeltype = 'c' "
      "AND confrelid = {}::regclass",
      sql_literal(E), sql_literal(V));
  lock_for_foreign_keys = fmt::format("LOCK TABLE {}, {} IN SHARE ROW EXCLUSIVE MODE", V, E);
  delete_dangling_edges = fmt::format(
      "DELETE FROM {1} e WHERE NOT EXISTS (SELECT 1 FROM {0} v WHERE v.id = e.from_id) "
      "OR NOT EXISTS (SELECT 1 FROM {0} v WHERE v.id = e.to_id)",
      V, E);
  add_foreign_keys =
      fmt::format("ALTER TABLE {} ADD {}, ADD {}", E, foreign_key(schema, "from_id"), foreign_key(schema, "to_id"));
  rebuild_check = fmt::format(
      "SELECT pg_has_role(c.relowner, 'USAGE'), (SELECT count(*) FROM (SELECT FROM {0} LIMIT $1::bigint + 1) t), "
      "(SELECT count(*) FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'f' "
      "AND k.conname IN ('edges_from_id_fkey', 'edges_to_id_fkey')) "
      "FROM pg_class c WHERE c.oid = {1}::regclass",
      E, sql_literal(E));
  lock_for_rebuild = fmt::format("LOCK TABLE {}, {} IN ACCESS EXCLUSIVE MODE NOWAIT", V, E);
  plain_edge_indexes = fmt::format(
      "SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
      "WHERE x.indrelid = {}::regclass AND NOT x.indisunique AND x.indpred IS NULL AND x.indexprs IS NULL "
      "ORDER BY i.relname",
      sql_literal(E));
  drop_foreign_keys =
      fmt::format("ALTER TABLE {} DROP CONSTRAINT edges_from_id_fkey, DROP CONSTRAINT edges_to_id_fkey", E);
  count_vertices = fmt::format("SELECT count(*) FROM {} WHERE label = $1", V);
  count_all_vertices = fmt::format("SELECT count(*) FROM {}", V);

  // One statement: checks both endpoints, inserts only when both exist, reports which exist
  // (the foreign keys check them again, against deletes that committed since the statement's
  // snapshot).
  insert_edge = fmt::format(
      "WITH endpoints AS (SELECT (SELECT id FROM {0} WHERE id = $1::bigint) AS from_id, "
      "(SELECT id FROM {0} WHERE id = $2::bigint) AS to_id), "
      "inserted AS (INSERT INTO {1} (label, from_id, to_id, properties) "
      "SELECT $3, from_id, to_id, $4::jsonb FROM endpoints "
      "WHERE from_id IS NOT NULL AND to_id IS NOT NULL RETURNING id) "
      "SELECT (SELECT id FROM inserted), from_id IS NOT NULL, to_id IS NOT NULL FROM endpoints",
      V, E);
  find_edge = fmt::format("SELECT from_id, to_id, properties FROM {} WHERE id = $1::bigint AND label = $2", E);
  find_edge_any = fmt::format("SELECT label, from_id, to_id, properties FROM {} WHERE id = $1::bigint", E);
  update_edge = fmt::format(
      "UPDATE {} SET properties = (properties || $3::jsonb) - $4::text[] "
      "WHERE id = $1::bigint AND label = $2 RETURNING from_id, to_id, properties",
      E);
  delete_edge = fmt::format("DELETE FROM {} WHERE id = $1::bigint AND label = $2", E);
  count_edges = fmt::format("SELECT count(*) FROM {} WHERE label = $1", E);
  count_all_edges = fmt::format("SELECT count(*) FROM {}", E);

  const auto degree_sql = [&](std::string_view label_condition) {
    return fmt::format(
        "SELECT (SELECT count(*) FROM {1} e WHERE e.to_id = v.id{2}), "
        "(SELECT count(*) FROM {1} e WHERE e.from_id = v.id{2}) FROM {0} v WHERE v.id = $1::bigint",
        V, E, label_condition);
  };
  degree = degree_sql("");
  degree_labeled = degree_sql(" AND e.label = $2");
  upsert_lock = "SELECT pg_advisory_xact_lock(hashtextextended($1::text, 0))";

  create_index_catalog = fmt::format(
      "CREATE TABLE IF NOT EXISTS {} (label text COLLATE \"C\" NOT NULL, key text COLLATE \"C\" NOT NULL, "
      "is_unique boolean NOT NULL, vertex_index text NOT NULL, edge_index text NOT NULL, PRIMARY KEY (label, key))",
      indexes_);
  index_catalog_exists = fmt::format("SELECT to_regclass({}) IS NOT NULL", sql_literal(indexes_));
  lock_indexes = fmt::format("SELECT pg_advisory_xact_lock(hashtext({}))", sql_literal("propgraph indexes " + schema));
  list_indexes =
      fmt::format("SELECT label, key, is_unique, vertex_index, edge_index FROM {} ORDER BY label, key", indexes_);
  find_index = fmt::format("SELECT 1 FROM {} WHERE label = $1 AND key = $2", indexes_);
  insert_index = fmt::format(
      "INSERT INTO {} (label, key, is_unique, vertex_index, edge_index) VALUES ($1, $2, $3::boolean, $4, $5)",
      indexes_);
  delete_index =
      fmt::format("DELETE FROM {} WHERE label = $1 AND key = $2 RETURNING vertex_index, edge_index", indexes_);
  delete_all_indexes = fmt::format("DELETE FROM {} RETURNING vertex_index, edge_index", indexes_);
}

std::string GraphSql::foreign_key(const std::string& schema, std::string_view column) {
  return fmt::format("CONSTRAINT edges_{0}_fkey FOREIGN KEY ({0}) REFERENCES {1}.vertices (id) ON DELETE CASCADE",
                     column, quoted(schema));
}

std::string GraphSql::index_expression(std::string_view key) {
  // The value without the mark of a negative zero (json_codec.hpp): -0.0 and 0.0 are equal. Only
  // doubles are objects.
  const std::string value = fmt::format("(properties -> {})", sql_literal(key));
  return fmt::format("(CASE WHEN jsonb_typeof({0}) = 'object' THEN {0} - '$neg' ELSE {0} END)", value);
}

std::string GraphSql::index_predicate(const IndexedKey& index) {
  // jsonpath: any item at any depth that is a wrapped NaN ({"$d": "NaN"}, json_codec.hpp).
  return fmt::format("label = {} AND NOT ({} @? '$.** ? (@.\"$d\" == \"NaN\")')", sql_literal(index.label),
                     index_expression(index.key));
}

std::string GraphSql::create_index(Table t, const std::string& name, const IndexedKey& index, bool unique) const {
  return fmt::format("CREATE {}INDEX {} ON {} ({}) WHERE {}", unique ? "UNIQUE " : "", quoted(name), table(t),
                     index_expression(index.key), index_predicate(index));
}

std::string GraphSql::drop_index(const std::string& name) const {
  return fmt::format("DROP INDEX IF EXISTS {}.{}", schema_, quoted(name));
}

std::string GraphSql::first_duplicate(Table t, const IndexedKey& index) const {
  return fmt::format(
      "SELECT jsonb_build_object('v', {0})::text, array_agg(id ORDER BY id) FROM {1} WHERE {2} "
      "GROUP BY {0} HAVING count(*) > 1 ORDER BY min(id) LIMIT 1",
      index_expression(index.key), table(t), index_predicate(index));
}

std::string GraphSql::scan(Table t, FilterShape shape, const IndexedKey* indexed, Scan what) const {
  std::string sql = what == Scan::count    ? "SELECT count(*)"
                    : t == Table::vertices ? "SELECT id, properties"
                                           : "SELECT id, from_id, to_id, properties";
  sql += fmt::format(" FROM {} WHERE label = $1", table(t));
  int next = 2;
  if (shape != FilterShape::none) {
    // Containment uses the GIN index and is exact for scalars (doubles are wrapped objects);
    // lists additionally need equality, as containment ignores order and extra elements.
    sql += " AND properties @> $2::jsonb AND NOT (properties ?| $3::text[])";
    if (shape == FilterShape::with_lists) {
      sql +=
          " AND NOT EXISTS (SELECT 1 FROM jsonb_each($2::jsonb) AS f (key, value) "
          "WHERE jsonb_typeof(f.value) = 'array' AND properties -> f.key <> f.value)";
    }
    next = 4;
  }
  if (indexed) {
    // Spelled like the index (expression and predicate) so that the planner can use it; the
    // condition itself repeats what the filter already says.
    sql += fmt::format(" AND {} AND {} = ${}::jsonb", index_predicate(*indexed), index_expression(indexed->key), next);
    ++next;
  }
  switch (what) {
    case Scan::page: sql += fmt::format(" AND id > ${}::bigint ORDER BY id LIMIT ${}::bigint", next, next + 1); break;
    case Scan::lock_first: sql += " ORDER BY id LIMIT 2 FOR UPDATE"; break;
    case Scan::count: break;
  }
  return sql;
}

std::string GraphSql::incident(Direction direction, bool labeled) const {
  const std::string label = labeled ? " AND label = $4" : "";
  const auto side = [&](std::string_view condition) {
    return fmt::format(
        "SELECT id, label, from_id, to_id, properties FROM {} WHERE {}{} AND id > $2::bigint "
        "ORDER BY id LIMIT $3::bigint",
        edges_, condition, label);
  };
  switch (direction) {
    case Direction::out: return side("from_id = $1::bigint");
    case Direction::in: return side("to_id = $1::bigint");
    case Direction::both: break;
  }
  // Each side reads its endpoint index in id order; a self-loop is taken from the out side.
  return fmt::format("SELECT * FROM (({}) UNION ALL ({})) AS e ORDER BY id LIMIT $3::bigint",
                     side("from_id = $1::bigint"), side("to_id = $1::bigint AND from_id <> $1::bigint"));
}

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
      "WHERE v.id IN (SELECT id FROM walk) AND v.id <> $1::bigint AND v.id > $3::bigint "
      "ORDER BY v.id LIMIT $4::bigint",
      vertices_, expand(direction, labeled ? "$5" : ""));
}

std::string GraphSql::reserve_ids(Table t) const {
  // OFFSET 0 keeps the planner from pulling the lookup into the nextval() call, where it would
  // run once per id (catalog lookups and name parsing: six times nextval's own cost).
  return fmt::format(
      "SELECT nextval(s.seq) FROM (SELECT pg_get_serial_sequence({}, 'id')::regclass AS seq OFFSET 0) AS s, "
      "generate_series(1, $1::int)",
      sql_literal(table(t)));
}

std::string GraphSql::copy_from(Table t) const {
  return t == Table::vertices
             ? fmt::format("COPY {} (id, label, properties) FROM STDIN (FORMAT binary)", vertices_)
             : fmt::format("COPY {} (id, label, from_id, to_id, properties) FROM STDIN (FORMAT binary)", edges_);
}

std::string GraphSql::copy_to(const std::string& select) {
  return fmt::format("COPY ({}) TO STDOUT (FORMAT binary)", select);
}

std::string GraphSql::reachable(Direction direction, const std::optional<std::string>& edge_label, std::int64_t start,
                                std::optional<int> max_depth) const {
  const std::string label_value = edge_label ? sql_literal(*edge_label) : "";
  const std::string label = edge_label ? " AND e.label = " + label_value : "";
  std::string walk;
  std::string near;  // vertices whose edges belong to the subgraph
  if (max_depth) {
    walk = fmt::format(
        "walk (id, depth) AS (SELECT id, 0 FROM {0} WHERE id = {2} "
        "UNION SELECT n.id, w.depth + 1 FROM walk w CROSS JOIN LATERAL ({1}) AS n WHERE w.depth < {3}), "
        "reached AS (SELECT id, min(depth) AS depth FROM walk GROUP BY id), ",
        vertices_, expand(direction, label_value), start, *max_depth);
    near = fmt::format("(SELECT id FROM reached WHERE depth < {})", *max_depth);
  } else {
    walk = fmt::format(
        "walk (id) AS (SELECT id FROM {0} WHERE id = {2} "
        "UNION SELECT n.id FROM walk w CROSS JOIN LATERAL ({1}) AS n), "
        "reached AS (SELECT id FROM walk), ",
        vertices_, expand(direction, label_value), start);
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
      "SELECT 0::bigint AS kind, v.id, v.label, NULL::bigint AS from_id, NULL::bigint AS to_id, v.properties "
      "FROM {2} v WHERE v.id IN (SELECT id FROM reached) "
      "UNION ALL SELECT 1, e.id, e.label, e.from_id, e.to_id, e.properties "
      "FROM {3} e WHERE e.id IN (SELECT id FROM picked) ORDER BY kind, id",
      walk, picked, vertices_, edges_);
}

std::string GraphSql::whole(const std::optional<std::string>& vertex_label,
                            const std::optional<std::string>& edge_label, bool edge_properties) const {
  std::string sql = fmt::format(
      "SELECT 0::bigint AS kind, v.id, v.label, NULL::bigint AS from_id, NULL::bigint AS to_id, v.properties "
      "FROM {} v{} UNION ALL SELECT 1, e.id, e.label, e.from_id, e.to_id, {} FROM {} e",
      vertices_, vertex_label ? " WHERE v.label = " + sql_literal(*vertex_label) : "",
      edge_properties ? "e.properties" : "NULL::jsonb", edges_);
  if (vertex_label) {
    sql +=
        fmt::format(" JOIN {0} f ON f.id = e.from_id AND f.label = {1} JOIN {0} t ON t.id = e.to_id AND t.label = {1}",
                    vertices_, sql_literal(*vertex_label));
  }
  if (edge_label) sql += " WHERE e.label = " + sql_literal(*edge_label);
  return sql;
}

}  // namespace propgraph::postgres_detail
