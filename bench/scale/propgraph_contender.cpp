// propgraph's MemoryGraph as a contender: the bulk calls to load, GraphOperations to ask.
#include "propgraph_contender.hpp"

#include <algorithm>
#include <limits>

#include "bench_support.hpp"
#include "propgraph/version.hpp"

namespace propgraph::scale {

PropgraphContender::PropgraphContender(generate::LoadOptions options) : options_(std::move(options)) {}

PropgraphContender::~PropgraphContender() = default;

std::string PropgraphContender::version() const { return version_string; }

namespace {
/// MemoryGraph links a bulk load's edges into the adjacency lists at the first call that
/// follows adjacency: that is part of loading, so the load ends with one such call.
void link_adjacency(MemoryGraph& graph, const std::vector<ElementId>& ids) {
  if (!ids.empty()) (void)graph.degree_centrality(ids.front());
}
}  // namespace

void PropgraphContender::load(const generate::EdgeList& list) {
  clear();
  graph_ = std::make_unique<MemoryGraph>("scale");
  ids_ = generate::load(*graph_, list, options_);
  link_adjacency(*graph_, ids_);
}

void PropgraphContender::clear() {
  visits_ = {};
  components_ = {};
  ranks_ = {};
  path_.reset();
  ids_ = {};
  graph_.reset();
}

PhaseMemory PropgraphContender::load_measured(const generate::EdgeList& list) {
  using bench::proc_status_bytes;
  clear();
  graph_ = std::make_unique<MemoryGraph>("scale");
  PhaseMemory m;
  const generate::EdgeList vertices_only{list.vertex_count, {}};
  double base = static_cast<double>(bench::reset_peak_rss());
  ids_ = generate::load(*graph_, vertices_only, options_);
  m.vertex_peak = static_cast<double>(proc_status_bytes("VmHWM")) - base;
  // Kept: after the allocator returns what the load freed (its batches).
  m.vertex_kept = static_cast<double>(bench::reset_peak_rss()) - base;
  // Edges between the vertices just created, in batches as generate::load makes them.
  base = static_cast<double>(bench::reset_peak_rss());
  std::vector<NewEdge> batch;
  for (std::size_t first = 0; first < list.edges.size(); first += options_.batch) {
    batch.clear();
    const std::size_t last = std::min(list.edges.size(), first + options_.batch);
    for (std::size_t i = first; i < last; ++i) {
      batch.push_back(NewEdge{ids_[list.edges[i].first], ids_[list.edges[i].second], options_.edge_label,
                              options_.edge_properties ? options_.edge_properties(i) : Properties{}});
    }
    graph_->create_edges(batch);
  }
  batch = {};
  link_adjacency(*graph_, ids_);
  m.edge_peak = static_cast<double>(proc_status_bytes("VmHWM")) - base;
  m.edge_kept = static_cast<double>(bench::reset_peak_rss()) - base;
  return m;
}

void PropgraphContender::run(Operation op, const PathQuery& query) {
  switch (op) {
    case Operation::bfs:
      visits_ =
          graph_->bfs(ids_[query.source], TraversalOptions{.max_depth = std::numeric_limits<int>::max(),
                                                           .max_vertices = std::numeric_limits<std::size_t>::max()});
      break;
    case Operation::components: components_ = graph_->connected_components(); break;
    case Operation::page_rank:
      // No early stop: every contender does the same 20 iterations.
      ranks_ = graph_->page_rank(
          PageRankOptions{.iterations = kPageRankIterations, .damping = kPageRankDamping, .tolerance = 0.0});
      break;
    case Operation::shortest_path:
      path_ =
          graph_->shortest_path(ids_[query.source], ids_[query.target],
                                PathOptions{.direction = Direction::out, .max_depth = std::numeric_limits<int>::max()});
      break;
  }
}

std::string PropgraphContender::result(Operation op) const {
  switch (op) {
    case Operation::bfs:
      return result_bfs(visits_.size(), visits_.empty() ? 0 : static_cast<std::uint64_t>(visits_.back().depth));
    case Operation::components: return result_components(components_.size());
    case Operation::page_rank: {
      std::vector<std::uint32_t> top;
      for (std::size_t i = 0; i < std::min<std::size_t>(5, ranks_.size()); ++i) {
        const auto at = std::find(ids_.begin(), ids_.end(), ranks_[i].vertex.id);
        top.push_back(static_cast<std::uint32_t>(at - ids_.begin()));
      }
      return result_page_rank(top);
    }
    case Operation::shortest_path:
      return result_path(path_ ? std::optional<std::uint64_t>(path_->length()) : std::nullopt);
  }
  return {};
}

}  // namespace propgraph::scale
