// GraphDecorator: the base of GraphOperations decorators (LatencyGraph, InstrumentedGraph, test
// doubles). It forwards every call to an inner GraphOperations through one hook, around().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "propgraph/operations.hpp"

namespace propgraph {

/// Names each GraphOperations method, for decorators and metrics.
enum class Operation : std::uint8_t {
  create_graph, drop_graph, graph_exists, vertex_labels, edge_labels,
  create_vertex, find_vertex_by_id, find_vertex, find_vertices_by_label, update_vertex, delete_vertex,
  count_vertices, upsert_vertex,
  create_edge, find_edge_by_id, find_edge, find_edges_by_label, incident_edges, update_edge, delete_edge,
  count_edges,
  create_index, drop_index, indexes,
  create_vertices, create_edges,
  neighbors, shortest_path, all_paths,
  page_rank, degree_centrality, connected_components, bfs, dfs, detect_cycles,
  begin, commit, rollback,
};

/// Number of Operation values.
inline constexpr std::size_t operation_count = static_cast<std::size_t>(Operation::rollback) + 1;

/// The method's name, e.g. "find_vertex_by_id".
[[nodiscard]] std::string_view to_string(Operation op) noexcept;

/// A non-owning reference to a callable taking no arguments and returning nothing.
class CallRef {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, CallRef>)
  explicit CallRef(F& f) noexcept : object_(&f), invoke_([](void* o) { (*static_cast<F*>(o))(); }) {}
  void operator()() const { invoke_(object_); }

 private:
  void* object_;
  void (*invoke_)(void*);
};

namespace detail {

/// Every GraphOperations call of Base (GraphOperations or Transaction), forwarded to another
/// graph through around(). The one forwarding list under GraphDecorator and the transactions it
/// hands out; not meant to be used directly.
template <class Base>
class Forwarding : public Base {
 public:
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

 protected:
  explicit Forwarding(GraphOperations& target) noexcept : target_(&target) {}
  /// The hook every forwarded call goes through.
  virtual void around(Operation op, CallRef call) = 0;
  /// The one forwarding mechanism: fn(target) run through around(op).
  template <class Fn>
  auto forward(Operation op, Fn&& fn) -> std::invoke_result_t<Fn&, GraphOperations&>;
  [[nodiscard]] GraphOperations& target() const noexcept { return *target_; }

 private:
  GraphOperations* target_;
};

}  // namespace detail

/// Forwards every GraphOperations call to `inner()` through around(): override around() to act
/// before and after each call (wait, time, count, fail), or override single methods.
///
/// - Arguments and results pass through unchanged, exceptions too; nothing is cached or
///   reordered. The bulk calls (create_vertices, create_edges) are forwarded as one call.
/// - begin() returns the inner graph's transaction wrapped so that its calls, and its
///   commit() and rollback(), go through around() as well (Operation::begin, commit, rollback).
/// - around(op, call) must run `call` exactly once, or throw instead of running it.
/// - Thread safety is the inner graph's; around() runs on the calling thread or fiber.
class GraphDecorator : public detail::Forwarding<GraphOperations> {
 public:
  /// Forwards to `inner`, which must outlive this object.
  explicit GraphDecorator(GraphOperations& inner) noexcept : Forwarding(inner) {}
  /// Forwards to `inner` and shares its ownership. Throws InvalidArgument on null.
  explicit GraphDecorator(std::shared_ptr<GraphOperations> inner);

  /// The decorated graph.
  [[nodiscard]] GraphOperations& inner() const noexcept { return target(); }

  [[nodiscard]] std::unique_ptr<Transaction> begin() override;

 protected:
  /// The hook every forwarded call goes through; the default runs `call`.
  void around(Operation op, CallRef call) override;

 private:
  friend class DecoratedTransaction;
  std::shared_ptr<GraphOperations> owner_;  // empty when the inner graph is borrowed
};

}  // namespace propgraph
