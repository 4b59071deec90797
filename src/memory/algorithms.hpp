// MemoryGraph's read algorithms, one family per file under algorithms/, each a template over a
// View (view.hpp) and instantiated for every view in PROPGRAPH_FOR_EACH_VIEW. Callers hold
// MemoryGraph's shared lock, resolve ids to live slots first and validate options the contract
// makes independent of the graph (see memory_graph.cpp).
#pragma once

#include <optional>
#include <vector>

#include "memory/overlay.hpp"
#include "memory/view.hpp"
#include "propgraph/model.hpp"
#include "propgraph/options.hpp"

/// Applies M to every View type the algorithms are instantiated for.
#define PROPGRAPH_FOR_EACH_VIEW(M) M(::propgraph::detail::CommittedView) M(::propgraph::detail::TxView)

namespace propgraph::detail {

// traversal.cpp
/// Distinct vertices 1..max_depth hops from start, ascending id, paged.
template <typename View>
std::vector<Vertex> neighbors(const View& g, Slot start, const NeighborOptions& options);
template <typename View>
std::vector<Visit> bfs(const View& g, Slot start, const TraversalOptions& options);
template <typename View>
std::vector<Visit> dfs(const View& g, Slot start, const TraversalOptions& options);

// paths.cpp
template <typename View>
std::optional<Path> shortest_path(const View& g, Slot from, Slot to, const PathOptions& options);
template <typename View>
std::vector<Path> all_paths(const View& g, Slot from, Slot to, const PathOptions& options);

// cycles.cpp
template <typename View>
std::vector<Cycle> detect_cycles(const View& g, const CycleOptions& options);

// page_rank.cpp
template <typename View>
std::vector<PageRankScore> page_rank(const View& g, const PageRankOptions& options);

// components.cpp
template <typename View>
std::vector<Component> connected_components(const View& g, const ComponentOptions& options);

}  // namespace propgraph::detail
