// detect_cycles.
#include <algorithm>
#include <cstdint>

#include "memory/algorithms.hpp"
#include "memory/scratch.hpp"
#include "propgraph/deadline.hpp"

namespace propgraph::detail {

namespace {

// Boost 1.74's hawick_circuits has no length bound and cannot stop at a count, so on a large
// graph it would enumerate exponentially many circuits. This bounded search roots each cycle at
// its smallest slot (so rotations are found once) and walks, depth first, the simple paths from
// the root through larger slots only, closing a cycle at every edge back to the root. The open
// path is an explicit stack (vertex, next out-list position): no recursion as deep as the input.
//
// Pruning (Johnson's blocked vertices, with a length bound as in Gupta and Suzumura's bounded
// variant): every vertex v off the path carries bound(v), a lower bound on the length of any way
// from v back to the root that avoids the open path. A step to w at depth d is taken only if
// d + bound(w) <= max_depth: otherwise no cycle passes there, so skipping it changes neither the
// cycles found nor their order. The bounds are kept consistent, bound(u) <= 1 + bound(x) for
// every edge u -> x with both off the path and bound(u) <= 1 for every edge u -> root, which
// makes each one a lower bound (follow the shortest way back from u: each step lowers the bound
// by at most one, the last edge leaves at most one):
//   - at a root, a breadth-first search backwards from it gives every vertex its distance to it
//     (max_depth for those that cannot get back in fewer edges: never entered). This confines
//     the walk to the root's strongly connected component among the larger slots; on one long
//     ring only the smallest root walks at all;
//   - when the walk leaves v, bound(v) becomes 1 + the least bound of its successors off the path
//     (1 with an edge to the root, max_depth with neither). It rises above v's distance where the
//     ways back run through the path: v is blocked, as in Johnson's algorithm. Then the
//     predecessors off the path whose bound v now undercuts by more than one are lowered, and
//     theirs in turn: a vertex leaving the path unblocks what could get back only through it.
template <typename View, typename Adjacency>
std::vector<Cycle> enumerate_cycles(const View& g, const Adjacency& adj, const EdgeFilter& f,
                                    const CycleOptions& options) {
  std::vector<Cycle> result;
  const std::uint64_t max_depth = static_cast<std::uint64_t>(options.max_depth);  // >= 1
  // reach: marked = can get back to the root in fewer than max_depth edges; parent[v] = bound(v).
  Marks& reach = scratch();
  Marks& on_path = scratch2();
  struct Frame {
    Slot vertex;
    std::size_t next;
  };
  std::vector<Frame> stack;
  std::vector<Slot> vs;  // the open path's vertices (vs[0] is the root) ...
  std::vector<Slot> es;  // ... and edges
  std::vector<Slot>& work = reach.queue;
  DeadlineTicker ticker("detect_cycles");
  auto edge_in = [&](const AdjEntry& a) { return has_label(g, a, f.edge_label); };
  for (Slot root = 0; root < g.vertex_slots() && result.size() < options.max_cycles; ++root) {
    ticker.tick();
    if (!g.vertex_alive(root) || !vertex_in(g, root, f.vertex_label)) continue;
    // The vertices the walk from this root may enter: larger slots of the label, off the path.
    auto candidate = [&](Slot v) { return v > root && vertex_in(g, v, f.vertex_label); };
    auto bound = [&](Slot v) -> std::uint64_t { return reach.marked(v) ? reach.parent[v] : max_depth; };
    // Distances back to the root, breadth first over in-edges.
    reach.reset(g.vertex_slots());
    work.clear();
    auto reached = [&](Slot v, std::uint64_t distance) {
      if (!candidate(v) || !reach.mark(v)) return;
      reach.parent[v] = static_cast<Slot>(distance);
      if (distance + 1 < max_depth) work.push_back(v);  // its predecessors are close enough too
    };
    for (const AdjEntry& a : adj.in(root)) {
      if (edge_in(a)) reached(a.other, 1);
    }
    for (std::size_t i = 0; i < work.size(); ++i) {
      ticker.tick();
      const Slot q = work[i];
      for (const AdjEntry& a : adj.in(q)) {
        if (edge_in(a)) reached(a.other, reach.parent[q] + std::uint64_t{1});
      }
    }
    // Lowers the bounds of v's predecessors off the path that v's bound undercuts, and theirs.
    auto relax_predecessors = [&](Slot v) {
      work.assign(1, v);
      while (!work.empty()) {
        ticker.tick();
        const Slot q = work.back();
        work.pop_back();
        const std::uint64_t via = std::uint64_t{reach.parent[q]} + 1;
        for (const AdjEntry& a : adj.in(q)) {
          const Slot p = a.other;
          if (!edge_in(a) || !reach.marked(p) || on_path.marked(p) || !candidate(p) || reach.parent[p] <= via) continue;
          reach.parent[p] = static_cast<Slot>(via);
          work.push_back(p);
        }
      }
    };
    on_path.reset(g.vertex_slots());
    on_path.mark(root);
    vs.assign(1, root);
    es.clear();
    stack.assign(1, Frame{root, 0});
    while (!stack.empty() && result.size() < options.max_cycles) {
      ticker.tick();
      Frame& top = stack.back();
      const auto out = adj.out(top.vertex);
      if (top.next >= out.size()) {
        const Slot v = top.vertex;
        stack.pop_back();
        if (stack.empty()) break;  // the root
        // Leave a vertex other than the root (marked in reach: it was entered); see above.
        std::uint64_t back = max_depth;
        for (const AdjEntry& a : out) {
          if (!edge_in(a)) continue;
          if (a.other == root) {
            back = 1;
            break;
          }
          if (candidate(a.other) && !on_path.marked(a.other)) back = std::min(back, bound(a.other) + 1);
        }
        on_path.unmark(v);
        reach.parent[v] = static_cast<Slot>(back);
        relax_predecessors(v);
        vs.pop_back();
        es.pop_back();
        continue;
      }
      const std::size_t i = top.next++;
      const AdjEntry& a = out[i];
      if (a.other < root) continue;
      if (!edge_in(a)) continue;
      if (!vertex_in(g, a.other, f.vertex_label)) continue;
      // Parallel edges to the same vertex: only the first (lowest id) one counts. (Asked only of
      // an edge about to be taken: a scan of the list so far.)
      auto first_to_its_vertex = [&] {
        return std::none_of(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i),
                            [&](const AdjEntry& b) { return b.other == a.other && edge_in(b); });
      };
      if (a.other == root) {
        if (!first_to_its_vertex()) continue;
        vs.push_back(root);
        es.push_back(a.edge);
        result.push_back(Cycle{make_path(g, vs.begin(), vs.end(), es.begin(), es.end())});
        vs.pop_back();
        es.pop_back();
      } else if (!on_path.marked(a.other) && es.size() + 1 + bound(a.other) <= max_depth && first_to_its_vertex()) {
        const Slot next = a.other;
        on_path.mark(next);
        vs.push_back(next);
        es.push_back(a.edge);
        stack.push_back(Frame{next, 0});  // invalidates `top`
      }
    }
  }
  return result;
}

}  // namespace

template <typename View>
std::vector<Cycle> detect_cycles(const View& g, const CycleOptions& options) {
  if (options.max_cycles == 0 || options.max_depth == 0) return {};
  const EdgeFilter f = make_filter(g, Direction::out, options.edge_label, options.vertex_label);
  if (f.edge_label == kUnknownLabel || f.vertex_label == kUnknownLabel) return {};
  return g.with_adjacency([&](const auto& adj) { return enumerate_cycles(g, adj, f, options); });
}

#define PROPGRAPH_INSTANTIATE(View) template std::vector<Cycle> detect_cycles(const View&, const CycleOptions&);
PROPGRAPH_FOR_EACH_VIEW(PROPGRAPH_INSTANTIATE)

}  // namespace propgraph::detail
