#include "propgraph/io/ndjson.hpp"

#include <algorithm>
#include <cstring>
#include <istream>
#include <ostream>

#include <fmt/format.h>

#include "io/export_common.hpp"
#include "io/session.hpp"
#include "io/values.hpp"

// simdjson's DOM API rather than On Demand: On Demand is compiled into this library for the
// baseline CPU (its scalar fallback), while the DOM parser dispatches at run time to the
// widest SIMD kernel the machine has, and validates each line completely.

namespace propgraph::io {

using detail::ElementKind;
using detail::ImportSession;
using detail::Location;

namespace {

// -- import -----------------------------------------------------------------------------------

/// Offset of the `occurrence`-th (from 0) `"key"` within a line, for locating a problem in a
/// field; 0 when not found.
std::size_t key_column(std::string_view line, std::string_view key, int occurrence = 0) {
  std::string quoted;
  quoted.reserve(key.size() + 2);
  quoted.append(1, '"').append(key).append(1, '"');
  auto at = line.find(quoted);
  while (occurrence-- > 0 && at != std::string_view::npos) at = line.find(quoted, at + 1);
  return at == std::string_view::npos ? 0 : at;
}

/// An id given as a string or an integer; nullopt (with `why`) for anything else.
std::optional<std::string_view> id_text(simdjson::dom::element value, std::string& scratch, std::string& why) {
  using simdjson::dom::element_type;
  switch (value.type()) {
    case element_type::STRING: {
      const std::string_view text = value.get_string().value_unsafe();
      if (auto fault = string_fault(text); !fault.empty()) {
        why = "id: " + fault;
        return std::nullopt;
      }
      return text;
    }
    case element_type::INT64:
      scratch.clear();
      detail::append_int(scratch, value.get_int64().value_unsafe());
      return std::string_view(scratch);
    case element_type::UINT64:
      scratch = std::to_string(value.get_uint64().value_unsafe());
      return std::string_view(scratch);
    default: why = "expected a string or an integer"; return std::nullopt;
  }
}

struct LineFields {
  std::optional<simdjson::dom::element> type, id, label, from, to, properties;
};

void read_line(ImportSession& session, std::uint32_t source, std::uint64_t line_offset, std::string_view line,
               simdjson::dom::parser& parser, std::string (&scratch)[3]) {
  const Location at{source, line_offset};
  auto field_at = [&](std::string_view key) -> Location { return {source, line_offset + key_column(line, key)}; };
  simdjson::dom::element doc;
  // The line lies inside the source, which is followed by zeroed padding: no copy needed.
  if (auto error = parser.parse(line.data(), line.size(), false).get(doc)) {
    session.error(at, "", "", fmt::format("invalid JSON: {}", simdjson::error_message(error)));
    session.add_broken_record();
    return;
  }
  simdjson::dom::object object;
  if (doc.get_object().get(object)) {
    session.error(at, "", "", "expected a JSON object: {\"type\": \"vertex\"|\"edge\", ...}");
    session.add_broken_record();
    return;
  }
  LineFields f;
  bool duplicate = false;
  for (auto [key, value] : object) {
    std::optional<simdjson::dom::element>* slot = nullptr;
    if (key == "type") slot = &f.type;
    else if (key == "id") slot = &f.id;
    else if (key == "label") slot = &f.label;
    else if (key == "from") slot = &f.from;
    else if (key == "to") slot = &f.to;
    else if (key == "properties") slot = &f.properties;
    else session.warning(field_at(key), "", std::string(key), "unknown key ignored");
    if (slot == nullptr) continue;
    if (*slot) {
      // JSON leaves duplicate names undefined; taking either one would hide an error.
      session.error({source, line_offset + key_column(line, key, 1)}, "", std::string(key),
                    "duplicate key in the record");
      duplicate = true;
    }
    *slot = value;
  }
  if (duplicate) {
    session.add_broken_record();
    return;
  }

  std::string_view type;
  if (!f.type || f.type->get_string().get(type) || (type != "vertex" && type != "edge")) {
    session.error(f.type ? field_at("type") : at, "", "type",
                  f.type ? "expected \"vertex\" or \"edge\"" : "missing: expected \"vertex\" or \"edge\"");
    session.add_broken_record();
    return;
  }
  const bool vertex = type == "vertex";
  std::string why;
  bool ok = true;

  // Ids first, so that problems name the record.
  // An id given as an integer is spelled out in `buffer`.
  auto read_id = [&](const std::optional<simdjson::dom::element>& value, const char* key, bool required,
                     std::string& buffer) -> std::optional<std::string_view> {
    if (!value || value->is_null()) {
      if (required) {
        session.error(at, "", key, "missing id");
        ok = false;
      }
      return std::nullopt;
    }
    auto text = id_text(*value, buffer, why);
    if (!text || text->empty()) {
      session.error(field_at(key), "", key, text ? "missing id (empty string)" : why);
      ok = false;
      return std::nullopt;
    }
    return *text;
  };
  std::optional<std::string_view> id, from, to;
  std::string_view edge_id;
  if (vertex) {
    id = read_id(f.id, "id", true, scratch[0]);
  } else {
    from = read_id(f.from, "from", true, scratch[0]);
    to = read_id(f.to, "to", true, scratch[1]);
    if (f.id && !f.id->is_null()) {
      if (auto text = id_text(*f.id, scratch[2], why)) {
        edge_id = *text;
      } else {
        session.error(field_at("id"), "", "id", why);
        ok = false;
      }
    }
  }
  auto element = [&] {
    if (vertex) return detail::describe_vertex(id.value_or("?"));
    return detail::describe_edge(from.value_or("?"), to.value_or("?"));
  };

  std::optional<std::string_view> label_text;
  if (f.label && !f.label->is_null()) {
    std::string_view text;
    if (f.label->get_string().get(text)) {
      session.error(field_at("label"), element(), "label", "expected a string");
      ok = false;
    }
    label_text = text;
  }
  auto label = session.label(label_text, vertex ? ElementKind::vertex : ElementKind::edge, why);
  if (!label && ok) {
    session.error(f.label ? field_at("label") : at, element(), "label", why);
    ok = false;
  }

  std::vector<Properties::Entry> entries;
  if (f.properties && !f.properties->is_null()) {
    simdjson::dom::object props;
    if (f.properties->get_object().get(props)) {
      session.error(field_at("properties"), element(), "properties", "expected an object");
      ok = false;
    } else {
      entries.reserve(props.size());
      std::vector<std::string_view> keys;
      keys.reserve(props.size());
      for (auto [key, value] : props) {
        Value v;
        keys.push_back(key);
        if (auto fault = property_key_fault(key); !fault.empty()) {
          session.error(key.empty() ? field_at("properties") : field_at(key), element(), std::string(key),
                        "property name is invalid: " + fault);
          ok = false;
        } else if (!detail::JsonReader::convert(value, v, why)) {
          session.error(field_at(key), element(), std::string(key), why);
          ok = false;
        } else if (auto value_problem = value_fault(v); !value_problem.empty()) {
          session.error(field_at(key), element(), std::string(key), value_problem);
          ok = false;
        } else if (!v.is_null()) {
          entries.emplace_back(std::string(key), std::move(v));
        }
      }
      std::sort(keys.begin(), keys.end());
      for (auto it = std::adjacent_find(keys.begin(), keys.end()); it != keys.end();
           it = std::adjacent_find(std::upper_bound(it, keys.end(), *it), keys.end())) {
        const std::size_t props_at = key_column(line, "properties");
        session.error({source, line_offset + props_at + key_column(line.substr(props_at), *it, 1)}, element(),
                      std::string(*it), "duplicate property name");
        ok = false;
      }
    }
  }
  if (!ok) {
    if (vertex) {
      session.add_broken_vertex(id);
    } else {
      session.add_broken_record();
    }
    return;
  }
  if (vertex) {
    session.add_vertex(at, *id, false, *label, Properties(std::move(entries)));
  } else {
    session.add_edge(at, ImportSession::kFindByName, ImportSession::kFindByName, *from, *to, false, *label,
                     Properties(std::move(entries)), edge_id);
  }
}

void read_ndjson(ImportSession& session, std::uint32_t source) {
  auto& text = session.source(source);
  const char* begin = text.data();
  const char* end = begin + text.size();
  const char* p = begin + detail::bom_length(text.text());
  const std::size_t limit = session.options().max_record_bytes;
  simdjson::dom::parser parser;
  std::string scratch[3];  // integer ids spelled out
  // Most lines are edges; vertex room grows as needed.
  session.reserve(0, detail::count_lines(text.text()));
  while (p < end && !session.stopped()) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    const char* line_end = nl ? nl : end;
    std::string_view line(p, static_cast<std::size_t>(line_end - p));
    const auto offset = static_cast<std::uint64_t>(p - begin);
    p = nl ? nl + 1 : end;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;  // blank line
    if (line.size() > limit) {
      session.error({source, offset}, "", "", fmt::format("line longer than the limit of {} bytes", limit));
      session.add_broken_record();
      continue;
    }
    read_line(session, source, offset, line, parser, scratch);
  }
  if (session.stopped()) session.abandon_source();
}

// -- export -----------------------------------------------------------------------------------

void append_properties(std::string& out, const Properties& props) {
  out += "\"properties\":{";
  bool first = true;
  for (const auto& [key, value] : props) {
    if (!first) out += ',';
    first = false;
    detail::append_json_string(out, key);
    out += ':';
    detail::append_json(out, value);
  }
  out += "}}\n";
}

template <typename Element>
void append_record(std::string& out, const Element& element) {
  try {
    if constexpr (std::is_same_v<Element, Vertex>) {
      out += "{\"type\":\"vertex\",\"id\":";
      detail::append_json_string(out, element.id.str());
    } else {
      out += "{\"type\":\"edge\",\"id\":";
      detail::append_json_string(out, element.id.str());
    }
    out += ",\"label\":";
    detail::append_json_string(out, element.label);
    if constexpr (std::is_same_v<Element, Edge>) {
      out += ",\"from\":";
      detail::append_json_string(out, element.from.str());
      out += ",\"to\":";
      detail::append_json_string(out, element.to.str());
    }
    out += ',';
    append_properties(out, element.properties);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("export: {}: {}", detail::describe(element), e.what()));
  }
}

ExportReport write_ndjson(GraphOperations& graph, std::ostream& stream, const ExportOptions& options) {
  detail::ExportClock clock;
  ExportReport report;
  report.format = "ndjson";
  detail::Output out(stream);
  {
    auto vertices = detail::collect_vertices(graph, options);
    for (const auto& v : vertices) {
      append_record(out.text(), v);
      out.maybe_flush();
    }
    report.vertices_written = vertices.size();
  }
  {
    auto edges = detail::collect_edges(graph, options);
    for (const auto& e : edges) {
      append_record(out.text(), e);
      out.maybe_flush();
    }
    report.edges_written = edges.size();
  }
  out.flush();
  report.bytes_written = out.bytes();
  report.elapsed = clock.elapsed();
  return report;
}

}  // namespace

ImportReport import_ndjson(GraphOperations& graph, const std::filesystem::path& path, const ImportOptions& options) {
  ImportSession session("ndjson", options);
  if (auto source = session.open(path)) read_ndjson(session, *source);
  return session.commit(graph);
}

ImportReport import_ndjson(GraphOperations& graph, std::istream& in, const ImportOptions& options,
                           std::string_view name) {
  ImportSession session("ndjson", options);
  if (auto source = session.open(in, name)) read_ndjson(session, *source);
  return session.commit(graph);
}

ExportReport export_ndjson(GraphOperations& graph, const std::filesystem::path& path, const ExportOptions& options) {
  detail::AtomicFile file(path);
  auto report = write_ndjson(graph, file.stream(), options);
  file.commit();
  return report;
}

ExportReport export_ndjson(GraphOperations& graph, std::ostream& out, const ExportOptions& options) {
  return write_ndjson(graph, out, options);
}

}  // namespace propgraph::io
