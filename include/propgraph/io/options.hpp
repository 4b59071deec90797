// Options of the bulk import and export functions (propgraph::io).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace propgraph::io {

/// What an import does with a second vertex record whose file id was already seen.
enum class DuplicatePolicy {
  fail,  ///< an error: the import fails and the graph is left unchanged
  skip,  ///< keep the first record, skip the later one and report a warning
};

/// What an import does with an edge whose `from` or `to` names no vertex of the input.
enum class MissingEndpointPolicy {
  fail,       ///< an error: the import fails and the graph is left unchanged
  skip_edge,  ///< skip that edge and report a warning
};

/// How an import reads its input. Every field has a default:
/// `import_ndjson(g, path, {.on_duplicate_vertex = DuplicatePolicy::skip})`.
///
/// Ids in a file are external ids: they only link the file's edges to its vertices. The graph
/// issues fresh ids for everything created; `keep_external_id_as` stores the file id too.
struct ImportOptions {
  DuplicatePolicy on_duplicate_vertex = DuplicatePolicy::fail;
  MissingEndpointPolicy on_missing_endpoint = MissingEndpointPolicy::fail;
  /// Label of a vertex record that gives none; nullopt makes a missing label an error. A label
  /// given explicitly empty (`"label":""`, a quoted empty CSV field, an empty GraphML
  /// `<data key="labelV"/>`) is always an error, never this default.
  std::optional<std::string> default_vertex_label = "vertex";
  /// Label of an edge record that gives none; as default_vertex_label.
  std::optional<std::string> default_edge_label = "edge";
  /// When set, each created element also gets its file id as a string property of this name
  /// (replacing a property of the same name from the file). Edges without a file id get none.
  std::optional<std::string> keep_external_id_as;
  /// Problems kept in the report, at least 1. Parsing stops once this many errors were found,
  /// so 1 fails at the first error (with its location); warnings beyond the limit are counted
  /// but not kept. 0 is rejected (InvalidArgument): a failed import always reports its error.
  std::size_t max_problems = 1000;
  /// Longest accepted CSV record, NDJSON line or GraphML value, in bytes; longer ones are errors.
  std::size_t max_record_bytes = std::size_t{16} << 20;

  /// Throws InvalidArgument, before any input is read, for max_problems == 0, a default label
  /// that is not a valid label (is_valid_label) or a keep_external_id_as that is not a valid
  /// property key (property_key_fault). Every import calls it first.
  void validate() const;
};

/// Which elements an export writes: the vertices and edges carrying these labels. An empty
/// list means every label (GraphOperations::vertex_labels() / edge_labels()). Edges are written
/// whether or not their endpoints are selected.
struct ExportOptions {
  std::vector<std::string> vertex_labels;
  std::vector<std::string> edge_labels;
};

}  // namespace propgraph::io
