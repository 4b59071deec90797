// Helpers of the io tests: scratch directories, graph snapshots and comparisons, and a graph
// whose writes fail on demand.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "propgraph/fmt.hpp"
#include "propgraph/decorator.hpp"
#include "propgraph/io.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace propgraph::io::test {

namespace fs = std::filesystem;

/// A fresh directory under the system temp directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            fmt::format("propgraph-io-test-{}-{}-{}", ::getpid(),
                        std::chrono::steady_clock::now().time_since_epoch().count(), counter++);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }
  [[nodiscard]] fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

inline void write_file(const fs::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  ASSERT_TRUE(out.good()) << path;
}

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

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
  for (const auto& e : edges) s.edges.emplace_back(e.label, position.at(e.from), position.at(e.to), props(e.properties));
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

/// Forwards to a MemoryGraph, but throws QueryError on the n-th create_edge (1-based); bulk edge
/// creation goes through create_edge one edge at a time.
class FailingGraph final : public GraphDecorator {
 public:
  explicit FailingGraph(MemoryGraph& inner, int fail_on_edge) : GraphDecorator(inner), fail_on_edge_(fail_on_edge) {}

  Edge create_edge(const ElementId& from, const ElementId& to, std::string_view label, const Properties& p) override {
    if (++edges_ == fail_on_edge_) throw QueryError("injected failure");
    return GraphDecorator::create_edge(from, to, label, p);
  }
  std::vector<ElementId> create_edges(std::span<const NewEdge> edges) override {
    return GraphOperations::create_edges(edges);  // the default: one create_edge per edge
  }

 private:
  int fail_on_edge_;
  int edges_ = 0;
};

/// The first error of a failed import, for assertions.
inline const Problem& first_error(const ImportReport& report) {
  for (const auto& p : report.problems) {
    if (p.severity == Severity::error) return p;
  }
  throw std::logic_error("the report has no error");
}

}  // namespace propgraph::io::test
