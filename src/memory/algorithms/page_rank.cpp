// page_rank.
#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "memory/algorithms.hpp"
#include "memory/scratch.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/errors.hpp"

namespace propgraph::detail {

namespace {
struct PageRankScratch {
  std::vector<Slot> members;
  std::vector<std::uint32_t> dense;
  std::vector<std::uint32_t> offsets;  // in-edges of dense vertex i: sources[offsets[i] .. offsets[i + 1])
  std::vector<std::uint32_t> sources;
  std::vector<std::uint32_t> out_degree;
  std::vector<double> rank;
  std::vector<double> next;
  std::vector<double> share;  // d * rank / out-degree, or 0 for a dangling vertex
  struct Ranked {
    std::uint64_t key;  // orders highest score first, then lowest dense index
    std::uint32_t index;
  };
  std::vector<Ranked> order;
};

/// A key whose ascending order is descending score (scores are finite and >= 0).
std::uint64_t descending(double score) noexcept {
  std::uint64_t bits;
  std::memcpy(&bits, &score, sizeof bits);
  return ~bits;
}
}  // namespace

// Written out rather than boost::page_rank: Boost's version drops the rank of dangling vertices
// (scores then no longer sum to 1) and has no L1 tolerance stop. Each iteration pulls: a vertex
// sums the shares of its in-neighbours, read through a compact copy of the in-lists in dense
// numbering built once per call (sequential reads of 4-byte entries, the shares a random read
// each), instead of pushing shares into random places.
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
  thread_local ScratchTrim dense_trim;  // dense follows the slot count
  auto& [members, dense, offsets, sources, out_degree, rank, next, share, order] = scratch_buffers;
  members.clear();
  sources.clear();
  if (f.vertex_label == kUnknownLabel) return {};
  for (Slot v = 0; v < g.vertex_slots(); ++v) {
    ticker.tick();
    if (g.vertex_alive(v) && vertex_in(g, v, f.vertex_label)) members.push_back(v);
  }
  const std::size_t n = members.size();
  if (n == 0) return {};
  if (dense_trim.due(dense.size() * sizeof(std::uint32_t))) forget_pages(dense);
  dense.resize(g.vertex_slots());
  for (std::uint32_t i = 0; i < n; ++i) dense[members[i]] = i;
  offsets.assign(n + 1, 0);
  out_degree.assign(n, 0);
  // In-edges whose source participates too (the filter's vertex label holds for both ends).
  const EdgeFilter in_filter{Direction::in, f.edge_label, f.vertex_label};
  g.with_adjacency([&](const auto& adj) {
    std::size_t entries = 0;
    for (Slot v : members) entries += adj.in(v).size();
    sources.reserve(entries);
    for (std::uint32_t i = 0; i < n; ++i) {
      ticker.tick();
      if (i + kPayloadAhead < n) adj.prefetch_in(members[i + kPayloadAhead]);
      for_each_adjacent(g, adj, members[i], in_filter, [&](const AdjEntry& a) {
        const std::uint32_t u = dense[a.other];
        sources.push_back(u);
        ++out_degree[u];
      });
      offsets[i + 1] = static_cast<std::uint32_t>(sources.size());
    }
  });
  const double d = options.damping;
  const double inv_n = 1.0 / static_cast<double>(n);
  rank.assign(n, inv_n);
  next.resize(n);
  share.resize(n);
  for (int iter = 0; iter < options.iterations; ++iter) {
    double dangling = 0.0;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (out_degree[i] == 0) {
        dangling += rank[i];
        share[i] = 0.0;
      } else {
        share[i] = d * rank[i] / out_degree[i];
      }
    }
    const double base = (1.0 - d) * inv_n + d * dangling * inv_n;
    double change = 0.0;
    for (std::uint32_t i = 0; i < n; ++i) {
      ticker.tick();
      double sum = 0.0;
      for (std::uint32_t k = offsets[i]; k < offsets[i + 1]; ++k) sum += share[sources[k]];
      next[i] = base + sum;
      change += std::abs(next[i] - rank[i]);
    }
    rank.swap(next);
    if (change < options.tolerance) break;
  }
  // Dense order is id order, so ties broken by dense index are ties broken by id.
  order.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) order[i] = {descending(rank[i]), i};
  const std::size_t k = std::min(options.top_k, n);
  auto by_key = [](const PageRankScratch::Ranked& a, const PageRankScratch::Ranked& b) {
    return a.key != b.key ? a.key < b.key : a.index < b.index;
  };
  if (k < n) {
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), by_key);
  } else {
    std::sort(order.begin(), order.end(), by_key);
  }
  std::vector<PageRankScore> result;
  result.reserve(k);
  for (std::size_t i = 0; i < k; ++i) {
    ticker.tick();
    if (i + kRecordAhead < k) g.prefetch_vertex(members[order[i + kRecordAhead].index]);
    const std::uint32_t x = order[i].index;
    result.push_back({make_vertex(g, members[x]), rank[x]});
  }
  return result;
}

#define PROPGRAPH_INSTANTIATE(View) template std::vector<PageRankScore> page_rank(const View&, const PageRankOptions&);
PROPGRAPH_FOR_EACH_VIEW(PROPGRAPH_INSTANTIATE)

}  // namespace propgraph::detail
