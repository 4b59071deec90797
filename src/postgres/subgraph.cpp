#include "postgres/subgraph.hpp"

#include <algorithm>

namespace propgraph::postgres_detail {

Subgraph::Subgraph() : graph_(std::make_unique<MemoryGraph>("subgraph")) {}

void Subgraph::add_vertex(Vertex record) {
  const Vertex in_memory = graph_->create_vertex(record.label);
  vertex_index_.emplace(in_memory.id, vertex_records_.size());
  memory_id_of_vertex_.emplace(record.id, in_memory.id);
  vertex_records_.push_back(std::move(record));
}

void Subgraph::add_edge(Edge record, const std::string* weight_key) {
  Properties algorithm_properties;
  if (weight_key) {
    if (const Value* w = record.properties.find(*weight_key)) algorithm_properties.set(*weight_key, *w);
  }
  const Edge in_memory = graph_->create_edge(memory_vertex(record.from), memory_vertex(record.to), record.label,
                                            algorithm_properties);
  edge_index_.emplace(in_memory.id, edge_records_.size());
  edge_records_.push_back(std::move(record));
}

ElementId Subgraph::memory_vertex(const ElementId& database_id) const {
  auto it = memory_id_of_vertex_.find(database_id);
  return it == memory_id_of_vertex_.end() ? ElementId() : it->second;
}

Vertex Subgraph::vertex(const Vertex& in_memory) const { return vertex_records_.at(vertex_index_.at(in_memory.id)); }

Edge Subgraph::edge(const Edge& in_memory) const { return edge_records_.at(edge_index_.at(in_memory.id)); }

Path Subgraph::path(const Path& in_memory) const {
  Path p;
  p.vertices = vertices(in_memory.vertices);
  p.edges.reserve(in_memory.edges.size());
  for (const auto& e : in_memory.edges) p.edges.push_back(edge(e));
  return p;
}

std::vector<Vertex> Subgraph::vertices(const std::vector<Vertex>& in_memory) const {
  std::vector<Vertex> out;
  out.reserve(in_memory.size());
  for (const auto& v : in_memory) out.push_back(vertex(v));
  return out;
}

std::vector<Path> Subgraph::paths(const std::vector<Path>& in_memory) const {
  std::vector<Path> out;
  out.reserve(in_memory.size());
  for (const auto& p : in_memory) out.push_back(path(p));
  return out;
}

std::vector<Visit> Subgraph::visits(const std::vector<Visit>& in_memory) const {
  std::vector<Visit> out;
  out.reserve(in_memory.size());
  for (const auto& v : in_memory) {
    std::optional<ElementId> parent;
    if (v.parent) parent = vertex_records_.at(vertex_index_.at(*v.parent)).id;
    out.push_back(Visit{vertex(v.vertex), v.depth, std::move(parent)});
  }
  return out;
}

std::vector<PageRankScore> Subgraph::scores(const std::vector<PageRankScore>& in_memory) const {
  std::vector<PageRankScore> out;
  out.reserve(in_memory.size());
  for (const auto& s : in_memory) out.push_back(PageRankScore{vertex(s.vertex), s.score});
  return out;
}

std::vector<Component> Subgraph::components(const std::vector<Component>& in_memory) const {
  std::vector<Component> out;
  out.reserve(in_memory.size());
  for (const auto& c : in_memory) out.push_back(Component{c.id, vertices(c.vertices)});
  return out;
}

std::vector<Cycle> Subgraph::cycles(const std::vector<Cycle>& in_memory) const {
  std::vector<Cycle> out;
  out.reserve(in_memory.size());
  for (const auto& c : in_memory) out.push_back(Cycle{path(c.path)});
  return out;
}

std::string Subgraph::translate_ids(std::string message) const {
  if (vertex_index_.empty()) return message;
  // In-memory ids are "<prefix>v<n>" / "<prefix>e<n>" with one prefix per MemoryGraph.
  const std::string_view some_id = vertex_index_.begin()->first.str();
  const std::string prefix(some_id.substr(0, some_id.find(':') + 1));
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t hit = message.find(prefix, pos);
    if (hit == std::string::npos) break;
    std::size_t end = std::min(hit + prefix.size() + 1, message.size());
    while (end < message.size() && message[end] >= '0' && message[end] <= '9') ++end;
    const ElementId id(std::string_view(message).substr(hit, end - hit));
    out.append(message, pos, hit - pos);
    if (auto v = vertex_index_.find(id); v != vertex_index_.end()) {
      out += vertex_records_[v->second].id.str();
    } else if (auto e = edge_index_.find(id); e != edge_index_.end()) {
      out += edge_records_[e->second].id.str();
    } else {
      out += id.str();
    }
    pos = end;
  }
  out.append(message, pos);
  return out;
}

}  // namespace propgraph::postgres_detail
