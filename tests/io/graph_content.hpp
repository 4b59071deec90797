// What a graph holds, for comparing graphs in tests and fuzzers (no test framework needed):
// a snapshot with ids, and a shape without them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "propgraph/fmt.hpp"
#include "propgraph/operations.hpp"

namespace propgraph::io::test {

/// Everything a graph holds, ids included: equal snapshots mean an unchanged graph.
struct Snapshot {
  std::vector<Vertex> vertices;  // by label, then id
  std::vector<Edge> edges;
  std::map<std::string, std::int64_t> vertex_counts;
  std::map<std::string, std::int64_t> edge_counts;
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

inline Snapshot snapshot(GraphOperations& g) {
  Snapshot s;
  for (const auto& label : g.vertex_labels()) {
    auto some = g.find_vertices_by_label(label);
    s.vertices.insert(s.vertices.end(), some.begin(), some.end());
    s.vertex_counts[label] = g.count_vertices(label);
  }
  for (const auto& label : g.edge_labels()) {
    auto some = g.find_edges_by_label(label);
    s.edges.insert(s.edges.end(), some.begin(), some.end());
    s.edge_counts[label] = g.count_edges(label);
  }
  return s;
}

/// A graph's content without its ids: vertices in id order as (label, properties), edges in
/// id order as (label, from position, to position, properties). Graphs built from the same
/// records in the same order have equal shapes.
struct Shape {
  std::vector<std::pair<std::string, Properties>> vertices;
  std::vector<std::tuple<std::string, std::size_t, std::size_t, Properties>> edges;
  friend bool operator==(const Shape&, const Shape&) = default;
};

inline Shape shape(GraphOperations& g, const std::string& drop_property = "") {
  std::vector<Vertex> vertices;
  for (const auto& label : g.vertex_labels()) {
    auto some = g.find_vertices_by_label(label);
    vertices.insert(vertices.end(), some.begin(), some.end());
  }
  std::sort(vertices.begin(), vertices.end(), [](const Vertex& a, const Vertex& b) { return a.id < b.id; });
  std::vector<Edge> edges;
  for (const auto& label : g.edge_labels()) {
    auto some = g.find_edges_by_label(label);
    edges.insert(edges.end(), some.begin(), some.end());
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.id < b.id; });
  std::map<ElementId, std::size_t> position;
  Shape s;
  auto props = [&](Properties p) {
    if (!drop_property.empty()) p.erase(drop_property);
    return p;
  };
  for (const auto& v : vertices) {
    position[v.id] = s.vertices.size();
    s.vertices.emplace_back(v.label, props(v.properties));
  }
  for (const auto& e : edges)
    s.edges.emplace_back(e.label, position.at(e.from), position.at(e.to), props(e.properties));
  return s;
}

inline std::string describe(const Shape& s) {
  std::string out;
  for (std::size_t i = 0; i < s.vertices.size(); ++i) {
    out += fmt::format("v{} {} {}\n", i, s.vertices[i].first, s.vertices[i].second);
  }
  for (const auto& [label, from, to, p] : s.edges) out += fmt::format("e {} v{}->v{} {}\n", label, from, to, p);
  return out;
}

}  // namespace propgraph::io::test
