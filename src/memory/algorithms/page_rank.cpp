// page_rank.
#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "memory/algorithms.hpp"
#include "memory/mapped_array.hpp"
#include "memory/scratch.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/errors.hpp"

namespace propgraph::detail {

namespace {

/// Dense index (0..n-1) of the n participating vertices by slot. A slot-indexed array while the
/// members fill at least a quarter of the slots; else an open-addressing table sized by the
/// members. Slots are never reused, so on a graph with churn the live vertices sit in ever newer
/// slots: the table keeps this per-thread scratch in proportion to the live graph.
class DenseIndex {
 public:
  /// members ascending; slots = the store's vertex slots. O(slots) or O(members).
  void build(const std::vector<Slot>& members, std::size_t slots) {
    const std::size_t n = members.size();
    direct_ = slots <= 4 * n;
    if (direct_) {
      table_ = {};
      if (trim_.due(array_.size() * sizeof(std::uint32_t))) array_.release(0, array_.size());
      // Only members' entries are read (the rest may hold old indices): growing touches no
      // page, and only the members' pages come into memory.
      array_.resize_for_overwrite(slots);
      for (std::uint32_t i = 0; i < n; ++i) array_[members[i]] = i;
      return;
    }
    array_.clear();
    std::size_t size = 16;
    while (size < 2 * n) size *= 2;
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(size));
    mask_ = size - 1;
    table_.assign(size, Entry{kNoSlot, 0});
    for (std::uint32_t i = 0; i < n; ++i) {
      std::size_t at = home(members[i]);
      while (table_[at].slot != kNoSlot) at = (at + 1) & mask_;
      table_[at] = {members[i], i};
    }
  }
  /// The dense index of a member slot (only members are asked for: edges join live vertices
  /// and the filter admits both ends).
  [[nodiscard]] std::uint32_t operator[](Slot s) const noexcept {
    if (direct_) return array_[s];
    std::size_t at = home(s);
    while (table_[at].slot != s && table_[at].slot != kNoSlot) at = (at + 1) & mask_;
    assert(table_[at].slot == s);
    return table_[at].index;
  }

 private:
  struct Entry {
    Slot slot;
    std::uint32_t index;
  };
  [[nodiscard]] std::size_t home(Slot s) const noexcept {
    return static_cast<std::size_t>((std::uint64_t{s} * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  bool direct_ = true;
  MappedArray<std::uint32_t> array_;
  ScratchTrim trim_;
  std::vector<Entry> table_;
  unsigned shift_ = 60;
  std::size_t mask_ = 15;
};

/// Sources per block of the blocked pull: 2^17 shares of 8 bytes, a megabyte, stay in a core's
/// L2 cache.
constexpr unsigned kBlockBits = 17;

/// An in-edge of the blocked pull: share[source] goes to next[target].
struct Pull {
  std::uint32_t target;
  std::uint32_t source;
};

struct PageRankScratch {
  std::vector<Slot> members;
  DenseIndex dense;
  // Graphs of one block: the in-edges of dense vertex i are sources[offsets[i] .. offsets[i + 1]).
  std::vector<std::uint32_t> offsets;
  std::vector<std::uint32_t> sources;
  // Larger graphs: the in-edges grouped by the block of their source, by target within a block.
  std::vector<Pull> pulls;
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
  const EdgeFilter f = make_filter(g, Direction::out, options.edge_label, options.vertex_label);
  // Dense numbering of the participating vertices, in slot (= id) order. Buffers are reused per
  // thread: repeated calls on small graphs then allocate nothing but the result.
  DeadlineTicker ticker("page_rank");
  thread_local PageRankScratch scratch_buffers;
  auto& [members, dense, offsets, sources, pulls, out_degree, rank, next, share, order] = scratch_buffers;
  members.clear();
  sources.clear();
  pulls.clear();
  if (f.vertex_label == kUnknownLabel) return {};
  for (Slot v = 0; v < g.vertex_slots(); ++v) {
    ticker.tick();
    if (g.vertex_alive(v) && vertex_in(g, v, f.vertex_label)) members.push_back(v);
  }
  const std::size_t n = members.size();
  if (n == 0) return {};
  dense.build(members, g.vertex_slots());
  out_degree.assign(n, 0);
  // Each iteration pulls every in-edge's share. Over a graph larger than one block, reading the
  // shares at random would wait on main memory for nearly every edge; pulling the edges of one
  // block of sources at a time keeps the shares read in cache, and the targets ascend within
  // a block, so next[] streams.
  const std::size_t blocks = (n + (std::size_t{1} << kBlockBits) - 1) >> kBlockBits;
  // In-edges whose source participates too (the filter's vertex label holds for both ends).
  const EdgeFilter in_filter{Direction::in, f.edge_label, f.vertex_label};
  g.with_adjacency([&](const auto& adj) {
    // fn(target, source) for each in-edge, targets ascending; done(target) after each target.
    auto each_in_edge = [&](auto&& fn, auto&& done) {
      for (std::uint32_t i = 0; i < n; ++i) {
        ticker.tick();
        if (i + kPayloadAhead < n) adj.prefetch_in(members[i + kPayloadAhead]);
        for_each_adjacent(g, adj, members[i], in_filter, [&](const AdjEntry& a) { fn(i, dense[a.other]); });
        done(i);
      }
    };
    auto nothing = [](std::uint32_t) {};
    if (blocks <= 1) {
      offsets.assign(n + 1, 0);
      each_in_edge(
          [&](std::uint32_t, std::uint32_t u) {
            sources.push_back(u);
            ++out_degree[u];
          },
          [&](std::uint32_t i) { offsets[i + 1] = static_cast<std::uint32_t>(sources.size()); });
      return;
    }
    std::vector<std::size_t> cursor(blocks + 1, 0);  // counts, then where each block's next pull goes
    each_in_edge(
        [&](std::uint32_t, std::uint32_t u) {
          ++cursor[(u >> kBlockBits) + 1];
          ++out_degree[u];
        },
        nothing);
    for (std::size_t b = 0; b < blocks; ++b) cursor[b + 1] += cursor[b];
    pulls.resize(cursor[blocks]);
    each_in_edge([&](std::uint32_t i, std::uint32_t u) { pulls[cursor[u >> kBlockBits]++] = {i, u}; }, nothing);
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
    if (blocks <= 1) {
      for (std::uint32_t i = 0; i < n; ++i) {
        ticker.tick();
        double sum = 0.0;
        for (std::uint32_t k = offsets[i]; k < offsets[i + 1]; ++k) sum += share[sources[k]];
        next[i] = base + sum;
        change += std::abs(next[i] - rank[i]);
      }
    } else {
      std::fill(next.begin(), next.end(), base);
      constexpr std::size_t kChunk = 1 << 16;  // pulls between deadline checks
      for (std::size_t at = 0; at < pulls.size(); at += kChunk) {
        ticker.check();
        const Pull* p = pulls.data() + at;
        const Pull* const end = pulls.data() + std::min(pulls.size(), at + kChunk);
        for (; p != end; ++p) next[p->target] += share[p->source];
      }
      for (std::uint32_t i = 0; i < n; ++i) change += std::abs(next[i] - rank[i]);
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
