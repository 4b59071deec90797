#include "propgraph/io/csv.hpp"

#include <algorithm>
#include <istream>
#include <ostream>

#include <fmt/format.h>

#include "io/csv_scanner.hpp"
#include "io/export_common.hpp"
#include "io/session.hpp"
#include "io/values.hpp"

namespace propgraph::io {

using detail::CsvField;
using detail::CsvScanner;
using detail::ElementKind;
using detail::ImportSession;
using detail::Location;
using detail::ValueKind;

namespace {

// -- import -----------------------------------------------------------------------------------

enum class Role { id, start_id, end_id, label, ignore, property };

struct CsvColumn {
  Role role = Role::property;
  ValueKind kind = ValueKind::string;
  std::string name;  // property name; for an id column, the property that also stores the id
};

struct Layout {
  std::vector<CsvColumn> columns;
  std::size_t id = SIZE_MAX;
  std::size_t start = SIZE_MAX;
  std::size_t end = SIZE_MAX;
  std::size_t label = SIZE_MAX;
  std::size_t properties = 0;  // property columns, plus id columns stored as a property
};

constexpr std::string_view kKnownTypes =
    "int, long, double, float, boolean, string, json, an array type such as string[], or the "
    "special types ID, LABEL, START_ID, END_ID, TYPE, IGNORE";

/// Reads the header record into a layout; nullopt after reporting every header problem.
std::optional<Layout> read_header(ImportSession& session, std::uint32_t source, const std::vector<CsvField>& fields,
                                  ElementKind kind) {
  Layout layout;
  const std::size_t errors_before = session.errors();
  const bool vertices = kind == ElementKind::vertex;
  auto header_error = [&](const CsvField& f, std::string message) {
    session.error({source, f.offset}, "header", std::string(f.text), std::move(message));
  };
  auto claim = [&](std::size_t& slot, std::size_t i, const char* what) {
    if (slot != SIZE_MAX) {
      header_error(fields[i], fmt::format("a second {} column", what));
    } else {
      slot = i;
    }
  };
  std::vector<std::string> names;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const CsvField& f = fields[i];
    CsvColumn column;
    std::string_view text = f.text;
    std::string_view tag;
    if (auto colon = text.rfind(':'); colon != std::string_view::npos) {
      tag = text.substr(colon + 1);
      text = text.substr(0, colon);
    }
    column.name = std::string(text);
    using detail::equals_ignore_case;
    if (tag.empty() && f.text.find(':') == std::string_view::npos) {
      column.kind = ValueKind::string;
    } else if (equals_ignore_case(tag, "id")) {
      column.role = Role::id;
      claim(layout.id, i, ":ID");
    } else if (equals_ignore_case(tag, "label") || equals_ignore_case(tag, "type")) {
      if (vertices && equals_ignore_case(tag, "type")) {
        header_error(f, ":TYPE belongs in the edges file (vertices use :LABEL)");
      }
      column.role = Role::label;
      claim(layout.label, i, "label");
    } else if (equals_ignore_case(tag, "start_id") || equals_ignore_case(tag, "end_id")) {
      const bool start = equals_ignore_case(tag, "start_id");
      if (vertices) header_error(f, fmt::format(":{} belongs in the edges file", start ? "START_ID" : "END_ID"));
      column.role = start ? Role::start_id : Role::end_id;
      claim(start ? layout.start : layout.end, i, start ? ":START_ID" : ":END_ID");
    } else if (equals_ignore_case(tag, "ignore")) {
      column.role = Role::ignore;
    } else if (auto type = detail::parse_csv_type(tag)) {
      column.kind = *type;
    } else {
      header_error(f, fmt::format("unknown type '{}' (expected {})", tag, kKnownTypes));
    }
    const bool stored = column.role == Role::property || (column.role == Role::id && !column.name.empty());
    if (stored) {
      if (auto fault = property_key_fault(column.name); !fault.empty()) {
        header_error(f, fmt::format("property name '{}' is invalid: {}", column.name, fault));
      }
      if (std::find(names.begin(), names.end(), column.name) != names.end()) {
        header_error(f, fmt::format("a second column for property '{}'", column.name));
      }
      names.push_back(column.name);
      ++layout.properties;
    }
    if (column.role != Role::id && column.role != Role::property) column.name.clear();
    if (column.role == Role::id && !column.name.empty()) column.kind = ValueKind::string;
    layout.columns.push_back(std::move(column));
  }
  const Location header_at{source, fields.empty() ? 0 : fields.front().offset};
  if (vertices && layout.id == SIZE_MAX) {
    session.error(header_at, "header", "", "the vertices file needs an :ID column");
  }
  if (!vertices && (layout.start == SIZE_MAX || layout.end == SIZE_MAX)) {
    session.error(header_at, "header", "", "the edges file needs :START_ID and :END_ID columns");
  }
  if (session.errors() != errors_before) return std::nullopt;
  return layout;
}

/// The Value of a property cell; false with `why` when the text does not parse.
bool cell_value(std::string_view text, ValueKind kind, detail::JsonReader& json, Value& out, std::string& why) {
  if (kind == ValueKind::json) return json.parse(text, out, why);
  if (!detail::is_list(kind)) return detail::parse_scalar(text, kind, out, why);
  const ValueKind element = detail::element_kind(kind);
  ValueList list;
  std::size_t start = 0;
  for (;;) {
    std::size_t stop = text.find(';', start);
    std::string_view item = text.substr(start, stop == std::string_view::npos ? std::string_view::npos : stop - start);
    Value v;
    if (!detail::parse_scalar(item, element, v, why)) {
      why = fmt::format("element {} of the array: {}", list.size() + 1, why);
      return false;
    }
    list.push_back(std::move(v));
    if (stop == std::string_view::npos) break;
    start = stop + 1;
  }
  out = Value(std::move(list));
  return true;
}

void read_csv(ImportSession& session, std::uint32_t source, ElementKind kind) {
  auto& text = session.source(source);
  const std::string_view all = text.text();
  CsvScanner scanner(all, detail::bom_length(all), session.arena(), session.options().max_record_bytes);
  std::vector<CsvField> fields;
  auto stop_on_scan_error = [&] {
    session.error({source, scanner.error_offset()}, "", "", scanner.error());
    session.abandon_source();
  };

  auto result = scanner.next(fields);
  if (result == CsvScanner::Result::error) return stop_on_scan_error();
  if (result == CsvScanner::Result::end) {
    session.error({source, 0}, "", "", "the file is empty: expected a header line");
    session.abandon_source();
    return;
  }
  auto layout = read_header(session, source, fields, kind);
  if (!layout) {
    session.abandon_source();
    return;
  }
  const auto& columns = layout->columns;
  const bool vertices = kind == ElementKind::vertex;
  // Columns that give properties, by name: entries then come sorted, as Properties keeps them.
  std::vector<std::size_t> property_columns;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].role == Role::property || (columns[i].role == Role::id && !columns[i].name.empty())) {
      property_columns.push_back(i);
    }
  }
  std::sort(property_columns.begin(), property_columns.end(),
            [&](std::size_t a, std::size_t b) { return columns[a].name < columns[b].name; });
  const std::size_t lines = detail::count_lines(all);
  session.reserve(vertices ? lines : 0, vertices ? 0 : lines);
  detail::JsonReader json;
  std::string why;

  while (!session.stopped()) {
    result = scanner.next(fields);
    if (result == CsvScanner::Result::end) break;
    if (result == CsvScanner::Result::error) return stop_on_scan_error();
    const Location at{source, scanner.record_offset()};

    std::optional<std::string_view> id, from, to;
    auto element = [&]() {
      if (vertices) return detail::describe_vertex(id.value_or("?"));
      return detail::describe_edge(from.value_or("?"), to.value_or("?"));
    };
    auto broken = [&] {
      if (vertices) {
        session.add_broken_vertex(id);
      } else {
        session.add_broken_record();
      }
    };
    if (fields.size() != columns.size()) {
      session.error(at, "", "", fmt::format("expected {} fields, found {}", columns.size(), fields.size()));
      broken();
      continue;
    }
    // Ids first, so that problems name the record.
    bool ok = true;
    auto read_id = [&](std::size_t i, const char* what) -> std::optional<std::string_view> {
      if (fields[i].text.empty()) {
        session.error({source, fields[i].offset}, element(), what, "missing id");
        ok = false;
        return std::nullopt;
      }
      if (auto fault = string_fault(fields[i].text); !fault.empty()) {
        session.error({source, fields[i].offset}, element(), what, "id: " + fault);
        ok = false;
        return std::nullopt;
      }
      return fields[i].text;
    };
    if (vertices) {
      id = read_id(layout->id, "id");
    } else {
      from = read_id(layout->start, "from");
      to = read_id(layout->end, "to");
    }
    // An unquoted empty label field gives none (the default applies); a quoted empty one is blank.
    std::optional<std::string_view> label_text;
    if (layout->label != SIZE_MAX && (!fields[layout->label].text.empty() || fields[layout->label].quoted)) {
      label_text = fields[layout->label].text;
    }
    auto label = session.label(label_text, kind, why);
    if (!label) {
      Location label_at = layout->label == SIZE_MAX ? at : Location{source, fields[layout->label].offset};
      session.error(label_at, element(), "label", why);
      ok = false;
    }

    std::vector<Properties::Entry> entries;
    entries.reserve(layout->properties);
    for (std::size_t i : property_columns) {
      const CsvColumn& column = columns[i];
      const CsvField& f = fields[i];
      if (f.text.empty() && !f.quoted) continue;  // no such property
      if (column.role == Role::id) {  // the record's id, checked with it
        entries.emplace_back(column.name, Value(f.text));
        continue;
      }
      Value value;
      if (!cell_value(f.text, column.kind, json, value, why)) {
        session.error({source, f.offset}, element(), column.name, why);
        ok = false;
        continue;
      }
      if (auto fault = value_fault(value); !fault.empty()) {
        session.error({source, f.offset}, element(), column.name, fault);
        ok = false;
        continue;
      }
      if (!value.is_null()) entries.emplace_back(column.name, std::move(value));
    }
    const std::string_view edge_id = !vertices && layout->id != SIZE_MAX ? fields[layout->id].text : "";
    if (auto fault = string_fault(edge_id); !fault.empty()) {
      session.error({source, fields[layout->id].offset}, element(), "id", "id: " + fault);
      ok = false;
    }
    if (!ok) {
      broken();
      continue;
    }
    if (vertices) {
      session.add_vertex(at, *id, true, *label, Properties(std::move(entries)));
    } else {
      session.add_edge(at, {source, fields[layout->start].offset}, {source, fields[layout->end].offset}, *from, *to,
                       true, *label, Properties(std::move(entries)), edge_id);
    }
  }
  if (session.stopped()) session.abandon_source();
}

// -- export -----------------------------------------------------------------------------------

void append_cell(std::string& out, const Value& value, ValueKind kind, std::string& scratch) {
  switch (kind) {
    case ValueKind::boolean: out += value.as_bool() ? "true" : "false"; return;
    case ValueKind::integer: detail::append_int(out, value.as_int()); return;
    case ValueKind::real: detail::append_double(out, value.as_double()); return;
    case ValueKind::string: detail::append_csv_field(out, value.as_string()); return;
    case ValueKind::json:
      scratch.clear();
      detail::append_json(scratch, value);
      detail::append_csv_field(out, scratch);
      return;
    default: {
      scratch.clear();
      bool first = true;
      for (const auto& item : value.as_list()) {
        if (!first) scratch += ';';
        first = false;
        switch (item.type()) {
          case ValueType::boolean: scratch += item.as_bool() ? "true" : "false"; break;
          case ValueType::integer: detail::append_int(scratch, item.as_int()); break;
          case ValueType::real: detail::append_double(scratch, item.as_double()); break;
          default: scratch += item.as_string(); break;
        }
      }
      detail::append_csv_field(out, scratch);
    }
  }
}

template <typename Element>
std::vector<detail::Column> columns_of(const std::vector<Element>& elements) {
  std::vector<const Properties*> props;
  props.reserve(elements.size());
  for (const auto& e : elements) props.push_back(&e.properties);
  return detail::infer_columns(props, detail::TypedFormat::csv);
}

void append_header(std::string& out, std::initializer_list<std::string_view> fixed,
                   const std::vector<detail::Column>& columns) {
  bool first = true;
  for (auto name : fixed) {
    if (!first) out += ',';
    first = false;
    out += name;
  }
  for (const auto& c : columns) {
    out += ',';
    detail::append_csv_field(out, c.name + ":" + std::string(detail::csv_type_name(c.kind)));
  }
  out += '\n';
}

void append_properties(std::string& out, const Properties& props, const std::vector<detail::Column>& columns,
                       std::string& scratch) {
  // Both sorted by name: one merge pass.
  auto it = props.begin();
  for (const auto& c : columns) {
    out += ',';
    while (it != props.end() && it->first < c.name) ++it;
    if (it != props.end() && it->first == c.name) append_cell(out, it->second, c.kind, scratch);
  }
}

ExportReport write_csv(GraphOperations& graph, std::ostream& vertices_out, std::ostream& edges_out,
                       const ExportOptions& options) {
  detail::ExportClock clock;
  ExportReport report;
  report.format = "csv";
  std::string scratch;
  {
    auto vertices = detail::collect_vertices(graph, options);
    auto columns = columns_of(vertices);
    detail::Output out(vertices_out);
    append_header(out.text(), {":ID", ":LABEL"}, columns);
    for (const auto& v : vertices) {
      detail::append_csv_field(out.text(), v.id.str());
      out.text() += ',';
      out.text() += v.label;
      append_properties(out.text(), v.properties, columns, scratch);
      out.text() += '\n';
      out.maybe_flush();
    }
    out.flush();
    report.vertices_written = vertices.size();
    report.bytes_written += out.bytes();
  }
  {
    auto edges = detail::collect_edges(graph, options);
    auto columns = columns_of(edges);
    detail::Output out(edges_out);
    append_header(out.text(), {":ID", ":START_ID", ":END_ID", ":TYPE"}, columns);
    for (const auto& e : edges) {
      detail::append_csv_field(out.text(), e.id.str());
      out.text() += ',';
      detail::append_csv_field(out.text(), e.from.str());
      out.text() += ',';
      detail::append_csv_field(out.text(), e.to.str());
      out.text() += ',';
      out.text() += e.label;
      append_properties(out.text(), e.properties, columns, scratch);
      out.text() += '\n';
      out.maybe_flush();
    }
    out.flush();
    report.edges_written = edges.size();
    report.bytes_written += out.bytes();
  }
  report.elapsed = clock.elapsed();
  return report;
}

}  // namespace

ImportReport import_csv(GraphOperations& graph, const std::filesystem::path& vertices,
                        const std::filesystem::path& edges, const ImportOptions& options) {
  ImportSession session("csv", options);
  if (auto source = session.open(vertices)) read_csv(session, *source, ElementKind::vertex);
  if (!edges.empty() && !session.stopped()) {
    if (auto source = session.open(edges)) read_csv(session, *source, ElementKind::edge);
  }
  return session.commit(graph);
}

ImportReport import_csv(GraphOperations& graph, std::istream& vertices, std::istream& edges,
                        const ImportOptions& options, std::string_view vertices_name, std::string_view edges_name) {
  ImportSession session("csv", options);
  if (auto source = session.open(vertices, vertices_name)) read_csv(session, *source, ElementKind::vertex);
  if (!session.stopped()) {
    if (auto source = session.open(edges, edges_name)) read_csv(session, *source, ElementKind::edge);
  }
  return session.commit(graph);
}

ExportReport export_csv(GraphOperations& graph, const std::filesystem::path& vertices,
                        const std::filesystem::path& edges, const ExportOptions& options) {
  detail::AtomicFile vertices_file(vertices);
  detail::AtomicFile edges_file(edges);
  auto report = write_csv(graph, vertices_file.stream(), edges_file.stream(), options);
  vertices_file.commit();
  edges_file.commit();
  return report;
}

ExportReport export_csv(GraphOperations& graph, std::ostream& vertices, std::ostream& edges,
                        const ExportOptions& options) {
  return write_csv(graph, vertices, edges, options);
}

}  // namespace propgraph::io
