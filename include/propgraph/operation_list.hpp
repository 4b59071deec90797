// The one list of GraphOperations calls. Everything that enumerates operations is generated from
// it: the Operation enum and its names (backend/forwarding.hpp), the forwarding base of
// decorators and transactions (backend/forwarding.hpp), each backend's override declarations, the fiber
// facade's `_async` twins (fiber/fiber_operations.hpp) and the test adapters.
#pragma once

/// PROPGRAPH_GRAPH_OPERATIONS(CALL, OVERLOAD, D) expands CALL or OVERLOAD once per method of
/// GraphOperations, begin() excepted (transactions are not forwarded call by call), in the
/// order of the Operation enum:
///
///     CALL(name, result, (parameters), (arguments))
///
/// `parameters` is the declaration's parameter list with `D` after each parameter that has a
/// default: pass a macro that expands to `= {}` (PROPGRAPH_DEFAULT_ARG) where declarations need
/// defaults, or to nothing (PROPGRAPH_NO_DEFAULT_ARG) for out-of-line definitions. `arguments`
/// names the parameters, to forward a call. A second overload of a name comes as OVERLOAD with
/// the same arguments (it shares the first one's Operation); pass CALL for both unless you
/// enumerate operations rather than methods.
///
/// The compiler keeps the list and operations.hpp in step: a generated `override` that matches
/// no virtual fails to compile, and a pure virtual missing from the list leaves every generated
/// class abstract. docs/building.md, "Adding an operation", lists what else a new call touches.
// clang-format off
#define PROPGRAPH_GRAPH_OPERATIONS(CALL, OVERLOAD, D)                                                         \
  /* session */                                                                                                \
  CALL(create_graph, bool, (std::string_view name), (name))                                                    \
  CALL(drop_graph, bool, (std::string_view name), (name))                                                      \
  CALL(graph_exists, bool, (std::string_view name), (name))                                                    \
  CALL(vertex_labels, std::vector<std::string>, (), ())                                                        \
  CALL(edge_labels, std::vector<std::string>, (), ())                                                          \
  /* vertices */                                                                                               \
  CALL(create_vertex, Vertex, (std::string_view label, const Properties& properties D), (label, properties))   \
  CALL(find_vertex_by_id, std::optional<Vertex>, (std::string_view label, const ElementId& id), (label, id))   \
  CALL(find_vertex, std::optional<Vertex>, (const ElementId& id), (id))                                        \
  CALL(find_vertices_by_label, std::vector<Vertex>,                                                            \
       (std::string_view label, const Properties& filter D, const Page& page D), (label, filter, page))        \
  CALL(update_vertex, std::optional<Vertex>,                                                                   \
       (std::string_view label, const ElementId& id, const Properties& properties), (label, id, properties))   \
  CALL(delete_vertex, bool, (std::string_view label, const ElementId& id), (label, id))                        \
  CALL(count_vertices, std::int64_t, (std::string_view label), (label))                                        \
  OVERLOAD(count_vertices, std::int64_t, (), ())                                                               \
  CALL(upsert_vertex, Upserted,                                                                                \
       (std::string_view label, const Properties& match, const Properties& properties D),                     \
       (label, match, properties))                                                                             \
  /* edges */                                                                                                  \
  CALL(create_edge, Edge,                                                                                      \
       (const ElementId& from, const ElementId& to, std::string_view label, const Properties& properties D),  \
       (from, to, label, properties))                                                                          \
  CALL(find_edge_by_id, std::optional<Edge>, (std::string_view label, const ElementId& id), (label, id))       \
  CALL(find_edge, std::optional<Edge>, (const ElementId& id), (id))                                            \
  CALL(find_edges_by_label, std::vector<Edge>,                                                                 \
       (std::string_view label, const Properties& filter D, const Page& page D), (label, filter, page))        \
  CALL(incident_edges, std::vector<Edge>, (const ElementId& vertex, const EdgeQuery& query D), (vertex, query)) \
  CALL(update_edge, std::optional<Edge>,                                                                       \
       (std::string_view label, const ElementId& id, const Properties& properties), (label, id, properties))   \
  CALL(delete_edge, bool, (std::string_view label, const ElementId& id), (label, id))                          \
  CALL(count_edges, std::int64_t, (std::string_view label), (label))                                           \
  OVERLOAD(count_edges, std::int64_t, (), ())                                                                  \
  /* indexes */                                                                                                \
  CALL(create_index, bool, (std::string_view label, std::string_view key, const IndexOptions& options D),      \
       (label, key, options))                                                                                  \
  CALL(drop_index, bool, (std::string_view label, std::string_view key), (label, key))                         \
  CALL(indexes, std::vector<IndexInfo>, (), ())                                                                \
  /* bulk writes */                                                                                            \
  CALL(create_vertices, std::vector<ElementId>, (std::span<const NewVertex> vertices), (vertices))             \
  CALL(create_edges, std::vector<ElementId>, (std::span<const NewEdge> edges), (edges))                        \
  /* traversal */                                                                                              \
  CALL(neighbors, std::vector<Vertex>, (const ElementId& start, const NeighborOptions& options D),             \
       (start, options))                                                                                       \
  CALL(shortest_path, std::optional<Path>,                                                                     \
       (const ElementId& from, const ElementId& to, const PathOptions& options D), (from, to, options))        \
  CALL(all_paths, std::vector<Path>, (const ElementId& from, const ElementId& to, const PathOptions& options D), \
       (from, to, options))                                                                                    \
  /* algorithms */                                                                                             \
  CALL(page_rank, std::vector<PageRankScore>, (const PageRankOptions& options D), (options))                   \
  CALL(degree_centrality, std::optional<Degree>, (const ElementId& id, const DegreeOptions& options D),        \
       (id, options))                                                                                          \
  CALL(connected_components, std::vector<Component>, (const ComponentOptions& options D), (options))          \
  CALL(bfs, std::vector<Visit>, (const ElementId& start, const TraversalOptions& options D), (start, options)) \
  CALL(dfs, std::vector<Visit>, (const ElementId& start, const TraversalOptions& options D), (start, options)) \
  CALL(detect_cycles, std::vector<Cycle>, (const CycleOptions& options D), (options))                         \
  /* queries */                                                                                                \
  CALL(query, QueryResult, (const Query& statement, const Parameters& parameters D), (statement, parameters))
// clang-format on

/// For PROPGRAPH_GRAPH_OPERATIONS' D: declarations with default arguments.
#define PROPGRAPH_DEFAULT_ARG = {}
/// For PROPGRAPH_GRAPH_OPERATIONS' D: definitions (no default arguments).
#define PROPGRAPH_NO_DEFAULT_ARG

/// Declares every GraphOperations override (begin() excepted), with the interface's defaults:
/// put `PROPGRAPH_DECLARE_GRAPH_OPERATIONS()` in a backend's class body, then define each
/// method. A method left undefined is a link error.
/// It also brings in GraphOperations' non-virtual query(std::string_view, ...) convenience,
/// which the query override would otherwise hide.
#define PROPGRAPH_DECLARE_GRAPH_OPERATIONS()                                                       \
  PROPGRAPH_GRAPH_OPERATIONS(PROPGRAPH_DETAIL_DECLARE_OVERRIDE, PROPGRAPH_DETAIL_DECLARE_OVERRIDE, \
                             PROPGRAPH_DEFAULT_ARG)                                                \
  using GraphOperations::query;
#define PROPGRAPH_DETAIL_DECLARE_OVERRIDE(name, result, parameters, arguments) result name parameters override;
