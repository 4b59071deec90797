// The PostgreSQL backend: a property graph kept in plain PostgreSQL (13+) tables, through libpq.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "propgraph/operations.hpp"

namespace propgraph {

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
};

/// A property graph stored in PostgreSQL.
///
/// Storage: a catalog table `<catalog_schema>.graphs(id, name)` and, per graph, a schema with
/// `vertices(id, label, properties jsonb)` and `edges(id, label, from_id, to_id, properties
/// jsonb)` (foreign keys cascade vertex deletes to edges), indexed on (label, id), on each
/// endpoint and with a GIN index on properties. Property values keep their type in jsonb: a
/// double is stored as {"$d": number} so that filters compare typed (int 30 != double 30.0),
/// an int64 as an exact JSON integer. Strings must be valid UTF-8 without NUL characters.
///
/// Ids look like "pg7:v42" / "pg7:e9": the graph's catalog number, the kind and the row's
/// identity value; ids ascend in creation order and are never reused, and ids of another
/// graph are not found.
///
/// Queries: every statement is parameterized (labels, keys, values and ids travel as
/// parameters, never as SQL text) and prepared once per connection. Each write is one
/// statement or one transaction, so a failed write leaves nothing behind.
///
/// Cost and ordering: every call is one round trip, except create_graph/drop_graph. Id lookups
/// and writes use the primary keys; label scans and counts the (label, id) indexes, with the
/// GIN index narrowing property filters; results come in the GraphOperations order (ascending
/// id). neighbors is one recursive CTE bounded by max_depth. shortest_path, all_paths, bfs and
/// dfs fetch the subgraph within max_depth hops with one recursive CTE and run MemoryGraph's
/// algorithm on it; page_rank, connected_components and detect_cycles load the label-filtered
/// graph the same way, so results are identical to MemoryGraph's. A weighted shortest_path, and
/// any traversal deeper than 10 hops, fetches everything reachable instead (each vertex expanded
/// once; the depth-bounded CTE may expand a vertex once per depth). Those calls hold the loaded
/// elements in memory for the duration of the call.
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
/// Errors: ConnectionError when the server cannot be reached or the connection breaks
/// mid-call (the broken connection is discarded; later calls open fresh ones, so the pool
/// recovers once the server is back); QueryError with the server's message for a failed
/// statement; NotFound / InvalidArgument as the GraphOperations contract says.
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
  };
  [[nodiscard]] PoolStatus pool_status();

  /// Creates the graph's catalog entry and schema; false when it exists.
  bool create_graph(std::string_view name) override;
  /// Drops another graph's schema and catalog entry (an instance bound to that graph then gets
  /// QueryError). For the bound graph it deletes every element instead: the schema stays and
  /// ids issued before are never reissued.
  bool drop_graph(std::string_view name) override;
  bool graph_exists(std::string_view name) override;
  std::vector<std::string> vertex_labels() override;
  std::vector<std::string> edge_labels() override;

  Vertex create_vertex(std::string_view label, const Properties& properties = {}) override;
  std::optional<Vertex> find_vertex_by_id(std::string_view label, const ElementId& id) override;
  std::optional<Vertex> find_vertex(const ElementId& id) override;
  std::vector<Vertex> find_vertices_by_label(std::string_view label, const Properties& filter = {},
                                             const Page& page = {}) override;
  std::optional<Vertex> update_vertex(std::string_view label, const ElementId& id,
                                      const Properties& properties) override;
  bool delete_vertex(std::string_view label, const ElementId& id) override;
  std::int64_t count_vertices(std::string_view label) override;
  std::int64_t count_vertices() override;
  Upserted upsert_vertex(std::string_view label, const Properties& match, const Properties& properties = {}) override;

  Edge create_edge(const ElementId& from, const ElementId& to, std::string_view label,
                   const Properties& properties = {}) override;
  std::optional<Edge> find_edge_by_id(std::string_view label, const ElementId& id) override;
  std::optional<Edge> find_edge(const ElementId& id) override;
  std::vector<Edge> find_edges_by_label(std::string_view label, const Properties& filter = {},
                                        const Page& page = {}) override;
  std::vector<Edge> incident_edges(const ElementId& vertex, const EdgeQuery& query = {}) override;
  std::optional<Edge> update_edge(std::string_view label, const ElementId& id,
                                  const Properties& properties) override;
  bool delete_edge(std::string_view label, const ElementId& id) override;
  std::int64_t count_edges(std::string_view label) override;
  std::int64_t count_edges() override;

  bool create_index(std::string_view label, std::string_view key, const IndexOptions& options = {}) override;
  bool drop_index(std::string_view label, std::string_view key) override;
  std::vector<IndexInfo> indexes() override;

  std::vector<Vertex> neighbors(const ElementId& start, const NeighborOptions& options = {}) override;
  std::optional<Path> shortest_path(const ElementId& from, const ElementId& to,
                                    const PathOptions& options = {}) override;
  std::vector<Path> all_paths(const ElementId& from, const ElementId& to,
                              const PathOptions& options = {}) override;

  std::vector<PageRankScore> page_rank(const PageRankOptions& options = {}) override;
  std::optional<Degree> degree_centrality(const ElementId& id, const DegreeOptions& options = {}) override;
  std::vector<Component> connected_components(const ComponentOptions& options = {}) override;
  std::vector<Visit> bfs(const ElementId& start, const TraversalOptions& options = {}) override;
  std::vector<Visit> dfs(const ElementId& start, const TraversalOptions& options = {}) override;
  std::vector<Cycle> detect_cycles(const CycleOptions& options = {}) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace propgraph
