// The fiber facade: every GraphOperations method as an `_async` twin returning a fiber future.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "propgraph/fiber/fiber_pool.hpp"
#include "propgraph/fiber/spawn.hpp"
#include "propgraph/deadline.hpp"
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

  /// A facade whose calls each run under a deadline `timeout` after the call starts (or the
  /// caller's own deadline, when that is earlier): a call that cannot finish in time fails with
  /// Timeout. See DeadlineScope.
  [[nodiscard]] FiberOperations with_timeout(std::chrono::nanoseconds timeout) const noexcept {
    FiberOperations copy = *this;
    copy.timeout_ = timeout;
    return copy;
  }
  /// The per-call budget set by with_timeout(), if any.
  [[nodiscard]] std::optional<std::chrono::nanoseconds> timeout() const noexcept { return timeout_; }

  /// The one wrapping mechanism: runs `graph.*Method(args...)` on a fiber. Arguments are stored
  /// as detail::owned_t copies and passed to the method as lvalues.
  template <auto Method, class... Args>
  [[nodiscard]] auto call(Args&&... args) const
      -> Future<std::invoke_result_t<decltype(Method), GraphOperations&, const detail::owned_t<Args>&...>> {
    return start([graph = graph_, ... owned = detail::owned_t<Args>(std::forward<Args>(args))]() {
      return (graph->*Method)(owned...);
    });
  }

  /// Runs `task()` on a fiber as every call does: where the facade runs calls, under the
  /// caller's deadline (and with_timeout's), which travels with it as a DeadlineScope.
  template <class Task>
  [[nodiscard]] auto start(Task task) const -> Future<std::invoke_result_t<Task&>> {
    auto scoped = [deadline = call_deadline(), task = std::move(task)]() mutable {
      if (deadline) {
        DeadlineScope scope(*deadline);
        return task();
      }
      return task();
    };
    if (pool_ != nullptr) return pool_->submit(std::move(scoped));
    return run_on_fiber(std::move(scoped), options_);
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
  [[nodiscard]] Future<std::optional<Vertex>> find_vertex_async(const ElementId& id) const { return call<&GraphOperations::find_vertex>(id); }
  [[nodiscard]] Future<std::vector<Vertex>> find_vertices_by_label_async(std::string_view label, const Properties& filter = {}, const Page& page = {}) const { return call<&GraphOperations::find_vertices_by_label>(label, filter, page); }
  [[nodiscard]] Future<std::optional<Vertex>> update_vertex_async(std::string_view label, const ElementId& id, const Properties& properties) const { return call<&GraphOperations::update_vertex>(label, id, properties); }
  [[nodiscard]] Future<bool> delete_vertex_async(std::string_view label, const ElementId& id) const { return call<&GraphOperations::delete_vertex>(label, id); }
  [[nodiscard]] Future<std::int64_t> count_vertices_async(std::string_view label) const { return call<static_cast<std::int64_t (GraphOperations::*)(std::string_view)>(&GraphOperations::count_vertices)>(label); }
  [[nodiscard]] Future<std::int64_t> count_vertices_async() const { return call<static_cast<std::int64_t (GraphOperations::*)()>(&GraphOperations::count_vertices)>(); }
  [[nodiscard]] Future<Upserted> upsert_vertex_async(std::string_view label, const Properties& match, const Properties& properties = {}) const { return call<&GraphOperations::upsert_vertex>(label, match, properties); }

  // -- edges ---------------------------------------------------------------------------------
  [[nodiscard]] Future<Edge> create_edge_async(const ElementId& from, const ElementId& to, std::string_view label, const Properties& properties = {}) const { return call<&GraphOperations::create_edge>(from, to, label, properties); }
  [[nodiscard]] Future<std::optional<Edge>> find_edge_by_id_async(std::string_view label, const ElementId& id) const { return call<&GraphOperations::find_edge_by_id>(label, id); }
  [[nodiscard]] Future<std::optional<Edge>> find_edge_async(const ElementId& id) const { return call<&GraphOperations::find_edge>(id); }
  [[nodiscard]] Future<std::vector<Edge>> find_edges_by_label_async(std::string_view label, const Properties& filter = {}, const Page& page = {}) const { return call<&GraphOperations::find_edges_by_label>(label, filter, page); }
  [[nodiscard]] Future<std::vector<Edge>> incident_edges_async(const ElementId& vertex, const EdgeQuery& query = {}) const { return call<&GraphOperations::incident_edges>(vertex, query); }
  [[nodiscard]] Future<std::optional<Edge>> update_edge_async(std::string_view label, const ElementId& id, const Properties& properties) const { return call<&GraphOperations::update_edge>(label, id, properties); }
  [[nodiscard]] Future<bool> delete_edge_async(std::string_view label, const ElementId& id) const { return call<&GraphOperations::delete_edge>(label, id); }
  [[nodiscard]] Future<std::int64_t> count_edges_async(std::string_view label) const { return call<static_cast<std::int64_t (GraphOperations::*)(std::string_view)>(&GraphOperations::count_edges)>(label); }
  [[nodiscard]] Future<std::int64_t> count_edges_async() const { return call<static_cast<std::int64_t (GraphOperations::*)()>(&GraphOperations::count_edges)>(); }

  // -- indexes and bulk writes ---------------------------------------------------------------
  [[nodiscard]] Future<bool> create_index_async(std::string_view label, std::string_view key, const IndexOptions& options = {}) const { return call<&GraphOperations::create_index>(label, key, options); }
  [[nodiscard]] Future<bool> drop_index_async(std::string_view label, std::string_view key) const { return call<&GraphOperations::drop_index>(label, key); }
  [[nodiscard]] Future<std::vector<IndexInfo>> indexes_async() const { return call<&GraphOperations::indexes>(); }
  /// The elements are copied into the fiber: the span need not outlive the call.
  [[nodiscard]] Future<std::vector<ElementId>> create_vertices_async(std::span<const NewVertex> vertices) const { return call<&GraphOperations::create_vertices>(std::vector<NewVertex>(vertices.begin(), vertices.end())); }
  /// The elements are copied into the fiber: the span need not outlive the call.
  [[nodiscard]] Future<std::vector<ElementId>> create_edges_async(std::span<const NewEdge> edges) const { return call<&GraphOperations::create_edges>(std::vector<NewEdge>(edges.begin(), edges.end())); }

  // -- transactions ------------------------------------------------------------------------------
  /// A transaction of the wrapped graph; run its calls on fibers with as_fiber(*tx).
  [[nodiscard]] Future<std::unique_ptr<Transaction>> begin_async() const { return call<&GraphOperations::begin>(); }
  /// propgraph::transact(graph, fn, options) on a fiber: fn(Transaction&) runs there, the
  /// transaction commits, and conflicts are retried. fn is moved into the fiber.
  template <class Fn>
  [[nodiscard]] auto transact_async(Fn fn, TransactOptions options = {}) const
      -> Future<std::invoke_result_t<Fn&, Transaction&>> {
    return start([graph = graph_, fn = std::move(fn), options]() mutable { return transact(*graph, fn, options); });
  }

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
  /// The deadline a call started now runs under: the caller's, or now + timeout_ if earlier.
  [[nodiscard]] std::optional<DeadlineClock::time_point> call_deadline() const {
    auto deadline = current_deadline();
    if (timeout_) {
      const auto own = deadline_after(*timeout_);
      if (!deadline || own < *deadline) deadline = own;
    }
    return deadline;
  }

  GraphOperations* graph_;
  FiberPool* pool_ = nullptr;
  FiberOptions options_{};
  std::optional<std::chrono::nanoseconds> timeout_;
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
