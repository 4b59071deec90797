// page_rank.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "memory/algorithms.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/errors.hpp"

namespace propgraph::detail {

namespace {
struct PageRankScratch {
  std::vector<Slot> members;
  std::vector<std::uint32_t> dense;
  std::vector<std::uint32_t> offsets;
  std::vector<std::uint32_t> targets;
  std::vector<double> rank;
  std::vector<double> next;
  std::vector<std::uint32_t> order;
};
}  // namespace

// Written out rather than boost::page_rank: Boost's version drops the rank of dangling vertices
// (scores then no longer sum to 1) and has no L1 tolerance stop.
template <typename View>
std::vector<PageRankScore> page_rank(const View& g, const PageRankOptions& options) {
  if (options.iterations < 1) throw InvalidArgument("page_rank iterations must be >= 1");
  if (!(options.damping >= 0.0 && options.damping <= 1.0)) {
    throw InvalidArgument(fmt::format("page_rank damping must be in [0, 1], got {}", options.damping));
  }
  const EdgeFilter f = make_filter(g, Direction::out, options.edge_label, options.vertex_label);
  // Dense numbering of the participating vertices, in slot (= id) order. Buffers are reused per
  // thread: repeated calls on small graphs then allocate nothing but the result.
  DeadlineTicker ticker("page_rank");
  thread_local PageRankScratch scratch_buffers;
  auto& [members, dense, offsets, targets, rank, next, order] = scratch_buffers;
  members.clear();
  targets.clear();
  if (f.vertex_label == kUnknownLabel) return {};
  for (Slot v = 0; v < g.vertex_slots(); ++v) {
    ticker.tick();
    if (g.vertex_alive(v) && vertex_in(g, v, f.vertex_label)) members.push_back(v);
  }
  const std::size_t n = members.size();
  if (n == 0) return {};
  dense.resize(g.vertex_slots());
  for (std::uint32_t i = 0; i < n; ++i) dense[members[i]] = i;
  // Compact out-adjacency in dense numbering (CSR), built once per call.
  offsets.assign(n + 1, 0);
  g.with_adjacency([&](const auto& adj) {
    for (std::uint32_t i = 0; i < n; ++i) {
      ticker.tick();
      if (i + kPayloadAhead < n) adj.prefetch(members[i + kPayloadAhead]);
      for_each_adjacent(g, adj, members[i], f, [&](const AdjEntry& a) { targets.push_back(dense[a.other]); });
      offsets[i + 1] = static_cast<std::uint32_t>(targets.size());
    }
  });
  const double d = options.damping;
  const double inv_n = 1.0 / static_cast<double>(n);
  rank.assign(n, inv_n);
  next.resize(n);
  for (int iter = 0; iter < options.iterations; ++iter) {
    double dangling = 0.0;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (offsets[i] == offsets[i + 1]) dangling += rank[i];
    }
    std::fill(next.begin(), next.end(), (1.0 - d) * inv_n + d * dangling * inv_n);
    for (std::uint32_t i = 0; i < n; ++i) {
      ticker.tick();
      const std::uint32_t deg = offsets[i + 1] - offsets[i];
      if (deg == 0) continue;
      const double share = d * rank[i] / deg;
      for (std::uint32_t k = offsets[i]; k < offsets[i + 1]; ++k) next[targets[k]] += share;
    }
    double change = 0.0;
    for (std::size_t i = 0; i < n; ++i) change += std::abs(next[i] - rank[i]);
    rank.swap(next);
    if (change < options.tolerance) break;
  }
  order.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
  // Dense order is id order, so ties broken by dense index are ties broken by id.
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return rank[a] != rank[b] ? rank[a] > rank[b] : a < b; });
  const std::size_t k = std::min(options.top_k, n);
  std::vector<PageRankScore> result;
  result.reserve(k);
  for (std::size_t i = 0; i < k; ++i) {
    ticker.tick();
    result.push_back({make_vertex(g, members[order[i]]), rank[order[i]]});
  }
  return result;
}

#define PROPGRAPH_INSTANTIATE(View) template std::vector<PageRankScore> page_rank(const View&, const PageRankOptions&);
PROPGRAPH_FOR_EACH_VIEW(PROPGRAPH_INSTANTIATE)

}  // namespace propgraph::detail
