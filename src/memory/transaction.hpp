// MemoryGraph's transactions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "memory/graph_state.hpp"
#include "propgraph/operations.hpp"

namespace propgraph::detail {

/// A transaction over a MemoryGraph (see MemoryGraph's documentation for the isolation).
///
/// Until its first write it reads the committed graph under the shared lock, remembering the
/// store's version: a read that finds another version throws TransactionConflict. The first
/// write enters the writer gate (waiting for other writers, Timeout at the deadline) and
/// checks that version once more; from then on the transaction is the only writer, its writes
/// go to an Overlay and its reads see the graph through it (TxView). commit() applies the
/// overlay under the exclusive lock; rollback() drops it. Either way the gate is left.
///
/// Durable graphs with SyncPolicy::every_commit: reads before the first write return once what
/// they saw is synced, like MemoryGraph's reads. From the first write on, calls return at once
/// (the transaction holds the gate; waiting there would hold up every writer for a sync), and
/// commit() returns once the writes the transaction saw when it entered the gate, and its own,
/// are synced.
class MemoryTransaction final : public Transaction {
 public:
  explicit MemoryTransaction(GraphState& graph) noexcept : graph_(graph) {}
  ~MemoryTransaction() override;
  MemoryTransaction(const MemoryTransaction&) = delete;
  MemoryTransaction& operator=(const MemoryTransaction&) = delete;

  void commit() override;
  void rollback() override;
  [[nodiscard]] bool is_open() const noexcept override { return open_; }

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

  bool create_index(std::string_view label, std::string_view key, const IndexOptions& options = {}) override;
  bool drop_index(std::string_view label, std::string_view key) override;
  std::vector<IndexInfo> indexes() override;

  std::vector<ElementId> create_vertices(std::span<const NewVertex> vertices) override;
  std::vector<ElementId> create_edges(std::span<const NewEdge> edges) override;

  std::vector<Vertex> neighbors(const ElementId& start, const NeighborOptions& options = {}) override;
  std::optional<Path> shortest_path(const ElementId& from, const ElementId& to,
                                    const PathOptions& options = {}) override;
  std::vector<Path> all_paths(const ElementId& from, const ElementId& to, const PathOptions& options = {}) override;

  std::vector<PageRankScore> page_rank(const PageRankOptions& options = {}) override;
  std::optional<Degree> degree_centrality(const ElementId& id, const DegreeOptions& options = {}) override;
  std::vector<Component> connected_components(const ComponentOptions& options = {}) override;
  std::vector<Visit> bfs(const ElementId& start, const TraversalOptions& options = {}) override;
  std::vector<Visit> dfs(const ElementId& start, const TraversalOptions& options = {}) override;
  std::vector<Cycle> detect_cycles(const CycleOptions& options = {}) override;

 private:
  void ensure_open(std::string_view operation) const;
  [[noreturn]] void not_transactional(std::string_view operation) const;
  /// fn(view): the committed view (version-checked) before the first write, the TxView after.
  template <typename Fn>
  decltype(auto) read(std::string_view operation, Fn&& fn);
  /// fn(overlay, view) after entering the gate on the first write.
  template <typename Fn>
  decltype(auto) write(std::string_view operation, Fn&& fn);
  void end() noexcept;

  GraphState& graph_;
  bool open_ = true;
  std::optional<std::uint64_t> read_version_;  // the store's version at the first read
  std::unique_ptr<Overlay> overlay_;            // from the first write; the gate is held meanwhile
  std::uint64_t seen_ = 0;                      // GraphState::seen_lsn() on entering the gate
};

}  // namespace propgraph::detail
