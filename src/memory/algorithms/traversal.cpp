// neighbors, bfs and dfs.
#include <algorithm>

#include <fmt/format.h>

#include "memory/algorithms.hpp"
#include "memory/algorithms/breadth_first.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/errors.hpp"

namespace propgraph::detail {

template <typename View>
std::vector<Vertex> neighbors(const View& g, Slot start, const NeighborOptions& options) {
  g.with_adjacency([&](const auto& adj) {
    return breadth_first(
        g, adj, start, make_filter(g, options.direction, options.edge_label), options.max_depth,
        [](Slot, int) { return true; }, "neighbors");
  });
  // Every queued vertex is within max_depth; drop the start, order by id, then page.
  auto& found = scratch().queue;
  found.erase(found.begin());
  std::sort(found.begin(), found.end());
  auto first = first_after(g, ElementKind::vertex, found.begin(), found.end(), options.page.after);
  std::size_t n = static_cast<std::size_t>(found.end() - first);
  if (options.page.limit != 0) n = std::min(n, options.page.limit);
  return make_vertices(g, found.data() + (first - found.begin()), n);
}

template <typename View>
std::vector<Visit> bfs(const View& g, Slot start, const TraversalOptions& options) {
  if (options.max_vertices == 0) return {};
  // Hand-written like dfs(): Boost's BFS visitors cannot prune by depth or count.
  const std::size_t visited = g.with_adjacency([&](const auto& adj) {
    return breadth_first(
        g, adj, start, make_filter(g, options.direction, options.edge_label), options.max_depth,
        [&, count = std::size_t{0}](Slot, int) mutable { return ++count < options.max_vertices; }, "bfs");
  });
  const Marks& m = scratch();
  std::vector<Visit> result;
  result.reserve(visited);
  DeadlineTicker ticker("bfs");
  for (std::size_t i = 0; i < visited; ++i) {
    ticker.tick();
    prefetch_ahead(g, m.queue.data(), i, visited);
    emplace_visit(g, result, m.queue[i], m.queue_depth[i], m.queue_parent[i]);
  }
  return result;
}

// Hand-written rather than boost::depth_first_visit: max_depth and max_vertices need pruning
// that Boost's visitors can only express by throwing. Pre-order matches the recursive
// definition (a vertex is visited when first reached along edge-id order), but the path is an
// explicit stack of cursors: the input decides the depth, not the thread's or fiber's stack.
template <typename View, typename Adjacency>
std::vector<Visit> depth_first(const View& g, const Adjacency& adj, Slot start, const EdgeFilter& f, int max_depth,
                               std::size_t max_vertices) {
  std::vector<Visit> result;
  if (max_vertices == 0) return result;
  result.reserve(std::min(max_vertices, static_cast<std::size_t>(g.live_vertices())));
  Marks& m = scratch();
  m.reset(g.vertex_slots());
  auto visit = [&](Slot v, int depth, Slot parent) {
    m.mark(v);
    emplace_visit(g, result, v, depth, parent);
  };
  struct Frame {
    Slot vertex;
    int depth;
    AdjacencyCursor<View> cursor;
  };
  std::vector<Frame> path;
  DeadlineTicker ticker("dfs");
  visit(start, 0, kNoSlot);
  if (max_depth > 0) path.push_back({start, 0, AdjacencyCursor<View>(g, adj, start, f)});
  while (!path.empty() && result.size() < max_vertices) {
    ticker.tick();
    Frame& top = path.back();
    if (top.cursor.done()) {
      path.pop_back();
      continue;
    }
    const AdjEntry a = top.cursor.current();
    top.cursor.next();
    if (m.marked(a.other)) continue;
    const int depth = top.depth + 1;
    visit(a.other, depth, top.vertex);
    if (depth < max_depth) path.push_back({a.other, depth, AdjacencyCursor<View>(g, adj, a.other, f)});
  }
  return result;
}

template <typename View>
std::vector<Visit> dfs(const View& g, Slot start, const TraversalOptions& options) {
  return g.with_adjacency([&](const auto& adj) {
    return depth_first(g, adj, start, make_filter(g, options.direction, options.edge_label), options.max_depth,
                       options.max_vertices);
  });
}

#define PROPGRAPH_INSTANTIATE(View)                                                  \
  template std::vector<Vertex> neighbors(const View&, Slot, const NeighborOptions&); \
  template std::vector<Visit> bfs(const View&, Slot, const TraversalOptions&);       \
  template std::vector<Visit> dfs(const View&, Slot, const TraversalOptions&);
PROPGRAPH_FOR_EACH_VIEW(PROPGRAPH_INSTANTIATE)

}  // namespace propgraph::detail
