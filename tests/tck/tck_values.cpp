#include "tck_values.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace propgraph::tck {

TckValue TckValue::of_bool(bool b) {
  TckValue v;
  v.kind = Kind::boolean;
  v.boolean = b;
  return v;
}
TckValue TckValue::of_int(std::int64_t i) {
  TckValue v;
  v.kind = Kind::integer;
  v.integer = i;
  return v;
}
TckValue TckValue::of_real(double d) {
  TckValue v;
  v.kind = Kind::real;
  v.real = d;
  return v;
}
TckValue TckValue::of_string(std::string s) {
  TckValue v;
  v.kind = Kind::string;
  v.string = std::move(s);
  return v;
}
TckValue TckValue::of_list(std::vector<TckValue> items) {
  TckValue v;
  v.kind = Kind::list;
  v.items = std::move(items);
  return v;
}
TckValue TckValue::of_map(std::vector<std::pair<std::string, TckValue>> entries) {
  TckValue v;
  v.kind = Kind::map;
  v.entries = std::move(entries);
  return v;
}

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  TckValue parse_whole() {
    TckValue v = value();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the value");
    return v;
  }

 private:
  [[noreturn]] void fail(std::string_view what) const {
    throw ValueSyntaxError(fmt::format("{} at offset {} of '{}'", what, pos_, text_));
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n')) ++pos_;
  }
  bool at(std::string_view token) {
    skip_space();
    return text_.substr(pos_).starts_with(token);
  }
  bool accept(std::string_view token) {
    if (!at(token)) return false;
    pos_ += token.size();
    return true;
  }
  void expect(std::string_view token) {
    if (!accept(token)) fail(fmt::format("expected '{}'", token));
  }
  bool accept_word(std::string_view word) {
    if (!at(word)) return false;
    const std::size_t end = pos_ + word.size();
    if (end < text_.size() && is_name_char(text_[end])) return false;
    pos_ = end;
    return true;
  }

  TckValue value() {
    skip_space();
    if (pos_ >= text_.size()) fail("expected a value");
    const char c = text_[pos_];
    if (accept_word("null")) return TckValue::null();
    if (accept_word("true")) return TckValue::of_bool(true);
    if (accept_word("false")) return TckValue::of_bool(false);
    if (c == '\'') return TckValue::of_string(string_literal());
    if (c == '(') return node();
    if (c == '<') return path();
    if (c == '{') return TckValue::of_map(properties());
    if (c == '[') {
      const std::size_t open = pos_++;
      if (at(":")) {
        pos_ = open;
        return relationship();
      }
      std::vector<TckValue> items;
      if (!accept("]")) {
        do {
          items.push_back(value());
        } while (accept(","));
        expect("]");
      }
      return TckValue::of_list(std::move(items));
    }
    return number();
  }

  TckValue number() {
    const std::size_t start = pos_;
    const bool negative = text_[pos_] == '-' || text_[pos_] == '+';
    if (negative) ++pos_;
    if (accept_word("NaN")) return TckValue::of_real(std::numeric_limits<double>::quiet_NaN());
    if (accept_word("Infinity") || accept_word("Inf")) {
      const double inf = std::numeric_limits<double>::infinity();
      return TckValue::of_real(text_[start] == '-' ? -inf : inf);
    }
    bool real = false;
    auto digits = [&] {
      const std::size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ > from;
    };
    bool any = digits();
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      real = true;
      any = digits() || any;
    }
    if (!any) {
      pos_ = start;
      fail("expected a value");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      real = true;
      if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
      if (!digits()) fail("expected exponent digits");
    }
    if (pos_ < text_.size() && is_name_char(text_[pos_])) fail("bad number");
    std::string token(text_.substr(start, pos_ - start));
    if (token.starts_with('+')) token.erase(0, 1);
    if (real) return TckValue::of_real(std::strtod(token.c_str(), nullptr));
    std::int64_t i = 0;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), i);
    if (ec != std::errc() || end != token.data() + token.size()) fail("integer out of range");
    return TckValue::of_int(i);
  }

  std::string string_literal() {
    ++pos_;  // the opening quote
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_++];
      if (c == '\'') return out;
      if (c == '\\' && pos_ < text_.size()) {
        const char n = text_[pos_];
        if (n == '\'' || n == '\\' || n == '"') {
          out += n;
          ++pos_;
          continue;
        }
      }
      out += c;
    }
  }

  std::string name() {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == '`') {
      const auto end = text_.find('`', pos_ + 1);
      if (end == std::string_view::npos) fail("unterminated `name`");
      std::string n(text_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
      return n;
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
    if (pos_ == start) fail("expected a name");
    return std::string(text_.substr(start, pos_ - start));
  }

  std::vector<std::pair<std::string, TckValue>> properties() {
    expect("{");
    std::vector<std::pair<std::string, TckValue>> entries;
    if (accept("}")) return entries;
    do {
      std::string key = name();
      expect(":");
      for (const auto& entry : entries) {
        if (entry.first == key) fail(fmt::format("duplicate key '{}'", key));
      }
      entries.emplace_back(std::move(key), value());
    } while (accept(","));
    expect("}");
    return entries;
  }

  TckValue node() {
    expect("(");
    TckValue v;
    v.kind = TckValue::Kind::node;
    while (accept(":")) v.labels.push_back(name());
    if (at("{")) v.entries = properties();
    expect(")");
    return v;
  }

  TckValue relationship() {
    expect("[");
    TckValue v;
    v.kind = TckValue::Kind::relationship;
    expect(":");
    v.labels.push_back(name());
    if (at("{")) v.entries = properties();
    expect("]");
    return v;
  }

  TckValue path() {
    expect("<");
    TckValue v;
    v.kind = TckValue::Kind::path;
    v.items.push_back(node());
    while (!accept(">")) {
      if (accept("<-")) {
        v.items.push_back(relationship());
        expect("-");
        v.forward.push_back(false);
      } else if (accept("-")) {
        v.items.push_back(relationship());
        expect("->");
        v.forward.push_back(true);
      } else {
        fail("expected '-', '<-' or '>' in a path");
      }
      v.items.push_back(node());
    }
    return v;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

std::string quote_string(std::string_view s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

std::string render_name(std::string_view n) {
  if (!n.empty() && std::all_of(n.begin(), n.end(), is_name_char) && !(n[0] >= '0' && n[0] <= '9')) {
    return std::string(n);
  }
  return fmt::format("`{}`", n);
}

std::string render_entries(const std::vector<std::pair<std::string, TckValue>>& entries, bool unordered) {
  std::vector<std::string> parts;
  parts.reserve(entries.size());
  for (const auto& [key, value] : entries) parts.push_back(render_name(key) + ": " + canonical(value, unordered));
  std::sort(parts.begin(), parts.end());
  return fmt::format("{{{}}}", fmt::join(parts, ", "));
}

std::string render_element(const TckValue& value, bool unordered) {
  std::vector<std::string> labels = value.labels;
  std::sort(labels.begin(), labels.end());
  std::string out;
  for (const auto& label : labels) out += ":" + render_name(label);
  if (!value.entries.empty()) {
    if (!out.empty()) out += ' ';
    out += render_entries(value.entries, unordered);
  }
  return value.kind == TckValue::Kind::node ? "(" + out + ")" : "[" + out + "]";
}

}  // namespace

TckValue parse_tck_value(std::string_view text) { return Parser(text).parse_whole(); }

std::string format_real(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d < 0 ? "-Inf" : "Inf";
  if (d == 0) return "0.0";  // floats compare by value, as the TCK's expected `0.0` for -0.0 shows
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string canonical(const TckValue& value, bool unordered_lists) {
  using Kind = TckValue::Kind;
  switch (value.kind) {
    case Kind::null: return "null";
    case Kind::boolean: return value.boolean ? "true" : "false";
    case Kind::integer: return std::to_string(value.integer);
    case Kind::real: return format_real(value.real);
    case Kind::string: return quote_string(value.string);
    case Kind::list: {
      std::vector<std::string> parts;
      parts.reserve(value.items.size());
      for (const auto& item : value.items) parts.push_back(canonical(item, unordered_lists));
      if (unordered_lists) std::sort(parts.begin(), parts.end());
      return fmt::format("[{}]", fmt::join(parts, ", "));
    }
    case Kind::map: return render_entries(value.entries, unordered_lists);
    case Kind::node:
    case Kind::relationship: return render_element(value, unordered_lists);
    case Kind::path: {
      std::string out = "<";
      for (std::size_t i = 0; i < value.items.size(); ++i) {
        if (i % 2 == 0) {
          out += render_element(value.items[i], unordered_lists);
          continue;
        }
        const bool forward = value.forward.at(i / 2);
        out += forward ? "-" : "<-";
        out += render_element(value.items[i], unordered_lists);
        out += forward ? "->" : "-";
      }
      return out + ">";
    }
  }
  return "?";
}

TckValue from_value(const Value& value) {
  switch (value.type()) {
    case ValueType::null: return TckValue::null();
    case ValueType::boolean: return TckValue::of_bool(value.as_bool());
    case ValueType::integer: return TckValue::of_int(value.as_int());
    case ValueType::real: return TckValue::of_real(value.as_double());
    case ValueType::string: return TckValue::of_string(value.as_string());
    case ValueType::list: {
      std::vector<TckValue> items;
      for (const auto& item : value.as_list()) items.push_back(from_value(item));
      return TckValue::of_list(std::move(items));
    }
  }
  return TckValue::null();
}

namespace {

std::vector<std::pair<std::string, TckValue>> from_properties(const Properties& properties) {
  std::vector<std::pair<std::string, TckValue>> entries;
  for (const auto& [key, value] : properties) entries.emplace_back(key, from_value(value));
  return entries;
}

TckValue from_vertex(const Vertex& vertex) {
  TckValue v;
  v.kind = TckValue::Kind::node;
  if (vertex.label != unlabeled_vertex_label) v.labels.push_back(vertex.label);
  v.entries = from_properties(vertex.properties);
  return v;
}

TckValue from_edge(const Edge& edge) {
  TckValue v;
  v.kind = TckValue::Kind::relationship;
  v.labels.push_back(edge.label);
  v.entries = from_properties(edge.properties);
  return v;
}

}  // namespace

TckValue from_query_value(const QueryValue& value) {
  using Type = QueryValue::Type;
  switch (value.type()) {
    case Type::null: return TckValue::null();
    case Type::boolean: return TckValue::of_bool(value.as_bool());
    case Type::integer: return TckValue::of_int(value.as_int());
    case Type::real: return TckValue::of_real(value.as_double());
    case Type::string: return TckValue::of_string(value.as_string());
    case Type::list: {
      std::vector<TckValue> items;
      for (const auto& item : value.as_list()) items.push_back(from_query_value(item));
      return TckValue::of_list(std::move(items));
    }
    case Type::map: {
      std::vector<std::pair<std::string, TckValue>> entries;
      for (const auto& [key, item] : value.as_map()) entries.emplace_back(key, from_query_value(item));
      return TckValue::of_map(std::move(entries));
    }
    case Type::vertex: return from_vertex(value.as_vertex());
    case Type::edge: return from_edge(value.as_edge());
    case Type::path: {
      const Path& path = value.as_path();
      TckValue v;
      v.kind = TckValue::Kind::path;
      if (path.vertices.size() != path.edges.size() + 1) {
        throw ValueSyntaxError(
            fmt::format("a path of {} vertices and {} edges", path.vertices.size(), path.edges.size()));
      }
      v.items.push_back(from_vertex(path.vertices.front()));
      for (std::size_t i = 0; i < path.edges.size(); ++i) {
        const Edge& edge = path.edges[i];
        v.items.push_back(from_edge(edge));
        v.forward.push_back(edge.from == path.vertices[i].id);
        v.items.push_back(from_vertex(path.vertices[i + 1]));
      }
      return v;
    }
  }
  return TckValue::null();
}

QueryValue to_query_value(const TckValue& value) {
  using Kind = TckValue::Kind;
  switch (value.kind) {
    case Kind::null: return QueryValue();
    case Kind::boolean: return QueryValue(value.boolean);
    case Kind::integer: return QueryValue(value.integer);
    case Kind::real: return QueryValue(value.real);
    case Kind::string: return QueryValue(value.string);
    case Kind::list: {
      QueryValue::List items;
      for (const auto& item : value.items) items.push_back(to_query_value(item));
      return QueryValue(std::move(items));
    }
    case Kind::map: {
      QueryValue::Map entries;
      for (const auto& [key, item] : value.entries) entries.emplace(key, to_query_value(item));
      return QueryValue(std::move(entries));
    }
    case Kind::node:
    case Kind::relationship:
    case Kind::path: break;
  }
  throw ValueSyntaxError(fmt::format("a parameter cannot be {}", canonical(value)));
}

}  // namespace propgraph::tck
