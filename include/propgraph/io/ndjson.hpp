// NDJSON import and export: one JSON object per line.
//
// Format (UTF-8; blank lines are skipped; CRLF accepted):
//   {"type":"vertex","id":"a","label":"Person","properties":{"name":"Alice","age":30}}
//   {"type":"edge","id":"e1","label":"KNOWS","from":"a","to":"b","properties":{"since":2020}}
// - "type" is required; "id" is required for vertices and optional for edges (a string, or an
//   integer taken as its decimal text); "label" is optional (string); "properties" is an
//   optional object. Unknown keys are reported as warnings.
// - JSON values map to Values: null (the property is left out), true/false -> bool, an integer
//   -> int (beyond int64: error), a number with a fraction or exponent -> double, string ->
//   string, array -> list (elements may be null, mixed, nested). Objects inside properties are
//   errors. Export writes every double with a fraction or exponent (30.0, not 30) so types
//   survive the round trip; NaN and infinities cannot be written (InvalidArgument).
// - Edges may precede the vertices they connect.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string_view>

#include "propgraph/io/options.hpp"
#include "propgraph/io/report.hpp"
#include "propgraph/operations.hpp"

namespace propgraph::io {

/// Imports one NDJSON file. All or nothing: on any error nothing is written and ImportFailed
/// carries the report. Time and memory are linear in the input.
ImportReport import_ndjson(GraphOperations& graph, const std::filesystem::path& path,
                           const ImportOptions& options = {});
ImportReport import_ndjson(GraphOperations& graph, std::istream& in, const ImportOptions& options = {},
                           std::string_view name = "ndjson");

/// Writes the selected vertices (ascending id), then the selected edges (ascending id). A file
/// is written under a temporary name and renamed into place.
ExportReport export_ndjson(GraphOperations& graph, const std::filesystem::path& path,
                           const ExportOptions& options = {});
ExportReport export_ndjson(GraphOperations& graph, std::ostream& out, const ExportOptions& options = {});

}  // namespace propgraph::io
