#include "propgraph/postgres/postgres_graph.hpp"

#include <algorithm>
#include <charconv>
#include <initializer_list>

#include <fmt/format.h>

#include "postgres/connection_pool.hpp"
#include "postgres/json_codec.hpp"
#include "postgres/statements.hpp"
#include "postgres/subgraph.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace propgraph {

using namespace postgres_detail;

namespace {

/// Traversals deeper than this fetch everything reachable instead of using the depth-bounded
/// CTE: that CTE may expand a vertex once per depth at which a walk reaches it, so its cost
/// grows with max_depth, while the reachable set is fetched with each vertex expanded once.
constexpr int kMaxCteDepth = 10;

const std::string kBegin = "BEGIN";
const std::string kCommit = "COMMIT";
const std::string kRollback = "ROLLBACK";

Properties without_nulls(const Properties& props) {
  const bool any_null = std::any_of(props.begin(), props.end(), [](const auto& e) { return e.second.is_null(); });
  if (!any_null) return props;
  Properties result;
  for (const auto& [key, value] : props) {
    if (!value.is_null()) result.set(key, value);
  }
  return result;
}

/// A PostgreSQL text[] literal: {"a","b\"c"}. Throws InvalidArgument for a NUL character.
std::string text_array(const std::vector<std::string_view>& items) {
  std::string out = "{";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out.push_back(',');
    out.push_back('"');
    for (char c : items[i]) {
      if (c == '\0') throw InvalidArgument("PostgresGraph cannot store a NUL character in a key");
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    out.push_back('"');
  }
  out.push_back('}');
  return out;
}

/// A property filter as statement parameters.
struct Filter {
  FilterShape shape = FilterShape::none;
  std::string contained = "{}";  // jsonb every match contains (the non-null entries)
  std::string absent = "{}";     // text[] of keys a match must not have (the null entries)
  bool matches_nothing = false;
};

Filter make_filter(const Properties& filter) {
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
      present.set(key, value);
    }
  }
  try {
    f.contained = encode_properties(present);
  } catch (const InvalidArgument&) {
    f.matches_nothing = true;  // a NUL character: no stored key or value holds one
  }
  f.absent = text_array(absent);
  f.shape = lists ? FilterShape::with_lists : FilterShape::scalars;
  return f;
}

/// A merge patch: the entries to set (jsonb) and the keys to remove (text[]).
struct Patch {
  std::string set;
  std::string removed;
};

Patch make_patch(const Properties& properties) {
  std::vector<std::string_view> removed;
  for (const auto& [key, value] : properties) {
    // A key with a NUL character cannot be stored, so there is nothing to remove.
    if (value.is_null() && key.find('\0') == std::string::npos) removed.push_back(key);
  }
  return Patch{encode_properties(properties), text_array(removed)};
}

/// Server-side data errors caused by the caller's values (e.g. invalid UTF-8) are argument
/// errors; other errors pass through.
template <typename F>
auto classify_write_errors(F&& body) {
  try {
    return body();
  } catch (const ServerError& e) {
    if (e.sqlstate().starts_with("22")) throw InvalidArgument(e.what());
    throw;
  }
}

template <typename F>
auto in_transaction(Connection& c, F&& body) {
  c.exec(kBegin, {}, false);
  try {
    auto result = body();
    c.exec(kCommit, {}, false);
    return result;
  } catch (...) {
    if (!c.broken()) {
      try {
        c.exec(kRollback, {}, false);
      } catch (...) {
        // The pool closes a connection left inside a transaction.
      }
    }
    throw;
  }
}

std::string decimal(std::int64_t n) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  return std::string(buf, end);
}

}  // namespace

struct PostgresGraph::Impl {
  PostgresOptions options;
  CatalogSql catalog;
  ConnectionPool pool;
  std::string schema;  // the bound graph's schema (unquoted)
  std::string prefix;  // element id prefix, "pg<graph number>:"
  std::unique_ptr<GraphSql> sql;

  explicit Impl(PostgresOptions opts)
      : options(validated(std::move(opts))),
        catalog(options.catalog_schema),
        pool(PoolSettings{options.conninfo, options.pool_size, options.acquire_timeout, options.connect_timeout},
             Reactor::shared()) {
    auto c = pool.acquire();
    if (!c->exec(catalog.catalog_exists).boolean(0, 0)) {
      in_transaction(*c, [&] {
        lock_catalog(*c);
        c->exec(catalog.create_schema, {}, false);
        c->exec(catalog.create_table, {}, false);
        return 0;
      });
    }
    std::optional<std::int64_t> number = graph_number(*c, options.graph);
    if (!number) number = create_graph(*c, options.graph);
    if (!number) number = graph_number(*c, options.graph);  // created concurrently elsewhere
    if (!number) throw QueryError(fmt::format("graph '{}' vanished while being opened", options.graph));
    schema = catalog.graph_schema(*number);
    prefix = fmt::format("pg{}:", *number);
    sql = std::make_unique<GraphSql>(schema);
  }

  static PostgresOptions validated(PostgresOptions o) {
    validate_label(o.graph, "graph name");
    validate_label(o.catalog_schema, "catalog_schema");
    if (o.catalog_schema.size() > 40) {
      throw InvalidArgument(fmt::format("catalog_schema '{}' is longer than 40 characters", o.catalog_schema));
    }
    if (o.pool_size < 1) throw InvalidArgument("pool_size must be >= 1");
    return o;
  }

  // -- plumbing ----------------------------------------------------------------------------

  Result run(const std::string& statement, std::initializer_list<Param> params) {
    auto c = pool.acquire();
    return c->exec(statement, std::span<const Param>(params.begin(), params.size()));
  }

  void lock_catalog(Connection& c) {
    Param p[] = {catalog.catalog_schema.c_str()};
    c.exec(catalog.lock, p);
  }

  std::optional<std::int64_t> graph_number(Connection& c, const std::string& name) {
    Param p[] = {name.c_str()};
    Result r = c.exec(catalog.graph_id, p);
    if (r.rows() == 0) return std::nullopt;
    return r.int64(0, 0);
  }

  /// Creates the catalog entry and schema of `name`; nullopt when it exists.
  std::optional<std::int64_t> create_graph(Connection& c, const std::string& name) {
    return in_transaction(c, [&]() -> std::optional<std::int64_t> {
      lock_catalog(c);
      Param p[] = {name.c_str()};
      Result r = c.exec(catalog.insert_graph, p);
      if (r.rows() == 0) return std::nullopt;
      const std::int64_t number = r.int64(0, 0);
      for (const auto& ddl : catalog.create_graph_ddl(number)) c.exec(ddl, {}, false);
      return number;
    });
  }

  // -- ids ---------------------------------------------------------------------------------

  [[nodiscard]] ElementId make_id(char kind, std::string_view digits) const {
    std::string s;
    s.reserve(prefix.size() + 1 + digits.size());
    s += prefix;
    s.push_back(kind);
    s += digits;
    return ElementId(std::move(s));
  }

  /// The row id an id of this graph names, as decimal text; nullopt for anything else.
  [[nodiscard]] std::optional<std::string> row_id(const ElementId& id, char kind) const {
    std::string_view s = id.str();
    if (!s.starts_with(prefix)) return std::nullopt;
    s.remove_prefix(prefix.size());
    if (s.size() < 2 || s.size() > 20 || s[0] != kind || s[1] == '0') return std::nullopt;
    s.remove_prefix(1);
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || ptr != s.data() + s.size() || value <= 0) return std::nullopt;
    return std::string(s);
  }

  // -- rows --------------------------------------------------------------------------------

  [[nodiscard]] Edge edge_from(const Result& r, int row, ElementId id, std::string label, int from_col) const {
    return Edge{std::move(id), std::move(label), make_id('v', r.text(row, from_col)),
                make_id('v', r.text(row, from_col + 1)), decode_properties(r.text(row, from_col + 2))};
  }

  /// Loads rows (kind, id, label, from_id, to_id, properties) into a Subgraph.
  Subgraph load(const Result& r, const std::string* weight_key = nullptr) const {
    Subgraph sub;
    for (int i = 0; i < r.rows(); ++i) {
      std::string label(r.text(i, 2));
      if (r.text(i, 0) == "0") {
        sub.add_vertex(Vertex{make_id('v', r.text(i, 1)), std::move(label), decode_properties(r.text(i, 5))});
      } else {
        sub.add_edge(edge_from(r, i, make_id('e', r.text(i, 1)), std::move(label), 3), weight_key);
      }
    }
    return sub;
  }

  /// The subgraph a traversal from `start` can touch: within max_depth hops, or everything
  /// reachable when max_depth < 0 (unbounded) or deeper than kMaxCteDepth.
  Subgraph reachable(const ElementId& start, Direction direction, const std::optional<std::string>& edge_label,
                     int max_depth, const std::string* weight_key = nullptr) {
    const auto start_row = row_id(start, 'v');
    if (!start_row) return Subgraph{};
    const bool bounded = max_depth >= 0 && max_depth <= kMaxCteDepth;
    const std::string statement = sql->reachable(direction, edge_label.has_value(), bounded);
    const std::string depth = decimal(max_depth);
    const char* label = edge_label ? edge_label->c_str() : nullptr;
    if (bounded) {
      if (edge_label) return load(run(statement, {start_row->c_str(), depth.c_str(), label}), weight_key);
      return load(run(statement, {start_row->c_str(), depth.c_str()}), weight_key);
    }
    if (edge_label) return load(run(statement, {start_row->c_str(), label}), weight_key);
    return load(run(statement, {start_row->c_str()}), weight_key);
  }

  /// Every vertex [with vertex_label] and the edges [with edge_label] between them.
  Subgraph whole(const std::optional<std::string>& vertex_label, const std::optional<std::string>& edge_label,
                 bool edge_properties) {
    const std::string statement = sql->whole(vertex_label.has_value(), edge_label.has_value(), edge_properties);
    if (vertex_label && edge_label) return load(run(statement, {vertex_label->c_str(), edge_label->c_str()}));
    if (vertex_label) return load(run(statement, {vertex_label->c_str()}));
    if (edge_label) return load(run(statement, {edge_label->c_str()}));
    return load(run(statement, {}));
  }
};

PostgresGraph::PostgresGraph(PostgresOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
PostgresGraph::~PostgresGraph() = default;

const PostgresOptions& PostgresGraph::options() const noexcept { return impl_->options; }
const std::string& PostgresGraph::schema_name() const noexcept { return impl_->schema; }

PostgresGraph::PoolStatus PostgresGraph::pool_status() {
  const auto s = impl_->pool.status();
  return PoolStatus{s.open, s.idle, s.waiting};
}

// -- session ----------------------------------------------------------------------------------

bool PostgresGraph::create_graph(std::string_view name) {
  validate_label(name, "graph name");
  auto c = impl_->pool.acquire();
  return impl_->create_graph(*c, std::string(name)).has_value();
}

bool PostgresGraph::drop_graph(std::string_view name) {
  if (!is_valid_label(name)) return false;
  if (name == impl_->options.graph) {
    impl_->run(impl_->sql->truncate, {});  // identities continue: old ids are never reissued
    return true;
  }
  const std::string n(name);
  auto c = impl_->pool.acquire();
  return in_transaction(*c, [&] {
    impl_->lock_catalog(*c);
    Param p[] = {n.c_str()};
    Result r = c->exec(impl_->catalog.delete_graph, p);
    if (r.rows() == 0) return false;
    c->exec(impl_->catalog.drop_graph_ddl(r.int64(0, 0)), {}, false);
    return true;
  });
}

bool PostgresGraph::graph_exists(std::string_view name) {
  if (!is_valid_label(name)) return false;
  const std::string n(name);
  return impl_->run(impl_->catalog.graph_id, {n.c_str()}).rows() > 0;
}

namespace {
std::vector<std::string> column(const Result& r) {
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) out.emplace_back(r.text(i, 0));
  return out;
}
}  // namespace

std::vector<std::string> PostgresGraph::vertex_labels() { return column(impl_->run(impl_->sql->vertex_labels, {})); }
std::vector<std::string> PostgresGraph::edge_labels() { return column(impl_->run(impl_->sql->edge_labels, {})); }

// -- vertices ---------------------------------------------------------------------------------

Vertex PostgresGraph::create_vertex(std::string_view label, const Properties& properties) {
  validate_label(label);
  validate_properties(properties);
  const std::string json = encode_properties(properties);
  std::string l(label);
  Result r = classify_write_errors([&] { return impl_->run(impl_->sql->insert_vertex, {l.c_str(), json.c_str()}); });
  return Vertex{impl_->make_id('v', r.text(0, 0)), std::move(l), without_nulls(properties)};
}

std::optional<Vertex> PostgresGraph::find_vertex_by_id(std::string_view label, const ElementId& id) {
  if (!is_valid_label(label)) return std::nullopt;
  const auto row = impl_->row_id(id, 'v');
  if (!row) return std::nullopt;
  std::string l(label);
  Result r = impl_->run(impl_->sql->find_vertex, {row->c_str(), l.c_str()});
  if (r.rows() == 0) return std::nullopt;
  return Vertex{id, std::move(l), decode_properties(r.text(0, 0))};
}

std::vector<Vertex> PostgresGraph::find_vertices_by_label(std::string_view label, const Properties& filter) {
  if (!is_valid_label(label)) return {};
  const Filter f = make_filter(filter);
  if (f.matches_nothing) return {};
  const std::string l(label);
  const std::string& statement = impl_->sql->find_vertices(f.shape);
  Result r = f.shape == FilterShape::none ? impl_->run(statement, {l.c_str()})
                                          : impl_->run(statement, {l.c_str(), f.contained.c_str(), f.absent.c_str()});
  std::vector<Vertex> result;
  result.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    result.push_back(Vertex{impl_->make_id('v', r.text(i, 0)), l, decode_properties(r.text(i, 1))});
  }
  return result;
}

std::optional<Vertex> PostgresGraph::update_vertex(std::string_view label, const ElementId& id,
                                                   const Properties& properties) {
  validate_properties(properties);
  if (properties.empty()) return find_vertex_by_id(label, id);
  if (!is_valid_label(label)) return std::nullopt;
  const auto row = impl_->row_id(id, 'v');
  if (!row) return std::nullopt;
  const Patch patch = make_patch(properties);
  std::string l(label);
  Result r = classify_write_errors([&] {
    return impl_->run(impl_->sql->update_vertex, {row->c_str(), l.c_str(), patch.set.c_str(), patch.removed.c_str()});
  });
  if (r.rows() == 0) return std::nullopt;
  return Vertex{id, std::move(l), decode_properties(r.text(0, 0))};
}

bool PostgresGraph::delete_vertex(std::string_view label, const ElementId& id) {
  if (!is_valid_label(label)) return false;
  const auto row = impl_->row_id(id, 'v');
  if (!row) return false;
  const std::string l(label);
  // The foreign keys cascade to the incident edges within the same statement.
  return impl_->run(impl_->sql->delete_vertex, {row->c_str(), l.c_str()}).affected() > 0;
}

std::int64_t PostgresGraph::count_vertices(std::string_view label) {
  if (!is_valid_label(label)) return 0;
  const std::string l(label);
  return impl_->run(impl_->sql->count_vertices, {l.c_str()}).int64(0, 0);
}

// -- edges ------------------------------------------------------------------------------------

Edge PostgresGraph::create_edge(const ElementId& from, const ElementId& to, std::string_view label,
                                const Properties& properties) {
  validate_label(label);
  validate_properties(properties);
  const std::string json = encode_properties(properties);
  const auto source_missing = [&] { return NotFound(fmt::format("create_edge: source vertex '{}' not found", from.str())); };
  const auto target_missing = [&] { return NotFound(fmt::format("create_edge: target vertex '{}' not found", to.str())); };
  const auto from_row = impl_->row_id(from, 'v');
  if (!from_row) throw source_missing();
  const auto to_row = impl_->row_id(to, 'v');
  if (!to_row) throw target_missing();
  std::string l(label);
  Result r = classify_write_errors([&] {
    try {
      return impl_->run(impl_->sql->insert_edge, {from_row->c_str(), to_row->c_str(), l.c_str(), json.c_str()});
    } catch (const ServerError& e) {
      // An endpoint was deleted between the check and the insert's foreign-key check.
      if (e.sqlstate() == "23503") throw NotFound(fmt::format("create_edge: endpoint vertex deleted ({})", e.what()));
      throw;
    }
  });
  if (r.is_null(0, 0)) {
    if (!r.boolean(0, 1)) throw source_missing();
    throw target_missing();
  }
  return Edge{impl_->make_id('e', r.text(0, 0)), std::move(l), from, to, without_nulls(properties)};
}

std::optional<Edge> PostgresGraph::find_edge_by_id(std::string_view label, const ElementId& id) {
  if (!is_valid_label(label)) return std::nullopt;
  const auto row = impl_->row_id(id, 'e');
  if (!row) return std::nullopt;
  std::string l(label);
  Result r = impl_->run(impl_->sql->find_edge, {row->c_str(), l.c_str()});
  if (r.rows() == 0) return std::nullopt;
  return impl_->edge_from(r, 0, id, std::move(l), 0);
}

std::vector<Edge> PostgresGraph::find_edges_by_label(std::string_view label, const Properties& filter) {
  if (!is_valid_label(label)) return {};
  const Filter f = make_filter(filter);
  if (f.matches_nothing) return {};
  const std::string l(label);
  const std::string& statement = impl_->sql->find_edges(f.shape);
  Result r = f.shape == FilterShape::none ? impl_->run(statement, {l.c_str()})
                                          : impl_->run(statement, {l.c_str(), f.contained.c_str(), f.absent.c_str()});
  std::vector<Edge> result;
  result.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) result.push_back(impl_->edge_from(r, i, impl_->make_id('e', r.text(i, 0)), l, 1));
  return result;
}

std::optional<Edge> PostgresGraph::update_edge(std::string_view label, const ElementId& id,
                                               const Properties& properties) {
  validate_properties(properties);
  if (properties.empty()) return find_edge_by_id(label, id);
  if (!is_valid_label(label)) return std::nullopt;
  const auto row = impl_->row_id(id, 'e');
  if (!row) return std::nullopt;
  const Patch patch = make_patch(properties);
  std::string l(label);
  Result r = classify_write_errors([&] {
    return impl_->run(impl_->sql->update_edge, {row->c_str(), l.c_str(), patch.set.c_str(), patch.removed.c_str()});
  });
  if (r.rows() == 0) return std::nullopt;
  return impl_->edge_from(r, 0, id, std::move(l), 0);
}

bool PostgresGraph::delete_edge(std::string_view label, const ElementId& id) {
  if (!is_valid_label(label)) return false;
  const auto row = impl_->row_id(id, 'e');
  if (!row) return false;
  const std::string l(label);
  return impl_->run(impl_->sql->delete_edge, {row->c_str(), l.c_str()}).affected() > 0;
}

std::int64_t PostgresGraph::count_edges(std::string_view label) {
  if (!is_valid_label(label)) return 0;
  const std::string l(label);
  return impl_->run(impl_->sql->count_edges, {l.c_str()}).int64(0, 0);
}

// -- traversal --------------------------------------------------------------------------------

std::vector<Vertex> PostgresGraph::neighbors(const ElementId& start, const NeighborOptions& options) {
  if (options.max_depth < 1) throw InvalidArgument("neighbors max_depth must be >= 1");
  if (options.max_depth > kMaxCteDepth) {
    Subgraph sub = impl_->reachable(start, options.direction, options.edge_label, options.max_depth);
    return sub.vertices(sub.graph().neighbors(sub.memory_vertex(start), options));
  }
  const auto row = impl_->row_id(start, 'v');
  if (!row) return {};
  const std::string statement = impl_->sql->neighbors(options.direction, options.edge_label.has_value());
  const std::string depth = decimal(options.max_depth);
  Result r = options.edge_label
                 ? impl_->run(statement, {row->c_str(), depth.c_str(), options.edge_label->c_str()})
                 : impl_->run(statement, {row->c_str(), depth.c_str()});
  std::vector<Vertex> result;
  result.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    result.push_back(Vertex{impl_->make_id('v', r.text(i, 0)), std::string(r.text(i, 1)), decode_properties(r.text(i, 2))});
  }
  return result;
}

std::optional<Path> PostgresGraph::shortest_path(const ElementId& from, const ElementId& to,
                                                 const PathOptions& options) {
  const std::string* weight = options.weight_property ? &*options.weight_property : nullptr;
  // A weighted search is not bounded by max_depth: it needs everything reachable. A negative
  // max_depth loads nothing; MemoryGraph rejects it.
  const int depth = weight ? -1 : options.max_depth;
  Subgraph sub = options.max_depth < 0 && !weight
                     ? Subgraph{}
                     : impl_->reachable(from, options.direction, options.edge_label, depth, weight);
  try {
    auto path = sub.graph().shortest_path(sub.memory_vertex(from), sub.memory_vertex(to), options);
    if (!path) return std::nullopt;
    return sub.path(*path);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(sub.translate_ids(e.what()));  // name the database's edge ids
  }
}

std::vector<Path> PostgresGraph::all_paths(const ElementId& from, const ElementId& to, const PathOptions& options) {
  Subgraph sub = options.max_depth < 0 ? Subgraph{}
                                       : impl_->reachable(from, options.direction, options.edge_label, options.max_depth);
  return sub.paths(sub.graph().all_paths(sub.memory_vertex(from), sub.memory_vertex(to), options));
}

// -- algorithms -------------------------------------------------------------------------------

std::vector<PageRankScore> PostgresGraph::page_rank(const PageRankOptions& options) {
  (void)MemoryGraph().page_rank(options);  // rejects bad options before anything is loaded
  Subgraph sub = impl_->whole(options.vertex_label, options.edge_label, false);
  return sub.scores(sub.graph().page_rank(options));
}

std::optional<Degree> PostgresGraph::degree_centrality(const ElementId& id, const DegreeOptions& options) {
  const auto row = impl_->row_id(id, 'v');
  if (!row) return std::nullopt;
  Result r = options.edge_label ? impl_->run(impl_->sql->degree_labeled, {row->c_str(), options.edge_label->c_str()})
                                : impl_->run(impl_->sql->degree, {row->c_str()});
  if (r.rows() == 0) return std::nullopt;
  Degree d{id, 0, 0};
  if (options.direction != Direction::out) d.in = r.int64(0, 0);
  if (options.direction != Direction::in) d.out = r.int64(0, 1);
  return d;
}

std::vector<Component> PostgresGraph::connected_components(const ComponentOptions& options) {
  Subgraph sub = impl_->whole(options.vertex_label, options.edge_label, false);
  return sub.components(sub.graph().connected_components(options));
}

std::vector<Visit> PostgresGraph::bfs(const ElementId& start, const TraversalOptions& options) {
  Subgraph sub = options.max_depth < 0 || options.max_vertices == 0
                     ? Subgraph{}
                     : impl_->reachable(start, options.direction, options.edge_label, options.max_depth);
  return sub.visits(sub.graph().bfs(sub.memory_vertex(start), options));
}

std::vector<Visit> PostgresGraph::dfs(const ElementId& start, const TraversalOptions& options) {
  Subgraph sub = options.max_depth < 0 || options.max_vertices == 0
                     ? Subgraph{}
                     : impl_->reachable(start, options.direction, options.edge_label, options.max_depth);
  return sub.visits(sub.graph().dfs(sub.memory_vertex(start), options));
}

std::vector<Cycle> PostgresGraph::detect_cycles(const CycleOptions& options) {
  (void)MemoryGraph().detect_cycles(options);  // rejects bad options before anything is loaded
  Subgraph sub = impl_->whole(options.vertex_label, options.edge_label, true);
  return sub.cycles(sub.graph().detect_cycles(options));
}

}  // namespace propgraph
