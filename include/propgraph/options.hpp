// Option structs, one per operation family. Every field has a default, so callers name only what
// they change: `g.neighbors(id, {.edge_label = "KNOWS", .max_depth = 2})`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "propgraph/model.hpp"

namespace propgraph {

/// Keyset pagination over a result in ascending id order: the results whose id sorts after
/// `after` (ElementId's ordering), at most `limit` of them. To walk a whole result, pass the id
/// of the last element of each page as the next page's `after`; the pages together give exactly
/// the unpaged result, also while other callers insert (an element present throughout is never
/// skipped nor returned twice). `after` need not exist any more (a deleted element's id works).
/// Cost: O(limit) beyond locating `after` where the backend has an index on ids.
struct Page {
  std::size_t limit = 0;            ///< at most this many results; 0: no limit
  std::optional<ElementId> after;   ///< only ids that sort after this one; none: from the start
};

/// incident_edges: which of a vertex's edges to return.
struct EdgeQuery {
  Direction direction = Direction::both;  ///< out: edges from the vertex; in: edges to it
  std::optional<std::string> edge_label;  ///< only edges with this label
  Page page = {};
};

/// Vertices 1..max_depth hops from the start (max_depth >= 1). `page` pages the result (in
/// its ascending id order); the traversal itself still visits everything within max_depth.
struct NeighborOptions {
  std::optional<std::string> edge_label;  ///< follow only edges with this label
  Direction direction = Direction::out;
  int max_depth = 1;
  Page page = {};
};

/// shortest_path and all_paths. Without weight_property "shortest" means fewest edges and paths
/// are at most max_depth edges long; with it, shortest_path is Dijkstra over that numeric edge
/// property (missing: weight 1; negative, infinite, NaN or non-numeric: InvalidArgument; finite
/// weights up to DBL_MAX, and sums beyond it, still order paths) and max_depth does not bound it.
/// all_paths always counts edges and ignores weight_property. Any max_depth is safe: traversals
/// keep their path on the heap, and all_paths stops once no longer simple path can exist.
struct PathOptions {
  std::optional<std::string> edge_label;
  Direction direction = Direction::both;
  int max_depth = 10;
  std::optional<std::string> weight_property;
  std::size_t max_paths = 1000;
};

/// bfs and dfs: stop expanding past max_depth, stop after max_vertices visits.
struct TraversalOptions {
  std::optional<std::string> edge_label;
  Direction direction = Direction::out;
  int max_depth = 5;
  std::size_t max_vertices = 10000;
};

/// detect_cycles: simple directed cycles of 1..max_depth edges, at most max_cycles of them.
struct CycleOptions {
  std::optional<std::string> vertex_label;  ///< only cycles through vertices with this label
  std::optional<std::string> edge_label;
  int max_depth = 10;
  std::size_t max_cycles = 100;
};

/// page_rank over the (optionally label-restricted) directed graph.
struct PageRankOptions {
  std::optional<std::string> vertex_label;
  std::optional<std::string> edge_label;
  int iterations = 20;       ///< upper bound on power iterations (>= 1)
  double damping = 0.85;     ///< in [0, 1]
  double tolerance = 1e-4;   ///< stop early when the L1 change of an iteration is below this
  std::size_t top_k = std::numeric_limits<std::size_t>::max();  ///< applied after sorting
};

/// degree_centrality: direction selects which of in/out are counted (the other stays 0).
struct DegreeOptions {
  std::optional<std::string> edge_label;
  Direction direction = Direction::both;
};

/// connected_components: weak (edges as undirected) by default, strong when weakly = false.
struct ComponentOptions {
  std::optional<std::string> vertex_label;
  std::optional<std::string> edge_label;
  bool weakly = true;
  std::size_t min_size = 1;  ///< drop components with fewer vertices
};

/// create_index. A unique index makes every write that would give two vertices (or two edges)
/// of the label equal values for the key throw AlreadyExists.
struct IndexOptions {
  bool unique = false;
};

/// One index, as indexes() lists it.
struct IndexInfo {
  std::string label;
  std::string key;
  bool unique = false;
  friend bool operator==(const IndexInfo&, const IndexInfo&) = default;
};

/// transact(): how often to run the function when commits conflict.
struct TransactOptions {
  int max_attempts = 3;  ///< >= 1; the last TransactionConflict is rethrown
};

// -- validation: the one place that says which options and arguments are bad ----------------------
// Every backend calls these before it touches the graph, so a bad option throws InvalidArgument
// with the same message everywhere, whether or not the ids it names exist. Options not listed
// here (Page, EdgeQuery, DegreeOptions, ComponentOptions, IndexOptions) have no invalid values.

/// max_depth >= 1: "neighbors max_depth must be >= 1".
void validate(const NeighborOptions& options);
/// max_depth >= 0 (max_depth 0: only from == to has a path).
void validate(const PathOptions& options);
/// max_depth >= 0.
void validate(const TraversalOptions& options);
/// max_depth >= 0.
void validate(const CycleOptions& options);
/// iterations >= 1, damping in [0, 1].
void validate(const PageRankOptions& options);
/// max_attempts >= 1.
void validate(const TransactOptions& options);
/// The property key of create_index / drop_index: not empty. `operation` names the call.
void validate_index_key(std::string_view key, std::string_view operation);

}  // namespace propgraph
