// The breadth-first search under neighbors and bfs, and the path back through its parents.
#pragma once

#include <cstdint>

#include "memory/scratch.hpp"
#include "propgraph/deadline.hpp"
#include "memory/view.hpp"

namespace propgraph::detail {

/// Breadth-first search from start up to max_depth hops. scratch() marks hold parent and
/// parent_edge; scratch().queue holds the vertices in visit (level) order, queue_parent and
/// queue_depth their parents and depths. Calls on_visit(slot, depth) per visit and stops when
/// it returns false. Returns the number of vertices visited, a prefix of the queue. Honours the
/// caller's deadline (Timeout naming `operation`).
template <typename View, typename Adjacency, typename OnVisit>
std::size_t breadth_first(const View& g, const Adjacency& adj, Slot start, const EdgeFilter& f, int max_depth,
                          OnVisit&& on_visit, std::string_view operation) {
  DeadlineTicker ticker(operation);
  Marks& m = scratch();
  m.reset(g.vertex_slots());
  m.mark(start);
  m.parent[start] = kNoSlot;
  auto& queue = m.queue;
  // Parent and depth also go along the queue: reading them back in queue order is sequential.
  queue.assign(1, start);
  m.queue_parent.assign(1, kNoSlot);
  m.queue_depth.assign(1, 0);
  std::uint64_t scanned = 0;
  std::size_t head = 0;
  for (; head < queue.size(); ++head) {
    prefetch_lists(g, adj, queue.data(), head, queue.size());
    ticker.tick();
    const Slot v = queue[head];
    const int depth = m.queue_depth[head];
    if (!on_visit(v, depth)) break;
    if (depth >= max_depth) continue;
    for_each_adjacent(g, adj, v, f, [&](const AdjEntry& a) {
      ++scanned;
      if (!m.mark(a.other)) return;
      m.parent[a.other] = v;
      m.parent_edge[a.other] = a.edge;
      queue.push_back(a.other);
      m.queue_parent.push_back(v);
      m.queue_depth.push_back(depth + 1);
    });
  }
  g.note_work(adj, scanned);
  return head == queue.size() ? head : head + 1;
}

/// Path from the traversal root to `to`, following scratch() parent links.
template <typename View>
Path path_to(const View& g, Slot to) {
  const Marks& m = scratch();
  std::vector<Slot> vs;
  std::vector<Slot> es;
  for (Slot v = to; v != kNoSlot; v = m.parent[v]) {
    vs.push_back(v);
    if (m.parent[v] != kNoSlot) es.push_back(m.parent_edge[v]);
  }
  return make_path(g, vs.rbegin(), vs.rend(), es.rbegin(), es.rend());
}

}  // namespace propgraph::detail
