// The fiber facade: every GraphOperations method as an `_async` twin returning a fiber future.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "propgraph/fiber/fiber_pool.hpp"
#include "propgraph/fiber/spawn.hpp"
#include "propgraph/operations.hpp"

namespace propgraph {

namespace detail {
/// The type an argument is stored as inside the fiber: an owning copy (views become strings).
template <class T>
struct owned {
  using type = std::remove_cvref_t<T>;
};
template <class T>
  requires std::is_same_v<std::remove_cvref_t<T>, std::string_view>
struct owned<T> {
  using type = std::string;
};
template <class T>
using owned_t = typename owned<T>::type;
}  // namespace detail

/// Runs GraphOperations calls on Boost.Fibers. Obtain one with as_fiber().
///
/// - Each `<method>_async` takes the same parameters as its GraphOperations twin, runs that
///   same synchronous call on a fiber and returns `Future<R>` (future.hpp; used like
///   boost::fibers::future) of the twin's result type R. The results are exactly the sync
///   results. `Future<R>` converts implicitly to `boost::fibers::future<R>`, the type the
///   design contract names: `boost::fibers::future<Vertex> f = ops.create_vertex_async(...)`.
/// - Arguments are copied into owning values before the call returns (string_view becomes
///   std::string; ElementId, Properties and options are copied), so the future stays valid
///   after the caller's temporaries are gone.
/// - Errors: whatever the backend throws comes out of `future.get()` unchanged (same type, same
///   message). Starting the call throws only std::bad_alloc, or PoolClosed on a closed pool.
/// - Where it runs: with as_fiber(graph, options), on the calling thread's scheduler
///   (run_on_fiber: by default launch::dispatch, a recycled fiber, cached 128 KiB stack);
///   with as_fiber(graph, pool), on a FiberPool thread (FiberPool::submit).
/// - Cost when joined immediately: one block from a per-thread free list holding the copied
///   arguments and the result, two fiber switches (a call that does not wait returns straight
///   to its caller, see FiberOptions::launch), the result moved out once. propgraph-bench
///   measures it against the sync call (README, "Benchmark results"). A pool call from a plain
///   thread hands the call to a pool thread and back: cheap while the pool thread is still
///   looking for work (FiberPoolOptions::idle_spin), a thread wake-up after it fell asleep.
/// - The facade never owns or closes the graph, nor the pool: both must outlive every call
///   started through it (including calls whose futures are still pending). FiberOperations is
///   a small value: copy it freely; it is safe to use from several threads.
class FiberOperations {
 public:
  /// Calls run on the calling thread's scheduler, started as `options` says.
  explicit FiberOperations(GraphOperations& graph, FiberOptions options = {}) noexcept
      : graph_(&graph), options_(std::move(options)) {}
  /// Calls run on `pool`.
  FiberOperations(GraphOperations& graph, FiberPool& pool) noexcept : graph_(&graph), pool_(&pool) {}

  /// The wrapped synchronous interface.
  [[nodiscard]] GraphOperations& sync() const noexcept { return *graph_; }
  /// The pool calls run on, or nullptr when they run on the calling thread.
  [[nodiscard]] FiberPool* pool() const noexcept { return pool_; }
  /// How calls start on the calling thread (unused with a pool).
  [[nodiscard]] const FiberOptions& options() const noexcept { return options_; }

  /// The one wrapping mechanism: runs `graph.*Method(args...)` on a fiber. Arguments are stored
  /// as detail::owned_t copies and passed to the method as lvalues.
  template <auto Method, class... Args>
  [[nodiscard]] auto call(Args&&... args) const
      -> Future<std::invoke_result_t<decltype(Method), GraphOperations&, const detail::owned_t<Args>&...>> {
    auto task = [graph = graph_, ... owned = detail::owned_t<Args>(std::forward<Args>(args))]() {
      return (graph->*Method)(owned...);
    };
    if (pool_ != nullptr) return pool_->submit(std::move(task));
    return run_on_fiber(std::move(task), options_);
  }

  // -- session -------------------------------------------------------------------------------
  [[nodiscard]] Future<bool> create_graph_async(std::string_view name) const { return call<&GraphOperations::create_graph>(name); }
  [[nodiscard]] Future<bool> drop_graph_async(std::string_view name) const { return call<&GraphOperations::drop_graph>(name); }
  [[nodiscard]] Future<bool> graph_exists_async(std::string_view name) const { return call<&GraphOperations::graph_exists>(name); }
  [[nodiscard]] Future<std::vector<std::string>> vertex_labels_async() const { return call<&GraphOperations::vertex_labels>(); }
  [[nodiscard]] Future<std::vector<std::string>> edge_labels_async() const { return call<&GraphOperations::edge_labels>(); }

  // -- vertices ------------------------------------------------------------------------------
  [[nodiscard]] Future<Vertex> create_vertex_async(std::string_view label, const Properties& properties = {}) const { return call<&GraphOperations::create_vertex>(label, properties); }
  [[nodiscard]] Future<std::optional<Vertex>> find_vertex_by_id_async(std::string_view label, const ElementId& id) const { return call<&GraphOperations::find_vertex_by_id>(label, id); }
  [[nodiscard]] Future<std::vector<Vertex>> find_vertices_by_label_async(std::string_view label, const Properties& filter = {}) const { return call<&GraphOperations::find_vertices_by_label>(label, filter); }
  [[nodiscard]] Future<std::optional<Vertex>> update_vertex_async(std::string_view label, const ElementId& id, const Properties& properties) const { return call<&GraphOperations::update_vertex>(label, id, properties); }
  [[nodiscard]] Future<bool> delete_vertex_async(std::string_view label, const ElementId& id) const { return call<&GraphOperations::delete_vertex>(label, id); }
  [[nodiscard]] Future<std::int64_t> count_vertices_async(std::string_view label) const { return call<&GraphOperations::count_vertices>(label); }

  // -- edges ---------------------------------------------------------------------------------
  [[nodiscard]] Future<Edge> create_edge_async(const ElementId& from, const ElementId& to, std::string_view label, const Properties& properties = {}) const { return call<&GraphOperations::create_edge>(from, to, label, properties); }
  [[nodiscard]] Future<std::optional<Edge>> find_edge_by_id_async(std::string_view label, const ElementId& id) const { return call<&GraphOperations::find_edge_by_id>(label, id); }
  [[nodiscard]] Future<std::vector<Edge>> find_edges_by_label_async(std::string_view label, const Properties& filter = {}) const { return call<&GraphOperations::find_edges_by_label>(label, filter); }
  [[nodiscard]] Future<std::optional<Edge>> update_edge_async(std::string_view label, const ElementId& id, const Properties& properties) const { return call<&GraphOperations::update_edge>(label, id, properties); }
  [[nodiscard]] Future<bool> delete_edge_async(std::string_view label, const ElementId& id) const { return call<&GraphOperations::delete_edge>(label, id); }
  [[nodiscard]] Future<std::int64_t> count_edges_async(std::string_view label) const { return call<&GraphOperations::count_edges>(label); }

  // -- traversal -----------------------------------------------------------------------------
  [[nodiscard]] Future<std::vector<Vertex>> neighbors_async(const ElementId& start, const NeighborOptions& options = {}) const { return call<&GraphOperations::neighbors>(start, options); }
  [[nodiscard]] Future<std::optional<Path>> shortest_path_async(const ElementId& from, const ElementId& to, const PathOptions& options = {}) const { return call<&GraphOperations::shortest_path>(from, to, options); }
  [[nodiscard]] Future<std::vector<Path>> all_paths_async(const ElementId& from, const ElementId& to, const PathOptions& options = {}) const { return call<&GraphOperations::all_paths>(from, to, options); }

  // -- algorithms ----------------------------------------------------------------------------
  [[nodiscard]] Future<std::vector<PageRankScore>> page_rank_async(const PageRankOptions& options = {}) const { return call<&GraphOperations::page_rank>(options); }
  [[nodiscard]] Future<std::optional<Degree>> degree_centrality_async(const ElementId& id, const DegreeOptions& options = {}) const { return call<&GraphOperations::degree_centrality>(id, options); }
  [[nodiscard]] Future<std::vector<Component>> connected_components_async(const ComponentOptions& options = {}) const { return call<&GraphOperations::connected_components>(options); }
  [[nodiscard]] Future<std::vector<Visit>> bfs_async(const ElementId& start, const TraversalOptions& options = {}) const { return call<&GraphOperations::bfs>(start, options); }
  [[nodiscard]] Future<std::vector<Visit>> dfs_async(const ElementId& start, const TraversalOptions& options = {}) const { return call<&GraphOperations::dfs>(start, options); }
  [[nodiscard]] Future<std::vector<Cycle>> detect_cycles_async(const CycleOptions& options = {}) const { return call<&GraphOperations::detect_cycles>(options); }

 private:
  GraphOperations* graph_;
  FiberPool* pool_ = nullptr;
  FiberOptions options_{};
};

/// The fiber facade over `graph`, running calls on the calling thread's scheduler as `options`
/// says (default: launch::dispatch, recycled fibers, cached guarded 128 KiB stacks). Does not
/// take ownership of `graph`.
[[nodiscard]] inline FiberOperations as_fiber(GraphOperations& graph, FiberOptions options = {}) noexcept {
  return FiberOperations(graph, std::move(options));
}

/// The fiber facade over `graph`, running calls on `pool`'s threads. Owns neither.
[[nodiscard]] inline FiberOperations as_fiber(GraphOperations& graph, FiberPool& pool) noexcept {
  return FiberOperations(graph, pool);
}

}  // namespace propgraph
