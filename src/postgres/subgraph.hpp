// Running MemoryGraph's algorithms on a part of a PostgreSQL graph: one code path, not a copy.
//
// A query returns vertex and edge rows; Subgraph loads them, in ascending id order, into a
// fresh MemoryGraph (in bulk, once all rows are in) and remembers which database row each
// in-memory element stands for. MemoryGraph orders by creation, so "ascending id" and "edge-id
// expansion order" carry over unchanged, and translating a result back gives exactly what
// MemoryGraph would have returned on the whole graph.
//
// Cost: per row, a few words plus the label and, where a result may name the element, its
// properties as jsonb text, decoded only for the elements a result returns. Lookups between
// database rows and in-memory ids are binary searches over arrays in id order (no hash maps).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "postgres/ids.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/model.hpp"

namespace propgraph::postgres_detail {

class Subgraph {
 public:
  /// `ids` names the database's elements in results; it must outlive the Subgraph.
  explicit Subgraph(const IdCodec& ids);

  /// Adds a vertex row. The in-memory copy has the label only: no algorithm reads vertex
  /// properties.
  void add_vertex(std::int64_t row, std::string_view label, std::string properties_json);
  /// Adds an edge row between two added vertices. The in-memory copy has the label and, with
  /// `weight_key`, that one property (the input of a weighted shortest path). With `record`
  /// false only the structure is kept: results cannot name this edge (page_rank, components).
  void add_edge(std::int64_t row, std::int64_t from, std::int64_t to, std::string_view label,
                std::string properties_json, bool record, const std::string* weight_key = nullptr);

  /// The in-memory graph, built on first use from the rows added so far (sorted by id first
  /// when they did not arrive in order).
  [[nodiscard]] MemoryGraph& graph();
  /// The in-memory id of a database vertex id, or an id that finds nothing.
  [[nodiscard]] ElementId memory_vertex(const ElementId& database_id);

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
  static constexpr std::uint32_t kNone = 0xFFFFFFFF;
  struct VertexRow {
    std::int64_t row;
    std::uint32_t label;     // into labels_
    std::string properties;  // jsonb text
  };
  struct EdgeRow {
    std::int64_t row;
    std::int64_t from;
    std::int64_t to;
    std::uint32_t label;  // into labels_
    std::uint32_t extra;  // into edge_extras_, or kNone (no record, no weight)
  };
  struct EdgeExtra {
    std::string properties;  // jsonb text; empty without a record
    Properties algorithm_properties;
  };

  std::uint32_t intern(std::string_view label);
  void build();
  [[nodiscard]] std::size_t vertex_index(const ElementId& in_memory) const;
  [[nodiscard]] std::size_t edge_index(const ElementId& in_memory) const;
  [[nodiscard]] std::size_t vertex_of_row(std::int64_t row) const;  // npos when absent

  const IdCodec* ids_;
  std::unique_ptr<MemoryGraph> graph_;
  bool built_ = false;
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> labels_;
  std::unordered_map<std::string, std::uint32_t, TextHash, std::equal_to<>> label_index_;
  std::vector<VertexRow> vertex_rows_;      // ascending row once built
  std::vector<EdgeRow> edge_rows_;          // ascending row once built
  std::vector<EdgeExtra> edge_extras_;
  std::vector<ElementId> memory_vertices_;  // parallel to vertex_rows_, ascending
  // Row id -> index into vertex_rows_ when the row ids are dense enough (else binary search).
  std::int64_t dense_first_ = 0;
  std::vector<std::uint32_t> dense_index_;
  std::vector<ElementId> memory_edges_;     // parallel to edge_rows_, ascending
};

}  // namespace propgraph::postgres_detail
