// GraphML import and export.
//
// Format (UTF-8; one <graph>, directed):
// - Property keys are <key id=".." for="node|edge|all" attr.name=".." attr.type=".."/> with
//   attr.type boolean, int, long (both int64), float, double (both double) or string (the
//   default); a <default> child applies to elements without that <data>. A key with
//   `propgraph.type="json"` (attr.type string) holds any Value as JSON text: export uses it for
//   lists, for properties whose type differs between elements, and for strings with characters
//   XML 1.0 cannot carry.
// - Labels are the data keys `labelV` (nodes) and `labelE` (edges), as TinkerPop writes them.
// - <node id=..> ids are required; <edge source=.. target=..> may come before the nodes they
//   name; an edge id is optional. Hyperedges and nested graphs are errors.
// - Doubles accept NaN, Infinity and -Infinity.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string_view>

#include "propgraph/io/options.hpp"
#include "propgraph/io/report.hpp"
#include "propgraph/operations.hpp"

namespace propgraph::io {

/// Imports one GraphML document. All or nothing: on any error nothing is written and
/// ImportFailed carries the report. Time and memory are linear in the input (a DOM is built).
ImportReport import_graphml(GraphOperations& graph, const std::filesystem::path& path,
                            const ImportOptions& options = {});
ImportReport import_graphml(GraphOperations& graph, std::istream& in, const ImportOptions& options = {},
                            std::string_view name = "graphml");

/// Writes the keys, then the selected nodes (ascending id), then the selected edges (ascending
/// id). A file is written under a temporary name and renamed into place.
ExportReport export_graphml(GraphOperations& graph, const std::filesystem::path& path,
                            const ExportOptions& options = {});
ExportReport export_graphml(GraphOperations& graph, std::ostream& out, const ExportOptions& options = {});

}  // namespace propgraph::io
