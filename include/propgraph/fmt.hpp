// {fmt} formatters for every model and result type, so `fmt::print("{}\n", vertex)` works.
// Formats are for people (logs, test failures), not for parsing; use propgraph::io to serialise.
#pragma once

#include <string_view>

#include <fmt/format.h>

#include "propgraph/model.hpp"

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
