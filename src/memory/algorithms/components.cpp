// connected_components: weak (Afforest's sampled union-find) and strong (Boost's Tarjan).
#include <algorithm>
#include <array>
#include <random>

#include <boost/graph/strong_components.hpp>

#include "memory/algorithms.hpp"
#include "memory/boost_view.hpp"
#include "propgraph/deadline.hpp"

namespace propgraph::detail {

namespace {

/// Union-find over slots where a root is its own parent and a link always hangs the higher
/// root under the lower one (Shiloach-Vishkin style hooking, as in GAP's Afforest).
class Forest {
 public:
  explicit Forest(std::size_t n) : parent_(n) {
    for (Slot v = 0; v < n; ++v) parent_[v] = v;
  }
  void link(Slot u, Slot v) noexcept {
    Slot p1 = parent_[u];
    Slot p2 = parent_[v];
    while (p1 != p2) {
      const Slot high = std::max(p1, p2);
      const Slot low = std::min(p1, p2);
      const Slot above = parent_[high];
      if (above == low) return;
      if (above == high) {
        parent_[high] = low;
        return;
      }
      p1 = parent_[above];
      p2 = parent_[low];
    }
  }
  /// Points every slot straight at its root.
  void compress() noexcept {
    for (Slot v = 0; v < parent_.size(); ++v) {
      while (parent_[v] != parent_[parent_[v]]) parent_[v] = parent_[parent_[v]];
    }
  }
  [[nodiscard]] Slot parent(Slot v) const noexcept { return parent_[v]; }
  /// Every slot's parent (its root after compress()).
  [[nodiscard]] std::vector<Slot> release() && noexcept { return std::move(parent_); }

 private:
  std::vector<Slot> parent_;
};

/// The root most of a sample of `members` point at after compress(): the giant component's,
/// if there is one.
Slot frequent_root(const Forest& forest, const std::vector<Slot>& members) {
  constexpr std::size_t kSamples = 1024;
  std::mt19937 random(27491095);
  std::uniform_int_distribution<std::size_t> pick(0, members.size() - 1);
  std::array<Slot, kSamples> roots{};
  for (Slot& r : roots) r = forest.parent(members[pick(random)]);
  std::sort(roots.begin(), roots.end());
  Slot best = roots[0];
  std::size_t best_run = 0;
  for (std::size_t i = 0; i < kSamples;) {
    std::size_t j = i;
    while (j < kSamples && roots[j] == roots[i]) ++j;
    if (j - i > best_run) best = roots[i], best_run = j - i;
    i = j;
  }
  return best;
}

}  // namespace

template <typename View>
std::vector<Component> connected_components(const View& g, const ComponentOptions& options) {
  const EdgeFilter f = make_filter(g, Direction::out, options.edge_label, options.vertex_label);
  if (f.vertex_label == kUnknownLabel) return {};
  const std::size_t n = g.vertex_slots();
  auto participates = [&](Slot v) { return g.vertex_alive(v) && vertex_in(g, v, f.vertex_label); };
  DeadlineTicker ticker("connected_components");
  std::vector<Slot> members;
  for (Slot v = 0; v < n; ++v) {
    ticker.tick();
    if (participates(v)) members.push_back(v);
  }
  if (members.empty()) return {};
  std::vector<Slot> component_of;  // a slot of each member's component; equal within one
  g.with_adjacency([&](const auto& adj) {
    if (options.weakly) {
      // Afforest (Sutton, Ben-Nun and Barak, IPDPS 2018): link each vertex to its first two
      // out-neighbours, which on most graphs already joins the giant component; then find that
      // component's root by sampling and walk the remaining lists of the vertices outside it
      // only. An edge into the giant component from outside is met in its source's out-list, one
      // out of it in its target's in-list, so every edge that can join two components is seen.
      constexpr std::size_t kRounds = 2;
      Forest forest(n);
      for (std::size_t round = 0; round < kRounds; ++round) {
        for (std::size_t i = 0; i < members.size(); ++i) {
          ticker.tick();
          prefetch_lists(g, adj, members.data(), i, members.size());
          const Slot v = members[i];
          const auto out = adj.out(v);
          if (round < out.size() && passes(g, out[round], f)) forest.link(v, out[round].other);
        }
        forest.compress();
      }
      const Slot giant = frequent_root(forest, members);
      const EdgeFilter in_filter{Direction::in, f.edge_label, f.vertex_label};
      for (std::size_t i = 0; i < members.size(); ++i) {
        ticker.tick();
        const Slot v = members[i];
        if (forest.parent(v) == giant) continue;
        const auto out = adj.out(v);
        for (std::size_t k = kRounds; k < out.size(); ++k) {
          if (passes(g, out[k], f)) forest.link(v, out[k].other);
        }
        for (const AdjEntry& a : adj.in(v)) {
          if (passes(g, a, in_filter)) forest.link(v, a.other);
        }
      }
      forest.compress();
      component_of = std::move(forest).release();
    } else {
      component_of.resize(n);
      using Graph = BoostGraphView<View, std::decay_t<decltype(adj)>>;
      Graph graph{&g, &adj, f};
      boost::typed_identity_property_map<Slot> index;
      ticker.check();
      boost::strong_components(graph, boost::make_iterator_property_map(component_of.begin(), index),
                               boost::vertex_index_map(index));
    }
  });
  // Components ordered by their smallest member (members ascend). Two passes: the sizes, then
  // the vertices written straight into their component's vector, which is allocated once.
  constexpr Slot kSkipped = kNoSlot - 1;
  std::vector<Slot> group_of(n, kNoSlot);  // a component's slot -> its position in result
  std::vector<std::uint32_t> sizes;
  for (const Slot v : members) {
    Slot& group = group_of[component_of[v]];
    if (group == kNoSlot) {
      group = static_cast<Slot>(sizes.size());
      sizes.push_back(0);
    }
    ++sizes[group];
  }
  std::vector<Slot> result_of(sizes.size(), kSkipped);  // group -> index in result
  std::vector<Component> result;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] < options.min_size) continue;
    result_of[k] = static_cast<Slot>(result.size());
    result.push_back(Component{static_cast<std::int64_t>(result.size()), {}});
    result.back().vertices.reserve(sizes[k]);
  }
  for (const Slot v : members) {
    ticker.tick();
    const Slot r = result_of[group_of[component_of[v]]];
    if (r != kSkipped) emplace_vertex(g, result[r].vertices, v);
  }
  return result;
}

#define PROPGRAPH_INSTANTIATE(View) \
  template std::vector<Component> connected_components(const View&, const ComponentOptions&);
PROPGRAPH_FOR_EACH_VIEW(PROPGRAPH_INSTANTIATE)

}  // namespace propgraph::detail
