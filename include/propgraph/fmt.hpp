// {fmt} formatters for every model and result type, so `fmt::print("{}\n", vertex)` works,
// and for query results (QueryValue in Cypher's notation, QueryResult as a text table).
// Formats are for people (logs, test failures, the shell), not for parsing; use propgraph::io
// or propgraph::json to serialise.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "propgraph/model.hpp"
#include "propgraph/query.hpp"

namespace propgraph::detail {

/// Writes s as a double-quoted string with C-style escapes for quotes, backslashes and controls.
template <typename Out>
Out write_quoted(Out out, std::string_view s) {
  *out++ = '"';
  for (char c : s) {
    switch (c) {
      case '"': out = fmt::format_to(out, "\\\""); break;
      case '\\': out = fmt::format_to(out, "\\\\"); break;
      case '\n': out = fmt::format_to(out, "\\n"); break;
      case '\r': out = fmt::format_to(out, "\\r"); break;
      case '\t': out = fmt::format_to(out, "\\t"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out = fmt::format_to(out, "\\x{:02x}", static_cast<unsigned char>(c));
        } else {
          *out++ = c;
        }
    }
  }
  *out++ = '"';
  return out;
}

template <typename Out>
Out write_value(Out out, const Value& v) {
  switch (v.type()) {
    case ValueType::null: return fmt::format_to(out, "null");
    case ValueType::boolean: return fmt::format_to(out, "{}", v.as_bool());
    case ValueType::integer: return fmt::format_to(out, "{}", v.as_int());
    case ValueType::real: {
      // Keep doubles recognisable: 30.0 prints as "30.0", never as the int-looking "30".
      auto text = fmt::format("{}", v.as_double());
      if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
      return fmt::format_to(out, "{}", text);
    }
    case ValueType::string: return write_quoted(out, v.as_string());
    case ValueType::list: {
      *out++ = '[';
      bool first = true;
      for (const auto& item : v.as_list()) {
        if (!first) out = fmt::format_to(out, ", ");
        first = false;
        out = write_value(out, item);
      }
      *out++ = ']';
      return out;
    }
  }
  return out;
}

template <typename Out>
Out write_properties(Out out, const Properties& props) {
  *out++ = '{';
  bool first = true;
  for (const auto& [key, value] : props) {
    if (!first) out = fmt::format_to(out, ", ");
    first = false;
    out = fmt::format_to(out, "{}: ", key);
    out = write_value(out, value);
  }
  *out++ = '}';
  return out;
}

/// Base for formatters that take no format spec.
struct PlainFormatter {
  constexpr auto parse(fmt::format_parse_context& ctx) -> decltype(ctx.begin()) {
    auto it = ctx.begin();
    if (it != ctx.end() && *it != '}') throw fmt::format_error("propgraph types take no format spec");
    return it;
  }
};

}  // namespace propgraph::detail

template <>
struct fmt::formatter<propgraph::ElementId> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(const propgraph::ElementId& id, Ctx& ctx) const -> decltype(ctx.out()) {
    return fmt::formatter<std::string_view>::format(id.str(), ctx);
  }
};

template <>
struct fmt::formatter<propgraph::Direction> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(propgraph::Direction d, Ctx& ctx) const -> decltype(ctx.out()) {
    std::string_view name = d == propgraph::Direction::out ? "out" : d == propgraph::Direction::in ? "in" : "both";
    return fmt::formatter<std::string_view>::format(name, ctx);
  }
};

template <>
struct fmt::formatter<propgraph::ValueType> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(propgraph::ValueType t, Ctx& ctx) const -> decltype(ctx.out()) {
    return fmt::formatter<std::string_view>::format(propgraph::to_string(t), ctx);
  }
};

/// Strings print quoted, doubles always with a fraction or exponent: `"Alice"`, `30`, `30.0`.
template <>
struct fmt::formatter<propgraph::Value> : propgraph::detail::PlainFormatter {
  template <typename Ctx>
  auto format(const propgraph::Value& v, Ctx& ctx) const -> decltype(ctx.out()) {
    return propgraph::detail::write_value(ctx.out(), v);
  }
};

/// `{age: 30, name: "Alice"}`
template <>
struct fmt::formatter<propgraph::Properties> : propgraph::detail::PlainFormatter {
  template <typename Ctx>
  auto format(const propgraph::Properties& p, Ctx& ctx) const -> decltype(ctx.out()) {
    return propgraph::detail::write_properties(ctx.out(), p);
  }
};

/// `(v1:Person {age: 30, name: "Alice"})`
template <>
struct fmt::formatter<propgraph::Vertex> : propgraph::detail::PlainFormatter {
  template <typename Ctx>
  auto format(const propgraph::Vertex& v, Ctx& ctx) const -> decltype(ctx.out()) {
    auto out = fmt::format_to(ctx.out(), "({}:{} ", v.id, v.label);
    out = propgraph::detail::write_properties(out, v.properties);
    return fmt::format_to(out, ")");
  }
};

/// `[e1:KNOWS v1->v2 {since: 2020}]`
template <>
struct fmt::formatter<propgraph::Edge> : propgraph::detail::PlainFormatter {
  template <typename Ctx>
  auto format(const propgraph::Edge& e, Ctx& ctx) const -> decltype(ctx.out()) {
    auto out = fmt::format_to(ctx.out(), "[{}:{} {}->{} ", e.id, e.label, e.from, e.to);
    out = propgraph::detail::write_properties(out, e.properties);
    return fmt::format_to(out, "]");
  }
};

/// `v1 -KNOWS-> v2 <-FOLLOWS- v3 (2 edges)`: arrows show each edge's real direction.
template <>
struct fmt::formatter<propgraph::Path> : propgraph::detail::PlainFormatter {
  template <typename Ctx>
  auto format(const propgraph::Path& p, Ctx& ctx) const -> decltype(ctx.out()) {
    auto out = ctx.out();
    if (p.vertices.empty()) return fmt::format_to(out, "(empty path)");
    out = fmt::format_to(out, "{}", p.vertices.front().id);
    for (std::size_t i = 0; i < p.edges.size() && i + 1 < p.vertices.size(); ++i) {
      const auto& e = p.edges[i];
      bool forward = e.from == p.vertices[i].id && e.to == p.vertices[i + 1].id;
      out = forward ? fmt::format_to(out, " -{}-> {}", e.label, p.vertices[i + 1].id)
                    : fmt::format_to(out, " <-{}- {}", e.label, p.vertices[i + 1].id);
    }
    return fmt::format_to(out, " ({} edge{})", p.length(), p.length() == 1 ? "" : "s");
  }
};

/// `v1 0.4321`
template <>
struct fmt::formatter<propgraph::PageRankScore> : propgraph::detail::PlainFormatter {
  template <typename Ctx>
  auto format(const propgraph::PageRankScore& s, Ctx& ctx) const -> decltype(ctx.out()) {
    return fmt::format_to(ctx.out(), "{} {:.6f}", s.vertex.id, s.score);
  }
};

/// `v1 in=1 out=2 total=3`
template <>
struct fmt::formatter<propgraph::Degree> : propgraph::detail::PlainFormatter {
  template <typename Ctx>
  auto format(const propgraph::Degree& d, Ctx& ctx) const -> decltype(ctx.out()) {
    return fmt::format_to(ctx.out(), "{} in={} out={} total={}", d.id, d.in, d.out, d.total());
  }
};

/// `component 0: [v1, v2, v3]`
template <>
struct fmt::formatter<propgraph::Component> : propgraph::detail::PlainFormatter {
  template <typename Ctx>
  auto format(const propgraph::Component& c, Ctx& ctx) const -> decltype(ctx.out()) {
    auto out = fmt::format_to(ctx.out(), "component {}: [", c.id);
    for (std::size_t i = 0; i < c.vertices.size(); ++i) {
      out = fmt::format_to(out, "{}{}", i ? ", " : "", c.vertices[i].id);
    }
    return fmt::format_to(out, "]");
  }
};

/// `depth 1: v2 (from v1)`
template <>
struct fmt::formatter<propgraph::Visit> : propgraph::detail::PlainFormatter {
  template <typename Ctx>
  auto format(const propgraph::Visit& v, Ctx& ctx) const -> decltype(ctx.out()) {
    auto out = fmt::format_to(ctx.out(), "depth {}: {}", v.depth, v.vertex.id);
    if (v.parent) out = fmt::format_to(out, " (from {})", *v.parent);
    return out;
  }
};

/// `cycle v1 -KNOWS-> v2 -KNOWS-> v1 (2 edges)`
template <>
struct fmt::formatter<propgraph::Cycle> : propgraph::detail::PlainFormatter {
  template <typename Ctx>
  auto format(const propgraph::Cycle& c, Ctx& ctx) const -> decltype(ctx.out()) {
    return fmt::format_to(ctx.out(), "cycle {}", c.path);
  }
};

// -- query values and results ---------------------------------------------------------------------

namespace propgraph::detail {

/// True when `name` is written bare in Cypher: a letter or '_', then letters, digits and '_'
/// (bytes of multi-byte UTF-8 count as letters).
inline bool is_cypher_identifier(std::string_view name) noexcept {
  auto letter = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || static_cast<unsigned char>(c) >= 0x80;
  };
  if (name.empty() || !letter(name.front())) return false;
  return std::all_of(name.begin() + 1, name.end(), [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

/// Writes a label or map key: bare when it is an identifier, else `backquoted` (with `` for `).
template <typename Out>
Out write_cypher_name(Out out, std::string_view name) {
  if (is_cypher_identifier(name)) return fmt::format_to(out, "{}", name);
  *out++ = '`';
  for (char c : name) {
    if (c == '`') *out++ = '`';
    *out++ = c;
  }
  *out++ = '`';
  return out;
}

/// Writes s as a Cypher string literal: single quotes; \\, \', \n, \r, \t, \b, \f and \uXXXX for
/// the other control characters.
template <typename Out>
Out write_cypher_string(Out out, std::string_view s) {
  *out++ = '\'';
  for (char c : s) {
    switch (c) {
      case '\'': out = fmt::format_to(out, "\\'"); break;
      case '\\': out = fmt::format_to(out, "\\\\"); break;
      case '\n': out = fmt::format_to(out, "\\n"); break;
      case '\r': out = fmt::format_to(out, "\\r"); break;
      case '\t': out = fmt::format_to(out, "\\t"); break;
      case '\b': out = fmt::format_to(out, "\\b"); break;
      case '\f': out = fmt::format_to(out, "\\f"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f') {
          out = fmt::format_to(out, "\\u{:04X}", static_cast<unsigned char>(c));
        } else {
          *out++ = c;
        }
    }
  }
  *out++ = '\'';
  return out;
}

/// A double always with a fraction or exponent (1.0, 1e+20); NaN, Infinity and -Infinity.
template <typename Out>
Out write_cypher_double(Out out, double d) {
  if (std::isnan(d)) return fmt::format_to(out, "NaN");
  if (std::isinf(d)) return fmt::format_to(out, "{}", d < 0 ? "-Infinity" : "Infinity");
  auto text = fmt::format("{}", d);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return fmt::format_to(out, "{}", text);
}

/// A property value in Cypher's notation: null, true, 1, 1.0, 'text', [1, 'a'].
template <typename Out>
Out write_cypher_value(Out out, const Value& v) {
  switch (v.type()) {
    case ValueType::null: return fmt::format_to(out, "null");
    case ValueType::boolean: return fmt::format_to(out, "{}", v.as_bool());
    case ValueType::integer: return fmt::format_to(out, "{}", v.as_int());
    case ValueType::real: return write_cypher_double(out, v.as_double());
    case ValueType::string: return write_cypher_string(out, v.as_string());
    case ValueType::list: {
      *out++ = '[';
      bool first = true;
      for (const auto& item : v.as_list()) {
        if (!first) out = fmt::format_to(out, ", ");
        first = false;
        out = write_cypher_value(out, item);
      }
      *out++ = ']';
      return out;
    }
  }
  return out;
}

/// ` {age: 30, name: 'Ann'}` (with the leading space), nothing for no properties.
template <typename Out>
Out write_cypher_properties(Out out, const Properties& props) {
  if (props.empty()) return out;
  out = fmt::format_to(out, " {{");
  bool first = true;
  for (const auto& [key, value] : props) {
    if (!first) out = fmt::format_to(out, ", ");
    first = false;
    out = write_cypher_name(out, key);
    out = fmt::format_to(out, ": ");
    out = write_cypher_value(out, value);
  }
  *out++ = '}';
  return out;
}

/// `(g1:v3:Person {name: 'Ann'})`: id, label (none for unlabeled_vertex_label), properties.
template <typename Out>
Out write_query_vertex(Out out, const Vertex& v) {
  out = fmt::format_to(out, "({}", v.id.str());
  if (v.label != unlabeled_vertex_label) {
    *out++ = ':';
    out = write_cypher_name(out, v.label);
  }
  out = write_cypher_properties(out, v.properties);
  *out++ = ')';
  return out;
}

/// `[g1:e1:KNOWS g1:v1->g1:v2 {since: 2020}]`; inside a path the endpoints are left out.
template <typename Out>
Out write_query_edge(Out out, const Edge& e, bool endpoints) {
  out = fmt::format_to(out, "[{}:", e.id.str());
  out = write_cypher_name(out, e.label);
  if (endpoints) out = fmt::format_to(out, " {}->{}", e.from.str(), e.to.str());
  out = write_cypher_properties(out, e.properties);
  *out++ = ']';
  return out;
}

/// `<(g1:v1:A)-[g1:e1:T]->(g1:v2:B)<-[g1:e2:T]-(g1:v3:C)>`: arrows show each edge's direction.
template <typename Out>
Out write_query_path(Out out, const Path& p) {
  *out++ = '<';
  if (!p.vertices.empty()) out = write_query_vertex(out, p.vertices.front());
  for (std::size_t i = 0; i < p.edges.size() && i + 1 < p.vertices.size(); ++i) {
    const Edge& e = p.edges[i];
    const bool forward = e.from == p.vertices[i].id && e.to == p.vertices[i + 1].id;
    out = fmt::format_to(out, "{}", forward ? "-" : "<-");
    out = write_query_edge(out, e, false);
    out = fmt::format_to(out, "{}", forward ? "->" : "-");
    out = write_query_vertex(out, p.vertices[i + 1]);
  }
  *out++ = '>';
  return out;
}

template <typename Out>
Out write_query_value(Out out, const QueryValue& v) {
  switch (v.type()) {
    case QueryValue::Type::null: return fmt::format_to(out, "null");
    case QueryValue::Type::boolean: return fmt::format_to(out, "{}", v.as_bool());
    case QueryValue::Type::integer: return fmt::format_to(out, "{}", v.as_int());
    case QueryValue::Type::real: return write_cypher_double(out, v.as_double());
    case QueryValue::Type::string: return write_cypher_string(out, v.as_string());
    case QueryValue::Type::list: {
      *out++ = '[';
      bool first = true;
      for (const auto& item : v.as_list()) {
        if (!first) out = fmt::format_to(out, ", ");
        first = false;
        out = write_query_value(out, item);
      }
      *out++ = ']';
      return out;
    }
    case QueryValue::Type::map: {
      *out++ = '{';
      bool first = true;
      for (const auto& [key, item] : v.as_map()) {
        if (!first) out = fmt::format_to(out, ", ");
        first = false;
        out = write_cypher_name(out, key);
        out = fmt::format_to(out, ": ");
        out = write_query_value(out, item);
      }
      *out++ = '}';
      return out;
    }
    case QueryValue::Type::vertex: return write_query_vertex(out, v.as_vertex());
    case QueryValue::Type::edge: return write_query_edge(out, v.as_edge(), true);
    case QueryValue::Type::path: return write_query_path(out, v.as_path());
  }
  return out;
}

/// Columns a terminal gives UTF-8 text: one per code point (continuation bytes do not count).
inline std::size_t display_width(std::string_view s) noexcept {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

}  // namespace propgraph::detail

/// Cypher's notation, for people: `null`, `true`, `1`, `1.0` (doubles keep a fraction or
/// exponent; `NaN`, `Infinity`), `'it\'s'` (single quotes, escaped), `[1, 2]`, `{a: 1, b: 'x'}`
/// (keys in ascending order, backquoted unless identifiers). Graph elements carry their ids:
/// a node `(g1:v3:Person {name: 'Ann'})` is id, then label, then properties (a node with the
/// label propgraph::unlabeled_vertex_label prints without one: `(g1:v4)`); a relationship
/// `[g1:e1:KNOWS g1:v1->g1:v2 {since: 2020}]` adds its endpoints; a path prints its nodes and
/// relationships (without endpoints), the arrows showing each one's direction:
/// `<(g1:v1:Person)-[g1:e1:KNOWS]->(g1:v2:Person)<-[g1:e2:KNOWS]-(g1:v3:Person)>`. Empty
/// property maps are left out.
template <>
struct fmt::formatter<propgraph::QueryValue> : propgraph::detail::PlainFormatter {
  template <typename Ctx>
  auto format(const propgraph::QueryValue& v, Ctx& ctx) const -> decltype(ctx.out()) {
    return propgraph::detail::write_query_value(ctx.out(), v);
  }
};

/// What a query changed, counts that are zero left out: `2 vertices created, 1 edge created,
/// 3 properties set`; `no changes` when nothing changed (statements_sent is not shown).
template <>
struct fmt::formatter<propgraph::QueryStats> : propgraph::detail::PlainFormatter {
  template <typename Ctx>
  auto format(const propgraph::QueryStats& s, Ctx& ctx) const -> decltype(ctx.out()) {
    auto out = ctx.out();
    bool first = true;
    auto count = [&](std::int64_t n, std::string_view one, std::string_view many, std::string_view what) {
      if (n == 0) return;
      out = fmt::format_to(out, "{}{} {} {}", first ? "" : ", ", n, n == 1 ? one : many, what);
      first = false;
    };
    count(s.vertices_created, "vertex", "vertices", "created");
    count(s.edges_created, "edge", "edges", "created");
    count(s.vertices_deleted, "vertex", "vertices", "deleted");
    count(s.edges_deleted, "edge", "edges", "deleted");
    count(s.properties_set, "property", "properties", "set");
    if (first) out = fmt::format_to(out, "no changes");
    return out;
  }
};

/// An aligned text table of the rows (values as the QueryValue formatter writes them), then a
/// footer line: `2 rows`, followed by the changes when the query made any (`1 row; 1 vertex
/// created, 2 properties set`). A result without columns prints only the footer. No newline
/// after the footer.
///
///     +--------+-------+
///     | n.name | n.age |
///     +--------+-------+
///     | 'Ann'  | 30    |
///     | 'Bob'  | 25    |
///     +--------+-------+
///     2 rows
template <>
struct fmt::formatter<propgraph::QueryResult> : propgraph::detail::PlainFormatter {
  template <typename Ctx>
  auto format(const propgraph::QueryResult& r, Ctx& ctx) const -> decltype(ctx.out()) {
    using propgraph::detail::display_width;
    auto out = ctx.out();
    if (!r.columns.empty()) {
      std::vector<std::vector<std::string>> cells;
      cells.reserve(r.rows.size());
      std::vector<std::size_t> widths;
      widths.reserve(r.columns.size());
      for (const auto& column : r.columns) widths.push_back(display_width(column));
      for (const auto& row : r.rows) {
        auto& line = cells.emplace_back();
        for (std::size_t c = 0; c < r.columns.size(); ++c) {
          line.push_back(c < row.size() ? fmt::format("{}", row[c]) : std::string());
          widths[c] = std::max(widths[c], display_width(line.back()));
        }
      }
      auto rule = [&] {
        for (std::size_t width : widths) out = fmt::format_to(out, "+{:-<{}}", "", width + 2);
        out = fmt::format_to(out, "+\n");
      };
      auto line = [&](const std::vector<std::string>& texts) {
        for (std::size_t c = 0; c < widths.size(); ++c) {
          out = fmt::format_to(out, "| {}{:<{}} ", texts[c], "", widths[c] - display_width(texts[c]));
        }
        out = fmt::format_to(out, "|\n");
      };
      rule();
      line(r.columns);
      rule();
      for (const auto& row : cells) line(row);
      rule();
    }
    out = fmt::format_to(out, "{} row{}", r.rows.size(), r.rows.size() == 1 ? "" : "s");
    if (r.stats.contains_updates()) out = fmt::format_to(out, "; {}", r.stats);
    return out;
  }
};
