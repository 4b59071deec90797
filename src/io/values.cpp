#include "io/values.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "propgraph/errors.hpp"

namespace propgraph::io::detail {

std::string_view csv_type_name(ValueKind kind) noexcept {
  switch (kind) {
    case ValueKind::boolean: return "boolean";
    case ValueKind::integer: return "int";
    case ValueKind::real: return "double";
    case ValueKind::string: return "string";
    case ValueKind::json: return "json";
    case ValueKind::boolean_list: return "boolean[]";
    case ValueKind::integer_list: return "int[]";
    case ValueKind::real_list: return "double[]";
    case ValueKind::string_list: return "string[]";
  }
  return "string";
}

bool equals_ignore_case(std::string_view text, std::string_view lower) noexcept {
  if (text.size() != lower.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

std::optional<ValueKind> parse_csv_type(std::string_view tag) noexcept {
  bool list = false;
  if (tag.size() > 2 && tag.substr(tag.size() - 2) == "[]") {
    list = true;
    tag.remove_suffix(2);
  }
  std::optional<ValueKind> kind;
  if (equals_ignore_case(tag, "int") || equals_ignore_case(tag, "long") || equals_ignore_case(tag, "short") ||
      equals_ignore_case(tag, "byte")) {
    kind = ValueKind::integer;
  } else if (equals_ignore_case(tag, "double") || equals_ignore_case(tag, "float")) {
    kind = ValueKind::real;
  } else if (equals_ignore_case(tag, "boolean") || equals_ignore_case(tag, "bool")) {
    kind = ValueKind::boolean;
  } else if (equals_ignore_case(tag, "string") || equals_ignore_case(tag, "char")) {
    kind = ValueKind::string;
  } else if (!list && equals_ignore_case(tag, "json")) {
    kind = ValueKind::json;
  }
  if (kind && list) kind = list_kind(*kind);
  return kind;
}

bool parse_int(std::string_view text, std::int64_t& out) noexcept {
  if (text.size() > 1 && text[0] == '+' && text[1] != '-') text.remove_prefix(1);
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && !text.empty();
}

bool parse_double(std::string_view text, double& out) noexcept {
  if (text.size() > 1 && text[0] == '+' && text[1] != '-') text.remove_prefix(1);
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && !text.empty();
}

bool parse_bool(std::string_view text, bool& out) noexcept {
  if (equals_ignore_case(text, "true")) {
    out = true;
    return true;
  }
  if (equals_ignore_case(text, "false")) {
    out = false;
    return true;
  }
  return false;
}

namespace {
std::string shown(std::string_view text) {
  constexpr std::size_t kMax = 40;
  std::string out = "\"";
  out.append(text.substr(0, kMax));
  if (text.size() > kMax) out += "...";
  out += '"';
  return out;
}
}  // namespace

bool parse_scalar(std::string_view text, ValueKind kind, Value& out, std::string& why) {
  switch (kind) {
    case ValueKind::boolean: {
      bool b = false;
      if (parse_bool(text, b)) {
        out = Value(b);
        return true;
      }
      why = fmt::format("expected boolean (true or false), got {}", shown(text));
      return false;
    }
    case ValueKind::integer: {
      std::int64_t i = 0;
      if (parse_int(text, i)) {
        out = Value(i);
        return true;
      }
      why = fmt::format("expected int (64-bit integer), got {}", shown(text));
      return false;
    }
    case ValueKind::real: {
      double d = 0;
      if (parse_double(text, d)) {
        out = Value(d);
        return true;
      }
      why = fmt::format("expected double, got {}", shown(text));
      return false;
    }
    case ValueKind::string: out = Value(text); return true;
    default: why = "internal: not a scalar type"; return false;
  }
}

// -- JSON reading ---------------------------------------------------------------------------------

bool JsonReader::parse(std::string_view text, Value& out, std::string& why) {
  simdjson::dom::element element;
  if (auto error = parser_.parse(text.data(), text.size(), true).get(element)) {
    why = fmt::format("invalid JSON: {}", simdjson::error_message(error));
    return false;
  }
  return convert(element, out, why);
}

bool JsonReader::convert(simdjson::dom::element element, Value& out, std::string& why, int depth) {
  using simdjson::dom::element_type;
  switch (element.type()) {
    case element_type::NULL_VALUE: out = Value(); return true;
    case element_type::BOOL: out = Value(bool(element.get_bool().value_unsafe())); return true;
    case element_type::INT64: out = Value(element.get_int64().value_unsafe()); return true;
    case element_type::UINT64:
      why = propgraph::detail::json_int_overflow(std::to_string(element.get_uint64().value_unsafe()));
      return false;
    case element_type::DOUBLE: out = Value(element.get_double().value_unsafe()); return true;
    case element_type::STRING: out = Value(element.get_string().value_unsafe()); return true;
    case element_type::ARRAY: {
      if (depth == max_value_depth) {
        why = fmt::format("lists nested deeper than {}", max_value_depth);
        return false;
      }
      ValueList list;
      const simdjson::dom::array array = element.get_array().value_unsafe();
      list.reserve(array.size());
      for (simdjson::dom::element item : array) {
        Value v;
        if (!convert(item, v, why, depth + 1)) return false;
        list.push_back(std::move(v));
      }
      out = Value(std::move(list));
      return true;
    }
    case element_type::OBJECT: why = propgraph::detail::json_object_not_a_value; return false;
  }
  why = "unknown JSON value";
  return false;
}

// -- writing --------------------------------------------------------------------------------------

void append_int(std::string& out, std::int64_t value) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, end);
}

void append_double(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "Infinity" : "-Infinity";
  } else {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    out.append(buf, end);
  }
}

void append_json_double(std::string& out, double value) {
  propgraph::detail::require_json_double(value);
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  std::string_view text(buf, static_cast<std::size_t>(end - buf));
  out.append(text);
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
}

void append_json(std::string& out, const Value& value) {
  switch (value.type()) {
    case ValueType::null: out += "null"; return;
    case ValueType::boolean: out += value.as_bool() ? "true" : "false"; return;
    case ValueType::integer: append_int(out, value.as_int()); return;
    case ValueType::real: append_json_double(out, value.as_double()); return;
    case ValueType::string: append_json_string(out, value.as_string()); return;
    case ValueType::list: {
      out += '[';
      bool first = true;
      for (const auto& item : value.as_list()) {
        if (!first) out += ',';
        first = false;
        append_json(out, item);
      }
      out += ']';
      return;
    }
  }
}

bool has_non_xml_chars(std::string_view text) noexcept {
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return true;
    if (c == 0xEF && i + 2 < text.size() && text[i + 1] == '\xBF' && (text[i + 2] == '\xBE' || text[i + 2] == '\xBF')) {
      return true;
    }
  }
  return false;
}

}  // namespace propgraph::io::detail
