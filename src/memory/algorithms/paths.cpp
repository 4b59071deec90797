// shortest_path (unweighted: breadth-first from both ends; weighted: Boost's Dijkstra) and
// all_paths.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>

#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <fmt/format.h>

#include "memory/algorithms.hpp"
#include "memory/algorithms/breadth_first.hpp"
#include "memory/boost_view.hpp"
#include "prefetch.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/errors.hpp"

namespace propgraph::detail {

namespace {

/// Edge weights read from the edge properties: missing means 1, negative or non-numeric is the
/// caller's error.
template <typename View>
struct WeightMap {
  using key_type = ViewEdge;
  using value_type = double;
  using reference = double;
  using category = boost::readable_property_map_tag;
  const View* view;
  const std::string* key;
};

template <typename View>
double get(const WeightMap<View>& m, const ViewEdge& e) {
  const Value v = m.view->edge_properties(e.edge).get(*m.key);
  if (v.is_null()) return 1.0;
  if (!v.is_number()) {
    throw InvalidArgument(fmt::format("edge {}e{}: weight property '{}' is {}, not a number", m.view->id_prefix(),
                                      e.edge, *m.key, to_string(v.type())));
  }
  const double w = v.as_number();
  if (w < 0 || !std::isfinite(w)) {
    throw InvalidArgument(fmt::format("edge {}e{}: weight property '{}' is {} ({})", m.view->id_prefix(), e.edge,
                                      *m.key, w < 0 ? "negative" : "not finite", w));
  }
  return w;
}

struct TargetReached {};

struct DijkstraRecorder : boost::default_dijkstra_visitor {
  Slot target;
  std::vector<Slot>* pred_edge;
  DeadlineTicker<>* ticker;
  template <typename Graph>
  void edge_relaxed(const ViewEdge& e, const Graph&) const {
    (*pred_edge)[e.target] = e.edge;
  }
  template <typename Graph>
  void examine_vertex(Slot v, const Graph&) const {
    ticker->tick();
    if (v == target) throw TargetReached{};
  }
};

template <typename View, typename Adjacency>
std::optional<Path> dijkstra(const View& g, const Adjacency& adj, Slot from, Slot to, const EdgeFilter& f,
                             const std::string& weight_key) {
  BoostGraphView<View, Adjacency> graph{&g, &adj, f};
  const std::size_t n = g.vertex_slots();
  std::vector<Slot> pred(n);
  // Distances in long double with an infinite "unreached": finite weights up to DBL_MAX and their
  // sums along any path stay finite and ordered (no saturation into "no path").
  using Distance = long double;
  std::vector<Distance> dist(n);
  std::vector<Slot> pred_edge(n, kNoSlot);
  boost::typed_identity_property_map<Slot> index;
  DeadlineTicker ticker("shortest_path");
  try {
    boost::dijkstra_shortest_paths(graph, from,
                                   boost::predecessor_map(boost::make_iterator_property_map(pred.begin(), index))
                                       .distance_map(boost::make_iterator_property_map(dist.begin(), index))
                                       .distance_inf(std::numeric_limits<Distance>::infinity())
                                       .distance_zero(Distance{0})
                                       .distance_combine(std::plus<Distance>())
                                       .distance_compare(std::less<Distance>())
                                       .weight_map(WeightMap<View>{&g, &weight_key})
                                       .vertex_index_map(index)
                                       .visitor(DijkstraRecorder{{}, to, &pred_edge, &ticker}));
  } catch (const TargetReached&) {
    // Early exit: `to` was settled, its distance and predecessor are final.
  }
  if (from != to && pred_edge[to] == kNoSlot) return std::nullopt;
  std::vector<Slot> vs{to};
  std::vector<Slot> es;
  for (Slot v = to; v != from; v = pred[v]) {
    es.push_back(pred_edge[v]);
    vs.push_back(pred[v]);
  }
  return make_path(g, vs.rbegin(), vs.rend(), es.rbegin(), es.rend());
}

// Boost has no bounded simple-path enumeration. Iterative deepening: one depth-first pass per
// length L = 1..max_depth emits the paths of exactly L edges, so results come shortest first
// and enumeration stops as soon as max_paths are found, or when a pass finds no simple path of
// L - 1 edges avoiding `to` (then no longer path exists either). The open path is an explicit
// stack of cursors: no recursion as deep as the input.
template <typename View, typename Adjacency>
std::vector<Path> enumerate_paths(const View& g, const Adjacency& adj, Slot from, Slot to, const EdgeFilter& f,
                                  int max_depth, std::size_t max_paths) {
  std::vector<Path> result;
  if (max_paths == 0) return result;
  if (from == to) {
    result.push_back(make_path(g, &from, &from + 1, &from, &from));
    return result;  // the only simple path from a vertex to itself
  }
  Marks& on_path = scratch2();
  std::vector<AdjacencyCursor<View>> stack;  // stack[i] extends the prefix vs[0..i]
  std::vector<Slot> vs;
  std::vector<Slot> es;
  DeadlineTicker ticker("all_paths");
  bool prefix_reached = true;  // some simple path of length - 1 edges avoids `to`
  for (std::int64_t length = 1; length <= max_depth && prefix_reached && result.size() < max_paths; ++length) {
    prefix_reached = length == 1;
    on_path.reset(g.vertex_slots());
    on_path.mark(from);
    vs.assign(1, from);
    es.clear();
    stack.assign(1, AdjacencyCursor<View>(g, adj, from, f));
    while (!stack.empty() && result.size() < max_paths) {
      ticker.tick();
      AdjacencyCursor<View>& top = stack.back();
      if (top.done()) {
        stack.pop_back();
        if (!stack.empty()) {
          on_path.unmark(vs.back());
          vs.pop_back();
          es.pop_back();
        }
        continue;
      }
      const AdjEntry a = top.current();
      top.next();
      if (on_path.marked(a.other)) continue;
      const bool last = static_cast<std::int64_t>(es.size()) + 1 == length;
      if (last ? a.other != to : a.other == to) continue;  // `to` ends the path, exactly at length
      if (last) {
        vs.push_back(a.other);
        es.push_back(a.edge);
        result.push_back(make_path(g, vs.begin(), vs.end(), es.begin(), es.end()));
        vs.pop_back();
        es.pop_back();
        continue;
      }
      on_path.mark(a.other);
      vs.push_back(a.other);
      es.push_back(a.edge);
      if (static_cast<std::int64_t>(es.size()) + 1 == length) prefix_reached = true;
      stack.emplace_back(g, adj, a.other, f);
    }
  }
  return result;
}

/// The filter a search from the far end follows: the same labels, the other list.
EdgeFilter reversed(EdgeFilter f) noexcept {
  if (f.direction != Direction::both) f.direction = f.direction == Direction::out ? Direction::in : Direction::out;
  return f;
}

/// Cache hints for expanding q[i..n) under direction d: the list that q[i + kPayloadAhead]
/// follows (prefetch_lists fetches out-lists only), and records where lists live in them.
template <typename View, typename Adjacency>
void prefetch_expansion(const View& g, const Adjacency& adj, const std::vector<Slot>& q, std::size_t i, std::size_t n,
                        Direction d) noexcept {
  if constexpr (View::template lists_in_records<Adjacency>) {
    if (i + kRecordAhead < n) g.prefetch_vertex(q[i + kRecordAhead]);
  }
  if (i + kPayloadAhead < n) {
    const Slot v = q[i + kPayloadAhead];
    auto lines = [](auto list) {
      const char* p = reinterpret_cast<const char*>(list.data());
      const char* end = reinterpret_cast<const char*>(list.data() + list.size());
      for (int k = 0; k < 4 && p < end; ++k, p += 64) detail::prefetch(p);
    };
    if (d != Direction::in) lines(adj.out(v));
    if (d != Direction::out) lines(adj.in(v));
  }
}

/// Entries that expanding the vertices q[first, last) walks under direction d (before label
/// filtering): what a breadth-first level costs. Stops counting once past `limit`.
template <typename View, typename Adjacency>
std::uint64_t level_cost(const View& g, const Adjacency& adj, const std::vector<Slot>& q, std::size_t first,
                         std::size_t last, Direction d, DeadlineTicker<>& ticker,
                         std::uint64_t limit = std::numeric_limits<std::uint64_t>::max()) {
  std::uint64_t cost = 0;
  for (std::size_t i = first; i < last && cost <= limit; ++i) {
    prefetch_expansion(g, adj, q, i, last, d);
    ticker.tick();
    if (d != Direction::in) cost += adj.out(q[i]).size();
    if (d != Direction::out) cost += adj.in(q[i]).size();
  }
  return cost;
}

/// Which ends of a two-ended search have reached each vertex: two bits per vertex. The searches
/// probe marks at random; here both sides' marks of a vertex come in one load, from an array 16
/// times smaller than a Marks stamp array (with a stamp array per side, a cold vertex cost two
/// cache misses). Per thread; a search clears the bits it set before it returns or throws
/// (SideBitsClear), so a call costs nothing in proportion to the graph.
class SideBits {
 public:
  static constexpr unsigned kForward = 1;
  static constexpr unsigned kBackward = 2;
  /// Makes room for vertex slots below n; new bits are clear.
  void fit(std::size_t n) {
    if (words_.size() < (n + 31) / 32) words_.resize((n + 31) / 32, 0);
  }
  [[nodiscard]] unsigned get(Slot v) const noexcept { return (words_[v / 32] >> (v % 32 * 2)) & 3U; }
  void set(Slot v, unsigned side) noexcept { words_[v / 32] |= std::uint64_t{side} << (v % 32 * 2); }
  void clear(Slot v) noexcept { words_[v / 32] &= ~(std::uint64_t{3} << (v % 32 * 2)); }

 private:
  std::vector<std::uint64_t> words_;
};

SideBits& side_bits() {
  thread_local SideBits bits;
  return bits;
}

/// Clears the bits of every vertex in two queues (all that a search marks) when it goes.
struct SideBitsClear {
  SideBits& bits;
  const std::vector<Slot>& a;
  const std::vector<Slot>& b;
  ~SideBitsClear() {
    for (Slot v : a) bits.clear(v);
    for (Slot v : b) bits.clear(v);
  }
};

/// Fewest-edges path from `from` to `to` of at most max_depth edges: exactly the path of a
/// breadth-first search from `from` that expands each vertex's entries in edge-id order, where a
/// vertex's parent is the first vertex in queue order to reach it (through the first such
/// entry), but touching only the vertices and edges near the two ends and the shortest paths.
///
/// 1. Breadth-first search from both ends, one whole level at a time, the side whose next level
///    costs fewer entries first; the backward search follows the reversed filter. The first
///    level that reaches a vertex the other side has reached is finished (keeping only such
///    vertices), which gives the distance D = a + b, a and b the levels done on each side.
///    Nothing met within max_depth: no path. The forward search is the one-sided search up to
///    its level a: same queue order, same parents.
/// 2. A vertex v lies on a shortest path iff ds(v) + dt(v) = D. Every vertex one level before
///    such a vertex that has an entry to it lies on a shortest path too, so the one-sided
///    search gives these vertices the same relative queue order and the same parents as a
///    breadth-first search that enqueues only them. That restricted search continues from the
///    forward level a, one level k at a time, from the cheaper side: forward, scanning the lists
///    of level k in queue order and enqueueing the vertices with dt = D - k - 1 not yet reached;
///    or backward, scanning the lists of the backward level D - k - 1 for entries from level k
///    and giving each vertex the parent of lowest queue place, through its lowest edge id, then
///    ordering the new level by (parent's place, edge id) as the forward scan would.
///
/// Deadline as shortest_path's. Marks are side_bits(); of the scratch Marks only the queues and
/// per-vertex arrays serve: scratch() holds the forward queue and parents (path_to() reads
/// them), scratch2() the backward queue, dt(v) in parent[v] and the queue place of a
/// restricted-search vertex in parent_edge[v]. O(1) set-up per call.
template <typename View, typename Adjacency>
std::optional<Path> fewest_edges(const View& g, const Adjacency& adj, Slot from, Slot to, const EdgeFilter& f,
                                 int max_depth) {
  if (from == to) return make_path(g, &from, &from + 1, &from, &from);
  constexpr unsigned kForward = SideBits::kForward;
  constexpr unsigned kBackward = SideBits::kBackward;
  DeadlineTicker ticker("shortest_path");
  const EdgeFilter rf = reversed(f);
  Marks& fwd = scratch();
  Marks& bwd = scratch2();
  fwd.reset(g.vertex_slots());
  bwd.reset(g.vertex_slots());
  SideBits& bits = side_bits();
  bits.fit(g.vertex_slots());
  auto& fq = fwd.queue;  // forward search order; fq[fb..] is its frontier, level a
  auto& bq = bwd.queue;  // backward search order (ascending dt); bq[bb..] is its frontier, level b
  fq.assign(1, from);
  bq.assign(1, to);
  const SideBitsClear clear{bits, fq, bq};
  auto dt = [&](Slot v) -> Slot& { return bwd.parent[v]; };
  auto place = [&](Slot v) -> Slot& { return bwd.parent_edge[v]; };
  bits.set(from, kForward);  // vertices are queued before their bits are set: the guard sees all
  fwd.parent[from] = kNoSlot;
  bits.set(to, kBackward);
  dt(to) = 0;
  std::size_t fb = 0;
  std::size_t bb = 0;
  int a = 0;
  int b = 0;
  bool met = false;
  while (!met) {
    if (a + b >= max_depth || fb == fq.size() || bb == bq.size()) return std::nullopt;
    // The frontier of fewer vertices costed in full, the other only until it costs more.
    std::uint64_t fcost = 0;
    std::uint64_t bcost = 0;
    if (fq.size() - fb <= bq.size() - bb) {
      fcost = level_cost(g, adj, fq, fb, fq.size(), f.direction, ticker);
      bcost = level_cost(g, adj, bq, bb, bq.size(), rf.direction, ticker, fcost);
    } else {
      bcost = level_cost(g, adj, bq, bb, bq.size(), rf.direction, ticker);
      fcost = level_cost(g, adj, fq, fb, fq.size(), f.direction, ticker, bcost);
    }
    if (fcost <= bcost) {
      const std::size_t end = fq.size();
      for (std::size_t i = fb; i < end; ++i) {
        prefetch_expansion(g, adj, fq, i, end, f.direction);
        ticker.tick();
        const Slot v = fq[i];
        for_each_adjacent(g, adj, v, f, [&](const AdjEntry& e) {
          const Slot w = e.other;
          const unsigned side = bits.get(w);
          // Past the meeting only vertices of shortest paths matter.
          if ((side & kForward) != 0 || (met && (side & kBackward) == 0)) return;
          fq.push_back(w);
          bits.set(w, kForward);
          fwd.parent[w] = v;
          fwd.parent_edge[w] = e.edge;
          met = met || (side & kBackward) != 0;
        });
      }
      fb = end;
      ++a;
    } else {
      const std::size_t end = bq.size();
      const auto level = static_cast<Slot>(b + 1);
      for (std::size_t i = bb; i < end; ++i) {
        prefetch_expansion(g, adj, bq, i, end, rf.direction);
        ticker.tick();
        for_each_adjacent(g, adj, bq[i], rf, [&](const AdjEntry& e) {
          const Slot u = e.other;
          const unsigned side = bits.get(u);
          if ((side & kBackward) != 0 || (met && (side & kForward) == 0)) return;
          bq.push_back(u);
          bits.set(u, kBackward);
          dt(u) = level;
          met = met || (side & kForward) != 0;
        });
      }
      bb = end;
      ++b;
    }
  }

  // Level a of the restricted search: the forward frontier's vertices that the backward search
  // reached (all at dt = b), in forward queue order.
  std::size_t first = fb;
  std::size_t last = first;
  for (std::size_t i = first; i < fq.size(); ++i) {
    const Slot v = fq[i];
    if ((bits.get(v) & kBackward) == 0) {
      bits.clear(v);  // leaves the queue, so SideBitsClear would not see it
      continue;
    }
    place(v) = static_cast<Slot>(last);
    fq[last++] = v;
  }
  fq.resize(last);
  // Restricted-search vertices are those both searches reached (forward ones only at level a).
  auto reached_at = [&](Slot v, Slot d) { return bits.get(v) == (kForward | kBackward) && dt(v) == d; };
  while ((bits.get(to) & kForward) == 0 && first < last) {
    const Slot next = dt(fq[first]) - 1;  // dt of the level to find
    const std::uint64_t forward = level_cost(g, adj, fq, first, last, f.direction, ticker);
    // The backward level `next`, complete: levels below b were expanded by the backward search.
    const auto nb = std::partition_point(bq.begin(), bq.end(), [&](Slot v) { return dt(v) < next; });
    const auto ne = std::partition_point(nb, bq.end(), [&](Slot v) { return dt(v) == next; });
    const auto nfirst = static_cast<std::size_t>(nb - bq.begin());
    const auto nlast = static_cast<std::size_t>(ne - bq.begin());
    if (forward <= level_cost(g, adj, bq, nfirst, nlast, rf.direction, ticker, forward)) {
      for (std::size_t i = first; i < last && (bits.get(to) & kForward) == 0; ++i) {
        ticker.tick();
        const Slot v = fq[i];
        for (AdjacencyCursor<View> c(g, adj, v, f); !c.done(); c.next()) {
          const AdjEntry& e = c.current();
          const Slot w = e.other;
          if (bits.get(w) != kBackward || dt(w) != next) continue;
          fq.push_back(w);
          bits.set(w, kForward);
          fwd.parent[w] = v;
          fwd.parent_edge[w] = e.edge;
          if (w == to) break;
        }
      }
    } else {
      for (std::size_t i = nfirst; i < nlast; ++i) {
        prefetch_expansion(g, adj, bq, i, nlast, rf.direction);
        ticker.tick();
        const Slot w = bq[i];
        for_each_adjacent(g, adj, w, rf, [&](const AdjEntry& e) {
          const Slot v = e.other;
          if (!reached_at(v, next + 1)) return;
          if ((bits.get(w) & kForward) == 0) {
            fq.push_back(w);
            bits.set(w, kForward);
          } else if (place(v) > place(fwd.parent[w]) || (v == fwd.parent[w] && e.edge > fwd.parent_edge[w])) {
            return;
          }
          fwd.parent[w] = v;
          fwd.parent_edge[w] = e.edge;
        });
      }
      std::sort(fq.begin() + static_cast<std::ptrdiff_t>(last), fq.end(), [&](Slot x, Slot y) {
        const Slot px = place(fwd.parent[x]);
        const Slot py = place(fwd.parent[y]);
        return px != py ? px < py : fwd.parent_edge[x] < fwd.parent_edge[y];
      });
    }
    first = last;
    last = fq.size();
    for (std::size_t i = first; i < last; ++i) place(fq[i]) = static_cast<Slot>(i);
  }
  assert((bits.get(to) & kForward) != 0);  // every level of the restricted search is nonempty, down to `to`
  return path_to(g, to);
}

}  // namespace

template <typename View>
std::optional<Path> shortest_path(const View& g, Slot from, Slot to, const PathOptions& options) {
  const EdgeFilter filter = make_filter(g, options.direction, options.edge_label);
  return g.with_adjacency([&](const auto& adj) -> std::optional<Path> {
    if (options.weight_property) return dijkstra(g, adj, from, to, filter, *options.weight_property);
    return fewest_edges(g, adj, from, to, filter, options.max_depth);
  });
}

template <typename View>
std::vector<Path> all_paths(const View& g, Slot from, Slot to, const PathOptions& options) {
  return g.with_adjacency([&](const auto& adj) {
    return enumerate_paths(g, adj, from, to, make_filter(g, options.direction, options.edge_label), options.max_depth,
                           options.max_paths);
  });
}

#define PROPGRAPH_INSTANTIATE(View)                                                        \
  template std::optional<Path> shortest_path(const View&, Slot, Slot, const PathOptions&); \
  template std::vector<Path> all_paths(const View&, Slot, Slot, const PathOptions&);
PROPGRAPH_FOR_EACH_VIEW(PROPGRAPH_INSTANTIATE)

}  // namespace propgraph::detail
