// Typed text <-> Value conversions shared by every format: scalar parsing, the type names of
// typed columns and keys, and JSON reading and writing.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "json_text.hpp"
#include "propgraph/model.hpp"

namespace propgraph::io::detail {

/// The type of a typed column (CSV header) or key (GraphML attr.type).
enum class ValueKind : std::uint8_t {
  boolean,
  integer,
  real,
  string,
  json,  ///< any Value, written as JSON text
  boolean_list,
  integer_list,
  real_list,
  string_list,
};

[[nodiscard]] constexpr bool is_list(ValueKind k) noexcept { return k >= ValueKind::boolean_list; }
/// The element kind of a list kind.
[[nodiscard]] constexpr ValueKind element_kind(ValueKind list) noexcept {
  return static_cast<ValueKind>(static_cast<int>(list) - static_cast<int>(ValueKind::boolean_list));
}
/// The list kind of a scalar kind.
[[nodiscard]] constexpr ValueKind list_kind(ValueKind scalar) noexcept {
  return static_cast<ValueKind>(static_cast<int>(scalar) + static_cast<int>(ValueKind::boolean_list));
}

/// CSV header type names: boolean, int, double, string, json, boolean[], int[], double[], string[].
[[nodiscard]] std::string_view csv_type_name(ValueKind kind) noexcept;
/// A CSV type tag, case-insensitive, with the aliases long/short/byte, float, bool and char.
[[nodiscard]] std::optional<ValueKind> parse_csv_type(std::string_view tag) noexcept;
/// True for text equal to lower, ignoring ASCII case.
[[nodiscard]] bool equals_ignore_case(std::string_view text, std::string_view lower) noexcept;

/// Exact parses: the whole text must be the value. A leading '+' is accepted.
[[nodiscard]] bool parse_int(std::string_view text, std::int64_t& out) noexcept;
/// Also NaN, Infinity, -Infinity (any case, "inf" too).
[[nodiscard]] bool parse_double(std::string_view text, double& out) noexcept;
/// true or false, any case.
[[nodiscard]] bool parse_bool(std::string_view text, bool& out) noexcept;
/// Text of a scalar kind to a Value; false with `why` set when it does not parse.
bool parse_scalar(std::string_view text, ValueKind kind, Value& out, std::string& why);

/// Reads JSON values into Values (see ndjson.hpp for the mapping).
class JsonReader {
 public:
  /// Parses text as one JSON value (copied first, so it needs no padding).
  bool parse(std::string_view text, Value& out, std::string& why);
  /// Converts an element; objects, and lists nested deeper than max_value_depth, are rejected.
  static bool convert(simdjson::dom::element element, Value& out, std::string& why, int depth = 0);
  [[nodiscard]] simdjson::dom::parser& parser() noexcept { return parser_; }

 private:
  simdjson::dom::parser parser_;
};

void append_int(std::string& out, std::int64_t value);
/// Shortest text that reads back as the same double; NaN, Infinity, -Infinity for the others.
void append_double(std::string& out, double value);
/// A JSON number that reads back as a double (always a fraction or exponent). Throws
/// InvalidArgument for NaN and infinities, which JSON cannot hold.
void append_json_double(std::string& out, double value);
/// A JSON string literal (the project's one escaper).
using propgraph::detail::append_json_string;
/// A JSON value; throws InvalidArgument for non-finite doubles.
void append_json(std::string& out, const Value& value);

/// True when text holds a character XML 1.0 cannot carry (controls other than tab, LF, CR;
/// U+FFFE, U+FFFF). text must be valid UTF-8.
[[nodiscard]] bool has_non_xml_chars(std::string_view text) noexcept;

}  // namespace propgraph::io::detail
