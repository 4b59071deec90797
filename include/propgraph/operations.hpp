// The synchronous graph interface every backend implements.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "propgraph/errors.hpp"
#include "propgraph/model.hpp"
#include "propgraph/options.hpp"
#include "propgraph/query.hpp"

namespace propgraph {

class Transaction;

/// Synchronous property-graph operations over one bound graph.
///
/// Shared contract (the conformance suite checks every backend against it):
/// - Lookups that find nothing (unknown or malformed id, label mismatch) return
///   nullopt / empty / false / 0 and never throw. Writes validate: a blank or malformed label
///   throws InvalidArgument, a missing edge endpoint throws NotFound.
/// - Every result list has a deterministic order; where a method does not say otherwise it is
///   ascending id (see ElementId's ordering). Traversals expand a vertex's edges in edge-id
///   order; with Direction::both the out- and in-edges are merged into one edge-id order.
/// - update_* and delete_* are lookups first: an unknown id or a label that does not match
///   (malformed labels included) returns nullopt / false.
/// - Writes are atomic: a write that throws leaves the graph unchanged.
/// - Deadlines: every call honours the DeadlineScope (deadline.hpp) of its thread or fiber; a
///   call that cannot finish in time throws Timeout and has no effect.
/// - Implementations are safe to call from many threads and fibers at once unless their own
///   documentation says otherwise.
class GraphOperations {
 public:
  virtual ~GraphOperations() = default;

  // -- session: a backend keeps a catalog of named graphs and operates on one of them --------
  /// Creates an empty graph named `name` (a valid label); false when it already exists.
  virtual bool create_graph(std::string_view name) = 0;
  /// Drops the graph and everything in it; false when there was none. Dropping the bound graph
  /// empties it.
  virtual bool drop_graph(std::string_view name) = 0;
  [[nodiscard]] virtual bool graph_exists(std::string_view name) = 0;
  /// Labels of the live vertices / edges of the bound graph, sorted ascending (bytewise).
  [[nodiscard]] virtual std::vector<std::string> vertex_labels() = 0;
  [[nodiscard]] virtual std::vector<std::string> edge_labels() = 0;

  // -- vertices ----------------------------------------------------------------------------
  /// Creates a vertex; null property values are dropped. Throws InvalidArgument on a bad label.
  virtual Vertex create_vertex(std::string_view label, const Properties& properties = {}) = 0;
  [[nodiscard]] virtual std::optional<Vertex> find_vertex_by_id(std::string_view label, const ElementId& id) = 0;
  /// The vertex with this id, whatever its label; nullopt when there is none (edge ids and
  /// malformed ids included).
  [[nodiscard]] virtual std::optional<Vertex> find_vertex(const ElementId& id) = 0;
  /// Vertices with this label whose properties match `filter` (typed equality; see
  /// Properties::matches), ascending id, paged by `page`. With an index on a filtered key
  /// (create_index) the cost is O(matches), else O(vertices with the label).
  [[nodiscard]] virtual std::vector<Vertex> find_vertices_by_label(std::string_view label,
                                                                   const Properties& filter = {},
                                                                   const Page& page = {}) = 0;
  /// Merges `properties` into the vertex (null removes a key); nullopt when not found.
  virtual std::optional<Vertex> update_vertex(std::string_view label, const ElementId& id,
                                              const Properties& properties) = 0;
  /// Deletes the vertex and every edge incident to it; false when not found.
  virtual bool delete_vertex(std::string_view label, const ElementId& id) = 0;
  [[nodiscard]] virtual std::int64_t count_vertices(std::string_view label) = 0;
  /// All vertices of the graph.
  [[nodiscard]] virtual std::int64_t count_vertices() = 0;
  /// Finds the vertex of `label` whose properties match `match` (typed, as a filter) and
  /// merges `properties` into it, or creates one with `match` merged with `properties` (nulls
  /// dropped). Atomic: concurrent upserts of the same match create one vertex. Throws
  /// InvalidArgument when several vertices match (naming how many) and on a bad label;
  /// AlreadyExists when the result would break a unique index. An index on a key of `match`
  /// makes the lookup O(matches).
  virtual Upserted upsert_vertex(std::string_view label, const Properties& match,
                                 const Properties& properties = {}) = 0;

  // -- edges -------------------------------------------------------------------------------
  /// Creates `from -[label]-> to`; throws NotFound when an endpoint does not exist.
  virtual Edge create_edge(const ElementId& from, const ElementId& to, std::string_view label,
                           const Properties& properties = {}) = 0;
  [[nodiscard]] virtual std::optional<Edge> find_edge_by_id(std::string_view label, const ElementId& id) = 0;
  /// The edge with this id, whatever its label; nullopt when there is none.
  [[nodiscard]] virtual std::optional<Edge> find_edge(const ElementId& id) = 0;
  /// Edges with this label matching `filter`, ascending id, paged by `page`.
  [[nodiscard]] virtual std::vector<Edge> find_edges_by_label(std::string_view label, const Properties& filter = {},
                                                              const Page& page = {}) = 0;
  /// The edges of `vertex` (out: from it, in: to it, both: either), optionally of one label,
  /// ascending edge id, paged by `query.page`; a self-loop appears once. Empty when the vertex
  /// does not exist. O(degree of the vertex) at most.
  [[nodiscard]] virtual std::vector<Edge> incident_edges(const ElementId& vertex, const EdgeQuery& query = {}) = 0;
  virtual std::optional<Edge> update_edge(std::string_view label, const ElementId& id,
                                          const Properties& properties) = 0;
  virtual bool delete_edge(std::string_view label, const ElementId& id) = 0;
  [[nodiscard]] virtual std::int64_t count_edges(std::string_view label) = 0;
  /// All edges of the graph.
  [[nodiscard]] virtual std::int64_t count_edges() = 0;

  // -- indexes -------------------------------------------------------------------------------
  /// Creates an equality index on property `key` of the vertices and the edges labelled
  /// `label`, existing and future ones. Indexes never change a result, only its cost (filters
  /// and upsert matches on the key become O(matches)). With `unique`, no two vertices (and no
  /// two edges) of the label may hold equal (typed) values for the key: a write that would
  /// break it throws AlreadyExists naming label, key and value, and creating the index over
  /// existing duplicates throws AlreadyExists and creates nothing. Returns false when an index
  /// on (label, key) exists already (whatever its options). Throws InvalidArgument for a bad
  /// label or an empty key.
  virtual bool create_index(std::string_view label, std::string_view key, const IndexOptions& options = {}) = 0;
  /// Removes the index on (label, key); false when there is none.
  virtual bool drop_index(std::string_view label, std::string_view key) = 0;
  /// Every index, sorted by label, then key.
  [[nodiscard]] virtual std::vector<IndexInfo> indexes() = 0;

  // -- transactions ----------------------------------------------------------------------------
  /// Starts a transaction: a GraphOperations whose calls see its own writes and whose writes
  /// other callers see all at once after commit(), none before. Destroying an open transaction
  /// rolls it back. Throws InvalidArgument on a Transaction (transactions do not nest). The
  /// graph must outlive its transactions. Each backend documents its isolation level and what
  /// concurrent callers wait for.
  [[nodiscard]] virtual std::unique_ptr<Transaction> begin() = 0;

  // -- bulk writes (loaders) ----------------------------------------------------------------
  /// Creates every vertex, all or nothing; returns their ids in input order. Validation is that
  /// of create_vertex. The default loops over create_vertex and deletes what it created when
  /// one fails; backends override it with a single-transaction version.
  virtual std::vector<ElementId> create_vertices(std::span<const NewVertex> vertices);
  /// Creates every edge, all or nothing; returns their ids in input order. Endpoints must exist
  /// before the call (NotFound otherwise).
  virtual std::vector<ElementId> create_edges(std::span<const NewEdge> edges);

  // -- traversal ---------------------------------------------------------------------------
  /// Distinct vertices 1..max_depth hops from start, never start itself; ascending id.
  [[nodiscard]] virtual std::vector<Vertex> neighbors(const ElementId& start, const NeighborOptions& options = {}) = 0;
  /// Fewest-edges (or, with weight_property, cheapest) path; nullopt when none. from == to
  /// gives a zero-length path. Ties go to the path found first expanding edges in id order.
  [[nodiscard]] virtual std::optional<Path> shortest_path(const ElementId& from, const ElementId& to,
                                                          const PathOptions& options = {}) = 0;
  /// Simple paths of at most max_depth edges, at most max_paths of them, shortest first (equal
  /// lengths in edge-id expansion order). Parallel edges give distinct paths.
  [[nodiscard]] virtual std::vector<Path> all_paths(const ElementId& from, const ElementId& to,
                                                    const PathOptions& options = {}) = 0;

  // -- algorithms --------------------------------------------------------------------------
  /// Highest score first, ties by id; scores sum to 1 before top_k truncation.
  [[nodiscard]] virtual std::vector<PageRankScore> page_rank(const PageRankOptions& options = {}) = 0;
  /// nullopt when the vertex does not exist.
  [[nodiscard]] virtual std::optional<Degree> degree_centrality(const ElementId& id,
                                                                const DegreeOptions& options = {}) = 0;
  /// Components ordered by their smallest vertex id; vertices ascending id.
  [[nodiscard]] virtual std::vector<Component> connected_components(const ComponentOptions& options = {}) = 0;
  /// Breadth-first from start: level order, start first at depth 0; neighbours of one vertex
  /// in edge-id order. Empty when start does not exist.
  [[nodiscard]] virtual std::vector<Visit> bfs(const ElementId& start, const TraversalOptions& options = {}) = 0;
  /// Depth-first pre-order from start, neighbours in edge-id order. The open path lives on the
  /// heap: any max_depth on any graph is safe on a small (64 KiB) fiber stack.
  [[nodiscard]] virtual std::vector<Visit> dfs(const ElementId& start, const TraversalOptions& options = {}) = 0;
  /// Each simple directed cycle once (rotations merged; a self-loop is a cycle of length 1),
  /// written from its smallest vertex id. Cycles come in order of that vertex's id, then in
  /// edge-id expansion order; enumeration stops after max_cycles. Parallel edges along the
  /// same vertex sequence count as one cycle (through the lowest edge ids). Like dfs, no
  /// recursion: safe at any max_depth.
  [[nodiscard]] virtual std::vector<Cycle> detect_cycles(const CycleOptions& options = {}) = 0;

  // -- queries -------------------------------------------------------------------------------
  /// Runs an openCypher statement (query.hpp, docs/cypher.md) on this graph and returns its
  /// rows. Atomic: a statement that writes runs in one transaction (or in this one, when called
  /// on a Transaction, seeing its writes) and a statement that throws leaves the graph as it
  /// was. Read-only statements outside a transaction read the committed graph call by call.
  /// Throws QueryError for runtime errors (code() "TypeError: ...", "ArgumentError: ...", ...),
  /// Timeout under a passed DeadlineScope, and the backend's errors (e.g. AlreadyExists from a
  /// unique index). A parameter the statement uses but `parameters` lacks is QueryError
  /// "ParameterMissing: MissingParameter". The default runs the statement through the generic
  /// executor over this interface's calls; backends may answer it natively.
  virtual QueryResult query(const Query& statement, const Parameters& parameters = {});
  /// Query::parse(text), then query(). Throws QueryError for a syntax or semantic error.
  QueryResult query(std::string_view text, const Parameters& parameters = {}) {
    return query(Query::parse(text), parameters);
  }
};

/// A unit of work over a backend: every GraphOperations call, seeing the transaction's own
/// writes; commit() makes them all visible at once, rollback() (or destruction while open)
/// discards them. A write that throws inside a transaction has no effect and leaves the
/// transaction usable. Once committed or rolled back, every call but rollback() and is_open()
/// throws InvalidArgument.
///
/// - Schema and catalog calls (create_graph, drop_graph, create_index, drop_index) are not
///   transactional: inside a transaction they throw InvalidArgument. indexes() and
///   graph_exists() read the committed catalog.
/// - A transaction is used by one thread or fiber at a time (calls may come from different
///   ones in turn, e.g. through the fiber facade); concurrent calls on one transaction are
///   undefined behaviour.
class Transaction : public GraphOperations {
 public:
  /// Makes the writes visible to everyone, atomically. Throws TransactionConflict when a
  /// concurrent transaction prevents it (nothing was applied; run it again), and the
  /// backend's errors otherwise. Either way the transaction is closed afterwards.
  virtual void commit() = 0;
  /// Discards the writes; does nothing when the transaction is already closed.
  virtual void rollback() = 0;
  /// False once committed or rolled back.
  [[nodiscard]] virtual bool is_open() const noexcept = 0;
  /// Transactions do not nest: always throws InvalidArgument.
  [[nodiscard]] std::unique_ptr<Transaction> begin() final;
};

/// Runs `fn(tx)` in a transaction of `graph` and commits; returns fn's result. An exception
/// from fn or commit rolls back and propagates, except TransactionConflict, after which the
/// whole function runs again in a new transaction, up to options.max_attempts times in all
/// (fn must therefore be safe to repeat). InvalidArgument when max_attempts < 1.
template <class Fn>
std::invoke_result_t<Fn&, Transaction&> transact(GraphOperations& graph, Fn&& fn, const TransactOptions& options = {});

template <class Fn>
std::invoke_result_t<Fn&, Transaction&> transact(GraphOperations& graph, Fn&& fn, const TransactOptions& options) {
  validate(options);
  for (int attempt = 1;; ++attempt) {
    std::unique_ptr<Transaction> tx = graph.begin();
    try {
      if constexpr (std::is_void_v<std::invoke_result_t<Fn&, Transaction&>>) {
        fn(*tx);
        tx->commit();
        return;
      } else {
        auto result = fn(*tx);
        tx->commit();
        return result;
      }
    } catch (const TransactionConflict&) {
      tx->rollback();
      if (attempt >= options.max_attempts) throw;
    }
  }
}

}  // namespace propgraph
