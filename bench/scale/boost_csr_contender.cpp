// The raw structure MemoryGraph is built on: Boost.Graph's compressed_sparse_row_graph and
// Boost's algorithms, with nothing of propgraph's in between.
#include <algorithm>
#include <optional>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/incremental_components.hpp>
#include <boost/graph/page_rank.hpp>
#include <boost/pending/disjoint_sets.hpp>
#include <boost/version.hpp>
#include <fmt/format.h>

#include "contender.hpp"

namespace propgraph::scale {

namespace {

using Csr = boost::compressed_sparse_row_graph<boost::directedS>;

Csr make_csr(const generate::EdgeList& list) {
  return Csr(boost::edges_are_unsorted_multi_pass, list.edges.begin(), list.edges.end(), list.vertex_count);
}

struct BfsState {
  std::vector<std::uint32_t> depth;
  std::vector<std::size_t> parent;
  std::vector<boost::default_color_type> color;
};

struct TargetFound {};

struct DepthRecorder : boost::default_bfs_visitor {
  BfsState* state;
  std::optional<std::size_t> target;
  void tree_edge(Csr::edge_descriptor e, const Csr& g) const {
    const auto u = boost::source(e, g);
    const auto v = boost::target(e, g);
    state->depth[v] = state->depth[u] + 1;
    state->parent[v] = u;
    if (target && v == *target) throw TargetFound{};
  }
};

/// Boost's breadth_first_search from src recording depth and parent (as GraphOperations::bfs
/// does); with a target it stops when the target is discovered.
void raw_bfs(const Csr& g, std::size_t src, BfsState& state, std::optional<std::size_t> target = {}) {
  const auto n = boost::num_vertices(g);
  state.depth.assign(n, 0);
  state.parent.assign(n, n);
  state.color.assign(n, boost::white_color);
  try {
    boost::breadth_first_search(
        g, src,
        boost::visitor(DepthRecorder{{}, &state, target})
            .color_map(boost::make_iterator_property_map(state.color.begin(), boost::get(boost::vertex_index, g))));
  } catch (const TargetFound&) {
  }
}

class BoostCsr final : public Contender {
 public:
  [[nodiscard]] std::string_view name() const override { return "Boost CSR"; }
  [[nodiscard]] std::string version() const override {
    return fmt::format("{}.{}.{}", BOOST_VERSION / 100000, BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100);
  }
  [[nodiscard]] bool runs(Operation) const override { return true; }
  [[nodiscard]] std::string note(Operation op) const override {
    if (op == Operation::page_rank)
      return "boost::graph::page_rank: the rank of dangling vertices is dropped, not spread";
    return {};
  }
  void load(const generate::EdgeList& list) override { csr_ = make_csr(list); }
  void clear() override {
    csr_ = Csr();
    bfs_ = {};
    path_ = {};
    parent_ = {};
    rank_ = {};
    rank_scores_ = {};
  }

  void run(Operation op, const PathQuery& query) override {
    const std::size_t n = boost::num_vertices(csr_);
    switch (op) {
      case Operation::bfs: raw_bfs(csr_, query.source, bfs_); break;
      case Operation::components: {
        // Union-find over the edges, then every vertex's representative (what
        // connected_components reports), fully compressed.
        rank_.resize(n);
        parent_.resize(n);
        const boost::typed_identity_property_map<std::size_t> index;
        auto rank_map = boost::make_iterator_property_map(rank_.begin(), index);
        auto parent_map = boost::make_iterator_property_map(parent_.begin(), index);
        boost::disjoint_sets<decltype(rank_map), decltype(parent_map)> sets(rank_map, parent_map);
        boost::initialize_incremental_components(csr_, sets);
        boost::incremental_components(csr_, sets);
        for (std::size_t v = 0; v < n; ++v) parent_[v] = sets.find_set(v);
        break;
      }
      case Operation::page_rank:
        rank_scores_.resize(n);
        boost::graph::page_rank(
            csr_, boost::make_iterator_property_map(rank_scores_.begin(), boost::get(boost::vertex_index, csr_)),
            boost::graph::n_iterations(kPageRankIterations), kPageRankDamping, n);
        break;
      case Operation::shortest_path:
        raw_bfs(csr_, query.source, path_, query.target);
        path_target_ = query.target;
        path_source_ = query.source;
        break;
    }
  }

  [[nodiscard]] std::string result(Operation op) const override {
    switch (op) {
      case Operation::bfs: {
        std::uint64_t reached = 0;
        std::uint32_t depth = 0;
        for (std::size_t v = 0; v < bfs_.color.size(); ++v) {
          if (bfs_.color[v] == boost::white_color) continue;
          ++reached;
          depth = std::max(depth, bfs_.depth[v]);
        }
        return result_bfs(reached, depth);
      }
      case Operation::components: {
        std::uint64_t count = 0;
        for (std::size_t v = 0; v < parent_.size(); ++v) count += parent_[v] == v;
        return result_components(count);
      }
      case Operation::page_rank: return result_page_rank(top_five(rank_scores_.data(), rank_scores_.size()));
      case Operation::shortest_path: {
        // The search stops inside tree_edge, before Boost colours the target: its parent says.
        const bool found = path_target_ == path_source_ || path_.parent[path_target_] != path_.parent.size();
        return result_path(found ? std::optional<std::uint64_t>(path_.depth[path_target_]) : std::nullopt);
      }
    }
    return {};
  }

 private:
  Csr csr_;
  BfsState bfs_;
  BfsState path_;
  std::size_t path_source_ = 0;
  std::size_t path_target_ = 0;
  std::vector<std::size_t> rank_;
  std::vector<std::size_t> parent_;
  std::vector<double> rank_scores_;
};

}  // namespace

PathQuery choose_query(const generate::EdgeList& list) {
  const Csr csr = make_csr(list);
  PathQuery q;
  for (std::uint32_t v = 0; v < list.vertex_count; ++v) {
    const auto degree = boost::out_degree(static_cast<Csr::vertex_descriptor>(v), csr);
    if (degree > q.source_out_degree) {
      q.source = v;
      q.source_out_degree = degree;
    }
  }
  BfsState state;
  raw_bfs(csr, q.source, state);
  q.target = q.source;
  for (std::uint32_t v = 0; v < list.vertex_count; ++v) {
    if (state.color[v] != boost::white_color && state.depth[v] > state.depth[q.target]) q.target = v;
  }
  q.target_depth = state.depth[q.target];
  return q;
}

std::unique_ptr<Contender> make_boost_csr() { return std::make_unique<BoostCsr>(); }

}  // namespace propgraph::scale
