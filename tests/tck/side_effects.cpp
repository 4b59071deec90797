#include <algorithm>

#include <fmt/format.h>

#include "propgraph/query.hpp"
#include "runner.hpp"
#include "tck_values.hpp"

namespace propgraph::tck {

GraphSnapshot snapshot(GraphOperations& graph) {
  GraphSnapshot s;
  auto add_properties = [&](char kind, const ElementId& id, const Properties& properties) {
    for (const auto& [key, value] : properties) {
      s.properties.insert(fmt::format("{}{}\x1f{}\x1f{}", kind, id.str(), key, canonical(from_value(value))));
    }
  };
  for (const auto& label : graph.vertex_labels()) {
    if (label != unlabeled_vertex_label) s.labels.insert(label);
    for (const auto& vertex : graph.find_vertices_by_label(label)) {
      s.nodes.emplace(vertex.id.str());
      add_properties('n', vertex.id, vertex.properties);
    }
  }
  for (const auto& label : graph.edge_labels()) {
    for (const auto& edge : graph.find_edges_by_label(label)) {
      s.relationships.emplace(edge.id.str());
      add_properties('r', edge.id, edge.properties);
    }
  }
  return s;
}

std::map<std::string, std::int64_t> side_effects(const GraphSnapshot& before, const GraphSnapshot& after) {
  auto missing = [](const std::set<std::string>& from, const std::set<std::string>& in) {
    return static_cast<std::int64_t>(
        std::count_if(from.begin(), from.end(), [&](const std::string& x) { return !in.contains(x); }));
  };
  return {
      {"+nodes", missing(after.nodes, before.nodes)},
      {"-nodes", missing(before.nodes, after.nodes)},
      {"+relationships", missing(after.relationships, before.relationships)},
      {"-relationships", missing(before.relationships, after.relationships)},
      {"+properties", missing(after.properties, before.properties)},
      {"-properties", missing(before.properties, after.properties)},
      {"+labels", missing(after.labels, before.labels)},
      {"-labels", missing(before.labels, after.labels)},
  };
}

}  // namespace propgraph::tck
