// Helpers of the io tests: scratch directories, graph snapshots and comparisons, and a graph
// whose writes fail on demand.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "propgraph/fmt.hpp"
#include "propgraph/io.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "graph_content.hpp"

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

/// Forwards to a MemoryGraph, but throws QueryError on the n-th create_edge (1-based; 0: never)
/// and passes what find_vertices_by_label finds through alter_found_vertices.
class FailingGraph final : public GraphOperations {
 public:
  explicit FailingGraph(MemoryGraph& inner, int fail_on_edge = 0) : inner_(inner), fail_on_edge_(fail_on_edge) {}

  /// Stands for a graph holding text its own writes refuse (filled by an older version, or by
  /// another client of the same database).
  std::function<void(std::vector<Vertex>&)> alter_found_vertices;

  bool create_graph(std::string_view name) override { return inner_.create_graph(name); }
  bool drop_graph(std::string_view name) override { return inner_.drop_graph(name); }
  bool graph_exists(std::string_view name) override { return inner_.graph_exists(name); }
  std::vector<std::string> vertex_labels() override { return inner_.vertex_labels(); }
  std::vector<std::string> edge_labels() override { return inner_.edge_labels(); }
  Vertex create_vertex(std::string_view label, const Properties& p) override { return inner_.create_vertex(label, p); }
  std::optional<Vertex> find_vertex_by_id(std::string_view label, const ElementId& id) override {
    return inner_.find_vertex_by_id(label, id);
  }
  std::vector<Vertex> find_vertices_by_label(std::string_view label, const Properties& f) override {
    auto found = inner_.find_vertices_by_label(label, f);
    if (alter_found_vertices) alter_found_vertices(found);
    return found;
  }
  std::optional<Vertex> update_vertex(std::string_view label, const ElementId& id, const Properties& p) override {
    return inner_.update_vertex(label, id, p);
  }
  bool delete_vertex(std::string_view label, const ElementId& id) override { return inner_.delete_vertex(label, id); }
  std::int64_t count_vertices(std::string_view label) override { return inner_.count_vertices(label); }
  Edge create_edge(const ElementId& from, const ElementId& to, std::string_view label, const Properties& p) override {
    if (++edges_ == fail_on_edge_) throw QueryError("injected failure");
    return inner_.create_edge(from, to, label, p);
  }
  std::optional<Edge> find_edge_by_id(std::string_view label, const ElementId& id) override {
    return inner_.find_edge_by_id(label, id);
  }
  std::vector<Edge> find_edges_by_label(std::string_view label, const Properties& f) override {
    return inner_.find_edges_by_label(label, f);
  }
  std::optional<Edge> update_edge(std::string_view label, const ElementId& id, const Properties& p) override {
    return inner_.update_edge(label, id, p);
  }
  bool delete_edge(std::string_view label, const ElementId& id) override { return inner_.delete_edge(label, id); }
  std::int64_t count_edges(std::string_view label) override { return inner_.count_edges(label); }
  std::vector<Vertex> neighbors(const ElementId& s, const NeighborOptions& o) override { return inner_.neighbors(s, o); }
  std::optional<Path> shortest_path(const ElementId& a, const ElementId& b, const PathOptions& o) override {
    return inner_.shortest_path(a, b, o);
  }
  std::vector<Path> all_paths(const ElementId& a, const ElementId& b, const PathOptions& o) override {
    return inner_.all_paths(a, b, o);
  }
  std::vector<PageRankScore> page_rank(const PageRankOptions& o) override { return inner_.page_rank(o); }
  std::optional<Degree> degree_centrality(const ElementId& id, const DegreeOptions& o) override {
    return inner_.degree_centrality(id, o);
  }
  std::vector<Component> connected_components(const ComponentOptions& o) override {
    return inner_.connected_components(o);
  }
  std::vector<Visit> bfs(const ElementId& s, const TraversalOptions& o) override { return inner_.bfs(s, o); }
  std::vector<Visit> dfs(const ElementId& s, const TraversalOptions& o) override { return inner_.dfs(s, o); }
  std::vector<Cycle> detect_cycles(const CycleOptions& o) override { return inner_.detect_cycles(o); }

 private:
  MemoryGraph& inner_;
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
