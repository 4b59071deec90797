// Backend kit: running MemoryGraph's algorithms on a part of another backend's graph.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/model.hpp"

namespace propgraph::backend {

/// A part of a backend's graph, loaded into a fresh MemoryGraph so that MemoryGraph's traversals
/// and algorithms run on it, with their results translated back to the backend's elements.
///
/// What it is for: a backend that stores its graph elsewhere (a database, a remote service) and
/// cannot run shortest_path, all_paths, bfs, dfs, page_rank, connected_components or
/// detect_cycles where the data lives fetches the rows those calls may touch, adds them here and
/// calls the algorithm on graph(). One code path for every backend, not a copy of each
/// algorithm: results are MemoryGraph's, element for element and in the same order.
///
/// Keys and naming: every row has an integer key (a row id), unique per kind, whose ascending
/// order is the order in which the backend created its elements. The backend's Naming turns keys
/// into its ElementIds and back, and decodes a row's stored properties.
///
/// Contract: rows may be added in any order; graph() loads them into MemoryGraph in ascending key
/// order. MemoryGraph orders vertices and edges by creation, so "ascending id", "edge-id
/// expansion order" and ties break as they would on a MemoryGraph that had created the same
/// elements in key order: a result translated back (vertex(), path(), scores(), ...) is exactly
/// what MemoryGraph returns on the whole graph, when the rows are everything the call can reach.
/// Keys must be unique per kind, and every edge's endpoints must be added as vertices.
///
/// Costs: per row a few words, the interned label and, where a result may name the element,
/// its stored properties as undecoded text; Naming::decode_properties runs only for the
/// elements a result returns (and once per edge row added with a weight_key). graph() sorts the
/// rows (skipped when they came in order) and bulk-loads MemoryGraph once. Lookups between keys
/// and in-memory ids are binary searches over arrays in key order, or one array index when the
/// vertex keys are dense (no hash maps per row).
///
/// Thread safety: a Subgraph serves one call. Adding rows, graph() and memory_vertex() (which
/// build the in-memory graph on first use) need exclusive access; once built, the const
/// translations may run from several threads at once (as may MemoryGraph's reads). The Naming
/// must outlive the Subgraph and be callable from the threads that use it.
class Subgraph {
 public:
  /// How the backend names its elements and reads their stored properties.
  class Naming {
   public:
    virtual ~Naming() = default;
    /// The backend's id of the vertex with key `key`.
    [[nodiscard]] virtual ElementId vertex_id(std::int64_t key) const = 0;
    /// The backend's id of the edge with key `key`.
    [[nodiscard]] virtual ElementId edge_id(std::int64_t key) const = 0;
    /// The key of one of the backend's vertex ids; nullopt for anything else (an edge id, an id
    /// of another graph or backend).
    [[nodiscard]] virtual std::optional<std::int64_t> vertex_key(const ElementId& id) const = 0;
    /// A row's properties from the text it was added with (never called for empty text, which
    /// means no properties).
    [[nodiscard]] virtual Properties decode_properties(std::string_view stored) const = 0;
  };

  /// `naming` names the backend's elements in results; it must outlive the Subgraph.
  explicit Subgraph(const Naming& naming);

  /// Adds a vertex row: its key, label and stored properties (left undecoded until a result
  /// returns the vertex). The in-memory copy has the label only: no algorithm reads vertex
  /// properties.
  void add_vertex(std::int64_t key, std::string_view label, std::string stored_properties);
  /// Adds an edge row between the vertices with keys `from` and `to`. The in-memory copy has the
  /// label and, with `weight_key`, that one property (the input of a weighted shortest path;
  /// decoded now). With `record` false only the structure is kept and the stored properties are
  /// dropped: results cannot name this edge (page_rank, connected_components).
  void add_edge(std::int64_t key, std::int64_t from, std::int64_t to, std::string_view label,
                std::string stored_properties, bool record, const std::string* weight_key = nullptr);

  /// The in-memory graph, built on first use from the rows added so far (sorted by key first
  /// when they did not arrive in order). Rows added afterwards are not loaded.
  [[nodiscard]] MemoryGraph& graph();
  /// The in-memory id of one of the backend's vertex ids, or an id that finds nothing.
  [[nodiscard]] ElementId memory_vertex(const ElementId& backend_id);

  /// Results of graph()'s calls, translated to the backend's elements (ids, labels and the
  /// decoded stored properties).
  [[nodiscard]] Vertex vertex(const Vertex& in_memory) const;
  [[nodiscard]] Edge edge(const Edge& in_memory) const;
  [[nodiscard]] Path path(const Path& in_memory) const;
  [[nodiscard]] std::vector<Vertex> vertices(const std::vector<Vertex>& in_memory) const;
  [[nodiscard]] std::vector<Path> paths(const std::vector<Path>& in_memory) const;
  [[nodiscard]] std::vector<Visit> visits(const std::vector<Visit>& in_memory) const;
  [[nodiscard]] std::vector<PageRankScore> scores(const std::vector<PageRankScore>& in_memory) const;
  [[nodiscard]] std::vector<Component> components(const std::vector<Component>& in_memory) const;
  [[nodiscard]] std::vector<Cycle> cycles(const std::vector<Cycle>& in_memory) const;

  /// `message` (e.g. an exception's what() from graph()'s calls) with every in-memory element
  /// id replaced by the backend's id.
  [[nodiscard]] std::string translate_ids(std::string message) const;

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFF;
  struct VertexRow {
    std::int64_t row;
    std::uint32_t label;     // into labels_
    std::string properties;  // stored text
  };
  struct EdgeRow {
    std::int64_t row;
    std::int64_t from;
    std::int64_t to;
    std::uint32_t label;  // into labels_
    std::uint32_t extra;  // into edge_extras_, or kNone (no record, no weight)
  };
  struct EdgeExtra {
    std::string properties;  // stored text; empty without a record
    Properties algorithm_properties;
  };

  std::uint32_t intern(std::string_view label);
  void build();
  [[nodiscard]] std::size_t vertex_index(const ElementId& in_memory) const;
  [[nodiscard]] std::size_t edge_index(const ElementId& in_memory) const;
  [[nodiscard]] std::size_t vertex_of_row(std::int64_t row) const;  // npos when absent
  [[nodiscard]] Properties decoded(const std::string& stored) const;

  const Naming* naming_;
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
  // Row key -> index into vertex_rows_ when the keys are dense enough (else binary search).
  std::int64_t dense_first_ = 0;
  std::vector<std::uint32_t> dense_index_;
  std::vector<ElementId> memory_edges_;     // parallel to edge_rows_, ascending
};

}  // namespace propgraph::backend
