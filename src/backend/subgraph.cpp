#include "propgraph/backend/subgraph.hpp"

#include <algorithm>
#include <iterator>
#include <limits>

namespace propgraph::backend {

namespace {
constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

template <typename Rows>
void sort_by_row(Rows& rows) {
  const auto by_row = [](const auto& a, const auto& b) { return a.row < b.row; };
  if (!std::is_sorted(rows.begin(), rows.end(), by_row)) std::sort(rows.begin(), rows.end(), by_row);
}
}  // namespace

Subgraph::Subgraph(const Naming& naming) : naming_(&naming), graph_(std::make_unique<MemoryGraph>("subgraph")) {}

std::uint32_t Subgraph::intern(std::string_view label) {
  // Rows of one label tend to come together: check the last one first.
  if (!labels_.empty() && labels_.back() == label) return static_cast<std::uint32_t>(labels_.size() - 1);
  if (auto it = label_index_.find(label); it != label_index_.end()) return it->second;
  const auto index = static_cast<std::uint32_t>(labels_.size());
  labels_.emplace_back(label);
  label_index_.emplace(labels_.back(), index);
  return index;
}

void Subgraph::add_vertex(std::int64_t key, std::string_view label, std::string stored_properties) {
  vertex_rows_.push_back(VertexRow{key, intern(label), std::move(stored_properties)});
}

void Subgraph::add_edge(std::int64_t key, std::int64_t from, std::int64_t to, std::string_view label,
                        std::string stored_properties, bool record, const std::string* weight_key) {
  std::uint32_t extra = kNone;
  if (record || weight_key) {
    EdgeExtra e;
    if (weight_key) {
      const Properties props = decoded(stored_properties);  // find() points into it
      if (const Value* w = props.find(*weight_key)) e.algorithm_properties.set(*weight_key, *w);
    }
    if (record) e.properties = std::move(stored_properties);
    extra = static_cast<std::uint32_t>(edge_extras_.size());
    edge_extras_.push_back(std::move(e));
  }
  edge_rows_.push_back(EdgeRow{key, from, to, intern(label), extra});
}

void Subgraph::build() {
  built_ = true;
  sort_by_row(vertex_rows_);
  sort_by_row(edge_rows_);
  if (!vertex_rows_.empty()) {
    const std::int64_t first = vertex_rows_.front().row;
    const auto span = static_cast<std::uint64_t>(vertex_rows_.back().row - first) + 1;
    if (span <= 4 * vertex_rows_.size() + 1024) {
      dense_first_ = first;
      dense_index_.assign(span, kNone);
      for (std::size_t i = 0; i < vertex_rows_.size(); ++i) {
        dense_index_[static_cast<std::size_t>(vertex_rows_[i].row - first)] = static_cast<std::uint32_t>(i);
      }
    }
  }
  {
    std::vector<NewVertex> vertices;
    vertices.reserve(vertex_rows_.size());
    for (const auto& v : vertex_rows_) vertices.push_back(NewVertex{labels_[v.label], {}});
    memory_vertices_ = graph_->create_vertices(vertices);
  }
  // In chunks: the NewEdge records are much bigger than the rows.
  constexpr std::size_t kChunk = 1 << 16;
  memory_edges_.reserve(edge_rows_.size());
  std::vector<NewEdge> edges;
  edges.reserve(std::min(kChunk, edge_rows_.size()));
  for (std::size_t first = 0; first < edge_rows_.size(); first += kChunk) {
    edges.clear();
    for (std::size_t i = first; i < std::min(first + kChunk, edge_rows_.size()); ++i) {
      const auto& e = edge_rows_[i];
      const std::size_t from = vertex_of_row(e.from);
      const std::size_t to = vertex_of_row(e.to);
      edges.push_back(NewEdge{from == npos ? ElementId() : memory_vertices_[from],
                              to == npos ? ElementId() : memory_vertices_[to], labels_[e.label],
                              e.extra == kNone ? Properties{} : edge_extras_[e.extra].algorithm_properties});
    }
    auto ids = graph_->create_edges(edges);
    memory_edges_.insert(memory_edges_.end(), std::make_move_iterator(ids.begin()), std::make_move_iterator(ids.end()));
  }
}

MemoryGraph& Subgraph::graph() {
  if (!built_) build();
  return *graph_;
}

std::size_t Subgraph::vertex_of_row(std::int64_t row) const {
  if (!dense_index_.empty()) {
    const std::int64_t at = row - dense_first_;
    if (at < 0 || static_cast<std::uint64_t>(at) >= dense_index_.size()) return npos;
    const std::uint32_t i = dense_index_[static_cast<std::size_t>(at)];
    return i == kNone ? npos : i;
  }
  auto it = std::lower_bound(vertex_rows_.begin(), vertex_rows_.end(), row,
                             [](const VertexRow& v, std::int64_t r) { return v.row < r; });
  return it != vertex_rows_.end() && it->row == row ? static_cast<std::size_t>(it - vertex_rows_.begin()) : npos;
}

Properties Subgraph::decoded(const std::string& stored) const {
  // Empty text: no properties (an edge added without a record), nothing to decode.
  return stored.empty() ? Properties{} : naming_->decode_properties(stored);
}

ElementId Subgraph::memory_vertex(const ElementId& backend_id) {
  if (!built_) build();
  const auto key = naming_->vertex_key(backend_id);
  if (!key) return ElementId();
  const std::size_t i = vertex_of_row(*key);
  return i == npos ? ElementId() : memory_vertices_[i];
}

std::size_t Subgraph::vertex_index(const ElementId& in_memory) const {
  auto it = std::lower_bound(memory_vertices_.begin(), memory_vertices_.end(), in_memory);
  return static_cast<std::size_t>(it - memory_vertices_.begin());
}

std::size_t Subgraph::edge_index(const ElementId& in_memory) const {
  auto it = std::lower_bound(memory_edges_.begin(), memory_edges_.end(), in_memory);
  return static_cast<std::size_t>(it - memory_edges_.begin());
}

Vertex Subgraph::vertex(const Vertex& in_memory) const {
  const auto& v = vertex_rows_.at(vertex_index(in_memory.id));
  return Vertex{naming_->vertex_id(v.row), labels_[v.label], decoded(v.properties)};
}

Edge Subgraph::edge(const Edge& in_memory) const {
  const auto& e = edge_rows_.at(edge_index(in_memory.id));
  Properties properties;
  if (e.extra != kNone) properties = decoded(edge_extras_[e.extra].properties);
  return Edge{naming_->edge_id(e.row), labels_[e.label], naming_->vertex_id(e.from), naming_->vertex_id(e.to),
              std::move(properties)};
}

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
    if (v.parent) parent = naming_->vertex_id(vertex_rows_.at(vertex_index(*v.parent)).row);
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
  if (memory_vertices_.empty()) return message;
  // In-memory ids are "<prefix>v<n>" / "<prefix>e<n>" with one prefix per MemoryGraph.
  const std::string_view some_id = memory_vertices_.front().str();
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
    if (const std::size_t v = vertex_index(id); v < memory_vertices_.size() && memory_vertices_[v] == id) {
      out += naming_->vertex_id(vertex_rows_[v].row).str();
    } else if (const std::size_t e = edge_index(id); e < memory_edges_.size() && memory_edges_[e] == id) {
      out += naming_->edge_id(edge_rows_[e].row).str();
    } else {
      out += id.str();
    }
    pos = end;
  }
  out.append(message, pos);
  return out;
}

}  // namespace propgraph::backend
