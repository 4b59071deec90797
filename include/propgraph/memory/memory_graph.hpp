// The embedded in-memory backend.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "propgraph/operations.hpp"

namespace propgraph {

/// In-memory property graph on Boost.Graph algorithms.
///
/// - Ids look like "g3:v17" / "g3:e5": the graph instance tag, the kind and a slot number that is
///   never reused, so ids from another MemoryGraph or deleted elements are simply not found.
/// - Thread safety: any number of concurrent readers and one writer at a time. A read holds a
///   shared lock for its whole call. A write (a single call, or a transaction from its first
///   write until it ends) is admitted by a writer gate, prepares its change without blocking
///   anyone, then applies it under the exclusive lock: readers wait only for that apply (a few
///   hundred nanoseconds per element changed), writers wait for the writer before them. Waiting
///   for the gate is fiber-aware (only the fiber waits); waiting for the lock blocks the thread,
///   briefly.
/// - Transactions (begin()): serializable. Until its first write a transaction reads the
///   committed graph; if another write commits in between, its next read (or its first write)
///   throws TransactionConflict, so every read of a transaction sees one state of the graph.
///   Its first write enters the writer gate: from then on no other write can commit until it
///   ends, its writes are kept aside (other callers see none of them) and its reads see the
///   graph with them; commit() applies them all at once. So an open writing transaction delays
///   every other writer (not readers) until it commits or rolls back: keep them short, or use
///   transact(). Read-only transactions never delay anyone. A write outside a transaction that
///   the same thread makes while its own transaction holds the gate waits for itself: do not
///   mix them (a DeadlineScope turns such a wait into Timeout).
/// - Complexity: id lookups O(1); label scans O(elements with that label), a page of them
///   O(log n + page size) without a filter; incident_edges O(degree); create O(1) amortised; delete_edge O(degree of its endpoints); delete_vertex O(sum of neighbour
///   degrees); traversals O(visited edges); page_rank O(iterations * E); components O(V + E).
/// - Memory: properties are stored packed (about 20 bytes for two small entries, inside the
///   element's record) and decoded only when a returned element's properties are read. About
///   160 bytes per vertex and 90 per edge with two small properties each.
/// - Repeated traversals: once traversals since the last write have scanned as many adjacency
///   entries as the graph has, the next one builds a compact copy of the adjacency (CSR, about
///   25 bytes per edge) that all traversals use until the next write. That call pays O(V + E)
///   once; graphs under about 16k adjacency entries always use the live lists.
/// - Only the bound graph holds elements; create_graph/drop_graph on other names manage empty
///   catalog entries, for parity with server backends.
class MemoryGraph final : public GraphOperations {
 public:
  /// `graph_name` names the bound graph (a valid label); it exists from construction.
  explicit MemoryGraph(std::string graph_name = "default");
  ~MemoryGraph() override;
  MemoryGraph(const MemoryGraph&) = delete;
  MemoryGraph& operator=(const MemoryGraph&) = delete;

  [[nodiscard]] const std::string& graph_name() const noexcept;

  /// A transaction over this graph (see "Transactions" above). The graph must outlive it.
  std::unique_ptr<Transaction> begin() override;

  bool create_graph(std::string_view name) override;
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

  /// Indexes cover the vertices and the edges of a label (MemoryGraph's labels are one
  /// namespace). Building one is O(elements with the label); afterwards a create costs O(1) more
  /// per index of its label, an update or delete O(bucket) for an index whose value it changes.
  /// Filters, page lookups and upsert matches take the smallest bucket among the filter's indexed
  /// keys (O(bucket)) and re-check the whole filter, so results equal an unindexed scan.
  /// drop_graph() of the bound graph removes its indexes.
  bool create_index(std::string_view label, std::string_view key, const IndexOptions& options = {}) override;
  bool drop_index(std::string_view label, std::string_view key) override;
  std::vector<IndexInfo> indexes() override;

  /// One lock for the whole batch; validated completely (labels, endpoints, unique indexes,
  /// also among the batch's own elements) before the first insert.
  std::vector<ElementId> create_vertices(std::span<const NewVertex> vertices) override;
  std::vector<ElementId> create_edges(std::span<const NewEdge> edges) override;

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
