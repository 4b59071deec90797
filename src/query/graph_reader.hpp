// How the executor reads a graph: through GraphOperations (OperationsReader, any backend) or
// natively (a backend's own reader over its store, e.g. MemoryGraph's view of one statement).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "propgraph/operations.hpp"
#include "propgraph/query.hpp"

namespace propgraph::query {

struct Statement;

/// The reads a statement makes. Results are in ascending id order (the GraphOperations
/// contract of the same-named calls); `incident_edges` lists a self-loop once.
class GraphReader {
 public:
  virtual ~GraphReader() = default;
  virtual std::vector<std::string> vertex_labels() = 0;
  virtual std::vector<Vertex> find_vertices_by_label(std::string_view label, const Properties& filter) = 0;
  virtual std::optional<Vertex> find_vertex(const ElementId& id) = 0;
  virtual std::optional<Edge> find_edge(const ElementId& id) = 0;
  virtual std::vector<Edge> incident_edges(const ElementId& vertex, const EdgeQuery& query) = 0;
};

/// Reads through a graph's GraphOperations calls (the generic executor's reader).
class OperationsReader final : public GraphReader {
 public:
  explicit OperationsReader(GraphOperations& graph) noexcept : graph_(graph) {}
  std::vector<std::string> vertex_labels() override { return graph_.vertex_labels(); }
  std::vector<Vertex> find_vertices_by_label(std::string_view label, const Properties& filter) override {
    return graph_.find_vertices_by_label(label, filter);
  }
  std::optional<Vertex> find_vertex(const ElementId& id) override { return graph_.find_vertex(id); }
  std::optional<Edge> find_edge(const ElementId& id) override { return graph_.find_edge(id); }
  std::vector<Edge> incident_edges(const ElementId& vertex, const EdgeQuery& query) override {
    return graph_.incident_edges(vertex, query);
  }

 private:
  GraphOperations& graph_;
};

/// Runs a read-only statement (`Query::is_write()` false) through `reader` alone: a backend's
/// native read path. Same answers, order and errors as backend::execute_query.
[[nodiscard]] QueryResult execute_read(GraphReader& reader, const Query& statement, const Parameters& parameters);

}  // namespace propgraph::query
