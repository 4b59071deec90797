#include "postgres/json_codec.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "json_text.hpp"
#include "propgraph/errors.hpp"

namespace propgraph::postgres_detail {

// -- encoding ---------------------------------------------------------------------------------

void append_json_string(std::string& out, std::string_view s) {
  if (s.find('\0') != std::string_view::npos) {
    throw InvalidArgument("PostgresGraph cannot store a NUL character in a string or key");
  }
  detail::append_json_string(out, s);
}

namespace {

void append_double(std::string& out, double d) {
  out += "{\"$d\": ";
  if (std::isnan(d)) {
    out += "\"NaN\"";
  } else if (std::isinf(d)) {
    out += d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  } else if (d == 0 && std::signbit(d)) {
    // Zero, marked negative: equal to 0.0 for containment (filters) and for the normalised
    // index expression (GraphSql::index_expression), as -0.0 == 0.0; read back as -0.0.
    out += "0, \"$neg\": true";
  } else {
    char buf[32];
    // Shortest text that reads back as the same double; jsonb keeps its decimal value exactly.
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
    out.append(buf, end);
  }
  out.push_back('}');
}

}  // namespace

void append_json(std::string& out, const Value& value) {
  switch (value.type()) {
    case ValueType::null: out += "null"; break;
    case ValueType::boolean: out += value.as_bool() ? "true" : "false"; break;
    case ValueType::integer: {
      char buf[24];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value.as_int());
      out.append(buf, end);
      break;
    }
    case ValueType::real: append_double(out, value.as_double()); break;
    case ValueType::string: append_json_string(out, value.as_string()); break;
    case ValueType::list: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : value.as_list()) {
        if (!first) out += ", ";
        first = false;
        append_json(out, item);
      }
      out.push_back(']');
      break;
    }
  }
}

std::string encode_properties(const Properties& properties) {
  std::string out;
  out.reserve(16 * properties.size() + 2);
  out.push_back('{');
  bool first = true;
  for (const auto& [key, value] : properties) {
    if (value.is_null()) continue;
    if (!first) out += ", ";
    first = false;
    append_json_string(out, key);
    out += ": ";
    append_json(out, value);
  }
  out.push_back('}');
  return out;
}

Value comparable(const Value& value) {
  if (value.is_double() && value.as_double() == 0) return Value(0.0);
  return value;
}

bool contains_nan(const Value& value) noexcept {
  if (const auto* d = value.get_if<double>()) return std::isnan(*d);
  if (const auto* list = value.get_if<ValueList>()) {
    for (const auto& item : *list) {
      if (contains_nan(item)) return true;
    }
  }
  return false;
}

// -- decoding ---------------------------------------------------------------------------------

namespace {

/// Recursive-descent reader of the JSON that jsonb prints.
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  Properties object_as_properties() {
    std::vector<Properties::Entry> entries;
    expect('{');
    if (!consume('}')) {
      do {
        std::string key = string();
        expect(':');
        Value value;
        if (read_value(value)) entries.emplace_back(std::move(key), std::move(value));
      } while (consume(','));
      expect('}');
    }
    skip_space();
    if (pos_ != text_.size()) fail("trailing characters");
    return Properties(std::move(entries));
  }

 private:
  [[noreturn]] void fail(std::string_view what) const {
    throw QueryError(fmt::format("malformed properties from the server ({} at offset {})", what, pos_));
  }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  char peek() {
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end");
    return text_[pos_];
  }
  bool consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!consume(c)) fail(fmt::format("expected '{}'", c));
  }
  bool consume_word(std::string_view word) {
    skip_space();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  /// Reads one value; false for JSON null (which the caller drops).
  bool read_value(Value& out) {
    const char c = peek();
    if (c == '"') {
      out = Value(string());
    } else if (c == '[') {
      ++pos_;
      // Stored values were validated (max_value_depth); deeper text is not ours to recurse into.
      if (++list_depth_ > max_value_depth) fail(fmt::format("lists nested deeper than {}", max_value_depth));
      ValueList items;
      if (!consume(']')) {
        do {
          Value item;
          read_value(item);  // a null inside a list stays a null element
          items.push_back(std::move(item));
        } while (consume(','));
        expect(']');
      }
      --list_depth_;
      out = Value(std::move(items));
    } else if (c == '{') {
      out = object();
    } else if (consume_word("true")) {
      out = Value(true);
    } else if (consume_word("false")) {
      out = Value(false);
    } else if (consume_word("null")) {
      out = Value();
      return false;
    } else {
      out = number(false);
    }
    return true;
  }

  /// {"$d": x} is a double; any other object is kept as its JSON text.
  Value object() {
    const std::size_t start = pos_;
    expect('{');
    if (peek() == '"') {
      if (string() == "$d" && consume(':')) {
        Value d;
        if (peek() == '"') {
          const std::string special = string();
          if (special == "NaN") d = Value(std::numeric_limits<double>::quiet_NaN());
          else if (special == "Infinity") d = Value(std::numeric_limits<double>::infinity());
          else if (special == "-Infinity") d = Value(-std::numeric_limits<double>::infinity());
          else if (special == "-0") d = Value(-0.0);  // the spelling of earlier versions
          else fail("unknown double spelling");
        } else {
          d = number(true);
          if (consume(',')) {
            if (string() != "$neg" || !consume(':') || !consume_word("true") || d.as_double() != 0) {
              fail("unknown double spelling");
            }
            d = Value(-0.0);
          }
        }
        if (consume('}')) return d;
      }
    }
    // Not the wrapper: skip the object and keep its text.
    pos_ = start;
    skip_composite();
    return Value(std::string(text_.substr(start, pos_ - start)));
  }

  void skip_composite() {
    int depth = 0;
    do {
      const char c = peek();
      if (c == '"') {
        string();
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') --depth;
      ++pos_;
    } while (depth > 0);
  }

  Value number(bool as_double) {
    skip_space();
    const std::size_t start = pos_;
    bool integral = true;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '.' || c == 'e' || c == 'E') {
        integral = false;
      } else if (!(c == '-' || c == '+' || (c >= '0' && c <= '9'))) {
        break;
      }
      ++pos_;
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    if (first == last) fail("expected a value");
    if (integral && !as_double) {
      std::int64_t i = 0;
      auto [ptr, ec] = std::from_chars(first, last, i);
      if (ec == std::errc() && ptr == last) return Value(i);
      // Out of int64 range (written by someone else): fall through to double.
    }
    double d = 0;
    auto [ptr, ec] = std::from_chars(first, last, d);
    if (ptr != last || (ec != std::errc() && ec != std::errc::result_out_of_range)) fail("bad number");
    return Value(d);
  }

  std::string string() {
    expect('"');
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) fail("unterminated escape");
      const char e = text_[pos_++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': append_utf8(out, code_point()); break;
        default: fail("unknown escape");
      }
    }
  }

  std::uint32_t hex4() {
    if (pos_ + 4 > text_.size()) fail("short \\u escape");
    std::uint32_t v = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, v, 16);
    if (ec != std::errc() || ptr != text_.data() + pos_ + 4) fail("bad \\u escape");
    pos_ += 4;
    return v;
  }

  std::uint32_t code_point() {
    std::uint32_t cp = hex4();
    if (cp >= 0xD800 && cp <= 0xDBFF && text_.substr(pos_, 2) == "\\u") {
      pos_ += 2;
      const std::uint32_t low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) fail("unpaired surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    return cp;
  }

  static void append_utf8(std::string& out, std::uint32_t cp) {
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

  std::string_view text_;
  std::size_t pos_ = 0;
  int list_depth_ = 0;  // lists open at pos_
};

}  // namespace

Properties decode_properties(std::string_view json) { return Reader(json).object_as_properties(); }

}  // namespace propgraph::postgres_detail
