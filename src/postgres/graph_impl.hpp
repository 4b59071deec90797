// PostgresGraph's internals: the state its calls share (Shared), the implementation behind every
// call (Impl) and the helpers its parts use. One class, several files by concern:
//   open_and_catalog.cpp  opening (options, catalog, schema creation and upgrades), the graph catalog
//   property_indexes.cpp  the index catalog cache, create_index/drop_index, unique violations
//   element_reads.cpp     lookups, label scans, filters, pages, counts, incident edges
//   element_writes.cpp    single-element creates, updates, upserts, deletes
//   bulk_load.cpp         create_vertices/create_edges: COPY and the edge rebuild mode
//   traversals.cpp        subgraph loading, neighbors, paths, bfs/dfs and the algorithms
//   transaction.cpp       PostgresGraph::Tx and begin()
// Routing (read, write_on_primary) and savepoints (in_savepoint) are templates, here.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "postgres/connection_pool.hpp"
#include "postgres/ids.hpp"
#include "postgres/index_catalog.hpp"
#include "postgres/replicas.hpp"
#include "postgres/statements.hpp"
#include "postgres/subgraph_naming.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/postgres/postgres_graph.hpp"

namespace propgraph {

namespace postgres_detail {

inline const std::string kBegin = "BEGIN";
inline const std::string kCommit = "COMMIT";
inline const std::string kRollback = "ROLLBACK";
inline const std::string kBeginTransaction = "BEGIN ISOLATION LEVEL SERIALIZABLE";
inline const std::string kSavepoint = "SAVEPOINT propgraph_call";
inline const std::string kReleaseSavepoint = "RELEASE SAVEPOINT propgraph_call";
inline const std::string kRollbackToSavepoint = "ROLLBACK TO SAVEPOINT propgraph_call";

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
inline constexpr std::string_view kUniqueViolation = "23505";
/// SQLSTATE of a foreign key violation: an edge's endpoint does not exist.
inline constexpr std::string_view kForeignKeyViolation = "23503";

/// A PostgreSQL text[] literal: {"a","b\"c"}. Throws InvalidArgument for a NUL character.
inline std::string text_array(const std::vector<std::string_view>& items) {
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

/// A page as statement parameters: after (a row id) and limit (NULL: no limit).
struct PageArgs {
  std::string after = "0";
  std::optional<std::string> limit;
  bool empty = false;  // no id can sort after page.after
};

inline std::string decimal(std::int64_t n) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  return std::string(buf, end);
}

/// Runs `undo` (ROLLBACK, ROLLBACK TO SAVEPOINT) on `c` unless the connection broke. An undo
/// that fails leaves the transaction to the pool (which closes a connection left inside one) or
/// to commit() (which refuses an aborted one).
inline void try_undo(Connection& c, const std::string& undo) noexcept {
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
inline std::optional<std::string> label_filter(const std::optional<std::string>& label) {
  if (!label || is_valid_label(*label)) return label;
  return std::string();
}

}  // namespace postgres_detail

// The implementation files work in postgres_detail's terms.
using namespace postgres_detail;

/// What a PostgresGraph and the views of its transactions share.
struct PostgresGraph::Shared {
  PostgresOptions options;
  CatalogSql catalog;
  ConnectionPool pool;
  std::string schema;  // the bound graph's schema (unquoted)
  std::unique_ptr<IdCodec> ids;
  std::unique_ptr<GraphSql> sql;
  std::unique_ptr<RowNaming> naming;  // names the rows of subgraphs (backend::Subgraph) as ids does
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
  std::unique_ptr<RowNaming>& naming;
  IndexCatalog& index_catalog;
  Replicas& replicas;
  Pinned* pinned = nullptr;  // the transaction's connection, for a transaction's view

  Impl(std::shared_ptr<Shared> state, Pinned* pin)
      : shared(std::move(state)),
        options(shared->options),
        catalog(shared->catalog),
        pool(shared->pool),
        schema(shared->schema),
        ids(shared->ids),
        sql(shared->sql),
        naming(shared->naming),
        index_catalog(shared->index_catalog),
        replicas(shared->replicas),
        pinned(pin) {}

  /// Connects, creates the catalog and the bound graph when missing.
  explicit Impl(PostgresOptions opts);

  /// Adds the foreign keys of edges to a graph created without them, in one transaction that
  /// holds off writers: first the edges whose endpoint is gone (those a delete_vertex inside a
  /// transaction could miss; the contract has no such edges), then both keys, which check every
  /// remaining edge. False when another instance added them meanwhile.
  bool add_foreign_keys(Connection& c);

  static PostgresOptions validated(PostgresOptions o);

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
  ConnectionPool::Lease begin_transaction();

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
  void lock_catalog(Connection& c);

  std::optional<std::int64_t> graph_number(Connection& c, const std::string& name);

  /// Creates the catalog entry and schema of `name`; nullopt when it exists.
  std::optional<std::int64_t> create_graph(Connection& c, const std::string& name);

  // -- indexes -----------------------------------------------------------------------------

  /// Reads the index catalog into the cache; returns what it read.
  std::vector<IndexEntry> load_indexes(Connection& c);

  /// The cache, reloaded first when it is stale (see IndexCatalog).
  const IndexCatalog& indexes();

  /// AlreadyExists for a unique violation raised by a write that would have given an element
  /// of `label` the properties `written`. Names label, key, value and an element holding the
  /// value: one in the graph, else what `batch_holder` names (a record of the same batch).
  /// Call after the failed statement's connection went back to the pool.
  [[noreturn]] void throw_duplicate(
      const ServerError& e, std::string_view label, const Properties& written, std::string_view where,
      const std::function<std::string(const IndexedKey&, const Value&)>& batch_holder = {});

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

  Filter filter(std::string_view label, const Properties& filter);

  PageArgs page(const Page& page, IdKind kind) const;

  /// The parameters of GraphSql::scan.
  static ParamList scan_params(std::string_view label, const Filter& f, const PageArgs* page);

  /// One page of the elements of `table` with `label` that match `filter` (find_*_by_label);
  /// nullopt when nothing can match.
  std::optional<Result> scan_page(Table table, std::string_view label, const Properties& filter, const Page& page);

  // -- rows --------------------------------------------------------------------------------

  [[nodiscard]] Edge edge_from(const Result& r, int row, ElementId id, std::string label, int from_col) const;

  /// Loads a subgraph's rows (GraphSql::reachable / whole) through COPY in binary format.
  /// `edge_records`: results may name edges (paths, cycles), so keep their records.
  backend::Subgraph load(const std::string& select, bool edge_records, const std::string* weight_key = nullptr);

  /// The subgraph a traversal from `start` can touch: within max_depth hops, or everything
  /// reachable when max_depth < 0 (unbounded) or deeper than kMaxCteDepth.
  backend::Subgraph reachable(const ElementId& start, Direction direction, const std::optional<std::string>& edge_label,
                              int max_depth, const std::string* weight_key = nullptr);

  /// What bfs and dfs from `start` may visit: reachable(...) within options.max_depth, nothing
  /// when options.max_vertices is 0.
  backend::Subgraph traversed(const ElementId& start, const TraversalOptions& options);

  /// Every vertex [with vertex_label] and the edges [with edge_label] between them.
  backend::Subgraph whole(const std::optional<std::string>& vertex_label, const std::optional<std::string>& edge_label,
                          bool edge_records);

  // -- bulk writes ---------------------------------------------------------------------------

  /// `n` fresh row ids of `table`, ascending.
  std::vector<std::int64_t> reserve_rows(Connection& c, Table table, std::size_t n);

  /// Streams `n` rows through COPY in one transaction; `put_row(chunk, i, row id)` appends
  /// record i. Returns the row ids, in record order.
  template <typename PutRow>
  std::vector<std::int64_t> copy_rows(Table table, std::size_t n, PutRow&& put_row);

  /// copy_rows of edges (`ends`: each record's endpoint rows). A large load into a small graph
  /// runs in rebuild mode (start_edge_rebuild), whose endpoints are checked here in one
  /// statement; out of a transaction it is finished before COMMIT, in one at the transaction's
  /// next call other than a bulk write or at its commit.
  template <typename PutRow>
  std::vector<std::int64_t> copy_edges(std::span<const NewEdge> edges,
                                       const std::vector<std::pair<std::int64_t, std::int64_t>>& ends,
                                       PutRow&& put_row);

  /// The COPY of copy_rows on `c`: reserves the row ids, streams the records.
  template <typename PutRow>
  std::vector<std::int64_t> copy_in(Connection& c, Table table, std::size_t n, PutRow&& put_row);

  /// Enters rebuild mode for a bulk write of `n` edges on `c` (in its transaction) when
  /// PostgresOptions::bulk_rebuild_min_edges allows it, the graph holds at most `n` edges, the
  /// role owns the tables and no other transaction holds a lock on them: locks both tables,
  /// drops the foreign keys and the plain indexes of edges. False, with nothing changed,
  /// otherwise. Costs five or six round trips.
  bool start_edge_rebuild(Connection& c, EdgeRebuild& rebuild, std::size_t n);

  /// Leaves rebuild mode: builds the dropped indexes again and adds the foreign keys (which
  /// check every edge in one join). Whatever happens, the mode is over: a failure aborts the
  /// transaction.
  void finish_edge_rebuild(Connection& c, EdgeRebuild& rebuild);

  /// Throws NotFound naming the first of `edges` with an endpoint (`ends`: their rows) that does
  /// not exist; one statement. `existing` (ascending), when given, holds rows known to exist,
  /// which are not looked up, and gains the rows found.
  void check_endpoints(Connection& c, std::span<const NewEdge> edges,
                       const std::vector<std::pair<std::int64_t, std::int64_t>>& ends,
                       std::vector<std::int64_t>* existing = nullptr);

  /// NotFound for a bulk edge write the foreign keys refused, naming the first record with an
  /// endpoint that does not exist ("create_edges: edges[3]: target vertex 'pg1:v9' not found").
  /// The foreign key's check runs after the COPY's rows, so its error has no line: the
  /// endpoints are looked up (on the primary, in a transaction on its connection).
  [[noreturn]] void throw_missing_endpoint(const ServerError& e, std::span<const NewEdge> edges,
                                           const std::vector<std::pair<std::int64_t, std::int64_t>>& ends);

  /// The record (0-based) a COPY error names in its context ("COPY vertices, line 3, ...").
  static std::optional<std::size_t> copy_record(const ServerError& e, std::size_t n);

  /// A bulk write's server error in the terms of single writes, located at its record
  /// ("create_vertices: vertices[3]: ..."): unique violations (the holder may be an earlier
  /// record of the batch), bad data. `record(i)` gives record i's label and properties.
  template <typename Record>
  [[noreturn]] void throw_bulk_error(const ServerError& e, std::string_view call, std::string_view records,
                                     std::size_t n, Record&& record);
};

}  // namespace propgraph
