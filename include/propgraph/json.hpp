// JSON conversions of the model for nlohmann::json (CMake target propgraph::json): to_json and
// from_json, found by argument-dependent lookup, so `nlohmann::json j = vertex;` and
// `j.get<propgraph::Edge>()` just work, vectors of them included.
//
// Encoding: the rule of the NDJSON format (io/ndjson.hpp), so the two agree value for value.
// - ElementId: its string form. Read from a string, or an integer taken as its decimal text.
// - Value: null, true/false, int as a JSON integer, double as a JSON number with a fraction or
//   exponent (nlohmann writes 30.0, never 30), string, list as an array. Reading, an integer
//   literal gives an int (beyond int64: error), a literal with a fraction or exponent a double:
//   int 30 and double 30.0 keep their types through a round trip. NaN and infinities cannot be
//   written (InvalidArgument); JSON objects are not Values.
// - Properties: an object of Values. Vertex: {"id", "label", "properties"}; Edge: {"id",
//   "label", "from", "to", "properties"} ("properties" may be absent or null when read: empty).
//   Path: {"vertices": [...], "edges": [...], "length"}. Results: PageRankScore {"vertex",
//   "score"}, Degree {"id", "in", "out", "total"}, Component {"id", "vertices"}, Visit
//   {"vertex", "depth", "parent" (id or null)}, Cycle {"path"}, Upserted {"vertex",
//   "created"}, IndexInfo {"label", "key", "unique"}.
// - Derived fields (Path "length", Degree "total") are written for readers; when read they
//   must agree with the rest. Unknown keys are ignored, so an NDJSON record reads as a Vertex.
//
// Errors: from_json throws InvalidArgument naming the type and the field, e.g.
// `JSON Path, field vertices[1].properties.age: expected a JSON integer ...`; to_json throws
// InvalidArgument for a double JSON cannot hold. Nothing else is thrown but std::bad_alloc.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "propgraph/model.hpp"
#include "propgraph/options.hpp"
#include "propgraph/query.hpp"

namespace propgraph {

void to_json(nlohmann::json& j, const ElementId& id);
void from_json(const nlohmann::json& j, ElementId& id);
void to_json(nlohmann::json& j, const Value& value);
void from_json(const nlohmann::json& j, Value& value);
void to_json(nlohmann::json& j, const Properties& properties);
void from_json(const nlohmann::json& j, Properties& properties);

void to_json(nlohmann::json& j, const Vertex& vertex);
void from_json(const nlohmann::json& j, Vertex& vertex);
void to_json(nlohmann::json& j, const Edge& edge);
void from_json(const nlohmann::json& j, Edge& edge);
void to_json(nlohmann::json& j, const Path& path);
void from_json(const nlohmann::json& j, Path& path);

void to_json(nlohmann::json& j, const PageRankScore& score);
void from_json(const nlohmann::json& j, PageRankScore& score);
void to_json(nlohmann::json& j, const Degree& degree);
void from_json(const nlohmann::json& j, Degree& degree);
void to_json(nlohmann::json& j, const Component& component);
void from_json(const nlohmann::json& j, Component& component);
void to_json(nlohmann::json& j, const Visit& visit);
void from_json(const nlohmann::json& j, Visit& visit);
void to_json(nlohmann::json& j, const Cycle& cycle);
void from_json(const nlohmann::json& j, Cycle& cycle);
void to_json(nlohmann::json& j, const Upserted& upserted);
void from_json(const nlohmann::json& j, Upserted& upserted);
void to_json(nlohmann::json& j, const IndexInfo& index);
void from_json(const nlohmann::json& j, IndexInfo& index);

// Query values and results (query.hpp), by the same rules:
// - QueryValue: null, bool, int and double as a Value is written (int 30 and double 30.0 keep
//   their types through a round trip), string, list as an array, map as an object (keys in
//   ascending order), Vertex, Edge and Path as the objects above. Reading cannot tell a map
//   from a vertex, an edge or a path written so: from_json reads every JSON object as a map
//   (a vertex comes back as the map {"id", "label", "properties"}). Lists and maps nested
//   deeper than max_json_list_depth are rejected.
// - QueryStats: {"vertices_created", "vertices_deleted", "edges_created", "edges_deleted",
//   "properties_set", "statements_sent"} (integers; absent members read as 0).
// - QueryResult (written only): {"columns": [names], "rows": [[values in column order]],
//   "stats": QueryStats}.
// - Parameters: an object of name -> QueryValue (so objects inside are maps); names must not
//   be empty.
void to_json(nlohmann::json& j, const QueryValue& value);
void from_json(const nlohmann::json& j, QueryValue& value);
void to_json(nlohmann::json& j, const QueryStats& stats);
void from_json(const nlohmann::json& j, QueryStats& stats);
void to_json(nlohmann::json& j, const QueryResult& result);
void to_json(nlohmann::json& j, const Parameters& parameters);
void from_json(const nlohmann::json& j, Parameters& parameters);

/// Lists nested deeper than this are rejected when read (the reader recurses).
inline constexpr int max_json_list_depth = max_value_depth;

/// Arrays and objects nested deeper than this are refused by parse_json.
inline constexpr int max_json_nesting = 256;

/// Parses JSON text. Throws InvalidArgument naming the line and column of malformed text
/// (invalid UTF-8 included; the message shows such bytes as \xNN, so it is valid UTF-8), of
/// an integer literal beyond the 64-bit range (never read as a double) and of a number beyond
/// double's range (1e400); and for nesting deeper than max_json_nesting. Complexity: linear.
[[nodiscard]] nlohmann::json parse_json(std::string_view text);

}  // namespace propgraph
