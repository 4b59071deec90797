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
// its smallest slot (so rotations are found once) and follows only larger slots. The open path
// is an explicit stack (vertex, next out-list position): no recursion as deep as the input.
template <typename View, typename Adjacency>
std::vector<Cycle> enumerate_cycles(const View& g, const Adjacency& adj, const EdgeFilter& f, const CycleOptions& options) {
  std::vector<Cycle> result;
  Marks& on_path = scratch2();
  struct Frame {
    Slot vertex;
    std::size_t next;
  };
  std::vector<Frame> stack;
  std::vector<Slot> vs;  // the open path's vertices (vs[0] is the root) ...
  std::vector<Slot> es;  // ... and edges
  DeadlineTicker ticker("detect_cycles");
  for (Slot root = 0; root < g.vertex_slots() && result.size() < options.max_cycles; ++root) {
    ticker.tick();
    if (!g.vertex_alive(root) || !vertex_in(g, root, f.vertex_label)) continue;
    on_path.reset(g.vertex_slots());
    on_path.mark(root);
    vs.assign(1, root);
    es.clear();
    stack.assign(1, Frame{root, 0});
    while (!stack.empty() && result.size() < options.max_cycles) {
      ticker.tick();
      const auto out = adj.out(stack.back().vertex);
      if (stack.back().next >= out.size()) {
        stack.pop_back();
        if (!stack.empty()) {  // close a vertex other than the root
          on_path.unmark(vs.back());
          vs.pop_back();
          es.pop_back();
        }
        continue;
      }
      const std::size_t i = stack.back().next++;
      const AdjEntry& a = out[i];
      if (a.other < root) continue;
      if (!has_label(g, a, f.edge_label)) continue;
      if (!vertex_in(g, a.other, f.vertex_label)) continue;
      // Parallel edges to the same vertex: only the first (lowest id) one counts.
      bool seen = std::any_of(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i), [&](const AdjEntry& b) {
        return b.other == a.other && has_label(g, b, f.edge_label);
      });
      if (seen) continue;
      if (a.other == root) {
        vs.push_back(root);
        es.push_back(a.edge);
        result.push_back(Cycle{make_path(g, vs.begin(), vs.end(), es.begin(), es.end())});
        vs.pop_back();
        es.pop_back();
      } else if (static_cast<std::int64_t>(es.size()) + 1 < options.max_depth && !on_path.marked(a.other)) {
        on_path.mark(a.other);
        vs.push_back(a.other);
        es.push_back(a.edge);
        stack.push_back(Frame{a.other, 0});
      }
    }
  }
  return result;
}

}  // namespace

template <typename View>
std::vector<Cycle> detect_cycles(const View& g, const CycleOptions& options) {
  check_depth(options.max_depth, "max_depth");
  if (options.max_cycles == 0 || options.max_depth == 0) return {};
  const EdgeFilter f = make_filter(g, Direction::out, options.edge_label, options.vertex_label);
  if (f.edge_label == kUnknownLabel || f.vertex_label == kUnknownLabel) return {};
  return g.with_adjacency([&](const auto& adj) { return enumerate_cycles(g, adj, f, options); });
}

#define PROPGRAPH_INSTANTIATE(View) template std::vector<Cycle> detect_cycles(const View&, const CycleOptions&);
PROPGRAPH_FOR_EACH_VIEW(PROPGRAPH_INSTANTIATE)

}  // namespace propgraph::detail
