// CSV import and export: a vertices file and an edges file with typed headers.
//
// Format (RFC 4180, UTF-8, an optional byte-order mark is skipped):
// - The first record is the header. Each header field is `name:type`, split at the last ':';
//   a field without ':' is a string property. Type names are case-insensitive.
// - Vertices file: `:ID` (required; `name:ID` also stores the id as string property `name`),
//   `:LABEL` (optional), `:IGNORE` columns, property columns.
// - Edges file: `:START_ID` and `:END_ID` (required), `:TYPE` or `:LABEL` (optional), `:ID`
//   (optional edge id), `:IGNORE`, property columns.
// - Property types: `int` (also `long`, `short`, `byte`; int64), `double` (also `float`),
//   `boolean` (also `bool`; true/false), `string`, `json` (any Value as JSON text, see
//   ndjson.hpp for the mapping), and arrays `int[]`, `double[]`, `boolean[]`, `string[]` whose
//   elements are separated by ';'. Doubles accept `NaN`, `Infinity` and `-Infinity`.
// - An unquoted empty field means "no such property"; a quoted empty field `""` is the empty
//   string. Fields are taken verbatim: no trimming. Lines that are entirely empty are skipped.
// - Export writes LF line ends, quotes a field only when it must (separator, quote, CR, LF,
//   empty string, leading or trailing space), and types each property column by the values it
//   holds: one scalar type, an array of one type, or `json` when they differ or an array would
//   be ambiguous.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string_view>

#include "propgraph/io/options.hpp"
#include "propgraph/io/report.hpp"
#include "propgraph/operations.hpp"

namespace propgraph::io {

/// Imports a vertices file and an edges file; an empty `edges` path imports vertices only.
/// All or nothing: on any error nothing is written and ImportFailed carries the report.
/// Time and memory are linear in the input (the input is parsed whole before any write).
ImportReport import_csv(GraphOperations& graph, const std::filesystem::path& vertices,
                        const std::filesystem::path& edges, const ImportOptions& options = {});
/// Same, reading streams; the names stand for the inputs in problems.
ImportReport import_csv(GraphOperations& graph, std::istream& vertices, std::istream& edges,
                        const ImportOptions& options = {}, std::string_view vertices_name = "vertices",
                        std::string_view edges_name = "edges");

/// Writes the selected vertices and edges, each file in ascending id order. A file is written
/// under a temporary name and renamed into place, so a failed export leaves no partial file.
/// Throws InvalidArgument for a value the format cannot hold, Error when a file cannot be written.
ExportReport export_csv(GraphOperations& graph, const std::filesystem::path& vertices,
                        const std::filesystem::path& edges, const ExportOptions& options = {});
ExportReport export_csv(GraphOperations& graph, std::ostream& vertices, std::ostream& edges,
                        const ExportOptions& options = {});

}  // namespace propgraph::io
