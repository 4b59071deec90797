#include "propgraph/io/graphml.hpp"

#include <algorithm>
#include <cstring>
#include <istream>
#include <ostream>
#include <unordered_map>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "io/export_common.hpp"
#include "io/session.hpp"
#include "io/values.hpp"

namespace propgraph::io {

using detail::ElementKind;
using detail::ImportSession;
using detail::Location;
using detail::ValueKind;

namespace {

constexpr std::string_view kVertexLabelKey = "labelV";
constexpr std::string_view kEdgeLabelKey = "labelE";

// -- import -----------------------------------------------------------------------------------

struct Key {
  std::string name;
  ValueKind kind = ValueKind::string;
  bool nodes = false;
  bool edges = false;
  std::optional<Value> fallback;  // from <default>
};

std::string_view text_of(const char* s) { return {s, std::strlen(s)}; }

/// True for a code point XML 1.0 allows in a document (its Char production).
bool is_xml_char(std::uint32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
         (cp >= 0x10000 && cp <= 0x10FFFF);
}

struct IllegalChar {
  std::size_t offset;
  std::string message;
};

/// The first character XML 1.0 does not allow, written raw (a control other than tab, LF, CR;
/// U+FFFE, U+FFFF) or as a character reference (`&#0;`, `&#xD800;`, `&#x110000;`): pugixml
/// checks neither, and decodes such references into text that is not valid UTF-8 or cut at a
/// NUL. text is valid UTF-8.
std::optional<IllegalChar> find_illegal_char(std::string_view text) {
  std::string_view literal_end;  // inside a comment, CDATA section or processing instruction
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (!literal_end.empty() && text.substr(i, literal_end.size()) == literal_end) {
      literal_end = {};
    } else if (literal_end.empty() && c == '<') {
      const std::string_view rest = text.substr(i);
      if (rest.starts_with("<!--")) literal_end = "-->";
      if (rest.starts_with("<![CDATA[")) literal_end = "]]>";
      if (rest.starts_with("<?")) literal_end = "?>";
    }
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      return IllegalChar{i, fmt::format("character U+{:04X} is not allowed in XML 1.0", c)};
    }
    if (c == 0xEF && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xBF &&
        (static_cast<unsigned char>(text[i + 2]) & 0xFE) == 0xBE) {
      return IllegalChar{i, fmt::format("character U+{:04X} is not allowed in XML 1.0",
                                        0xFFFEu + (static_cast<unsigned char>(text[i + 2]) & 1u))};
    }
    if (c != '&' || !literal_end.empty() || i + 2 >= text.size() || text[i + 1] != '#') continue;
    const bool hex = text[i + 2] == 'x';
    std::size_t j = i + (hex ? 3 : 2);
    std::uint32_t cp = 0;
    std::size_t digits = 0;
    for (; j < text.size(); ++j, ++digits) {
      const char d = text[j];
      std::uint32_t value;
      if (d >= '0' && d <= '9') {
        value = static_cast<std::uint32_t>(d - '0');
      } else if (hex && ((d >= 'a' && d <= 'f') || (d >= 'A' && d <= 'F'))) {
        value = static_cast<std::uint32_t>((d | 0x20) - 'a' + 10);
      } else {
        break;
      }
      cp = std::min<std::uint32_t>(cp * (hex ? 16 : 10) + value, 0x110000);  // saturate: no overflow
    }
    if (digits == 0 || j >= text.size() || text[j] != ';') continue;  // not a reference: pugixml judges
    if (!is_xml_char(cp)) {
      return IllegalChar{i, cp > 0x10FFFF
                                ? std::string("character reference beyond U+10FFFF")
                                : fmt::format("character reference to U+{:04X}, which XML 1.0 does not allow", cp)};
    }
  }
  return std::nullopt;
}

class GraphmlReader {
 public:
  GraphmlReader(ImportSession& session, std::uint32_t source) : session_(session), source_(source) {}

  void read() {
    auto& text = session_.source(source_);
    // Offsets of the DOM refer to the original bytes, which in-place parsing rewrites: record
    // the line starts first.
    text.index_lines();
    if (auto bad = find_illegal_char(text.text())) {
      session_.error({source_, bad->offset}, "", "", "malformed XML: " + bad->message);
      session_.abandon_source();
      return;
    }
    pugi::xml_document doc;
    const unsigned flags = pugi::parse_default | pugi::parse_ws_pcdata_single;
    auto parsed = doc.load_buffer_inplace(text.mutable_data(), text.size(), flags, pugi::encoding_utf8);
    if (!parsed) {
      session_.error({source_, static_cast<std::uint64_t>(std::max<std::ptrdiff_t>(parsed.offset, 0))}, "", "",
                     fmt::format("malformed XML: {}", parsed.description()));
      session_.abandon_source();
      return;
    }
    auto root = doc.child("graphml");
    if (!root) {
      session_.error({source_, 0}, "", "", "no <graphml> root element");
      session_.abandon_source();
      return;
    }
    if (!read_keys(root)) {
      session_.abandon_source();
      return;
    }
    auto graph = root.child("graph");
    if (!graph) {
      session_.error(at(root), "<graphml>", "", "no <graph> element");
      session_.abandon_source();
      return;
    }
    if (graph.next_sibling("graph")) {
      session_.warning(at(graph.next_sibling("graph")), "<graph>", "", "only the first <graph> is imported");
    }
    if (std::strcmp(graph.attribute("edgedefault").value(), "undirected") == 0) {
      session_.warning(at(graph), "<graph>", "edgedefault",
                       "undirected edges are imported as directed, from source to target");
    }
    std::size_t nodes = 0;
    std::size_t edges = 0;
    for (auto child : graph.children()) {
      const std::string_view name = child.name();
      nodes += name == "node";
      edges += name == "edge";
    }
    session_.reserve(nodes, edges);
    for (auto child : graph.children()) {
      if (session_.stopped()) break;
      if (child.type() != pugi::node_element) continue;
      std::string_view name = child.name();
      if (name == "node") {
        read_element(child, ElementKind::vertex);
      } else if (name == "edge") {
        read_element(child, ElementKind::edge);
      } else if (name == "hyperedge") {
        session_.error(at(child), "<hyperedge>", "", "hyperedges are not supported");
        session_.add_broken_record();
      } else if (name != "data" && name != "desc") {
        session_.warning(at(child), fmt::format("<{}>", name), "", "unknown element ignored");
      }
    }
    if (session_.stopped()) session_.abandon_source();
  }

 private:
  Location at(pugi::xml_node node) const {
    std::ptrdiff_t offset = node.offset_debug();  // of the element name, just after '<'
    return {source_, static_cast<std::uint64_t>(offset > 0 ? offset - 1 : 0)};
  }

  bool read_keys(pugi::xml_node root) {
    const std::size_t errors_before = session_.errors();
    for (auto node : root.children("key")) {
      std::string_view id = node.attribute("id").value();
      const std::string element = fmt::format("<key id=\"{}\">", id);
      if (id.empty()) {
        session_.error(at(node), "<key>", "id", "missing");
        continue;
      }
      Key key;
      auto name = node.attribute("attr.name");
      key.name = name ? name.value() : std::string(id);
      if (auto fault = property_key_fault(key.name); !fault.empty()) {
        session_.error(at(node), element, "attr.name", "property name is invalid: " + fault);
      }
      std::string_view domain = node.attribute("for").value();
      key.nodes = domain == "node" || domain == "all" || domain.empty();
      key.edges = domain == "edge" || domain == "all" || domain.empty();
      std::string_view type = node.attribute("attr.type").value();
      using detail::equals_ignore_case;
      if (type.empty() || equals_ignore_case(type, "string")) {
        key.kind = ValueKind::string;
      } else if (equals_ignore_case(type, "boolean")) {
        key.kind = ValueKind::boolean;
      } else if (equals_ignore_case(type, "int") || equals_ignore_case(type, "long")) {
        key.kind = ValueKind::integer;
      } else if (equals_ignore_case(type, "float") || equals_ignore_case(type, "double")) {
        key.kind = ValueKind::real;
      } else {
        session_.error(at(node), element, "attr.type",
                       fmt::format("unknown type '{}' (expected boolean, int, long, float, double or string)", type));
        continue;
      }
      std::string_view extension = node.attribute("propgraph.type").value();
      if (extension == "json" && key.kind == ValueKind::string) {
        key.kind = ValueKind::json;
      } else if (!extension.empty()) {
        session_.error(at(node), element, "propgraph.type",
                       fmt::format("unknown type '{}' (expected json, with attr.type string)", extension));
        continue;
      }
      if (auto fallback = node.child("default")) {
        Value v;
        std::string why;
        if (!convert(fallback.child_value(), key.kind, v, why)) {
          session_.error(at(fallback), element, "default", why);
          continue;
        }
        if (auto fault = value_fault(v); !fault.empty()) {
          session_.error(at(fallback), element, "default", fault);
          continue;
        }
        if (!v.is_null()) key.fallback = std::move(v);
      }
      if (!keys_.emplace(id, keys_list_.size()).second) {
        session_.error(at(node), element, "id", "a second key with this id");
        continue;
      }
      if (key.fallback) has_defaults_ = true;
      keys_list_.push_back(std::move(key));
    }
    seen_.assign(keys_list_.size(), 0);
    return session_.errors() == errors_before;
  }

  bool convert(std::string_view text, ValueKind kind, Value& out, std::string& why) {
    if (kind == ValueKind::json) return json_.parse(text, out, why);
    return detail::parse_scalar(text, kind, out, why);
  }

  void read_element(pugi::xml_node node, ElementKind kind) {
    const bool vertex = kind == ElementKind::vertex;
    const Location where = at(node);
    bool ok = true;
    std::optional<std::string_view> id, from, to;
    auto element = [&] {
      if (vertex) return fmt::format("<node id=\"{}\">", node.attribute("id").value());
      return fmt::format("<edge source=\"{}\" target=\"{}\">", node.attribute("source").value(),
                         node.attribute("target").value());
    };
    // Attribute values live in the parsed buffer for the session's life: stable views.
    auto read_id = [&](const char* attribute) -> std::optional<std::string_view> {
      std::string_view text = node.attribute(attribute).value();
      if (text.empty()) {
        session_.error(where, element(), attribute, "missing id");
        ok = false;
        return std::nullopt;
      }
      if (auto fault = string_fault(text); !fault.empty()) {
        session_.error(where, element(), attribute, "id: " + fault);
        ok = false;
        return std::nullopt;
      }
      return text;
    };
    std::string_view edge_id;
    if (vertex) {
      id = read_id("id");
    } else {
      from = read_id("source");
      to = read_id("target");
      edge_id = node.attribute("id").value();  // optional
      if (auto fault = string_fault(edge_id); !fault.empty()) {
        session_.error(where, element(), "id", "id: " + fault);
        ok = false;
      }
    }

    const std::string_view label_key = vertex ? kVertexLabelKey : kEdgeLabelKey;
    std::optional<std::string_view> label_text;
    std::vector<Properties::Entry> entries;
    const std::uint32_t stamp = ++stamp_;
    std::string why;
    for (auto child : node.children()) {
      if (child.type() != pugi::node_element) continue;
      std::string_view name = child.name();
      if (name == "graph") {
        session_.error(at(child), element(), "", "nested graphs are not supported");
        ok = false;
        continue;
      }
      if (name != "data") continue;  // <desc>, <port>
      auto first = child.first_child();
      if (first && first.type() == pugi::node_element) continue;  // markup only other tools read
      std::string_view key_id = child.attribute("key").value();
      std::string_view text = text_of(child.child_value());
      if (text.size() > session_.options().max_record_bytes) {
        session_.error(at(child), element(), std::string(key_id),
                       fmt::format("value longer than the limit of {} bytes", session_.options().max_record_bytes));
        ok = false;
        continue;
      }
      if (key_id == label_key) {
        label_text = text;
        continue;
      }
      auto it = keys_.find(key_id);
      if (it == keys_.end()) {
        session_.error(at(child), element(), std::string(key_id), "no <key> declares this key");
        ok = false;
        continue;
      }
      const Key& key = keys_list_[it->second];
      if (!(vertex ? key.nodes : key.edges)) {
        session_.error(at(child), element(), key.name,
                       fmt::format("the key is declared for {}", vertex ? "edges" : "nodes"));
        ok = false;
        continue;
      }
      seen_[it->second] = stamp;
      Value v;
      if (!convert(text, key.kind, v, why)) {
        session_.error(at(child), element(), key.name, why);
        ok = false;
        continue;
      }
      if (auto fault = value_fault(v); !fault.empty()) {
        session_.error(at(child), element(), key.name, fault);
        ok = false;
        continue;
      }
      if (!v.is_null()) entries.emplace_back(key.name, std::move(v));
    }
    if (has_defaults_) {
      for (std::size_t k = 0; k < keys_list_.size(); ++k) {
        const Key& key = keys_list_[k];
        if (key.fallback && seen_[k] != stamp && (vertex ? key.nodes : key.edges)) {
          entries.emplace_back(key.name, *key.fallback);
        }
      }
    }
    auto label = session_.label(label_text, kind, why);
    if (!label) {
      session_.error(where, element(), std::string(label_key), why);
      ok = false;
    }
    if (!ok) {
      if (vertex) {
        session_.add_broken_vertex(id);
      } else {
        session_.add_broken_record();
      }
      return;
    }
    if (vertex) {
      session_.add_vertex(where, *id, true, *label, Properties(std::move(entries)));
    } else {
      session_.add_edge(where, where, where, *from, *to, true, *label, Properties(std::move(entries)), edge_id);
    }
  }

  ImportSession& session_;
  std::uint32_t source_;
  std::unordered_map<std::string_view, std::size_t> keys_;
  std::vector<Key> keys_list_;
  std::vector<std::uint32_t> seen_;  // per key: stamp of the last element that had it
  std::uint32_t stamp_ = 0;
  bool has_defaults_ = false;
  detail::JsonReader json_;
};

// -- export -----------------------------------------------------------------------------------

/// Escapes &, <, > and CR (which parsers would otherwise turn into LF); inside a double-quoted
/// attribute also the quote, and tab and LF, so that attribute normalisation keeps them.
void append_xml_escaped(std::string& out, std::string_view text, bool attribute) {
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char* entity = nullptr;
    switch (text[i]) {
      case '&': entity = "&amp;"; break;
      case '<': entity = "&lt;"; break;
      case '>': entity = "&gt;"; break;
      case '\r': entity = "&#13;"; break;
      case '"': entity = attribute ? "&quot;" : nullptr; break;
      case '\n': entity = attribute ? "&#10;" : nullptr; break;
      case '\t': entity = attribute ? "&#9;" : nullptr; break;
      default: break;
    }
    if (entity == nullptr) continue;
    out.append(text.data() + run, i - run);
    out += entity;
    run = i + 1;
  }
  out.append(text.data() + run, text.size() - run);
}

void append_xml_text(std::string& out, std::string_view text) { append_xml_escaped(out, text, false); }
void append_xml_attribute(std::string& out, std::string_view text) { append_xml_escaped(out, text, true); }

void require_xml_text(std::string_view text, const std::string& what) {
  if (detail::has_non_xml_chars(text)) {
    throw InvalidArgument(fmt::format("export: {} holds characters XML 1.0 cannot carry", what));
  }
}

std::string_view graphml_type(ValueKind kind) {
  switch (kind) {
    case ValueKind::boolean: return "boolean";
    case ValueKind::integer: return "long";
    case ValueKind::real: return "double";
    default: return "string";
  }
}

template <typename Element>
std::vector<detail::Column> columns_of(const std::vector<Element>& elements) {
  std::vector<const Properties*> props;
  props.reserve(elements.size());
  for (const auto& e : elements) props.push_back(&e.properties);
  return detail::infer_columns(props, detail::TypedFormat::graphml);
}

void append_keys(std::string& out, const std::vector<detail::Column>& columns, char prefix, const char* domain) {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const auto& c = columns[i];
    fmt::format_to(std::back_inserter(out), "  <key id=\"{}{}\" for=\"{}\" attr.name=\"", prefix, i, domain);
    append_xml_attribute(out, c.name);
    out += "\" attr.type=\"";
    out += graphml_type(c.kind);
    out += c.kind == ValueKind::json ? "\" propgraph.type=\"json\"/>\n" : "\"/>\n";
  }
}

void append_data(std::string& out, const Properties& props, const std::vector<detail::Column>& columns, char prefix,
                 std::string& scratch) {
  auto it = props.begin();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const auto& c = columns[i];
    while (it != props.end() && it->first < c.name) ++it;
    if (it == props.end() || it->first != c.name) continue;
    const Value& v = it->second;
    out += "<data key=\"";
    out += prefix;
    detail::append_int(out, static_cast<std::int64_t>(i));
    out += "\">";
    switch (c.kind) {
      case ValueKind::boolean: out += v.as_bool() ? "true" : "false"; break;
      case ValueKind::integer: detail::append_int(out, v.as_int()); break;
      case ValueKind::real: detail::append_double(out, v.as_double()); break;
      case ValueKind::string: append_xml_text(out, v.as_string()); break;
      default:
        scratch.clear();
        detail::append_json(scratch, v);
        append_xml_text(out, scratch);
    }
    out += "</data>";
  }
}

template <typename Element>
void append_element(std::string& out, const Element& e, const std::vector<detail::Column>& columns,
                    std::string& scratch) {
  try {
    require_xml_text(e.id.str(), "the id");
    if constexpr (std::is_same_v<Element, Vertex>) {
      out += "    <node id=\"";
      append_xml_attribute(out, e.id.str());
      out += "\"><data key=\"labelV\">";
    } else {
      require_xml_text(e.from.str(), "the source id");
      require_xml_text(e.to.str(), "the target id");
      out += "    <edge id=\"";
      append_xml_attribute(out, e.id.str());
      out += "\" source=\"";
      append_xml_attribute(out, e.from.str());
      out += "\" target=\"";
      append_xml_attribute(out, e.to.str());
      out += "\"><data key=\"labelE\">";
    }
    out += e.label;
    out += "</data>";
    append_data(out, e.properties, columns, std::is_same_v<Element, Vertex> ? 'v' : 'e', scratch);
    out += std::is_same_v<Element, Vertex> ? "</node>\n" : "</edge>\n";
  } catch (const InvalidArgument& error) {
    throw InvalidArgument(fmt::format("export: {}: {}", detail::describe(e), error.what()));
  }
}

ExportReport write_graphml(GraphOperations& graph, std::ostream& stream, const ExportOptions& options) {
  detail::ExportClock clock;
  ExportReport report;
  report.format = "graphml";
  auto vertices = detail::collect_vertices(graph, options);
  auto edges = detail::collect_edges(graph, options);
  auto vertex_columns = columns_of(vertices);
  auto edge_columns = columns_of(edges);
  detail::Output out(stream);
  std::string& text = out.text();
  text +=
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
      "  <key id=\"labelV\" for=\"node\" attr.name=\"labelV\" attr.type=\"string\"/>\n"
      "  <key id=\"labelE\" for=\"edge\" attr.name=\"labelE\" attr.type=\"string\"/>\n";
  append_keys(text, vertex_columns, 'v', "node");
  append_keys(text, edge_columns, 'e', "edge");
  text += "  <graph id=\"G\" edgedefault=\"directed\">\n";
  std::string scratch;
  for (const auto& v : vertices) {
    append_element(out.text(), v, vertex_columns, scratch);
    out.maybe_flush();
  }
  for (const auto& e : edges) {
    append_element(out.text(), e, edge_columns, scratch);
    out.maybe_flush();
  }
  out.text() += "  </graph>\n</graphml>\n";
  out.flush();
  report.vertices_written = vertices.size();
  report.edges_written = edges.size();
  report.bytes_written = out.bytes();
  report.elapsed = clock.elapsed();
  return report;
}

}  // namespace

ImportReport import_graphml(GraphOperations& graph, const std::filesystem::path& path, const ImportOptions& options) {
  ImportSession session("graphml", options);
  if (auto source = session.open(path)) GraphmlReader(session, *source).read();
  return session.commit(graph);
}

ImportReport import_graphml(GraphOperations& graph, std::istream& in, const ImportOptions& options,
                            std::string_view name) {
  ImportSession session("graphml", options);
  if (auto source = session.open(in, name)) GraphmlReader(session, *source).read();
  return session.commit(graph);
}

ExportReport export_graphml(GraphOperations& graph, const std::filesystem::path& path, const ExportOptions& options) {
  detail::AtomicFile file(path);
  auto report = write_graphml(graph, file.stream(), options);
  file.commit();
  return report;
}

ExportReport export_graphml(GraphOperations& graph, std::ostream& out, const ExportOptions& options) {
  return write_graphml(graph, out, options);
}

}  // namespace propgraph::io
