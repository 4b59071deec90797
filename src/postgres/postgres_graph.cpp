#include "propgraph/postgres/postgres_graph.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "postgres/connection_pool.hpp"
#include "postgres/copy_binary.hpp"
#include "postgres/ids.hpp"
#include "postgres/index_catalog.hpp"
#include "postgres/json_codec.hpp"
#include "postgres/replicas.hpp"
#include "postgres/statements.hpp"
#include "postgres/subgraph.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/decorator.hpp"
#include "propgraph/fmt.hpp"
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
const std::string kBeginTransaction = "BEGIN ISOLATION LEVEL SERIALIZABLE";
const std::string kSavepoint = "SAVEPOINT propgraph_call";
const std::string kReleaseSavepoint = "RELEASE SAVEPOINT propgraph_call";
const std::string kRollbackToSavepoint = "ROLLBACK TO SAVEPOINT propgraph_call";

/// A bulk edge load in rebuild mode (PostgresOptions::bulk_rebuild_min_edges): both tables
/// locked, the edges' foreign keys and plain indexes dropped until finish_edge_rebuild.
struct EdgeRebuild {
  bool active = false;
  bool foreign_keys = false;                   // both keys were dropped, to add again
  std::vector<std::string> index_definitions;  // of the dropped indexes, to run again
  // Vertex rows found to exist, ascending. The lock keeps other transactions from deleting
  // them, and any call of this one that could (all but the bulk writes) ends the mode first.
  std::vector<std::int64_t> existing;
};

/// A transaction's connection, as its calls see it.
struct Pinned {
  Connection* connection = nullptr;
  EdgeRebuild edge_rebuild;     // a bulk edge load of the transaction's, rebuilt before COMMIT
  bool wrote = false;           // a write ran: commit() records the WAL position for the standbys' routing
  bool savepoint_open = false;  // the last call's savepoint, released with the next call's first statement
  int calls = 0;                // calls running (a call may make another)
};

/// SQLSTATE of a unique violation.
constexpr std::string_view kUniqueViolation = "23505";
/// SQLSTATE of a foreign key violation: an edge's endpoint does not exist.
constexpr std::string_view kForeignKeyViolation = "23503";
/// SQLSTATE of a lock that NOWAIT could not take.
constexpr std::string_view kLockNotAvailable = "55P03";

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

/// A property filter as statement parameters (GraphSql::scan).
struct Filter {
  FilterShape shape = FilterShape::none;
  std::string contained = "{}";  // jsonb every match contains (the non-null entries)
  std::string absent = "{}";     // text[] of keys a match must not have (the null entries)
  bool matches_nothing = false;
  std::optional<IndexedKey> indexed;  // an index on one of the filter's keys
  std::string indexed_value;          // that key's value as jsonb
};

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

/// fn() for record i of a bulk write; its InvalidArgument names the record.
template <typename F>
auto at_record(std::string_view call, std::string_view records, std::size_t i, F&& fn) {
  try {
    return fn();
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("{}: {}[{}]: {}", call, records, i, e.what()));
  }
}

/// The jsonb text of a bulk write's record; a value PostgreSQL cannot store names its record.
std::string encode_record(const Properties& properties, std::string_view call, std::string_view records,
                          std::size_t i) {
  return at_record(call, records, i, [&] { return encode_properties(properties); });
}

/// The text rule for a bulk write's record (label and properties), naming the record.
void validate_record(std::string_view label, const Properties& properties, std::string_view call,
                     std::string_view records, std::size_t i) {
  at_record(call, records, i, [&] {
    validate_label(label);
    validate_properties(properties);
    return 0;
  });
}

/// A page as statement parameters: after (a row id) and limit (NULL: no limit).
struct PageArgs {
  std::string after = "0";
  std::optional<std::string> limit;
  bool empty = false;  // no id can sort after page.after
};

std::string decimal(std::int64_t n) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  return std::string(buf, end);
}

/// Runs `undo` (ROLLBACK, ROLLBACK TO SAVEPOINT) on `c` unless the connection broke. An undo
/// that fails leaves the transaction to the pool (which closes a connection left inside one) or
/// to commit() (which refuses an aborted one).
void try_undo(Connection& c, const std::string& undo) noexcept {
  if (c.broken()) return;
  try {
    c.exec(undo, {}, false, Deadline::ignore);
  } catch (...) {
    // See above.
  }
}

/// Returns body(); when it throws, try_undo(c, undo) first.
template <typename F>
auto undo_on_failure(Connection& c, const std::string& undo, F&& body) {
  try {
    return body();
  } catch (...) {
    try_undo(c, undo);
    throw;
  }
}

/// Runs body() between BEGIN and COMMIT; rolls back when it throws. Under a deadline
/// (DeadlineScope) every statement honours it, and a deadline that passed before COMMIT rolls
/// back and throws Timeout: the transaction has no effect unless it commits in time. COMMIT
/// itself, once sent, runs to its end.
template <typename F>
auto in_transaction(Connection& c, F&& body) {
  c.exec(kBegin, {}, false);
  return undo_on_failure(c, kRollback, [&] {
    auto result = body();
    if (auto d = current_deadline(); d && Clock::now() >= *d) throw_deadline("before COMMIT; rolled back");
    c.exec(kCommit, {}, false, Deadline::ignore);
    return result;
  });
}

/// An optional label filter as a parameter: an invalid label (it may hold a NUL character,
/// which a parameter cannot carry) becomes "", which no element has.
std::optional<std::string> label_filter(const std::optional<std::string>& label) {
  if (!label || is_valid_label(*label)) return label;
  return std::string();
}

/// The elements of an ascending-id result that `page` selects.
template <typename T>
std::vector<T> paged(std::vector<T> all, const Page& page) {
  auto first = all.begin();
  if (page.after) {
    first = std::partition_point(all.begin(), all.end(), [&](const T& e) { return !(*page.after < e.id); });
  }
  auto last = all.end();
  if (page.limit != 0 && static_cast<std::size_t>(last - first) > page.limit) last = first + static_cast<std::ptrdiff_t>(page.limit);
  return std::vector<T>(std::make_move_iterator(first), std::make_move_iterator(last));
}

}  // namespace

/// What a PostgresGraph and the views of its transactions share.
struct PostgresGraph::Shared {
  PostgresOptions options;
  CatalogSql catalog;
  ConnectionPool pool;
  std::string schema;  // the bound graph's schema (unquoted)
  std::unique_ptr<IdCodec> ids;
  std::unique_ptr<GraphSql> sql;
  IndexCatalog index_catalog;
  Replicas replicas;

  explicit Shared(PostgresOptions opts)
      : options(std::move(opts)),
        catalog(options.catalog_schema),
        pool(PoolSettings{options.conninfo, options.pool_size, options.acquire_timeout, options.connect_timeout},
             Reactor::shared()),
        replicas(options, Reactor::shared()) {}
};

/// The implementation of every call. A graph's Impl borrows connections from the pool per
/// call; a transaction's view (pinned) runs every call on the transaction's connection instead.
struct PostgresGraph::Impl {
  std::shared_ptr<Shared> shared;
  PostgresOptions& options;
  CatalogSql& catalog;
  ConnectionPool& pool;
  std::string& schema;
  std::unique_ptr<IdCodec>& ids;
  std::unique_ptr<GraphSql>& sql;
  IndexCatalog& index_catalog;
  Replicas& replicas;
  Pinned* pinned = nullptr;  // the transaction's connection, for a transaction's view

  Impl(std::shared_ptr<Shared> state, Pinned* pin)
      : shared(std::move(state)), options(shared->options), catalog(shared->catalog), pool(shared->pool),
        schema(shared->schema), ids(shared->ids), sql(shared->sql), index_catalog(shared->index_catalog),
        replicas(shared->replicas), pinned(pin) {}

  /// Connects, creates the catalog and the bound graph when missing.
  explicit Impl(PostgresOptions opts) : Impl(std::make_shared<Shared>(validated(std::move(opts))), nullptr) {
    auto c = pool.acquire();
    bool created = false;  // anything this instance created is one of its writes (Replicas)
    if (!c->exec(catalog.catalog_exists).boolean(0, 0)) {
      created = true;
      in_transaction(*c, [&] {
        lock_catalog(*c);
        c->exec(catalog.create_schema, {}, false);
        c->exec(catalog.create_table, {}, false);
        return 0;
      });
    }
    std::optional<std::int64_t> number = graph_number(*c, options.graph);
    if (!number) {
      number = create_graph(*c, options.graph);
      created = true;
    }
    if (!number) number = graph_number(*c, options.graph);  // created concurrently elsewhere
    if (!number) throw QueryError(fmt::format("graph '{}' vanished while being opened", options.graph));
    schema = catalog.graph_schema(*number);
    ids = std::make_unique<IdCodec>(fmt::format("pg{}:", *number));
    sql = std::make_unique<GraphSql>(schema);
    // Graphs created before property indexes existed get their (empty) index catalog now.
    if (!c->exec(sql->index_catalog_exists, {}, false).boolean(0, 0)) {
      c->exec(sql->create_index_catalog, {}, false);
      created = true;
    }
    // ... and graphs created without the foreign keys on edges get them.
    if (c->exec(sql->foreign_keys, {}, false).int64(0, 0) < 2) created = add_foreign_keys(*c) || created;
    load_indexes(*c);
    // Reads routed after this instance's own writes wait until a standby has the schema too.
    if (created) replicas.wrote(*c);
  }

  /// Adds the foreign keys of edges to a graph created without them, in one transaction that
  /// holds off writers: first the edges whose endpoint is gone (those a delete_vertex inside a
  /// transaction could miss; the contract has no such edges), then both keys, which check every
  /// remaining edge. False when another instance added them meanwhile.
  bool add_foreign_keys(Connection& c) {
    return in_transaction(c, [&] {
      c.exec(sql->lock_for_foreign_keys, {}, false);
      if (c.exec(sql->foreign_keys, {}, false).int64(0, 0) == 2) return false;
      c.exec(sql->delete_dangling_edges, {}, false);
      c.exec(sql->add_foreign_keys, {}, false);
      return true;
    });
  }

  static PostgresOptions validated(PostgresOptions o) {
    validate_label(o.graph, "graph name");
    validate_label(o.catalog_schema, "catalog_schema");
    if (o.catalog_schema.size() > 40) {
      throw InvalidArgument(fmt::format("catalog_schema '{}' is longer than 40 characters", o.catalog_schema));
    }
    if (o.pool_size < 1) throw InvalidArgument("pool_size must be >= 1");
    if (o.standby_pool_size < 1) throw InvalidArgument("standby_pool_size must be >= 1");
    return o;
  }

  // -- plumbing ----------------------------------------------------------------------------

  /// `body(connection)` on the transaction's connection, inside a savepoint: when it throws,
  /// the transaction is rolled back to the savepoint (the call had no effect) and goes on.
  /// SAVEPOINT rides in the round trip of the call's first statement, with the RELEASE of the
  /// call before's savepoint ahead of it (COMMIT releases the last one): a call of one
  /// statement costs one round trip, not three. A call that sends nothing sets none.
  template <typename F>
  auto in_savepoint(F&& body) {
    Connection& c = *pinned->connection;
    struct Running {
      int& calls;
      explicit Running(int& n) : calls(++n) {}
      ~Running() { --calls; }
    } running(pinned->calls);
    if (pinned->calls > 1) {  // inside another call: a savepoint of its own, set and released at once
      c.exec(kSavepoint, {}, false);
      return undo_on_failure(c, kRollbackToSavepoint, [&] {
        auto r = body(c);
        c.exec(kReleaseSavepoint, {}, false, Deadline::ignore);
        return r;
      });
    }
    std::vector<std::string> prelude;
    if (pinned->savepoint_open) prelude.push_back(kReleaseSavepoint);
    prelude.push_back(kSavepoint);
    c.run_before_next(std::move(prelude));
    try {
      auto r = body(c);
      if (c.prelude_pending()) {
        c.drop_prelude();
      } else {
        pinned->savepoint_open = true;
      }
      return r;
    } catch (...) {
      if (c.prelude_pending()) {  // failed before sending anything: nothing to undo
        c.drop_prelude();
        throw;
      }
      if (c.prelude_failed()) {  // the savepoint was not set: the transaction was already aborted
        pinned->savepoint_open = false;
        throw;
      }
      pinned->savepoint_open = true;  // ROLLBACK TO keeps it
      try_undo(c, kRollbackToSavepoint);
      throw;
    }
  }

  /// `body(connection)` on the primary: the transaction's connection, else one of the pool.
  template <typename F>
  auto on_primary(F&& body) {
    if (pinned) return in_savepoint(body);
    auto c = pool.acquire();
    return body(*c);
  }

  /// BEGIN on a connection of the pool (retried once on a fresh connection when one that had
  /// sat idle turns out broken: BEGIN has no effect to lose).
  ConnectionPool::Lease begin_transaction() {
    for (int attempt = 0;; ++attempt) {
      auto c = pool.acquire();
      try {
        c->exec(kBeginTransaction, {}, false);
        return c;
      } catch (const ConnectionError&) {
        if (attempt > 0 || !c.reused()) throw;
      }
    }
  }

  /// Runs body() atomically on `c`: between BEGIN and COMMIT, or, in a transaction, as part of
  /// it (the call's savepoint makes it all or nothing).
  template <typename F>
  auto atomically(Connection& c, F&& body) {
    if (pinned) return body();
    return in_transaction(c, body);
  }

  /// A read: on a standby when the routing rule allows (Replicas), else on the primary, where a
  /// read that fails on a connection that had sat idle is retried once (on a fresh connection:
  /// the pool closes the idle ones along with the broken one). `body(connection)` returns a value.
  /// In a transaction: on its connection.
  template <typename F>
  auto read(F&& body) {
    if (pinned) return in_savepoint(body);
    if (auto r = replicas.try_read(body)) return std::move(*r);
    for (int attempt = 0;; ++attempt) {
      auto c = pool.acquire();
      try {
        auto r = body(*c);
        replicas.read_on_primary();
        return r;
      } catch (const ConnectionError&) {
        if (attempt > 0 || !c.reused()) throw;
      }
    }
  }
  Result query(const std::string& statement, std::span<const Param> params) {
    return read([&](Connection& c) { return c.exec(statement, params); });
  }
  Result query(const std::string& statement, std::initializer_list<Param> params) {
    return query(statement, std::span<const Param>(params.begin(), params.size()));
  }

  /// A write (anything that changes the graph or its catalog): on the primary, never retried (it
  /// may have committed); records its WAL position for the standbys' routing rule (in a
  /// transaction: at commit).
  template <typename F>
  auto write_on_primary(F&& body) {
    if (pinned) {
      pinned->wrote = true;
      return in_savepoint(body);
    }
    auto c = pool.acquire();
    try {
      auto r = body(*c);
      replicas.wrote(*c);
      return r;
    } catch (const ConnectionError&) {
      replicas.wrote(*c);  // committed or not: unknown (wrote() cannot read the position)
      throw;
    }
  }
  Result execute(const std::string& statement, std::initializer_list<Param> params) {
    return write_on_primary(
        [&](Connection& c) { return c.exec(statement, std::span<const Param>(params.begin(), params.size())); });
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

  // -- indexes -----------------------------------------------------------------------------

  /// Reads the index catalog into the cache; returns what it read.
  std::vector<IndexEntry> load_indexes(Connection& c) {
    Result r = c.exec(sql->list_indexes);
    std::vector<IndexEntry> entries;
    for (int i = 0; i < r.rows(); ++i) {
      entries.push_back(IndexEntry{IndexedKey{std::string(r.text(i, 0)), std::string(r.text(i, 1))}, r.boolean(i, 2),
                                   std::string(r.text(i, 3)), std::string(r.text(i, 4))});
    }
    index_catalog.replace(entries);
    return entries;
  }

  /// The cache, reloaded first when it is stale (see IndexCatalog).
  const IndexCatalog& indexes() {
    if (index_catalog.claim_reload()) {
      try {
        on_primary([&](Connection& c) { return load_indexes(c); });
      } catch (...) {
        index_catalog.abandon_reload();
        throw;
      }
    }
    return index_catalog;
  }

  /// AlreadyExists for a unique violation raised by a write that would have given an element
  /// of `label` the properties `written`. Names label, key, value and an element holding the
  /// value: one in the graph, else what `batch_holder` names (a record of the same batch).
  /// Call after the failed statement's connection went back to the pool.
  [[noreturn]] void throw_duplicate(const ServerError& e, std::string_view label, const Properties& written,
                                    std::string_view where,
                                    const std::function<std::string(const IndexedKey&, const Value&)>& batch_holder = {}) {
    bool is_edge = false;
    auto entry = index_catalog.by_index_name(e.constraint(), &is_edge);
    if (!entry) {
      on_primary([&](Connection& c) { return load_indexes(c); });
      entry = index_catalog.by_index_name(e.constraint(), &is_edge);
    }
    if (!entry) throw AlreadyExists(fmt::format("{}{}", where, e.what()));
    const IndexedKey& index = entry->indexed;
    const std::string_view kind = is_edge ? "edge" : "vertex";
    const Value* value = written.find(index.key);
    if (value == nullptr || value->is_null()) {
      throw AlreadyExists(fmt::format("{}unique index on {}.{}: the value is already held by another {}", where,
                                      index.label, index.key, kind));
    }
    std::string holder;
    std::string json;
    append_json(json, comparable(*value));
    ParamList p;
    p.text(std::string(label)).text(json).text("0").text("1");
    const Table table = is_edge ? Table::edges : Table::vertices;
    // On the primary (in a transaction: on its connection): the holder may be a write no
    // standby has replayed yet, or one of the transaction.
    Result r = on_primary([&](Connection& c) { return c.exec(sql->scan(table, FilterShape::none, &index, Scan::page), p.view()); });
    if (r.rows() > 0) {
      holder = fmt::format("{} {}", kind, ids->make(is_edge ? kEdgeId : kVertexId, r.text(0, 0)));
    } else if (batch_holder) {
      holder = batch_holder(index, *value);
    }
    if (holder.empty()) holder = "another " + std::string(kind);
    throw AlreadyExists(fmt::format("{}unique index on {}.{}: value {} is already held by {}", where, index.label,
                                    index.key, *value, holder));
  }

  /// Runs a write; maps the server's complaints about the caller's data to the contract's
  /// errors: a unique violation to AlreadyExists (see throw_duplicate), bad data (class 22,
  /// e.g. invalid UTF-8) to InvalidArgument. `body` must hold its connection only inside.
  template <typename F>
  auto mapping_write_errors(std::string_view label, const Properties& written, F&& body, std::string_view where = {}) {
    try {
      return body();
    } catch (const ServerError& e) {
      if (e.sqlstate() == kUniqueViolation) throw_duplicate(e, label, written, where);
      if (e.sqlstate().starts_with("22")) throw InvalidArgument(fmt::format("{}{}", where, e.what()));
      throw;
    }
  }

  // -- statement arguments -------------------------------------------------------------------

  Filter filter(std::string_view label, const Properties& filter) {
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

  PageArgs page(const Page& page, IdKind kind) const {
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

  /// The parameters of GraphSql::scan.
  static ParamList scan_params(std::string_view label, const Filter& f, const PageArgs* page) {
    ParamList p;
    p.text(std::string(label));
    if (f.shape != FilterShape::none) p.text(f.contained).text(f.absent);
    if (f.indexed) p.text(f.indexed_value);
    if (page) {
      p.text(page->after);
      if (page->limit) p.text(*page->limit); else p.null();
    }
    return p;
  }

  /// One page of the elements of `table` with `label` that match `filter` (find_*_by_label);
  /// nullopt when nothing can match.
  std::optional<Result> scan_page(Table table, std::string_view label, const Properties& filter, const Page& page) {
    if (!is_valid_label(label)) return std::nullopt;
    const Filter f = this->filter(label, filter);
    const PageArgs p = this->page(page, table == Table::vertices ? kVertexId : kEdgeId);
    if (f.matches_nothing || p.empty) return std::nullopt;
    ParamList params = scan_params(label, f, &p);
    return query(sql->scan(table, f.shape, f.indexed ? &*f.indexed : nullptr, Scan::page), params.view());
  }

  // -- rows --------------------------------------------------------------------------------

  [[nodiscard]] Edge edge_from(const Result& r, int row, ElementId id, std::string label, int from_col) const {
    return Edge{std::move(id), std::move(label), ids->make(kVertexId, r.text(row, from_col)),
                ids->make(kVertexId, r.text(row, from_col + 1)), decode_properties(r.text(row, from_col + 2))};
  }

  /// Loads a subgraph's rows (GraphSql::reachable / whole) through COPY in binary format.
  /// `edge_records`: results may name edges (paths, cycles), so keep their records.
  Subgraph load(const std::string& select, bool edge_records, const std::string* weight_key = nullptr) {
    return read([&](Connection& c) {
      Subgraph sub(*ids);
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

  /// The subgraph a traversal from `start` can touch: within max_depth hops, or everything
  /// reachable when max_depth < 0 (unbounded) or deeper than kMaxCteDepth.
  Subgraph reachable(const ElementId& start, Direction direction, const std::optional<std::string>& edge_label,
                     int max_depth, const std::string* weight_key = nullptr) {
    const auto start_row = ids->row(start, kVertexId);
    if (!start_row) return Subgraph(*ids);
    const bool bounded = max_depth >= 0 && max_depth <= kMaxCteDepth;
    return load(sql->reachable(direction, label_filter(edge_label), std::stoll(*start_row),
                               bounded ? std::optional<int>(max_depth) : std::nullopt),
                true, weight_key);
  }

  /// Every vertex [with vertex_label] and the edges [with edge_label] between them.
  Subgraph whole(const std::optional<std::string>& vertex_label, const std::optional<std::string>& edge_label,
                 bool edge_records) {
    return load(sql->whole(label_filter(vertex_label), label_filter(edge_label), edge_records), edge_records);
  }

  // -- bulk writes ---------------------------------------------------------------------------

  /// `n` fresh row ids of `table`, ascending.
  std::vector<std::int64_t> reserve_rows(Connection& c, Table table, std::size_t n) {
    const std::string count = decimal(static_cast<std::int64_t>(n));
    Param p[] = {count.c_str()};
    Result r = c.exec(sql->reserve_ids(table), p);
    std::vector<std::int64_t> rows;
    rows.reserve(n);
    for (int i = 0; i < r.rows(); ++i) rows.push_back(r.int64(i, 0));
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  /// Streams `n` rows through COPY in one transaction; `put_row(chunk, i, row id)` appends
  /// record i. Returns the row ids, in record order.
  template <typename PutRow>
  std::vector<std::int64_t> copy_rows(Table table, std::size_t n, PutRow&& put_row) {
    return write_on_primary([&](Connection& c) { return atomically(c, [&] { return copy_in(c, table, n, put_row); }); });
  }

  /// copy_rows of edges (`ends`: each record's endpoint rows). A large load into a small graph
  /// runs in rebuild mode (start_edge_rebuild), whose endpoints are checked here in one
  /// statement; out of a transaction it is finished before COMMIT, in one at the transaction's
  /// next call other than a bulk write or at its commit.
  template <typename PutRow>
  std::vector<std::int64_t> copy_edges(std::span<const NewEdge> edges,
                                       const std::vector<std::pair<std::int64_t, std::int64_t>>& ends,
                                       PutRow&& put_row) {
    return write_on_primary([&](Connection& c) {
      return atomically(c, [&] {
        EdgeRebuild own;
        EdgeRebuild& rebuild = pinned ? pinned->edge_rebuild : own;
        const bool started = !rebuild.active && start_edge_rebuild(c, rebuild, edges.size());
        try {
          if (rebuild.active) check_endpoints(c, edges, ends, &rebuild.existing);
          auto rows = copy_in(c, Table::edges, edges.size(), put_row);
          if (!pinned) finish_edge_rebuild(c, rebuild);
          return rows;
        } catch (...) {
          if (started) rebuild = {};  // the rollback (to the call's savepoint) undoes the drops
          throw;
        }
      });
    });
  }

  /// The COPY of copy_rows on `c`: reserves the row ids, streams the records.
  template <typename PutRow>
  std::vector<std::int64_t> copy_in(Connection& c, Table table, std::size_t n, PutRow&& put_row) {
    constexpr std::size_t kChunk = std::size_t{1} << 18;
    std::vector<std::int64_t> rows = reserve_rows(c, table, n);
    std::size_t next = 0;
    c.copy_in(sql->copy_from(table), [&](std::string& chunk) {
      if (next == 0) CopyWriter::header(chunk);
      for (; next < n && chunk.size() < kChunk; ++next) put_row(chunk, next, rows[next]);
      if (next < n) return true;
      CopyWriter::trailer(chunk);
      return false;
    });
    return rows;
  }

  /// Enters rebuild mode for a bulk write of `n` edges on `c` (in its transaction) when
  /// PostgresOptions::bulk_rebuild_min_edges allows it, the graph holds at most `n` edges, the
  /// role owns the tables and no other transaction holds a lock on them: locks both tables,
  /// drops the foreign keys and the plain indexes of edges. False, with nothing changed,
  /// otherwise. Costs five or six round trips.
  bool start_edge_rebuild(Connection& c, EdgeRebuild& rebuild, std::size_t n) {
    if (options.bulk_rebuild_min_edges == 0 || n < options.bulk_rebuild_min_edges) return false;
    const std::string count = decimal(static_cast<std::int64_t>(n));
    Param p[] = {count.c_str()};
    Result check = c.exec(sql->rebuild_check, p);
    if (!check.boolean(0, 0) || check.int64(0, 1) > static_cast<std::int64_t>(n)) return false;
    static const std::string kSave = "SAVEPOINT propgraph_rebuild";
    static const std::string kRelease = "RELEASE SAVEPOINT propgraph_rebuild";
    static const std::string kUndo = "ROLLBACK TO SAVEPOINT propgraph_rebuild";
    c.exec(kSave, {}, false);
    try {
      c.exec(sql->lock_for_rebuild, {}, false);
    } catch (const ServerError& e) {
      if (e.sqlstate() != kLockNotAvailable) throw;
      c.exec(kUndo, {}, false);  // another transaction uses the graph: row by row, as always
      c.exec(kRelease, {}, false);
      return false;
    }
    c.exec(kRelease, {}, false);
    Result indexes = c.exec(sql->plain_edge_indexes, {}, false);
    std::vector<std::string> definitions;
    for (int i = 0; i < indexes.rows(); ++i) {
      c.exec(sql->drop_index(std::string(indexes.text(i, 0))), {}, false);
      definitions.emplace_back(indexes.text(i, 1));
    }
    const bool keys = check.int64(0, 2) == 2;
    if (keys) c.exec(sql->drop_foreign_keys, {}, false);
    rebuild = EdgeRebuild{true, keys, std::move(definitions), {}};
    return true;
  }

  /// Leaves rebuild mode: builds the dropped indexes again and adds the foreign keys (which
  /// check every edge in one join). Whatever happens, the mode is over: a failure aborts the
  /// transaction.
  void finish_edge_rebuild(Connection& c, EdgeRebuild& rebuild) {
    if (!rebuild.active) return;
    const EdgeRebuild done = std::exchange(rebuild, {});
    for (const auto& definition : done.index_definitions) c.exec(definition, {}, false);
    if (done.foreign_keys) c.exec(sql->add_foreign_keys, {}, false);
  }

  /// Throws NotFound naming the first of `edges` with an endpoint (`ends`: their rows) that does
  /// not exist; one statement. `existing` (ascending), when given, holds rows known to exist,
  /// which are not looked up, and gains the rows found.
  void check_endpoints(Connection& c, std::span<const NewEdge> edges,
                       const std::vector<std::pair<std::int64_t, std::int64_t>>& ends,
                       std::vector<std::int64_t>* existing = nullptr) {
    std::vector<std::int64_t> distinct;
    distinct.reserve(2 * ends.size());
    for (const auto& [from, to] : ends) {
      distinct.push_back(from);
      distinct.push_back(to);
    }
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    if (existing) {
      std::vector<std::int64_t> unknown;
      std::set_difference(distinct.begin(), distinct.end(), existing->begin(), existing->end(),
                          std::back_inserter(unknown));
      distinct = std::move(unknown);
      if (distinct.empty()) return;
    }
    std::string array = "{";
    for (std::size_t i = 0; i < distinct.size(); ++i) {
      if (i) array.push_back(',');
      array += decimal(distinct[i]);
    }
    array.push_back('}');
    Param p[] = {array.c_str()};
    Result r = c.exec(sql->missing_vertices, p);
    if (r.rows() == 0) {
      if (existing) {
        const auto middle = existing->insert(existing->end(), distinct.begin(), distinct.end());
        std::inplace_merge(existing->begin(), middle, existing->end());
      }
      return;
    }
    std::vector<std::int64_t> missing;
    for (int i = 0; i < r.rows(); ++i) missing.push_back(r.int64(i, 0));
    std::sort(missing.begin(), missing.end());
    const auto gone = [&](std::int64_t row) { return std::binary_search(missing.begin(), missing.end(), row); };
    for (std::size_t i = 0; i < edges.size(); ++i) {
      if (gone(ends[i].first) || gone(ends[i].second)) {
        const bool source = gone(ends[i].first);
        throw NotFound(fmt::format("create_edges: edges[{}]: {} vertex '{}' not found", i, source ? "source" : "target",
                                   (source ? edges[i].from : edges[i].to).str()));
      }
    }
    throw NotFound(fmt::format("create_edges: vertex row {} not found", missing.front()));  // not reached
  }

  /// NotFound for a bulk edge write the foreign keys refused, naming the first record with an
  /// endpoint that does not exist ("create_edges: edges[3]: target vertex 'pg1:v9' not found").
  /// The foreign key's check runs after the COPY's rows, so its error has no line: the
  /// endpoints are looked up (on the primary, in a transaction on its connection).
  [[noreturn]] void throw_missing_endpoint(const ServerError& e, std::span<const NewEdge> edges,
                                           const std::vector<std::pair<std::int64_t, std::int64_t>>& ends) {
    on_primary([&](Connection& c) {
      check_endpoints(c, edges, ends);
      return 0;
    });
    // Missing when the foreign key checked, there now: a vertex that a concurrent bulk write was
    // still creating under an id the caller already knew.
    throw NotFound(fmt::format("create_edges: an endpoint vertex was not found ({})", e.what()));
  }

  /// The record (0-based) a COPY error names in its context ("COPY vertices, line 3, ...").
  static std::optional<std::size_t> copy_record(const ServerError& e, std::size_t n) {
    const auto at = e.context().find(", line ");
    if (at == std::string::npos) return std::nullopt;
    std::size_t line = 0;
    const char* first = e.context().data() + at + 7;
    auto [ptr, ec] = std::from_chars(first, e.context().data() + e.context().size(), line);
    if (ec != std::errc() || line < 1 || line > n) return std::nullopt;
    return line - 1;
  }

  /// A bulk write's server error in the terms of single writes, located at its record
  /// ("create_vertices: vertices[3]: ..."): unique violations (the holder may be an earlier
  /// record of the batch), bad data. `record(i)` gives record i's label and properties.
  template <typename Record>
  [[noreturn]] void throw_bulk_error(const ServerError& e, std::string_view call, std::string_view records,
                                     std::size_t n, Record&& record) {
    const auto i = copy_record(e, n);
    const std::string where =
        i ? fmt::format("{}: {}[{}]: ", call, records, *i) : fmt::format("{}: ", call);
    if (e.sqlstate() == kUniqueViolation && i) {
      const auto& [label, written] = record(*i);
      throw_duplicate(e, label, written, where, [&](const IndexedKey& index, const Value& value) -> std::string {
        for (std::size_t j = 0; j < *i; ++j) {
          const auto& [other_label, other] = record(j);
          if (other_label == index.label && other[index.key] == value) {
            return fmt::format("{}[{}] of the same batch", records, j);
          }
        }
        return {};
      });
    }
    if (e.sqlstate().starts_with("22")) throw InvalidArgument(fmt::format("{}{}", where, e.what()));
    throw e;
  }
};

PostgresGraph::PostgresGraph(PostgresOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
PostgresGraph::PostgresGraph(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PostgresGraph::~PostgresGraph() = default;

const PostgresOptions& PostgresGraph::options() const noexcept { return impl_->options; }
const std::string& PostgresGraph::schema_name() const noexcept { return impl_->schema; }

PostgresGraph::ReadRouting PostgresGraph::read_routing() const { return impl_->replicas.routing(); }

PostgresGraph::PoolStatus PostgresGraph::pool_status() {
  const auto s = impl_->pool.status();
  return PoolStatus{s.open, s.idle, s.waiting, s.opened};
}

// -- session ----------------------------------------------------------------------------------

bool PostgresGraph::create_graph(std::string_view name) {
  validate_label(name, "graph name");
  return impl_->write_on_primary([&](Connection& c) { return impl_->create_graph(c, std::string(name)).has_value(); });
}

bool PostgresGraph::drop_graph(std::string_view name) {
  if (!is_valid_label(name)) return false;
  if (name == impl_->options.graph) {
    // Empties the graph and drops its property indexes; identities continue, so old ids are
    // never reissued.
    impl_->write_on_primary([&](Connection& c) {
      in_transaction(c, [&] {
        c.exec(impl_->sql->lock_indexes);
        Result dropped = c.exec(impl_->sql->delete_all_indexes);
        for (int i = 0; i < dropped.rows(); ++i) {
          for (int col = 0; col < 2; ++col) c.exec(impl_->sql->drop_index(std::string(dropped.text(i, col))), {}, false);
        }
        c.exec(impl_->sql->truncate);
        return 0;
      });
      impl_->load_indexes(c);
      return 0;
    });
    return true;
  }
  const std::string n(name);
  return impl_->write_on_primary([&](Connection& c) {
    return in_transaction(c, [&] {
      impl_->lock_catalog(c);
      Param p[] = {n.c_str()};
      Result r = c.exec(impl_->catalog.delete_graph, p);
      if (r.rows() == 0) return false;
      c.exec(impl_->catalog.drop_graph_ddl(r.int64(0, 0)), {}, false);
      return true;
    });
  });
}

bool PostgresGraph::graph_exists(std::string_view name) {
  if (!is_valid_label(name)) return false;
  const std::string n(name);
  return impl_->query(impl_->catalog.graph_id, {n.c_str()}).rows() > 0;
}

namespace {
std::vector<std::string> column(const Result& r) {
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) out.emplace_back(r.text(i, 0));
  return out;
}
}  // namespace

std::vector<std::string> PostgresGraph::vertex_labels() { return column(impl_->query(impl_->sql->vertex_labels, {})); }
std::vector<std::string> PostgresGraph::edge_labels() { return column(impl_->query(impl_->sql->edge_labels, {})); }

// -- indexes ----------------------------------------------------------------------------------

bool PostgresGraph::create_index(std::string_view label, std::string_view key, const IndexOptions& options) {
  validate_label(label);
  validate_index_key(key, "create_index");
  if (key.find('\0') != std::string_view::npos) {
    throw InvalidArgument("create_index: PostgresGraph cannot store a NUL character in a key");
  }
  const IndexEntry entry{IndexedKey{std::string(label), std::string(key)}, options.unique,
                         index_name('v', label, key), index_name('e', label, key)};
  const std::string unique = options.unique ? "true" : "false";
  auto& sql = *impl_->sql;
  return impl_->write_on_primary([&](Connection& c) {
    Table building = Table::vertices;
    try {
      // One transaction: the catalog row and both indexes exist together or not at all.
      const bool created = in_transaction(c, [&] {
        c.exec(sql.lock_indexes);
        Param find[] = {entry.indexed.label.c_str(), entry.indexed.key.c_str()};
        if (c.exec(sql.find_index, find).rows() > 0) return false;
        Param insert[] = {entry.indexed.label.c_str(), entry.indexed.key.c_str(), unique.c_str(),
                          entry.vertex_index.c_str(), entry.edge_index.c_str()};
        c.exec(sql.insert_index, insert);
        building = Table::vertices;
        c.exec(sql.create_index(Table::vertices, entry.vertex_index, entry.indexed, options.unique), {}, false);
        building = Table::edges;
        c.exec(sql.create_index(Table::edges, entry.edge_index, entry.indexed, options.unique), {}, false);
        return true;
      });
      impl_->load_indexes(c);
      return created;
    } catch (const ServerError& e) {
      if (e.sqlstate() != kUniqueViolation) throw;
      // Rolled back; name the first duplicate as MemoryGraph does.
      Result d = c.exec(sql.first_duplicate(building, entry.indexed), {}, false);
      if (d.rows() == 0) throw AlreadyExists(fmt::format("create_index: {}", e.what()));
      const Value value = decode_properties(d.text(0, 0))["v"];
      std::string_view row_ids = d.text(0, 1);  // {12,34,...}
      row_ids.remove_prefix(1);
      const auto comma = row_ids.find(',');
      const std::string_view first = row_ids.substr(0, comma);
      const std::string_view second = row_ids.substr(comma + 1, row_ids.find_first_of(",}", comma + 1) - comma - 1);
      const IdKind kind = building == Table::vertices ? kVertexId : kEdgeId;
      throw AlreadyExists(fmt::format("create_index: {} {} and {} of label {} both hold {} = {}",
                                      building == Table::vertices ? "vertices" : "edges",
                                      impl_->ids->make(kind, first), impl_->ids->make(kind, second), label, key,
                                      value));
    }
  });
}

bool PostgresGraph::drop_index(std::string_view label, std::string_view key) {
  if (!is_valid_label(label) || key.empty() || key.find('\0') != std::string_view::npos) return false;
  const std::string l(label);
  const std::string k(key);
  auto& sql = *impl_->sql;
  return impl_->write_on_primary([&](Connection& c) {
    const bool dropped = in_transaction(c, [&] {
      c.exec(sql.lock_indexes);
      Param p[] = {l.c_str(), k.c_str()};
      Result r = c.exec(sql.delete_index, p);
      if (r.rows() == 0) return false;
      c.exec(sql.drop_index(std::string(r.text(0, 0))), {}, false);
      c.exec(sql.drop_index(std::string(r.text(0, 1))), {}, false);
      return true;
    });
    impl_->load_indexes(c);
    return dropped;
  });
}

std::vector<IndexInfo> PostgresGraph::indexes() {
  impl_->on_primary([&](Connection& c) { return impl_->load_indexes(c); });
  return impl_->index_catalog.infos();
}

// -- vertices ---------------------------------------------------------------------------------

Vertex PostgresGraph::create_vertex(std::string_view label, const Properties& properties) {
  validate_label(label);
  validate_properties(properties);
  const std::string json = encode_properties(properties);
  std::string l(label);
  Result r = impl_->mapping_write_errors(label, properties, [&] { return impl_->execute(impl_->sql->insert_vertex, {l.c_str(), json.c_str()}); });
  return Vertex{impl_->ids->make(kVertexId, r.text(0, 0)), std::move(l), without_nulls(properties)};
}

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

std::optional<Vertex> PostgresGraph::update_vertex(std::string_view label, const ElementId& id,
                                                   const Properties& properties) {
  validate_properties(properties);
  if (properties.empty()) return find_vertex_by_id(label, id);
  if (!is_valid_label(label)) return std::nullopt;
  const auto row = impl_->ids->row(id, kVertexId);
  if (!row) return std::nullopt;
  const Patch patch = make_patch(properties);
  std::string l(label);
  Result r = impl_->mapping_write_errors(label, properties, [&] {
    return impl_->execute(impl_->sql->update_vertex, {row->c_str(), l.c_str(), patch.set.c_str(), patch.removed.c_str()});
  });
  if (r.rows() == 0) return std::nullopt;
  return Vertex{id, std::move(l), decode_properties(r.text(0, 0))};
}

bool PostgresGraph::delete_vertex(std::string_view label, const ElementId& id) {
  if (!is_valid_label(label)) return false;
  const auto row = impl_->ids->row(id, kVertexId);
  if (!row) return false;
  const std::string l(label);
  // One statement: the foreign keys delete the vertex's edges with it.
  return impl_->execute(impl_->sql->delete_vertex, {row->c_str(), l.c_str()}).affected() > 0;
}

std::int64_t PostgresGraph::count_vertices(std::string_view label) {
  if (!is_valid_label(label)) return 0;
  const std::string l(label);
  return impl_->query(impl_->sql->count_vertices, {l.c_str()}).int64(0, 0);
}

std::int64_t PostgresGraph::count_vertices() { return impl_->query(impl_->sql->count_all_vertices, {}).int64(0, 0); }

Upserted PostgresGraph::upsert_vertex(std::string_view label, const Properties& match, const Properties& properties) {
  validate_label(label);
  validate_properties(match);
  validate_properties(properties);
  Properties written = match;
  written.merge(properties);
  const std::string created_json = encode_properties(written);
  const Patch patch = make_patch(properties);
  // Concurrent upserts of the same (label, match) queue on one transaction-scoped advisory
  // lock; the lookup that follows sees whatever the previous holder committed.
  std::string lock_key = impl_->schema + '\x1f' + std::string(label);
  for (const auto& [key, value] : match) {
    lock_key += '\x1f';
    append_json_string(lock_key, key);
    lock_key += ':';
    append_json(lock_key, value);
  }
  const Filter f = impl_->filter(label, match);
  const std::string l(label);
  auto& sql = *impl_->sql;
  // Lock, lookup, then UPDATE or INSERT, in one transaction on the primary.
  const auto upsert = [&](Connection& c) -> Upserted {
    Param lock[] = {lock_key.c_str()};
    c.exec(sql.upsert_lock, lock);
    if (!f.matches_nothing) {
      const IndexedKey* indexed = f.indexed ? &*f.indexed : nullptr;
      ParamList p = Impl::scan_params(label, f, nullptr);
      Result found = c.exec(sql.scan(Table::vertices, f.shape, indexed, Scan::lock_first), p.view());
      if (found.rows() > 1) {
        const std::int64_t n = c.exec(sql.scan(Table::vertices, f.shape, indexed, Scan::count), p.view()).int64(0, 0);
        throw InvalidArgument(fmt::format("upsert_vertex: {} vertices of label {} match {}", n, label, match));
      }
      if (found.rows() == 1) {
        const ElementId id = impl_->ids->make(kVertexId, found.text(0, 0));
        if (properties.empty()) return Upserted{Vertex{id, l, decode_properties(found.text(0, 1))}, false};
        Param update[] = {found.text(0, 0).data(), l.c_str(), patch.set.c_str(), patch.removed.c_str()};
        Result u = c.exec(sql.update_vertex, update);
        return Upserted{Vertex{id, l, decode_properties(u.text(0, 0))}, false};
      }
    }
    Param insert[] = {l.c_str(), created_json.c_str()};
    Result r = c.exec(sql.insert_vertex, insert);
    return Upserted{Vertex{impl_->ids->make(kVertexId, r.text(0, 0)), l, without_nulls(written)}, true};
  };
  return impl_->mapping_write_errors(label, written, [&] {
    return impl_->write_on_primary([&](Connection& c) { return impl_->atomically(c, [&] { return upsert(c); }); });
  });
}

std::vector<ElementId> PostgresGraph::create_vertices(std::span<const NewVertex> vertices) {
  if (vertices.empty()) return {};
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    validate_record(vertices[i].label, vertices[i].properties, "create_vertices", "vertices", i);
  }
  const auto record = [&](std::size_t i) {
    return std::pair<std::string_view, const Properties&>(vertices[i].label, vertices[i].properties);
  };
  std::vector<std::int64_t> rows;
  try {
    rows = impl_->copy_rows(Table::vertices, vertices.size(), [&](std::string& chunk, std::size_t i, std::int64_t row) {
      CopyWriter::row(chunk, 3);
      CopyWriter::int8(chunk, row);
      CopyWriter::text(chunk, vertices[i].label);
      CopyWriter::jsonb(chunk, encode_record(vertices[i].properties, "create_vertices", "vertices", i));
    });
  } catch (const ServerError& e) {
    impl_->throw_bulk_error(e, "create_vertices", "vertices", vertices.size(), record);
  }
  std::vector<ElementId> ids;
  ids.reserve(rows.size());
  for (std::int64_t row : rows) ids.push_back(impl_->ids->make(kVertexId, row));
  return ids;
}

// -- edges ------------------------------------------------------------------------------------

Edge PostgresGraph::create_edge(const ElementId& from, const ElementId& to, std::string_view label,
                                const Properties& properties) {
  validate_label(label);
  validate_properties(properties);
  const std::string json = encode_properties(properties);
  const auto source_missing = [&] { return NotFound(fmt::format("create_edge: source vertex '{}' not found", from.str())); };
  const auto target_missing = [&] { return NotFound(fmt::format("create_edge: target vertex '{}' not found", to.str())); };
  const auto from_row = impl_->ids->row(from, kVertexId);
  if (!from_row) throw source_missing();
  const auto to_row = impl_->ids->row(to, kVertexId);
  if (!to_row) throw target_missing();
  std::string l(label);
  Result r = impl_->mapping_write_errors(label, properties, [&] {
    try {
      return impl_->execute(impl_->sql->insert_edge, {from_row->c_str(), to_row->c_str(), l.c_str(), json.c_str()});
    } catch (const ServerError& e) {
      // The endpoint was deleted after the statement's snapshot, before its foreign-key check.
      if (e.sqlstate() == kForeignKeyViolation) {
        throw e.constraint() == "edges_from_id_fkey" ? source_missing() : target_missing();
      }
      throw;
    }
  });
  if (r.is_null(0, 0)) {
    if (!r.boolean(0, 1)) throw source_missing();
    throw target_missing();
  }
  return Edge{impl_->ids->make(kEdgeId, r.text(0, 0)), std::move(l), from, to, without_nulls(properties)};
}

std::vector<ElementId> PostgresGraph::create_edges(std::span<const NewEdge> edges) {
  if (edges.empty()) return {};
  std::vector<std::pair<std::int64_t, std::int64_t>> ends;
  ends.reserve(edges.size());
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const auto& e = edges[i];
    validate_record(e.label, e.properties, "create_edges", "edges", i);
    const auto from = impl_->ids->row(e.from, kVertexId);
    if (!from) throw NotFound(fmt::format("create_edges: edges[{}]: source vertex '{}' not found", i, e.from.str()));
    const auto to = impl_->ids->row(e.to, kVertexId);
    if (!to) throw NotFound(fmt::format("create_edges: edges[{}]: target vertex '{}' not found", i, e.to.str()));
    ends.emplace_back(std::stoll(*from), std::stoll(*to));
  }
  const auto record = [&](std::size_t i) {
    return std::pair<std::string_view, const Properties&>(edges[i].label, edges[i].properties);
  };
  std::vector<std::int64_t> rows;
  try {
    rows = impl_->copy_edges(edges, ends, [&](std::string& chunk, std::size_t i, std::int64_t row) {
      CopyWriter::row(chunk, 5);
      CopyWriter::int8(chunk, row);
      CopyWriter::text(chunk, edges[i].label);
      CopyWriter::int8(chunk, ends[i].first);
      CopyWriter::int8(chunk, ends[i].second);
      CopyWriter::jsonb(chunk, encode_record(edges[i].properties, "create_edges", "edges", i));
    });
  } catch (const ServerError& e) {
    if (e.sqlstate() == kForeignKeyViolation) impl_->throw_missing_endpoint(e, edges, ends);
    impl_->throw_bulk_error(e, "create_edges", "edges", edges.size(), record);
  }
  std::vector<ElementId> ids;
  ids.reserve(rows.size());
  for (std::int64_t row : rows) ids.push_back(impl_->ids->make(kEdgeId, row));
  return ids;
}

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
  for (int i = 0; i < r.rows(); ++i) result.push_back(impl_->edge_from(r, i, impl_->ids->make(kEdgeId, r.text(i, 0)), l, 1));
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
  if (p.limit) params.text(*p.limit); else params.null();
  if (label) params.text(*label);
  Result r = impl_->query(impl_->sql->incident(query.direction, label.has_value()), params.view());
  std::vector<Edge> result;
  result.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    result.push_back(impl_->edge_from(r, i, impl_->ids->make(kEdgeId, r.text(i, 0)), std::string(r.text(i, 1)), 2));
  }
  return result;
}

std::optional<Edge> PostgresGraph::update_edge(std::string_view label, const ElementId& id,
                                               const Properties& properties) {
  validate_properties(properties);
  if (properties.empty()) return find_edge_by_id(label, id);
  if (!is_valid_label(label)) return std::nullopt;
  const auto row = impl_->ids->row(id, kEdgeId);
  if (!row) return std::nullopt;
  const Patch patch = make_patch(properties);
  std::string l(label);
  Result r = impl_->mapping_write_errors(label, properties, [&] {
    return impl_->execute(impl_->sql->update_edge, {row->c_str(), l.c_str(), patch.set.c_str(), patch.removed.c_str()});
  });
  if (r.rows() == 0) return std::nullopt;
  return impl_->edge_from(r, 0, id, std::move(l), 0);
}

bool PostgresGraph::delete_edge(std::string_view label, const ElementId& id) {
  if (!is_valid_label(label)) return false;
  const auto row = impl_->ids->row(id, kEdgeId);
  if (!row) return false;
  const std::string l(label);
  return impl_->execute(impl_->sql->delete_edge, {row->c_str(), l.c_str()}).affected() > 0;
}

std::int64_t PostgresGraph::count_edges(std::string_view label) {
  if (!is_valid_label(label)) return 0;
  const std::string l(label);
  return impl_->query(impl_->sql->count_edges, {l.c_str()}).int64(0, 0);
}

std::int64_t PostgresGraph::count_edges() { return impl_->query(impl_->sql->count_all_edges, {}).int64(0, 0); }

// -- traversal --------------------------------------------------------------------------------

std::vector<Vertex> PostgresGraph::neighbors(const ElementId& start, const NeighborOptions& options) {
  validate(options);
  if (options.max_depth > kMaxCteDepth) {
    Subgraph sub = impl_->reachable(start, options.direction, options.edge_label, options.max_depth);
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
  if (p.limit) params.text(*p.limit); else params.null();
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
  Subgraph sub = impl_->reachable(from, options.direction, options.edge_label, depth, weight);
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
  Subgraph sub = impl_->reachable(from, options.direction, options.edge_label, options.max_depth);
  return sub.paths(sub.graph().all_paths(sub.memory_vertex(from), sub.memory_vertex(to), options));
}

// -- algorithms -------------------------------------------------------------------------------

std::vector<PageRankScore> PostgresGraph::page_rank(const PageRankOptions& options) {
  validate(options);
  Subgraph sub = impl_->whole(options.vertex_label, options.edge_label, false);
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
  Subgraph sub = impl_->whole(options.vertex_label, options.edge_label, false);
  return sub.components(sub.graph().connected_components(options));
}

std::vector<Visit> PostgresGraph::bfs(const ElementId& start, const TraversalOptions& options) {
  validate(options);
  Subgraph sub = options.max_vertices == 0
                     ? Subgraph(*impl_->ids)
                     : impl_->reachable(start, options.direction, options.edge_label, options.max_depth);
  return sub.visits(sub.graph().bfs(sub.memory_vertex(start), options));
}

std::vector<Visit> PostgresGraph::dfs(const ElementId& start, const TraversalOptions& options) {
  validate(options);
  Subgraph sub = options.max_vertices == 0
                     ? Subgraph(*impl_->ids)
                     : impl_->reachable(start, options.direction, options.edge_label, options.max_depth);
  return sub.visits(sub.graph().dfs(sub.memory_vertex(start), options));
}

std::vector<Cycle> PostgresGraph::detect_cycles(const CycleOptions& options) {
  validate(options);
  Subgraph sub = impl_->whole(options.vertex_label, options.edge_label, true);
  return sub.cycles(sub.graph().detect_cycles(options));
}


// -- transactions -----------------------------------------------------------------------------

/// A PostgreSQL transaction: every call runs PostgresGraph's own implementation on a view of the
/// graph pinned to the transaction's connection (Impl::pinned), through Forwarding's one list.
class PostgresGraph::Tx final : public backend::Forwarding<Transaction> {
 public:
  Tx(const std::shared_ptr<Shared>& shared, ConnectionPool::Lease lease)
      : Forwarding(view_), lease_(std::move(lease)), pinned_{&**lease_}, view_(std::make_unique<Impl>(shared, &pinned_)) {}
  ~Tx() override { rollback(); }
  Tx(const Tx&) = delete;
  Tx& operator=(const Tx&) = delete;

  void commit() override {
    ensure_open(Operation::commit);
    Connection& c = **lease_;
    if (c.in_failed_transaction()) {
      rollback();
      throw QueryError("PostgresGraph: commit: a failed call left the transaction aborted; rolled back");
    }
    if (auto d = current_deadline(); d && Clock::now() >= *d) {
      rollback();
      throw_deadline("before COMMIT; rolled back");
    }
    try {
      view_.impl_->finish_edge_rebuild(c, pinned_.edge_rebuild);
    } catch (const ServerError& e) {
      rollback();
      rethrow_conflict(e);
      throw;
    } catch (...) {
      rollback();
      throw;
    }
    try {
      c.exec(kCommit, {}, false, Deadline::ignore);
    } catch (const ServerError& e) {
      end();  // the server rolled back
      rethrow_conflict(e);
      throw;
    } catch (...) {
      end();  // the connection is lost: the server rolled back unless COMMIT got through first
      throw;
    }
    if (pinned_.wrote) view_.impl_->replicas.wrote(c);
    end();
  }

  void rollback() override {
    if (!lease_) return;
    Connection& c = **lease_;
    if (!c.broken()) {
      try {
        c.exec(kRollback, {}, false, Deadline::ignore);
      } catch (...) {
        // The pool closes a connection left inside a transaction, which rolls it back.
      }
    }
    end();
  }

  [[nodiscard]] bool is_open() const noexcept override { return lease_.has_value(); }

 protected:
  void around(Operation op, CallRef call) override {
    ensure_open(op);
    switch (op) {
      case Operation::create_graph:
      case Operation::drop_graph:
      case Operation::create_index:
      case Operation::drop_index:
        throw InvalidArgument(fmt::format("{} is not transactional: call it outside the transaction", to_string(op)));
      default:
        break;
    }
    try {
      // A bulk edge load's rebuild mode ends before any call that may read the edges or rely on
      // their keys (see Impl::copy_edges).
      if (pinned_.edge_rebuild.active && op != Operation::create_edges && op != Operation::create_vertices) {
        view_.impl_->finish_edge_rebuild(**lease_, pinned_.edge_rebuild);
      }
      call();
    } catch (const ServerError& e) {
      rethrow_conflict(e);
      throw;
    } catch (...) {
      // A lost connection ends the transaction (the server rolled it back); the pool discards it.
      if ((*lease_)->broken()) end();
      throw;
    }
  }

 private:
  void ensure_open(Operation op) const {
    if (!lease_) {
      throw InvalidArgument(fmt::format("{}: the transaction has ended (committed or rolled back)", to_string(op)));
    }
  }
  /// Serialization failures and deadlocks are the contract's TransactionConflict.
  static void rethrow_conflict(const ServerError& e) {
    if (e.sqlstate() == "40001" || e.sqlstate() == "40P01") {
      throw TransactionConflict(fmt::format("PostgresGraph: {}; run the transaction again", e.what()));
    }
  }
  /// Returns the connection to the pool (which closes it when broken or still in a transaction).
  void end() noexcept { lease_.reset(); }

  std::optional<ConnectionPool::Lease> lease_;
  Pinned pinned_;
  PostgresGraph view_;
};

std::unique_ptr<Transaction> PostgresGraph::begin() {
  // A view's begin() is never reached: Transaction::begin() is final and throws.
  return std::make_unique<Tx>(impl_->shared, impl_->begin_transaction());
}

}  // namespace propgraph
