// Test double: a GraphOperations that forwards every call to another one. Tests override single
// methods to slow them down (fiber-aware) or make them throw.
#pragma once

#include <string>
#include <vector>

#include "propgraph/operations.hpp"

namespace propgraph::fiber_test {

class DelegatingGraph : public GraphOperations {
 public:
  explicit DelegatingGraph(GraphOperations& inner) : inner_(inner) {}

  bool create_graph(std::string_view name) override { return inner_.create_graph(name); }
  bool drop_graph(std::string_view name) override { return inner_.drop_graph(name); }
  bool graph_exists(std::string_view name) override { return inner_.graph_exists(name); }
  std::vector<std::string> vertex_labels() override { return inner_.vertex_labels(); }
  std::vector<std::string> edge_labels() override { return inner_.edge_labels(); }

  Vertex create_vertex(std::string_view label, const Properties& properties) override {
    return inner_.create_vertex(label, properties);
  }
  std::optional<Vertex> find_vertex_by_id(std::string_view label, const ElementId& id) override {
    return inner_.find_vertex_by_id(label, id);
  }
  std::vector<Vertex> find_vertices_by_label(std::string_view label, const Properties& filter) override {
    return inner_.find_vertices_by_label(label, filter);
  }
  std::optional<Vertex> update_vertex(std::string_view label, const ElementId& id,
                                      const Properties& properties) override {
    return inner_.update_vertex(label, id, properties);
  }
  bool delete_vertex(std::string_view label, const ElementId& id) override {
    return inner_.delete_vertex(label, id);
  }
  std::int64_t count_vertices(std::string_view label) override { return inner_.count_vertices(label); }

  Edge create_edge(const ElementId& from, const ElementId& to, std::string_view label,
                   const Properties& properties) override {
    return inner_.create_edge(from, to, label, properties);
  }
  std::optional<Edge> find_edge_by_id(std::string_view label, const ElementId& id) override {
    return inner_.find_edge_by_id(label, id);
  }
  std::vector<Edge> find_edges_by_label(std::string_view label, const Properties& filter) override {
    return inner_.find_edges_by_label(label, filter);
  }
  std::optional<Edge> update_edge(std::string_view label, const ElementId& id,
                                  const Properties& properties) override {
    return inner_.update_edge(label, id, properties);
  }
  bool delete_edge(std::string_view label, const ElementId& id) override { return inner_.delete_edge(label, id); }
  std::int64_t count_edges(std::string_view label) override { return inner_.count_edges(label); }

  std::vector<Vertex> neighbors(const ElementId& start, const NeighborOptions& options) override {
    return inner_.neighbors(start, options);
  }
  std::optional<Path> shortest_path(const ElementId& from, const ElementId& to,
                                    const PathOptions& options) override {
    return inner_.shortest_path(from, to, options);
  }
  std::vector<Path> all_paths(const ElementId& from, const ElementId& to, const PathOptions& options) override {
    return inner_.all_paths(from, to, options);
  }

  std::vector<PageRankScore> page_rank(const PageRankOptions& options) override { return inner_.page_rank(options); }
  std::optional<Degree> degree_centrality(const ElementId& id, const DegreeOptions& options) override {
    return inner_.degree_centrality(id, options);
  }
  std::vector<Component> connected_components(const ComponentOptions& options) override {
    return inner_.connected_components(options);
  }
  std::vector<Visit> bfs(const ElementId& start, const TraversalOptions& options) override {
    return inner_.bfs(start, options);
  }
  std::vector<Visit> dfs(const ElementId& start, const TraversalOptions& options) override {
    return inner_.dfs(start, options);
  }
  std::vector<Cycle> detect_cycles(const CycleOptions& options) override { return inner_.detect_cycles(options); }

 protected:
  GraphOperations& inner_;
};

}  // namespace propgraph::fiber_test
