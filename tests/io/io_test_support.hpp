// Helpers of the io tests: scratch directories, graph snapshots and comparisons, and a graph
// whose writes fail on demand.
#pragma once

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

#include <gtest/gtest.h>

#include "graph_content.hpp"
#include "propgraph/decorator.hpp"
#include "propgraph/fmt.hpp"
#include "propgraph/io.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace propgraph::io::test {

namespace fs = std::filesystem;

/// A fresh directory under the system temp directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ =
        fs::temp_directory_path() / fmt::format("propgraph-io-test-{}-{}-{}", ::getpid(),
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

/// Forwards to a MemoryGraph, but throws QueryError on the n-th create_edge (1-based; 0: never;
/// bulk edge creation goes through create_edge one edge at a time) and passes what
/// find_vertices_by_label finds through alter_found_vertices.
class FailingGraph final : public GraphDecorator {
 public:
  explicit FailingGraph(MemoryGraph& inner, int fail_on_edge = 0)
      : GraphDecorator(inner), fail_on_edge_(fail_on_edge) {}

  /// Stands for a graph holding text its own writes refuse (filled by an older version, or by
  /// another client of the same database).
  std::function<void(std::vector<Vertex>&)> alter_found_vertices;

  std::vector<Vertex> find_vertices_by_label(std::string_view label, const Properties& filter,
                                             const Page& page) override {
    auto found = GraphDecorator::find_vertices_by_label(label, filter, page);
    if (alter_found_vertices) alter_found_vertices(found);
    return found;
  }

 protected:
  /// With fail_on_edge = n: every bulk create_edges fails (a batch fails as a whole), and so does
  /// the n-th single create_edge; also inside the graph's transactions.
  void around(Operation op, CallRef call) override {
    if (fail_on_edge_ > 0 &&
        (op == Operation::create_edges || (op == Operation::create_edge && ++edges_ == fail_on_edge_))) {
      throw QueryError("injected failure");
    }
    call();
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
