// The PostgreSQL backend: a property graph kept in plain PostgreSQL (13+) tables, through libpq.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "propgraph/operation_list.hpp"
#include "propgraph/operations.hpp"

namespace propgraph {

/// Which reads a hot standby may serve (PostgresOptions::standby_reads).
enum class StandbyReads {
  /// None: every call goes to the primary.
  never,
  /// A read goes to a standby once the standby has replayed this instance's last write (its
  /// WAL position, compared with pg_last_wal_replay_lsn()), else to the primary: a caller always
  /// sees its own writes. Writes of other instances reach standby reads after the replication
  /// lag, as with any replica.
  after_own_writes,
  /// Any read goes to a standby while one is reachable; it may miss recent writes, this
  /// instance's included.
  always,
};

/// Settings of a PostgresGraph; every field but conninfo has a working default.
struct PostgresOptions {
  /// libpq connection string or URI: "host=/run/postgresql dbname=app",
  /// "postgresql://user@db.example:5432/app?sslmode=require". Empty: libpq's PG* environment.
  std::string conninfo;
  /// The bound graph (a valid label); created when it does not exist yet.
  std::string graph = "default";
  /// Schema of the graph catalog (a label of at most 40 characters); graph n's tables live in
  /// schema "<catalog_schema>_g<n>". Separate catalogs keep separate sets of graphs.
  std::string catalog_schema = "propgraph";
  /// Most connections open at once (>= 1).
  std::size_t pool_size = 8;
  /// How long a call waits for a free connection before it throws ConnectionError.
  std::chrono::milliseconds acquire_timeout{5000};
  /// How long opening one connection may take.
  std::chrono::milliseconds connect_timeout{10000};
  /// Hot standbys of the primary (libpq connection strings), for reads. Writes, index changes
  /// and catalog calls always go to the primary.
  std::vector<std::string> standby_conninfos;
  /// Which reads the standbys serve.
  StandbyReads standby_reads = StandbyReads::after_own_writes;
  /// Most connections open at once to each standby (>= 1).
  std::size_t standby_pool_size = 8;
  /// Bulk edge loads: a create_edges of at least this many edges into a graph holding no more
  /// edges than it writes, when the role owns the graph's tables and no other transaction is
  /// using them, drops the edges' foreign keys and plain indexes, checks the endpoints in one
  /// statement and rebuilds the indexes and keys before its transaction commits (before the
  /// next other call, inside a transaction): the way PostgreSQL advises populating a table.
  /// Meanwhile both tables are locked exclusively: other callers' reads of the graph wait for
  /// the commit. 0: never; every edge is then checked and indexed row by row.
  std::size_t bulk_rebuild_min_edges = 10000;
};

/// A property graph stored in PostgreSQL.
///
/// Storage: a catalog table `<catalog_schema>.graphs(id, name)` and, per graph, a schema with
/// `vertices(id, label, properties jsonb)`, `edges(id, label, from_id, to_id, properties
/// jsonb)` and an index catalog. from_id and to_id are foreign keys on vertices with ON DELETE
/// CASCADE: no edge outlives an endpoint, also across concurrent transactions (a race the
/// snapshot would hide is a serialization failure). Opening a graph created by an earlier
/// version without those keys adds them (see docs/postgres.md, "Upgrading"). Indexes: (label,
/// id) on both tables, (from_id, id) and (to_id, id) on edges, GIN on vertex properties, and the
/// property indexes of create_index. Property values keep their type in jsonb: a double is
/// stored as {"$d": number} so that filters compare typed (int 30 != double 30.0), an int64 as
/// an exact JSON integer.
/// Strings must be valid UTF-8 without NUL characters.
///
/// Ids look like "pg7:v42" / "pg7:e9": the graph's catalog number, the kind and the row's
/// identity value; ids ascend in creation order and are never reused, and ids of another
/// graph are not found. A Page's `after` may be any id: it selects the rows whose ids sort
/// after it (`WHERE id > $row ORDER BY id LIMIT $n`).
///
/// Queries: statements are parameterized and prepared once per connection. Labels, keys,
/// values and ids travel as parameters, except where PostgreSQL needs constants: a property
/// index's label and key (the planner matches an index's expression and predicate only to
/// constants) and the COPY statements (COPY takes no parameters); there labels are validated and
/// keys escaped. Each write is one statement or one transaction, so a failed write leaves
/// nothing behind.
///
/// Cost: one round trip for lookups, label scans, counts, incident_edges, neighbors, single
/// writes and each load; upsert_vertex, create_index/drop_index and create_graph/drop_graph are
/// one transaction of a few statements; create_vertices/create_edges are one transaction that
/// streams the rows through COPY (binary format); a large create_edges into a smaller graph
/// rebuilds the edges' keys and plain indexes instead of maintaining them per row
/// (PostgresOptions::bulk_rebuild_min_edges). Id lookups and writes use the primary keys;
/// label scans, pages and counts the (label, id) indexes, property filters the property indexes
/// or the GIN index (vertices). neighbors is one recursive CTE bounded by max_depth.
/// shortest_path, all_paths, bfs and dfs fetch the subgraph within max_depth hops with one
/// recursive CTE, page_rank, connected_components and detect_cycles the (label-filtered) graph,
/// through COPY TO in binary format, and run MemoryGraph's algorithm on it, so results are
/// identical to MemoryGraph's. A weighted shortest_path, and any traversal deeper than 10 hops,
/// fetches everything reachable instead. Those calls hold the loaded elements in memory for the
/// duration of the call.
///
/// Concurrency: safe from any number of threads and fibers. Calls borrow a connection from a
/// pool of pool_size, opened on demand; when none is free a call queues (first come, first
/// served once it has waited 1 ms) up to acquire_timeout, then throws
/// ConnectionError("connection pool exhausted: waited 5000 ms for one of 8 connections").
/// Waiting for the pool or the server suspends only the calling fiber, and the fiber's thread
/// runs other fibers meanwhile. On FiberPool threads and on threads that called
/// use_io_scheduler() (propgraph/fiber/io_scheduler.hpp) the thread itself watches the socket:
/// its scheduler polls an epoll set between fibers and sleeps in it when idle. On other threads
/// the socket is handed to an epoll reactor thread (one per process) that wakes the fiber, at
/// the cost of two thread wake-ups per round trip. A call from a thread's main context (a plain
/// thread) blocks that thread in poll(2) instead, as a blocking client would.
///
/// Deadlines (DeadlineScope): a passed deadline throws Timeout before anything is sent; one that
/// passes while the server works cancels the statement (a cancel request) and leaves the
/// connection usable; Timeout means the call had no effect (a transaction rolls back).
///
/// Failures: an idle connection is checked before it is lent (input from the server while it
/// sat idle means goodbye), and once one is found broken all that were idle with it are closed,
/// so no call fails because of a connection that broke while idle. A read that fails on a
/// reused connection is retried once on a fresh one; a write never is (it may have committed).
/// ConnectionError when the server cannot be reached or the connection breaks mid-call;
/// QueryError with the server's message for a failed statement; NotFound / InvalidArgument /
/// AlreadyExists as the GraphOperations contract says.
///
/// Read replicas: with standby_conninfos, reads go to hot standbys as standby_reads says
/// (default: once a standby has replayed this instance's last write, so a caller always sees
/// its own writes; creating the catalog or the graph when opening counts as a write); writes,
/// index and catalog calls go to the primary. With standbys each write costs one more round
/// trip (reading its WAL position). A standby that fails is skipped for a second and its reads
/// go to the primary; a read a standby cannot serve yet (it has not replayed the graph's
/// tables) goes to the primary.
///
/// Catalog: create_graph creates the graph's catalog entry and schema (false when it exists).
/// drop_graph of another graph drops its schema and catalog entry (an instance bound to that
/// graph then gets QueryError); of the bound graph it deletes every element instead: the
/// schema stays and ids issued before are never reissued.
///
/// Transactions (begin()): one PostgreSQL transaction at SERIALIZABLE isolation on one pooled
/// connection, held until commit() or rollback(). Every call inside runs the same statements as
/// outside, on that connection and inside a savepoint (SAVEPOINT, the call, RELEASE: two round
/// trips more per call), so a call that fails is rolled back to the savepoint and the
/// transaction goes on. Bulk writes join the transaction. A serialization failure or deadlock
/// (SQLSTATE 40001, 40P01), raised by a call or by commit(), is TransactionConflict; a lost
/// connection is ConnectionError and ends the transaction (the server rolls it back; the
/// connection is discarded). create_graph, drop_graph, create_index and drop_index throw
/// InvalidArgument inside; reads inside always use the primary. docs/transactions.md has the
/// details: what waits on what, and the costs.
class PostgresGraph final : public GraphOperations {
 public:
  /// Connects, creates the catalog and the bound graph when missing. Throws InvalidArgument
  /// for bad options and ConnectionError when the server cannot be reached.
  explicit PostgresGraph(PostgresOptions options);
  ~PostgresGraph() override;
  PostgresGraph(const PostgresGraph&) = delete;
  PostgresGraph& operator=(const PostgresGraph&) = delete;

  [[nodiscard]] const PostgresOptions& options() const noexcept;
  /// The bound graph's schema, e.g. "propgraph_g7" (for administration and inspection).
  [[nodiscard]] const std::string& schema_name() const noexcept;

  /// Connection pool counters, for monitoring and tests.
  struct PoolStatus {
    std::size_t open = 0;     ///< connections open or being opened (<= pool_size)
    std::size_t idle = 0;     ///< of those, not on loan
    std::size_t waiting = 0;  ///< calls waiting for a connection
    std::uint64_t opened = 0;  ///< connections opened since construction (a growing count
                               ///< means connections are being discarded and replaced)
  };
  [[nodiscard]] PoolStatus pool_status();

  /// Where reads went, for monitoring and tests (counts since construction).
  struct ReadRouting {
    std::uint64_t primary = 0;    ///< reads served by the primary
    std::uint64_t standby = 0;    ///< reads served by a standby
    std::uint64_t fallbacks = 0;  ///< reads a failing standby passed to the primary
  };
  [[nodiscard]] ReadRouting read_routing() const;

  /// Starts a SERIALIZABLE PostgreSQL transaction on a connection of the pool (waiting for one
  /// as any call does); the connection returns to the pool when the transaction ends.
  [[nodiscard]] std::unique_ptr<Transaction> begin() override;

  /// Every other GraphOperations call; operations.hpp has their contracts, the class comment
  /// what each costs here.
  PROPGRAPH_DECLARE_GRAPH_OPERATIONS()

 private:
  struct Shared;
  struct Impl;
  class Tx;
  /// A view of the same graph whose calls all run on a transaction's connection.
  explicit PostgresGraph(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace propgraph
