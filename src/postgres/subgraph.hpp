// Running MemoryGraph's algorithms on a part of a PostgreSQL graph: one code path, not a copy.
//
// A query returns vertex and edge rows ordered by id; Subgraph loads them, in that order, into
// a fresh MemoryGraph and remembers which database record each in-memory id stands for.
// MemoryGraph orders by creation, so "ascending id" and "edge-id expansion order" carry over
// unchanged, and translating a result back gives exactly what MemoryGraph would have returned
// on the whole graph.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/model.hpp"

namespace propgraph::postgres_detail {

class Subgraph {
 public:
  Subgraph();

  /// Adds a vertex (call in ascending id order); results return `record`. The in-memory copy
  /// has the label only: no algorithm reads vertex properties.
  void add_vertex(Vertex record);
  /// Adds an edge between two added vertices (ascending id order); results return `record`.
  /// The in-memory copy has the label and, with `weight_key`, that one property (the input of
  /// a weighted shortest path).
  void add_edge(Edge record, const std::string* weight_key = nullptr);

  [[nodiscard]] MemoryGraph& graph() noexcept { return *graph_; }
  /// The in-memory id of a database vertex id, or an id that finds nothing.
  [[nodiscard]] ElementId memory_vertex(const ElementId& database_id) const;

  [[nodiscard]] Vertex vertex(const Vertex& in_memory) const;
  [[nodiscard]] Edge edge(const Edge& in_memory) const;
  [[nodiscard]] Path path(const Path& in_memory) const;
  [[nodiscard]] std::vector<Vertex> vertices(const std::vector<Vertex>& in_memory) const;
  [[nodiscard]] std::vector<Path> paths(const std::vector<Path>& in_memory) const;
  [[nodiscard]] std::vector<Visit> visits(const std::vector<Visit>& in_memory) const;
  [[nodiscard]] std::vector<PageRankScore> scores(const std::vector<PageRankScore>& in_memory) const;
  [[nodiscard]] std::vector<Component> components(const std::vector<Component>& in_memory) const;
  [[nodiscard]] std::vector<Cycle> cycles(const std::vector<Cycle>& in_memory) const;

  /// `message` with every in-memory element id replaced by its database id.
  [[nodiscard]] std::string translate_ids(std::string message) const;

 private:
  std::unique_ptr<MemoryGraph> graph_;
  std::vector<Vertex> vertex_records_;
  std::vector<Edge> edge_records_;
  std::unordered_map<ElementId, std::size_t> vertex_index_;       // memory id -> record
  std::unordered_map<ElementId, std::size_t> edge_index_;         // memory id -> record
  std::unordered_map<ElementId, ElementId> memory_id_of_vertex_;  // database id -> memory id
};

}  // namespace propgraph::postgres_detail
