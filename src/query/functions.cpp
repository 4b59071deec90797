// Cypher's functions (functions.hpp): the scalar functions over a static table, and the
// aggregations. Strings are UTF-8 and measured in code points.
#include "functions.hpp"

#include <locale.h>
#include <wctype.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "graph_reader.hpp"
#include "propgraph/errors.hpp"
#include "value_ops.hpp"

namespace propgraph::query {

namespace {

using Args = std::span<const QueryValue>;
using List = QueryValue::List;
using Map = QueryValue::Map;

constexpr double kInt64Min = -9223372036854775808.0;
constexpr double kInt64Max = 9223372036854775808.0;

// -- errors ------------------------------------------------------------------------------------

/// An argument of a type the function does not take (the TCK's runtime InvalidArgumentValue).
[[noreturn]] void bad_type(std::string_view function, const QueryValue& value) {
  throw QueryError(
      fmt::format("Type mismatch: {}() cannot take an argument of type {}", function, to_string(value.type())),
      "TypeError: InvalidArgumentValue");
}

[[noreturn]] void out_of_range(const std::string& message) {
  throw QueryError(message, "ArgumentError: NumberOutOfRange");
}

// -- text helpers ------------------------------------------------------------------------------

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

std::int64_t code_points(std::string_view s) {
  return static_cast<std::int64_t>(std::count_if(s.begin(), s.end(), [](char c) { return !is_continuation(c); }));
}

// The UTF-8 text split into its code points.
std::vector<std::string_view> split_code_points(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 1; i <= s.size(); ++i) {
    if (i == s.size() || !is_continuation(s[i])) {
      out.push_back(s.substr(start, i - start));
      start = i;
    }
  }
  return out;
}

// Byte offset of code point `n` (s.size() when s has n or fewer code points).
std::size_t byte_offset(std::string_view s, std::int64_t n) {
  std::size_t i = 0;
  for (; i < s.size(); ++i) {
    if (!is_continuation(s[i])) {
      if (n == 0) return i;
      --n;
    }
  }
  return s.size();
}

// Java's String.trim() whitespace: every character up to U+0020.
bool is_trim_space(char c) { return static_cast<unsigned char>(c) <= 0x20; }

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && is_trim_space(s.front())) s.remove_prefix(1);
  return s;
}
std::string_view trim_right(std::string_view s) {
  while (!s.empty() && is_trim_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string ascii_case(std::string_view s, bool upper) {
  std::string out(s);
  for (char& c : out) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// The C.UTF-8 locale for Unicode simple case mapping, or null when the system lacks it.
locale_t utf8_locale() {
  static const locale_t locale = [] {
    locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
    if (l == static_cast<locale_t>(nullptr))
      l = newlocale(LC_CTYPE_MASK, "en_US.UTF-8", static_cast<locale_t>(nullptr));
    return l;
  }();
  return locale;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Unicode simple (one to one) case mapping of UTF-8 text; ASCII only when no UTF-8 locale is
// installed. Malformed bytes are copied unchanged.
std::string change_case(std::string_view s, bool upper) {
  const locale_t locale = utf8_locale();
  if (locale == static_cast<locale_t>(nullptr)) return ascii_case(s, upper);
  std::string out;
  out.reserve(s.size());
  for (std::string_view cp : split_code_points(s)) {
    const auto lead = static_cast<unsigned char>(cp[0]);
    const std::size_t expected = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
    if (expected != cp.size()) {
      out += cp;
      continue;
    }
    char32_t value = expected == 1 ? lead : lead & (0x7F >> expected);
    for (std::size_t k = 1; k < cp.size(); ++k) value = (value << 6) | (static_cast<unsigned char>(cp[k]) & 0x3F);
    const auto mapped =
        upper ? towupper_l(static_cast<wint_t>(value), locale) : towlower_l(static_cast<wint_t>(value), locale);
    append_utf8(out, static_cast<char32_t>(mapped));
  }
  return out;
}

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

// Shortest round-trip decimal digits of a finite non-zero |d|: value = 0.d1d2... * 10^(exp + 1),
// i.e. d1.d2... * 10^exp.
struct Digits {
  std::string digits;
  int exponent = 0;
};

Digits shortest_digits(double d) {
  std::array<char, 64> buffer{};
  const auto [end, ec] =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), std::fabs(d), std::chars_format::scientific);
  const std::string_view text(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
  const std::size_t e = text.find('e');
  Digits out;
  for (char c : text.substr(0, e)) {
    if (c != '.') out.digits.push_back(c);
  }
  std::string_view exp = text.substr(e + 1);
  if (!exp.empty() && exp.front() == '+') exp.remove_prefix(1);
  std::from_chars(exp.data(), exp.data() + exp.size(), out.exponent);
  while (out.digits.size() > 1 && out.digits.back() == '0') out.digits.pop_back();
  return out;
}

// Parses a whole string as a double like Java's Double.parseDouble (surrounding whitespace,
// a sign, "NaN", "Infinity"); nullopt when it is not a number.
std::optional<double> parse_double(std::string_view s) {
  s = trim_right(trim_left(s));
  bool negative = false;
  std::string_view body = s;
  if (!body.empty() && (body.front() == '+' || body.front() == '-')) {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (body == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (body == "Infinity") return negative ? -HUGE_VAL : HUGE_VAL;
  if (body.empty() || !(std::isdigit(static_cast<unsigned char>(body.front())) || body.front() == '.')) {
    return std::nullopt;
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (ec == std::errc::invalid_argument || end != body.data() + body.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Overflow gives infinity and underflow zero, as in Java.
    value = std::strtod(std::string(body).c_str(), nullptr);
  }
  return negative ? -value : value;
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  s = trim_right(trim_left(s));
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return value;
}

bool double_fits_int(double d) { return d >= kInt64Min && d < kInt64Max; }

// -- conversions (shared by the strict and the OrNull forms) ----------------------------------

// nullopt: the argument's type is not convertible (strict forms throw, OrNull forms give null).
std::optional<QueryValue> to_integer(const QueryValue& v) {
  if (v.is_null()) return QueryValue();
  if (v.is_int()) return v;
  if (v.is_double()) {
    const double d = v.as_double();
    if (!double_fits_int(d)) {
      throw QueryError(fmt::format("integer overflow: {} does not fit in a 64-bit integer", format_double(d)),
                       "ArithmeticError: IntegerOverflow");
    }
    return QueryValue(static_cast<std::int64_t>(d));  // truncates toward zero
  }
  if (v.is_string()) {
    if (auto i = parse_int(v.as_string())) return QueryValue(*i);
    if (auto d = parse_double(v.as_string()); d && double_fits_int(*d)) {
      return QueryValue(static_cast<std::int64_t>(*d));
    }
    return QueryValue();
  }
  if (v.is_bool()) return QueryValue(std::int64_t{v.as_bool() ? 1 : 0});
  return std::nullopt;
}

std::optional<QueryValue> to_float(const QueryValue& v) {
  if (v.is_null()) return QueryValue();
  if (v.is_number()) return QueryValue(v.as_number());
  if (v.is_string()) {
    if (auto d = parse_double(v.as_string())) return QueryValue(*d);
    return QueryValue();
  }
  return std::nullopt;
}

std::optional<QueryValue> to_boolean(const QueryValue& v) {
  if (v.is_null() || v.is_bool()) return v;
  if (v.is_int()) return QueryValue(v.as_int() != 0);
  if (v.is_string()) {
    const std::string_view s = trim_right(trim_left(v.as_string()));
    if (iequals(s, "true")) return QueryValue(true);
    if (iequals(s, "false")) return QueryValue(false);
    return QueryValue();
  }
  return std::nullopt;
}

std::optional<QueryValue> to_string_value(const QueryValue& v) {
  switch (v.type()) {
    case QueryValue::Type::null:
    case QueryValue::Type::string: return v;
    case QueryValue::Type::boolean: return QueryValue(v.as_bool() ? "true" : "false");
    case QueryValue::Type::integer: return QueryValue(std::to_string(v.as_int()));
    case QueryValue::Type::real: return QueryValue(format_double(v.as_double()));
    default: return std::nullopt;
  }
}

// -- argument helpers --------------------------------------------------------------------------

std::int64_t int_argument(std::string_view function, const QueryValue& v) {
  if (v.is_int()) return v.as_int();
  if (v.is_double() && std::trunc(v.as_double()) == v.as_double() && double_fits_int(v.as_double())) {
    return static_cast<std::int64_t>(v.as_double());
  }
  bad_type(function, v);
}

double number_argument(std::string_view function, const QueryValue& v) {
  if (!v.is_number()) bad_type(function, v);
  return v.as_number();
}

const std::string& string_argument(std::string_view function, const QueryValue& v) {
  if (!v.is_string()) bad_type(function, v);
  return v.as_string();
}

bool any_null(Args args) {
  return std::any_of(args.begin(), args.end(), [](const QueryValue& v) { return v.is_null(); });
}

QueryValue map_of(const Properties& properties) {
  Map map;
  for (const auto& [key, value] : properties) map.emplace(key, QueryValue(value));
  return map;
}

QueryValue keys_of(const Properties& properties) {
  List keys;
  for (const auto& entry : properties) keys.emplace_back(entry.first);
  return keys;
}

// -- scalar functions --------------------------------------------------------------------------

QueryValue fn_coalesce(Args args, FunctionContext&) {
  for (const QueryValue& v : args) {
    if (!v.is_null()) return v;
  }
  return nullptr;
}

QueryValue fn_head(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  if (!args[0].is_list()) bad_type("head", args[0]);
  const List& list = args[0].as_list();
  return list.empty() ? QueryValue() : list.front();
}

QueryValue fn_last(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  if (!args[0].is_list()) bad_type("last", args[0]);
  const List& list = args[0].as_list();
  return list.empty() ? QueryValue() : list.back();
}

QueryValue fn_tail(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  if (!args[0].is_list()) bad_type("tail", args[0]);
  const List& list = args[0].as_list();
  if (list.empty()) return List{};
  return List(list.begin() + 1, list.end());
}

QueryValue fn_size(Args args, FunctionContext&) {
  const QueryValue& v = args[0];
  if (v.is_null()) return nullptr;
  if (v.is_list()) return static_cast<std::int64_t>(v.as_list().size());
  if (v.is_string()) return code_points(v.as_string());
  bad_type("size", v);
}

QueryValue fn_length(Args args, FunctionContext&) {
  const QueryValue& v = args[0];
  if (v.is_null()) return nullptr;
  if (v.is_path()) return static_cast<std::int64_t>(v.as_path().length());
  if (v.is_string()) return code_points(v.as_string());
  bad_type("length", v);
}

QueryValue fn_is_empty(Args args, FunctionContext&) {
  const QueryValue& v = args[0];
  if (v.is_null()) return nullptr;
  if (v.is_list()) return v.as_list().empty();
  if (v.is_string()) return v.as_string().empty();
  if (v.is_map()) return v.as_map().empty();
  bad_type("isEmpty", v);
}

QueryValue fn_type(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  if (!args[0].is_edge()) bad_type("type", args[0]);
  return args[0].as_edge().label;
}

QueryValue element_id(std::string_view function, const QueryValue& v) {
  if (v.is_null()) return nullptr;
  if (v.is_vertex()) return v.as_vertex().id.str();
  if (v.is_edge()) return v.as_edge().id.str();
  bad_type(function, v);
}

QueryValue fn_id(Args args, FunctionContext&) { return element_id("id", args[0]); }
QueryValue fn_element_id(Args args, FunctionContext&) { return element_id("elementId", args[0]); }

QueryValue fn_labels(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  if (!args[0].is_vertex()) bad_type("labels", args[0]);
  const std::string& label = args[0].as_vertex().label;
  if (label == unlabeled_vertex_label) return List{};
  return List{QueryValue(label)};
}

QueryValue fn_keys(Args args, FunctionContext&) {
  const QueryValue& v = args[0];
  if (v.is_null()) return nullptr;
  if (v.is_vertex()) return keys_of(v.as_vertex().properties);
  if (v.is_edge()) return keys_of(v.as_edge().properties);
  if (v.is_map()) {
    List keys;
    for (const auto& entry : v.as_map()) keys.emplace_back(entry.first);
    return keys;
  }
  bad_type("keys", v);
}

QueryValue fn_properties(Args args, FunctionContext&) {
  const QueryValue& v = args[0];
  if (v.is_null() || v.is_map()) return v;
  if (v.is_vertex()) return map_of(v.as_vertex().properties);
  if (v.is_edge()) return map_of(v.as_edge().properties);
  bad_type("properties", v);
}

QueryValue endpoint(std::string_view function, const QueryValue& v, FunctionContext& context, bool start) {
  if (v.is_null()) return nullptr;
  if (!v.is_edge()) bad_type(function, v);
  if (context.reader == nullptr) return nullptr;
  const Edge& edge = v.as_edge();
  std::optional<Vertex> vertex = context.reader->find_vertex(start ? edge.from : edge.to);
  if (!vertex) return nullptr;
  return std::move(*vertex);
}

QueryValue fn_start_node(Args args, FunctionContext& context) { return endpoint("startNode", args[0], context, true); }
QueryValue fn_end_node(Args args, FunctionContext& context) { return endpoint("endNode", args[0], context, false); }

QueryValue fn_nodes(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  if (!args[0].is_path()) bad_type("nodes", args[0]);
  List out;
  for (const Vertex& v : args[0].as_path().vertices) out.emplace_back(v);
  return out;
}

QueryValue fn_relationships(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  if (!args[0].is_path()) bad_type("relationships", args[0]);
  List out;
  for (const Edge& e : args[0].as_path().edges) out.emplace_back(e);
  return out;
}

QueryValue fn_to_integer(Args args, FunctionContext&) {
  if (auto v = to_integer(args[0])) return *v;
  bad_type("toInteger", args[0]);
}
QueryValue fn_to_float(Args args, FunctionContext&) {
  if (auto v = to_float(args[0])) return *v;
  bad_type("toFloat", args[0]);
}
QueryValue fn_to_boolean(Args args, FunctionContext&) {
  if (auto v = to_boolean(args[0])) return *v;
  bad_type("toBoolean", args[0]);
}
QueryValue fn_to_string(Args args, FunctionContext&) {
  if (auto v = to_string_value(args[0])) return *v;
  bad_type("toString", args[0]);
}
QueryValue fn_to_integer_or_null(Args args, FunctionContext&) {
  try {
    return to_integer(args[0]).value_or(QueryValue());
  } catch (const QueryError&) {
    return nullptr;  // a double beyond the int64 range
  }
}
QueryValue fn_to_float_or_null(Args args, FunctionContext&) { return to_float(args[0]).value_or(QueryValue()); }
QueryValue fn_to_boolean_or_null(Args args, FunctionContext&) { return to_boolean(args[0]).value_or(QueryValue()); }
QueryValue fn_to_string_or_null(Args args, FunctionContext&) { return to_string_value(args[0]).value_or(QueryValue()); }

QueryValue fn_exists(Args args, FunctionContext&) { return !args[0].is_null(); }

QueryValue fn_timestamp(Args, FunctionContext&) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
}

std::mt19937_64& random_engine() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return engine;
}

QueryValue fn_rand(Args, FunctionContext&) { return std::uniform_real_distribution<double>(0.0, 1.0)(random_engine()); }

QueryValue fn_random_uuid(Args, FunctionContext&) {
  std::array<std::uint8_t, 16> bytes{};
  std::uniform_int_distribution<int> byte(0, 255);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(byte(random_engine()));
  bytes[6] = static_cast<std::uint8_t>((bytes[6] & 0x0F) | 0x40);  // version 4
  bytes[8] = static_cast<std::uint8_t>((bytes[8] & 0x3F) | 0x80);  // RFC 4122 variant
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out += fmt::format("{:02x}", bytes[i]);
  }
  return out;
}

// -- string functions --------------------------------------------------------------------------

QueryValue fn_to_upper(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  return change_case(string_argument("toUpper", args[0]), true);
}
QueryValue fn_to_lower(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  return change_case(string_argument("toLower", args[0]), false);
}
QueryValue fn_trim(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  return trim_right(trim_left(string_argument("trim", args[0])));
}
QueryValue fn_ltrim(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  return trim_left(string_argument("ltrim", args[0]));
}
QueryValue fn_rtrim(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  return trim_right(string_argument("rtrim", args[0]));
}

QueryValue fn_replace(Args args, FunctionContext&) {
  if (any_null(args)) return nullptr;
  const std::string& text = string_argument("replace", args[0]);
  const std::string& search = string_argument("replace", args[1]);
  const std::string& replacement = string_argument("replace", args[2]);
  std::string out;
  if (search.empty()) {
    // As Java's String.replace: the replacement before every code point and at the end.
    for (std::string_view cp : split_code_points(text)) {
      out += replacement;
      out += cp;
    }
    out += replacement;
    return out;
  }
  std::size_t from = 0;
  for (std::size_t at = text.find(search); at != std::string::npos; at = text.find(search, from)) {
    out.append(text, from, at - from);
    out += replacement;
    from = at + search.size();
  }
  out.append(text, from);
  return out;
}

QueryValue fn_substring(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  const std::string& text = string_argument("substring", args[0]);
  // A null start or length is an error (Neo4j), unlike a null string.
  if (args[1].is_null()) bad_type("substring", args[1]);
  if (args.size() > 2 && args[2].is_null()) bad_type("substring", args[2]);
  const std::int64_t start = int_argument("substring", args[1]);
  if (start < 0) out_of_range(fmt::format("substring(): start {} is negative", start));
  const std::size_t begin = byte_offset(text, start);
  if (args.size() < 3) return text.substr(begin);
  const std::int64_t length = int_argument("substring", args[2]);
  if (length < 0) out_of_range(fmt::format("substring(): length {} is negative", length));
  const std::size_t end = begin + byte_offset(std::string_view(text).substr(begin), length);
  return text.substr(begin, end - begin);
}

QueryValue fn_left(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  const std::string& text = string_argument("left", args[0]);
  if (args[1].is_null()) bad_type("left", args[1]);  // as Neo4j: only a null string gives null
  const std::int64_t n = int_argument("left", args[1]);
  if (n < 0) out_of_range(fmt::format("left(): length {} is negative", n));
  return text.substr(0, byte_offset(text, n));
}

QueryValue fn_right(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  const std::string& text = string_argument("right", args[0]);
  if (args[1].is_null()) bad_type("right", args[1]);  // as Neo4j: only a null string gives null
  const std::int64_t n = int_argument("right", args[1]);
  if (n < 0) out_of_range(fmt::format("right(): length {} is negative", n));
  const std::int64_t total = code_points(text);
  return text.substr(byte_offset(text, std::max<std::int64_t>(0, total - n)));
}

QueryValue fn_split(Args args, FunctionContext&) {
  if (any_null(args)) return nullptr;
  const std::string& text = string_argument("split", args[0]);
  std::vector<std::string_view> delimiters;
  if (args[1].is_list()) {
    for (const QueryValue& d : args[1].as_list()) {
      if (d.is_null()) return nullptr;
      delimiters.emplace_back(string_argument("split", d));
    }
  } else {
    delimiters.emplace_back(string_argument("split", args[1]));
  }
  List out;
  if (std::all_of(delimiters.begin(), delimiters.end(), [](std::string_view d) { return d.empty(); })) {
    // An empty delimiter splits into code points.
    for (std::string_view cp : split_code_points(text)) out.emplace_back(cp);
    if (text.empty()) out.emplace_back("");
    return out;
  }
  std::size_t from = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t matched = 0;
    for (std::string_view d : delimiters) {
      if (!d.empty() && std::string_view(text).substr(i).starts_with(d)) {
        matched = std::max(matched, d.size());
      }
    }
    if (matched == 0) {
      ++i;
      continue;
    }
    out.emplace_back(std::string_view(text).substr(from, i - from));
    i += matched;
    from = i;
  }
  out.emplace_back(std::string_view(text).substr(from));
  return out;
}

QueryValue fn_reverse(Args args, FunctionContext&) {
  const QueryValue& v = args[0];
  if (v.is_null()) return nullptr;
  if (v.is_string()) {
    std::vector<std::string_view> cps = split_code_points(v.as_string());
    std::string out;
    out.reserve(v.as_string().size());
    for (auto it = cps.rbegin(); it != cps.rend(); ++it) out += *it;
    return out;
  }
  if (v.is_list()) return List(v.as_list().rbegin(), v.as_list().rend());
  bad_type("reverse", v);
}

// -- list functions ----------------------------------------------------------------------------

/// range() builds at most this many elements (a list of them takes 400 MB); more throws
/// ArgumentError: NumberOutOfRange rather than exhausting memory.
constexpr std::int64_t kMaxRange = 10'000'000;

std::int64_t range_argument(const QueryValue& v) {
  if (!v.is_int()) {
    throw QueryError(fmt::format("range() takes INTEGER arguments, not {}", to_string(v.type())),
                     "ArgumentError: InvalidArgumentType");
  }
  return v.as_int();
}

QueryValue fn_range(Args args, FunctionContext&) {
  if (any_null(args)) return nullptr;
  const std::int64_t start = range_argument(args[0]);
  const std::int64_t end = range_argument(args[1]);
  const std::int64_t step = args.size() > 2 ? range_argument(args[2]) : 1;
  if (step == 0) out_of_range("range(): step must not be 0");
  List out;
  if ((step > 0 && start > end) || (step < 0 && start < end)) return out;
  // Count in unsigned arithmetic: end - start may not fit an int64.
  const auto ustart = static_cast<std::uint64_t>(start);
  const auto uend = static_cast<std::uint64_t>(end);
  const std::uint64_t span = step > 0 ? uend - ustart : ustart - uend;
  const std::uint64_t magnitude = step > 0 ? static_cast<std::uint64_t>(step) : 0 - static_cast<std::uint64_t>(step);
  const std::uint64_t count = span / magnitude + 1;
  if (count > static_cast<std::uint64_t>(kMaxRange)) {
    out_of_range(fmt::format("range() would build {} elements, more than {}", count, kMaxRange));
  }
  out.reserve(count);
  std::int64_t value = start;
  for (std::uint64_t i = 0; i < count; ++i) {
    out.emplace_back(value);
    if (i + 1 < count) value += step;  // stays within [start, end]
  }
  return out;
}

// -- math functions ----------------------------------------------------------------------------

QueryValue fn_abs(Args args, FunctionContext&) {
  const QueryValue& v = args[0];
  if (v.is_null()) return nullptr;
  if (v.is_int()) {
    if (v.as_int() == std::numeric_limits<std::int64_t>::min()) {
      throw QueryError("integer overflow: abs of the smallest integer", "ArithmeticError: IntegerOverflow");
    }
    return v.as_int() < 0 ? -v.as_int() : v.as_int();
  }
  return std::fabs(number_argument("abs", v));
}

QueryValue fn_sign(Args args, FunctionContext&) {
  const QueryValue& v = args[0];
  if (v.is_null()) return nullptr;
  if (v.is_int()) return std::int64_t{v.as_int() > 0 ? 1 : (v.as_int() < 0 ? -1 : 0)};
  const double d = number_argument("sign", v);
  if (std::isnan(d)) return std::int64_t{0};
  return std::int64_t{d > 0 ? 1 : (d < 0 ? -1 : 0)};
}

// round(x, precision, mode) on x's shortest decimal form, as Java's BigDecimal.valueOf(x)
// .setScale(precision, mode).
double round_decimal(double x, std::int64_t precision, std::string_view mode) {
  if (!std::isfinite(x) || x == 0) return x;
  precision = std::clamp<std::int64_t>(precision, -400, 400);
  const bool negative = x < 0;
  const Digits d = shortest_digits(x);
  const std::int64_t keep = d.exponent + precision + 1;  // digits kept
  if (keep >= static_cast<std::int64_t>(d.digits.size())) return x;
  std::string kept = keep > 0 ? d.digits.substr(0, static_cast<std::size_t>(keep)) : std::string();
  const std::string dropped = keep > 0 ? d.digits.substr(static_cast<std::size_t>(keep)) : d.digits;
  // The dropped part against one half of the last kept unit.
  int half = -1;
  if (keep >= 0) {
    if (dropped[0] > '5') {
      half = 1;
    } else if (dropped[0] == '5') {
      half = dropped.find_first_not_of('0', 1) == std::string::npos ? 0 : 1;
    }
  }
  const bool last_odd = !kept.empty() && ((kept.back() - '0') % 2 == 1);
  bool up = false;  // away from zero
  if (mode == "HALF_UP") {
    up = half >= 0;
  } else if (mode == "HALF_DOWN") {
    up = half > 0;
  } else if (mode == "HALF_EVEN") {
    up = half > 0 || (half == 0 && last_odd);
  } else if (mode == "UP") {
    up = true;
  } else if (mode == "DOWN") {
    up = false;
  } else if (mode == "CEILING") {
    up = !negative;
  } else if (mode == "FLOOR") {
    up = negative;
  } else {
    throw QueryError(fmt::format("round(): unknown rounding mode '{}'", mode), "ArgumentError: InvalidArgumentValue");
  }
  if (kept.empty()) kept = "0";
  if (up) {
    std::size_t i = kept.size();
    while (i > 0 && kept[i - 1] == '9') kept[--i] = '0';
    if (i == 0) {
      kept.insert(kept.begin(), '1');
    } else {
      ++kept[i - 1];
    }
  }
  const double magnitude = std::strtod(fmt::format("{}e{}", kept, -precision).c_str(), nullptr);
  return negative ? -magnitude : magnitude;
}

// Java's Math.round on a double: the nearest integer, ties toward positive infinity.
double round_half_ceiling(double x) {
  if (!std::isfinite(x)) return x;
  const double below = std::floor(x);
  const double result = x - below >= 0.5 ? below + 1.0 : below;  // x - below is exact
  return result == 0 ? 0.0 : result;
}

// As Neo4j: round(x) and round(x, 0) round ties toward positive infinity (round(-1.5) is -1.0);
// round(x, precision) rounds ties away from zero (HALF_UP) unless a mode is given.
QueryValue fn_round(Args args, FunctionContext&) {
  if (any_null(args)) return nullptr;
  const double x = number_argument("round", args[0]);
  const std::int64_t precision = args.size() > 1 ? int_argument("round", args[1]) : 0;
  if (args.size() < 3 && precision == 0) return round_half_ceiling(x);
  std::string mode = "HALF_UP";
  if (args.size() > 2) mode = ascii_case(string_argument("round", args[2]), true);
  return round_decimal(x, precision, mode);
}

QueryValue fn_is_nan(Args args, FunctionContext&) {
  if (args[0].is_null()) return nullptr;
  return std::isnan(number_argument("isNaN", args[0]));
}

template <double (*F)(double)>
QueryValue unary_math(Args args, std::string_view name) {
  if (args[0].is_null()) return nullptr;
  return F(number_argument(name, args[0]));
}

double haversin(double x) { return (1.0 - std::cos(x)) / 2.0; }
double cot(double x) { return 1.0 / std::tan(x); }
double degrees(double x) { return x * 180.0 / std::numbers::pi; }
double radians(double x) { return x * std::numbers::pi / 180.0; }
double c_ceil(double x) { return std::ceil(x); }
double c_floor(double x) { return std::floor(x); }
double c_sqrt(double x) { return std::sqrt(x); }
double c_exp(double x) { return std::exp(x); }
double c_log(double x) { return std::log(x); }
double c_log10(double x) { return std::log10(x); }
double c_sin(double x) { return std::sin(x); }
double c_cos(double x) { return std::cos(x); }
double c_tan(double x) { return std::tan(x); }
double c_asin(double x) { return std::asin(x); }
double c_acos(double x) { return std::acos(x); }
double c_atan(double x) { return std::atan(x); }

#define PROPGRAPH_MATH(fn, impl, name) \
  QueryValue fn(Args args, FunctionContext&) { return unary_math<impl>(args, name); }
PROPGRAPH_MATH(fn_ceil, c_ceil, "ceil")
PROPGRAPH_MATH(fn_floor, c_floor, "floor")
PROPGRAPH_MATH(fn_sqrt, c_sqrt, "sqrt")
PROPGRAPH_MATH(fn_exp, c_exp, "exp")
PROPGRAPH_MATH(fn_log, c_log, "log")
PROPGRAPH_MATH(fn_log10, c_log10, "log10")
PROPGRAPH_MATH(fn_sin, c_sin, "sin")
PROPGRAPH_MATH(fn_cos, c_cos, "cos")
PROPGRAPH_MATH(fn_tan, c_tan, "tan")
PROPGRAPH_MATH(fn_cot, cot, "cot")
PROPGRAPH_MATH(fn_asin, c_asin, "asin")
PROPGRAPH_MATH(fn_acos, c_acos, "acos")
PROPGRAPH_MATH(fn_atan, c_atan, "atan")
PROPGRAPH_MATH(fn_degrees, degrees, "degrees")
PROPGRAPH_MATH(fn_radians, radians, "radians")
PROPGRAPH_MATH(fn_haversin, haversin, "haversin")
#undef PROPGRAPH_MATH

QueryValue fn_atan2(Args args, FunctionContext&) {
  if (any_null(args)) return nullptr;
  return std::atan2(number_argument("atan2", args[0]), number_argument("atan2", args[1]));
}
QueryValue fn_e(Args, FunctionContext&) { return std::numbers::e; }
QueryValue fn_pi(Args, FunctionContext&) { return std::numbers::pi; }

// -- the table ---------------------------------------------------------------------------------

constexpr FunctionInfo scalar(std::string_view name, int min, int max, ScalarFunction call) {
  return FunctionInfo{name, min, max, false, call};
}
constexpr FunctionInfo aggregation(std::string_view name, int min, int max) {
  return FunctionInfo{name, min, max, true, nullptr};
}

constexpr std::array kFunctions{
    // scalar
    scalar("coalesce", 1, -1, fn_coalesce),
    scalar("head", 1, 1, fn_head),
    scalar("last", 1, 1, fn_last),
    scalar("size", 1, 1, fn_size),
    scalar("length", 1, 1, fn_length),
    scalar("type", 1, 1, fn_type),
    scalar("id", 1, 1, fn_id),
    scalar("elementId", 1, 1, fn_element_id),
    scalar("labels", 1, 1, fn_labels),
    scalar("keys", 1, 1, fn_keys),
    scalar("properties", 1, 1, fn_properties),
    scalar("startNode", 1, 1, fn_start_node),
    scalar("endNode", 1, 1, fn_end_node),
    scalar("nodes", 1, 1, fn_nodes),
    scalar("relationships", 1, 1, fn_relationships),
    scalar("toInteger", 1, 1, fn_to_integer),
    scalar("toFloat", 1, 1, fn_to_float),
    scalar("toBoolean", 1, 1, fn_to_boolean),
    scalar("toString", 1, 1, fn_to_string),
    scalar("toIntegerOrNull", 1, 1, fn_to_integer_or_null),
    scalar("toFloatOrNull", 1, 1, fn_to_float_or_null),
    scalar("toBooleanOrNull", 1, 1, fn_to_boolean_or_null),
    scalar("toStringOrNull", 1, 1, fn_to_string_or_null),
    scalar("exists", 1, 1, fn_exists),
    scalar("timestamp", 0, 0, fn_timestamp),
    scalar("rand", 0, 0, fn_rand),
    scalar("randomUUID", 0, 0, fn_random_uuid),
    // string
    scalar("toUpper", 1, 1, fn_to_upper),
    scalar("upper", 1, 1, fn_to_upper),
    scalar("toLower", 1, 1, fn_to_lower),
    scalar("lower", 1, 1, fn_to_lower),
    scalar("trim", 1, 1, fn_trim),
    scalar("ltrim", 1, 1, fn_ltrim),
    scalar("rtrim", 1, 1, fn_rtrim),
    scalar("replace", 3, 3, fn_replace),
    scalar("substring", 2, 3, fn_substring),
    scalar("left", 2, 2, fn_left),
    scalar("right", 2, 2, fn_right),
    scalar("split", 2, 2, fn_split),
    scalar("reverse", 1, 1, fn_reverse),
    // list
    scalar("range", 2, 3, fn_range),
    scalar("tail", 1, 1, fn_tail),
    scalar("isEmpty", 1, 1, fn_is_empty),
    // math
    scalar("abs", 1, 1, fn_abs),
    scalar("ceil", 1, 1, fn_ceil),
    scalar("floor", 1, 1, fn_floor),
    scalar("round", 1, 3, fn_round),
    scalar("sign", 1, 1, fn_sign),
    scalar("isNaN", 1, 1, fn_is_nan),
    scalar("sqrt", 1, 1, fn_sqrt),
    scalar("exp", 1, 1, fn_exp),
    scalar("log", 1, 1, fn_log),
    scalar("log10", 1, 1, fn_log10),
    scalar("e", 0, 0, fn_e),
    scalar("pi", 0, 0, fn_pi),
    scalar("sin", 1, 1, fn_sin),
    scalar("cos", 1, 1, fn_cos),
    scalar("tan", 1, 1, fn_tan),
    scalar("cot", 1, 1, fn_cot),
    scalar("asin", 1, 1, fn_asin),
    scalar("acos", 1, 1, fn_acos),
    scalar("atan", 1, 1, fn_atan),
    scalar("atan2", 2, 2, fn_atan2),
    scalar("degrees", 1, 1, fn_degrees),
    scalar("radians", 1, 1, fn_radians),
    scalar("haversin", 1, 1, fn_haversin),
    // aggregations (count(*) is the executor's: it adds rows with no arguments)
    aggregation("count", 1, 1),
    aggregation("sum", 1, 1),
    aggregation("avg", 1, 1),
    aggregation("min", 1, 1),
    aggregation("max", 1, 1),
    aggregation("collect", 1, 1),
    aggregation("stDev", 1, 1),
    aggregation("stDevP", 1, 1),
    aggregation("percentileCont", 2, 2),
    aggregation("percentileDisc", 2, 2),
};

// -- aggregations ------------------------------------------------------------------------------

struct ValueHash {
  std::size_t operator()(const QueryValue& v) const { return hash(v); }
};
struct ValueEquivalent {
  bool operator()(const QueryValue& a, const QueryValue& b) const { return equivalent(a, b); }
};

// Lets each non-null value through once when distinct, every one otherwise.
class DistinctFilter {
 public:
  explicit DistinctFilter(bool distinct) : distinct_(distinct) {}
  bool admit(const QueryValue& v) { return !distinct_ || seen_.insert(v).second; }

 private:
  bool distinct_;
  std::unordered_set<QueryValue, ValueHash, ValueEquivalent> seen_;
};

class Count final : public Aggregator {
 public:
  explicit Count(bool distinct) : filter_(distinct) {}
  void add(Args args) override {
    if (args.empty()) {
      ++count_;  // count(*)
    } else if (!args[0].is_null() && filter_.admit(args[0])) {
      ++count_;
    }
  }
  [[nodiscard]] QueryValue result() const override { return count_; }

 private:
  DistinctFilter filter_;
  std::int64_t count_ = 0;
};

double numeric_input(std::string_view function, const QueryValue& v) { return number_argument(function, v); }

class Sum final : public Aggregator {
 public:
  explicit Sum(bool distinct) : filter_(distinct) {}
  void add(Args args) override {
    const QueryValue& v = args[0];
    if (v.is_null()) return;
    if (!v.is_number()) bad_type("sum", v);
    if (!filter_.admit(v)) return;
    if (v.is_int() && !real_) {
      if (__builtin_add_overflow(int_sum_, v.as_int(), &int_sum_)) {
        throw QueryError("integer overflow in sum()", "ArithmeticError: IntegerOverflow");
      }
      return;
    }
    if (!real_) {
      real_ = true;
      real_sum_ = static_cast<double>(int_sum_);
    }
    real_sum_ += v.as_number();
  }
  [[nodiscard]] QueryValue result() const override { return real_ ? QueryValue(real_sum_) : QueryValue(int_sum_); }

 private:
  DistinctFilter filter_;
  bool real_ = false;
  std::int64_t int_sum_ = 0;
  double real_sum_ = 0;
};

// The sum over the count, as Neo4j computes it: an int sum while the values are ints and it
// fits, else a double sum.
class Avg final : public Aggregator {
 public:
  explicit Avg(bool distinct) : filter_(distinct) {}
  void add(Args args) override {
    const QueryValue& v = args[0];
    if (v.is_null()) return;
    if (!v.is_number()) bad_type("avg", v);
    if (!filter_.admit(v)) return;
    ++count_;
    std::int64_t sum = 0;
    if (!real_ && v.is_int() && !__builtin_add_overflow(int_sum_, v.as_int(), &sum)) {
      int_sum_ = sum;
      return;
    }
    if (!real_) {
      real_ = true;
      real_sum_ = static_cast<double>(int_sum_);
    }
    real_sum_ += v.as_number();
  }
  [[nodiscard]] QueryValue result() const override {
    if (count_ == 0) return nullptr;
    return (real_ ? real_sum_ : static_cast<double>(int_sum_)) / static_cast<double>(count_);
  }

 private:
  DistinctFilter filter_;
  std::int64_t count_ = 0;
  bool real_ = false;
  std::int64_t int_sum_ = 0;
  double real_sum_ = 0;
};

// min (sign -1) or max (sign 1) by the ORDER BY order; DISTINCT changes nothing.
class Extreme final : public Aggregator {
 public:
  explicit Extreme(int sign) : sign_(sign) {}
  void add(Args args) override {
    const QueryValue& v = args[0];
    if (v.is_null()) return;
    if (best_.is_null() || order(v, best_) * sign_ > 0) best_ = v;
  }
  [[nodiscard]] QueryValue result() const override { return best_; }

 private:
  int sign_;
  QueryValue best_;
};

class Collect final : public Aggregator {
 public:
  explicit Collect(bool distinct) : filter_(distinct) {}
  void add(Args args) override {
    if (!args[0].is_null() && filter_.admit(args[0])) values_.push_back(args[0]);
  }
  [[nodiscard]] QueryValue result() const override { return values_; }

 private:
  DistinctFilter filter_;
  List values_;
};

// Welford's running variance; stDev is the sample (n - 1), stDevP the population deviation.
class StDev final : public Aggregator {
 public:
  StDev(bool distinct, bool population) : filter_(distinct), population_(population) {}
  void add(Args args) override {
    const QueryValue& v = args[0];
    if (v.is_null()) return;
    const double x = numeric_input(population_ ? "stDevP" : "stDev", v);
    if (!filter_.admit(v)) return;
    ++count_;
    const double delta = x - mean_;
    mean_ += delta / static_cast<double>(count_);
    m2_ += delta * (x - mean_);
  }
  [[nodiscard]] QueryValue result() const override {
    const std::int64_t divisor = population_ ? count_ : count_ - 1;
    if (divisor <= 0) return 0.0;
    return std::sqrt(m2_ / static_cast<double>(divisor));
  }

 private:
  DistinctFilter filter_;
  bool population_;
  std::int64_t count_ = 0;
  double mean_ = 0;
  double m2_ = 0;
};

class Percentile final : public Aggregator {
 public:
  Percentile(bool distinct, bool continuous) : filter_(distinct), continuous_(continuous) {}
  void add(Args args) override {
    const std::string_view name = continuous_ ? "percentileCont" : "percentileDisc";
    const QueryValue& v = args[0];
    if (args.size() > 1 && !args[1].is_null()) {
      const double p = number_argument(name, args[1]);
      if (!(p >= 0.0 && p <= 1.0)) {
        out_of_range(fmt::format("{}(): percentile {} is not between 0.0 and 1.0", name, format_double(p)));
      }
      percentile_ = p;
    }
    if (v.is_null()) return;
    if (!v.is_number()) bad_type(name, v);
    if (filter_.admit(v)) values_.push_back(v);
  }
  [[nodiscard]] QueryValue result() const override {
    if (values_.empty()) return nullptr;
    List sorted = values_;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const QueryValue& a, const QueryValue& b) { return order(a, b) < 0; });
    const auto n = static_cast<double>(sorted.size());
    if (percentile_ == 1.0 || sorted.size() == 1) {
      return continuous_ ? QueryValue(sorted.back().as_number()) : sorted.back();
    }
    if (!continuous_) {
      // The smallest value whose cumulative share reaches the percentile.
      const double position = percentile_ * n;
      auto index = static_cast<std::size_t>(position);
      if (static_cast<double>(index) == position && index != 0) --index;
      return sorted[std::min(index, sorted.size() - 1)];
    }
    const double position = percentile_ * (n - 1);
    const auto lower = static_cast<std::size_t>(std::floor(position));
    const auto upper = static_cast<std::size_t>(std::ceil(position));
    const double low = sorted[lower].as_number();
    if (lower == upper) return low;
    const double high = sorted[upper].as_number();
    return low * (static_cast<double>(upper) - position) + high * (position - static_cast<double>(lower));
  }

 private:
  DistinctFilter filter_;
  bool continuous_;
  double percentile_ = 0.5;
  List values_;
};

}  // namespace

std::string format_double(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  const Digits digits = shortest_digits(d);
  const std::string& s = digits.digits;
  const int e = digits.exponent;
  std::string out = d < 0 ? "-" : "";
  const double magnitude = std::fabs(d);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    if (e >= 0) {
      const auto int_digits = static_cast<std::size_t>(e) + 1;
      if (s.size() <= int_digits) {
        out += s + std::string(int_digits - s.size(), '0') + ".0";
      } else {
        out += s.substr(0, int_digits) + "." + s.substr(int_digits);
      }
    } else {
      out += "0." + std::string(static_cast<std::size_t>(-e - 1), '0') + s;
    }
    return out;
  }
  out += s.substr(0, 1) + "." + (s.size() > 1 ? s.substr(1) : "0") + "E" + std::to_string(e);
  return out;
}

const FunctionInfo* find_function(std::string_view name) {
  for (const FunctionInfo& info : kFunctions) {
    if (iequals(info.name, name)) return &info;
  }
  return nullptr;
}

std::unique_ptr<Aggregator> make_aggregator(std::string_view name, bool distinct) {
  const FunctionInfo* info = find_function(name);
  if (info == nullptr || !info->aggregate) {
    throw InvalidArgument(fmt::format("'{}' is not an aggregation", name));
  }
  const std::string_view n = info->name;
  if (n == "count") return std::make_unique<Count>(distinct);
  if (n == "sum") return std::make_unique<Sum>(distinct);
  if (n == "avg") return std::make_unique<Avg>(distinct);
  if (n == "min") return std::make_unique<Extreme>(-1);
  if (n == "max") return std::make_unique<Extreme>(1);
  if (n == "collect") return std::make_unique<Collect>(distinct);
  if (n == "stDev") return std::make_unique<StDev>(distinct, false);
  if (n == "stDevP") return std::make_unique<StDev>(distinct, true);
  if (n == "percentileCont") return std::make_unique<Percentile>(distinct, true);
  return std::make_unique<Percentile>(distinct, false);
}

}  // namespace propgraph::query
