// The breadth-first search under neighbors and bfs, and the path back through its parents.
//
// Level by level, switching between two ways of finding the next level (Beamer, Asanović and
// Patterson, "Direction-optimizing breadth-first search", SC 2012):
// - top-down: every vertex of the level walks its list in edge-id order and takes the unvisited
//   vertices it reaches, in that order;
// - bottom-up: every unvisited vertex walks its list of the reverse direction and looks for
//   vertices of the level. That pays once the level's lists hold more entries than the lists of
//   the unvisited vertices: on the widest levels of a big graph, most of a top-down level's
//   entries lead to vertices visited already.
// Both give the same next level, in the same order and with the same parents: bottom-up keeps,
// for each vertex it finds, the level vertex earliest in the queue that reaches it (through the
// lowest edge id from that vertex), and sorts what it found by (that vertex's queue position,
// edge id), which is the order top-down would have met them in.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "memory/scratch.hpp"
#include "memory/view.hpp"
#include "propgraph/deadline.hpp"

namespace propgraph::detail {

/// Which way breadth_first finds each level after the first: automatic switches by the sizes
/// of the lists involved; the others force one way (tests compare them).
enum class BfsStrategy : std::uint8_t { automatic, top_down, bottom_up };

namespace bfs_detail {

/// Entries of v's lists in the traversal's reverse direction, in any order.
template <typename Adjacency, typename Fn>
void for_each_reverse(const Adjacency& adj, Slot v, Direction d, Fn&& fn) {
  if (d != Direction::in) {
    for (const AdjEntry& a : adj.in(v)) fn(a);
  }
  if (d != Direction::out) {
    for (const AdjEntry& a : adj.out(v)) fn(a);
  }
}

/// Entries of v's lists in the traversal's direction (forward) and in the reverse one.
template <typename Adjacency>
std::pair<std::uint64_t, std::uint64_t> degrees(const Adjacency& adj, Slot v, Direction d) {
  const std::uint64_t out = adj.out(v).size();
  const std::uint64_t in = adj.in(v).size();
  switch (d) {
    case Direction::out: return {out, in};
    case Direction::in: return {in, out};
    case Direction::both: break;
  }
  return {out + in, out + in};
}

/// A vertex bottom-up found for the next level: its earliest reaching level vertex (by queue
/// position) and the lowest edge id from it.
struct Found {
  std::uint64_t key;  // queue position << 32 | edge
  Slot vertex;
  Slot parent;
};

}  // namespace bfs_detail

/// Breadth-first search from start up to max_depth hops. scratch() marks hold parent and
/// parent_edge; scratch().queue holds the vertices in visit (level) order, queue_parent and
/// queue_depth their parents and depths. Within a level, vertices come in the order their
/// parents' lists reach them: parents in queue order, each parent's list in edge-id order
/// (Direction::both merges a vertex's two lists by edge id). Calls on_visit(slot, depth) per
/// visit in that order and stops when it returns false. Returns the number of vertices
/// visited, a prefix of the queue. Honours the caller's deadline (Timeout naming `operation`).
template <typename View, typename Adjacency, typename OnVisit>
std::size_t breadth_first(const View& g, const Adjacency& adj, Slot start, const EdgeFilter& f, int max_depth,
                          OnVisit&& on_visit, std::string_view operation,
                          BfsStrategy strategy = BfsStrategy::automatic) {
  using bfs_detail::Found;
  DeadlineTicker ticker(operation);
  Marks& m = scratch();
  const std::size_t n = g.vertex_slots();
  m.reset(n);
  m.mark(start);
  m.parent[start] = kNoSlot;
  m.order[start] = 0;
  auto& queue = m.queue;
  // Parent and depth also go along the queue: reading them back in queue order is sequential.
  queue.assign(1, start);
  m.queue_parent.assign(1, kNoSlot);
  m.queue_depth.assign(1, 0);
  // What the next level costs each way: the entries of its vertices' lists (top-down), and the
  // entries of the unvisited vertices' reverse lists (bottom-up; every live edge is in one list
  // of each direction, so that is every entry but the visited vertices').
  std::uint64_t next_entries = 0;
  std::uint64_t unvisited_entries =
      static_cast<std::uint64_t>(g.live_edges()) * (f.direction == Direction::both ? 2 : 1);
  auto enqueue = [&](Slot v, Slot parent, Slot edge, int depth) {
    m.parent[v] = parent;
    m.parent_edge[v] = edge;
    m.order[v] = static_cast<Slot>(queue.size());
    queue.push_back(v);
    m.queue_parent.push_back(parent);
    m.queue_depth.push_back(depth);
  };
  // Counts the lists of the vertices queued from `first` on, in one pass that fetches their
  // records ahead (inside the expansion each would be a cache miss of its own).
  auto count_entries = [&](std::size_t first) {
    for (std::size_t i = first; i < queue.size(); ++i) {
      if constexpr (View::template lists_in_records<Adjacency>) {
        if (i + kRecordAhead < queue.size()) g.prefetch_vertex(queue[i + kRecordAhead]);
      }
      const auto [forward, reverse] = bfs_detail::degrees(adj, queue[i], f.direction);
      next_entries += forward;
      unvisited_entries -= std::min(unvisited_entries, reverse);
    }
  };
  count_entries(0);
  std::vector<Found> found;
  std::size_t level_begin = 0;
  for (int depth = 0;; ++depth) {
    const std::size_t level_end = queue.size();
    for (std::size_t i = level_begin; i < level_end; ++i) {
      ticker.tick();
      if (!on_visit(queue[i], depth)) return i + 1;
    }
    if (depth >= max_depth || level_begin == level_end) break;
    const std::uint64_t level_entries = std::exchange(next_entries, 0);
    if (strategy == BfsStrategy::bottom_up ||
        (strategy == BfsStrategy::automatic && unvisited_entries < level_entries)) {
      // Bottom-up. The level's vertices get a bit each: a bitmap of a million vertices stays in
      // cache, where the per-vertex arrays the check would read instead do not.
      auto& bits = m.level_bits;
      for (std::size_t i = level_begin; i < level_end; ++i) bits[queue[i] / 64] |= std::uint64_t{1} << (queue[i] % 64);
      found.clear();
      for (Slot u = 0; u < n; ++u) {
        ticker.tick();
        if (m.marked(u) || !g.vertex_alive(u) || !vertex_in(g, u, f.vertex_label)) continue;
        std::uint64_t best = ~std::uint64_t{0};
        Slot parent = kNoSlot;
        bfs_detail::for_each_reverse(adj, u, f.direction, [&](const AdjEntry& a) {
          if ((bits[a.other / 64] >> (a.other % 64) & 1) == 0 || !has_label(g, a, f.edge_label)) return;
          const std::uint64_t key = std::uint64_t{m.order[a.other]} << 32 | a.edge;
          if (key < best) {
            best = key;
            parent = a.other;
          }
        });
        if (parent != kNoSlot) found.push_back(Found{best, u, parent});
      }
      for (std::size_t i = level_begin; i < level_end; ++i) bits[queue[i] / 64] = 0;
      std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.key < b.key; });
      for (const Found& x : found) {
        m.mark(x.vertex);
        enqueue(x.vertex, x.parent, static_cast<Slot>(x.key), depth + 1);
      }
      count_entries(level_end);
    } else {
      // Top-down.
      for (std::size_t i = level_begin; i < level_end; ++i) {
        prefetch_lists(g, adj, queue.data(), i, level_end);
        ticker.tick();
        const Slot v = queue[i];
        for_each_adjacent(g, adj, v, f, [&](const AdjEntry& a) {
          if (!m.mark(a.other)) return;
          enqueue(a.other, v, a.edge, depth + 1);
        });
      }
      count_entries(level_end);
    }
    level_begin = level_end;
  }
  return queue.size();
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
