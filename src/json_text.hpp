// JSON text rules shared by every reader and writer of JSON in the project (NDJSON import and
// export, propgraph::json, the PostgreSQL backend's jsonb parameters): string literals and the
// typed-number rule.
#pragma once

#include <string>
#include <string_view>

namespace propgraph::detail {

/// Appends `text` as a JSON string literal. Escapes quotes, backslashes, controls and
/// U+FFFE/U+FFFF, so the result is also safe inside XML 1.0. Bytes are otherwise copied as they
/// are (the caller's text is UTF-8).
void append_json_string(std::string& out, std::string_view text);

/// The project's typed-number rule for JSON: an int is written as an integer literal and read
/// back from one; a double is written with a fraction or exponent (30.0, not 30) and read back
/// from any literal that has one; integer literals beyond int64 are errors. This checks the
/// one thing JSON cannot hold: throws InvalidArgument for NaN and infinities.
void require_json_double(double value);

/// The error text for an integer literal beyond the int64 range.
[[nodiscard]] std::string json_int_overflow(std::string_view literal);

/// The error text for a JSON object where a property value is expected.
inline constexpr std::string_view json_object_not_a_value =
    "JSON objects are not property values (use a list or separate properties)";

}  // namespace propgraph::detail
