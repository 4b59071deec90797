// Properties <-> jsonb text.
//
// jsonb compares numbers by value (30 = 30.0) and cannot hold NaN, infinities or -0, so the
// encoding keeps the Value type explicit:
//   null -> (key omitted)   bool -> true/false   int64 -> a JSON integer (exact: jsonb numbers
//   are arbitrary precision)   string -> a JSON string   list -> a JSON array
//   double -> {"$d": <number>}, or {"$d": "NaN" | "Infinity" | "-Infinity"}, and -0.0 ->
//   {"$d": 0, "$neg": true} (earlier versions wrote {"$d": "-0"}, still read)
// A property map is a JSON object. Because every double is wrapped, `@>` and `=` on jsonb give
// typed equality: int 30 matches only 30, double 30.0 only {"$d": 30}. Filters and index
// lookups compare with comparable(value), so that a filter 0.0 or -0.0 (`@>` {"$d": 0}) matches
// both zeros, as -0.0 == 0.0 (inside lists the two zeros still differ).
#pragma once

#include <string>
#include <string_view>

#include "propgraph/model.hpp"

namespace propgraph::postgres_detail {

/// Appends the JSON encoding of `value` (null encodes as JSON null).
void append_json(std::string& out, const Value& value);
/// Appends `s` as a JSON string literal (detail::append_json_string); throws InvalidArgument for a
/// NUL character, which PostgreSQL text cannot store.
void append_json_string(std::string& out, std::string_view s);

/// The jsonb text of a property map; null values are left out. Throws InvalidArgument for a
/// string or key holding a NUL character (PostgreSQL text cannot store it).
[[nodiscard]] std::string encode_properties(const Properties& properties);

/// Parses jsonb output (a JSON object) back into Properties. JSON nulls are skipped, objects
/// other than the double wrapper become their JSON text. Throws QueryError on malformed input.
[[nodiscard]] Properties decode_properties(std::string_view json);

/// The value as filters and index lookups compare it: -0.0 becomes 0.0, anything else stays.
[[nodiscard]] Value comparable(const Value& value);

/// True when the value is or contains a NaN (which equals nothing, itself included).
[[nodiscard]] bool contains_nan(const Value& value) noexcept;

}  // namespace propgraph::postgres_detail
