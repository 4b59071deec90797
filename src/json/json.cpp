#include "propgraph/json.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "json_text.hpp"
#include "propgraph/errors.hpp"
#include "utf8.hpp"

namespace propgraph {

using nlohmann::json;

namespace {

/// A malformed field: where (a path like "vertices[1].properties.age") and what. Readers throw
/// it; each public from_json turns it into an InvalidArgument naming the type and the field.
struct FieldError {
  std::string path;
  std::string problem;
};

[[noreturn]] void fail(std::string problem) { throw FieldError{{}, std::move(problem)}; }

/// Runs read() with `segment` ("key" or "[i]") prepended to the path of any FieldError.
template <class Read>
void within(std::string_view segment, Read&& read) {
  try {
    read();
  } catch (FieldError& e) {
    const bool index = !e.path.empty() && e.path.front() == '[';
    e.path = std::string(segment) + (e.path.empty() || index ? "" : ".") + e.path;
    throw;
  }
}

/// The public face of a reader: FieldError becomes InvalidArgument.
template <class Read>
void guarded(std::string_view type, Read&& read) {
  try {
    read();
  } catch (const FieldError& e) {
    if (e.path.empty()) throw InvalidArgument(fmt::format("JSON {}: {}", type, e.problem));
    throw InvalidArgument(fmt::format("JSON {}, field {}: {}", type, e.path, e.problem));
  }
}

std::string_view kind(const json& j) noexcept {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number with a fraction";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "binary data";
  }
}

void expect_object(const json& j) {
  if (!j.is_object()) fail(fmt::format("expected an object, got {}", kind(j)));
}

/// The member `key` of an object; a missing member is an error.
const json& member(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) fail(fmt::format("missing field \"{}\"", key));
  return *it;
}

/// The member `key`, or nullptr when absent or null.
const json* optional_member(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

// Every reader, declared first so that the templates below see them all.
void read(const json& j, std::string& out);
void read(const json& j, bool& out);
void read(const json& j, std::int64_t& out);
void read(const json& j, int& out);
void read(const json& j, ElementId& out);
void read(const json& j, Value& out);
void read(const json& j, Properties& out);
void read(const json& j, Vertex& out);
void read(const json& j, Edge& out);
void read(const json& j, Path& out);
template <class T>
void read(const json& j, std::vector<T>& out);

/// Reads member `key` of object j into out, naming the field on error.
template <class T>
void field(const json& j, const char* key, T& out) {
  const json& value = member(j, key);
  within(key, [&] { read(value, out); });
}

// -- scalars --------------------------------------------------------------------------------------

void read(const json& j, std::string& out) {
  if (!j.is_string()) fail(fmt::format("expected a string, got {}", kind(j)));
  out = j.get_ref<const std::string&>();
}

void read(const json& j, bool& out) {
  if (!j.is_boolean()) fail(fmt::format("expected true or false, got {}", kind(j)));
  out = j.get<bool>();
}

void read(const json& j, std::int64_t& out) {
  if (j.is_number_unsigned()) {
    const auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail(detail::json_int_overflow(std::to_string(u)));
    }
    out = static_cast<std::int64_t>(u);
  } else if (j.is_number_integer()) {
    out = j.get<std::int64_t>();
  } else {
    fail(fmt::format("expected a JSON integer, got {}", kind(j)));
  }
}

void read(const json& j, int& out) {
  std::int64_t wide = 0;
  read(j, wide);
  if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max()) {
    fail(fmt::format("integer {} is beyond the int range", wide));
  }
  out = static_cast<int>(wide);
}

/// A double field (a score): any JSON number.
void read_number(const json& j, double& out) {
  if (!j.is_number()) fail(fmt::format("expected a number, got {}", kind(j)));
  out = j.get<double>();
}

void read(const json& j, ElementId& out) {
  if (j.is_string()) {
    out = ElementId(j.get_ref<const std::string&>());
  } else if (j.is_number_integer()) {  // unsigned included
    out = ElementId(j.is_number_unsigned() ? std::to_string(j.get<std::uint64_t>())
                                           : std::to_string(j.get<std::int64_t>()));
  } else {
    fail(fmt::format("expected an id (a string or an integer), got {}", kind(j)));
  }
}

void read(const json& j, Value& out, int depth) {
  switch (j.type()) {
    case json::value_t::null: out = Value(); return;
    case json::value_t::boolean: out = Value(j.get<bool>()); return;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: {
      std::int64_t i = 0;
      read(j, i);
      out = Value(i);
      return;
    }
    case json::value_t::number_float: {
      const double d = j.get<double>();
      try {
        detail::require_json_double(d);
      } catch (const InvalidArgument& e) {
        fail(e.what());
      }
      out = Value(d);
      return;
    }
    case json::value_t::string: out = Value(j.get_ref<const std::string&>()); return;
    case json::value_t::array: {
      if (depth >= max_json_list_depth) fail(fmt::format("lists nested deeper than {}", max_json_list_depth));
      ValueList list;
      list.reserve(j.size());
      for (std::size_t i = 0; i < j.size(); ++i) {
        within(fmt::format("[{}]", i), [&] { read(j[i], list.emplace_back(), depth + 1); });
      }
      out = Value(std::move(list));
      return;
    }
    case json::value_t::object: fail(std::string(detail::json_object_not_a_value));
    default: fail(fmt::format("expected a property value, got {}", kind(j)));
  }
}

void read(const json& j, Value& out) { read(j, out, 0); }

void read(const json& j, Properties& out) {
  expect_object(j);
  std::vector<Properties::Entry> entries;
  entries.reserve(j.size());
  for (const auto& [key, value] : j.items()) {
    if (key.empty()) fail("a property needs a non-empty name");
    within(key, [&] { read(value, entries.emplace_back(key, Value()).second); });
  }
  out = Properties(std::move(entries));
}

// -- records --------------------------------------------------------------------------------------

void read(const json& j, Vertex& out) {
  expect_object(j);
  field(j, "id", out.id);
  field(j, "label", out.label);
  out.properties = {};
  if (const json* p = optional_member(j, "properties")) within("properties", [&] { read(*p, out.properties); });
}

void read(const json& j, Edge& out) {
  expect_object(j);
  field(j, "id", out.id);
  field(j, "label", out.label);
  field(j, "from", out.from);
  field(j, "to", out.to);
  out.properties = {};
  if (const json* p = optional_member(j, "properties")) within("properties", [&] { read(*p, out.properties); });
}

template <class T>
void read(const json& j, std::vector<T>& out) {
  if (!j.is_array()) fail(fmt::format("expected an array, got {}", kind(j)));
  out.clear();
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    within(fmt::format("[{}]", i), [&] { read(j[i], out.emplace_back()); });
  }
}

/// A derived field, when present, must equal what the record implies.
void check_derived(const json& j, const char* key, std::int64_t expected) {
  const json* given = optional_member(j, key);
  if (given == nullptr) return;
  std::int64_t value = 0;
  within(key, [&] {
    read(*given, value);
    if (value != expected) fail(fmt::format("is {} but the record implies {}", value, expected));
  });
}

void read(const json& j, Path& out) {
  expect_object(j);
  field(j, "vertices", out.vertices);
  field(j, "edges", out.edges);
  if (!(out.vertices.empty() && out.edges.empty()) && out.vertices.size() != out.edges.size() + 1) {
    fail(fmt::format("a path of {} edges needs {} vertices, got {}", out.edges.size(), out.edges.size() + 1,
                     out.vertices.size()));
  }
  check_derived(j, "length", static_cast<std::int64_t>(out.edges.size()));
}

void read(const json& j, PageRankScore& out) {
  expect_object(j);
  field(j, "vertex", out.vertex);
  within("score", [&] { read_number(member(j, "score"), out.score); });
}

void read(const json& j, Degree& out) {
  expect_object(j);
  field(j, "id", out.id);
  field(j, "in", out.in);
  field(j, "out", out.out);
  check_derived(j, "total", out.total());
}

void read(const json& j, Component& out) {
  expect_object(j);
  field(j, "id", out.id);
  field(j, "vertices", out.vertices);
}

void read(const json& j, Visit& out) {
  expect_object(j);
  field(j, "vertex", out.vertex);
  field(j, "depth", out.depth);
  out.parent.reset();
  if (const json* p = optional_member(j, "parent")) within("parent", [&] { read(*p, out.parent.emplace()); });
}

void read(const json& j, Cycle& out) {
  expect_object(j);
  field(j, "path", out.path);
}

void read(const json& j, Upserted& out) {
  expect_object(j);
  field(j, "vertex", out.vertex);
  field(j, "created", out.created);
}

void read(const json& j, IndexInfo& out) {
  expect_object(j);
  field(j, "label", out.label);
  field(j, "key", out.key);
  out.unique = false;
  if (const json* u = optional_member(j, "unique")) within("unique", [&] { read(*u, out.unique); });
}

}  // namespace

// -- writing ---------------------------------------------------------------------------------------

void to_json(json& j, const ElementId& id) { j = std::string(id.str()); }

void to_json(json& j, const Value& value) {
  switch (value.type()) {
    case ValueType::null: j = nullptr; return;
    case ValueType::boolean: j = value.as_bool(); return;
    case ValueType::integer: j = value.as_int(); return;
    case ValueType::real:
      detail::require_json_double(value.as_double());
      j = value.as_double();  // number_float: dumped with a fraction or exponent
      return;
    case ValueType::string: j = value.as_string(); return;
    case ValueType::list: {
      // Built aside and moved in: `j` may be a json under construction (json(value)), whose
      // members a throw from here would leak.
      json items = json::array();
      for (const Value& item : value.as_list()) to_json(items.emplace_back(), item);
      j = std::move(items);
      return;
    }
  }
}

void to_json(json& j, const Properties& properties) {
  json object = json::object();  // built aside, as for lists
  for (const auto& [key, value] : properties) to_json(object[key], value);
  j = std::move(object);
}

void to_json(json& j, const Vertex& vertex) {
  j = json{{"id", vertex.id}, {"label", vertex.label}, {"properties", vertex.properties}};
}

void to_json(json& j, const Edge& edge) {
  j = json{
      {"id", edge.id}, {"label", edge.label}, {"from", edge.from}, {"to", edge.to}, {"properties", edge.properties}};
}

void to_json(json& j, const Path& path) {
  j = json{{"vertices", path.vertices}, {"edges", path.edges}, {"length", path.length()}};
}

void to_json(json& j, const PageRankScore& score) { j = json{{"vertex", score.vertex}, {"score", score.score}}; }

void to_json(json& j, const Degree& degree) {
  j = json{{"id", degree.id}, {"in", degree.in}, {"out", degree.out}, {"total", degree.total()}};
}

void to_json(json& j, const Component& component) { j = json{{"id", component.id}, {"vertices", component.vertices}}; }

void to_json(json& j, const Visit& visit) {
  j = json{{"vertex", visit.vertex}, {"depth", visit.depth}, {"parent", nullptr}};
  if (visit.parent) j["parent"] = *visit.parent;
}

void to_json(json& j, const Cycle& cycle) { j = json{{"path", cycle.path}}; }

void to_json(json& j, const Upserted& upserted) {
  j = json{{"vertex", upserted.vertex}, {"created", upserted.created}};
}

void to_json(json& j, const IndexInfo& index) {
  j = json{{"label", index.label}, {"key", index.key}, {"unique", index.unique}};
}

// -- reading ---------------------------------------------------------------------------------------

void from_json(const json& j, ElementId& id) {
  guarded("ElementId", [&] { read(j, id); });
}
void from_json(const json& j, Value& value) {
  guarded("Value", [&] { read(j, value); });
}
void from_json(const json& j, Properties& properties) {
  guarded("Properties", [&] { read(j, properties); });
}
void from_json(const json& j, Vertex& vertex) {
  guarded("Vertex", [&] { read(j, vertex); });
}
void from_json(const json& j, Edge& edge) {
  guarded("Edge", [&] { read(j, edge); });
}
void from_json(const json& j, Path& path) {
  guarded("Path", [&] { read(j, path); });
}
void from_json(const json& j, PageRankScore& score) {
  guarded("PageRankScore", [&] { read(j, score); });
}
void from_json(const json& j, Degree& degree) {
  guarded("Degree", [&] { read(j, degree); });
}
void from_json(const json& j, Component& component) {
  guarded("Component", [&] { read(j, component); });
}
void from_json(const json& j, Visit& visit) {
  guarded("Visit", [&] { read(j, visit); });
}
void from_json(const json& j, Cycle& cycle) {
  guarded("Cycle", [&] { read(j, cycle); });
}
void from_json(const json& j, Upserted& upserted) {
  guarded("Upserted", [&] { read(j, upserted); });
}
void from_json(const json& j, IndexInfo& index) {
  guarded("IndexInfo", [&] { read(j, index); });
}

namespace {

/// `text` with each byte that breaks UTF-8 written as \xNN: error messages quote the input,
/// and a message must itself be valid UTF-8 (it may end up in a JSON response).
std::string printable(std::string_view text) {
  std::string out;
  while (!text.empty()) {
    const auto bad = detail::find_invalid_utf8(text);
    const std::size_t good = bad ? *bad : text.size();
    out.append(text.substr(0, good));
    if (!bad) break;
    out += fmt::format("\\x{:02X}", static_cast<unsigned char>(text[good]));
    text.remove_prefix(good + 1);
  }
  return out;
}

/// e.what() without nlohmann's "[json.exception.<kind>.<N>] " tag.
std::string_view message_of(const json::exception& e) {
  std::string_view what = e.what();
  if (const auto at = what.find("] "); at != std::string_view::npos) what.remove_prefix(at + 2);
  return what;
}

/// "line L, column C" of byte `offset` of `text` (1-based; columns count bytes).
std::string place(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  return fmt::format("line {}, column {}", line, offset - line_start + 1);
}

/// "line L, column C" of the first number literal spelled `literal` in `text` (the SAX
/// interface reports a number's spelling, not its place).
std::string place_of_number(std::string_view text, std::string_view literal) {
  for (std::size_t at = text.find(literal); at != std::string_view::npos; at = text.find(literal, at + 1)) {
    const bool starts = at == 0 || std::string_view("[{:, \t\r\n").find(text[at - 1]) != std::string_view::npos;
    if (starts) return place(text, at);
  }
  return "an unknown place";
}

/// nlohmann's DOM builder with what its parser does not check: an integer literal beyond the
/// 64-bit range (nlohmann would read it as a double), and nesting deeper than
/// max_json_nesting (building, copying and dumping the tree recurse).
class CheckedDomParser : public nlohmann::detail::json_sax_dom_parser<json> {
  using Base = nlohmann::detail::json_sax_dom_parser<json>;

 public:
  CheckedDomParser(json& result, std::string_view text) : Base(result, true), text_(text) {}

  bool number_float(json::number_float_t value, const std::string& literal) {
    if (literal.find_first_of(".eE") == std::string::npos) {
      throw InvalidArgument(
          fmt::format("invalid JSON: {} at {}", detail::json_int_overflow(literal), place_of_number(text_, literal)));
    }
    return Base::number_float(value, literal);
  }
  bool start_object(std::size_t elements) {
    enter();
    return Base::start_object(elements);
  }
  bool end_object() {
    --depth_;
    return Base::end_object();
  }
  bool start_array(std::size_t elements) {
    enter();
    return Base::start_array(elements);
  }
  bool end_array() {
    --depth_;
    return Base::end_array();
  }

 private:
  void enter() {
    if (++depth_ > max_json_nesting) {
      throw InvalidArgument(fmt::format("invalid JSON: arrays and objects nested deeper than {}", max_json_nesting));
    }
  }

  std::string_view text_;
  int depth_ = 0;
};

}  // namespace

json parse_json(std::string_view text) {
  json result;
  CheckedDomParser builder(result, text);
  try {
    json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const json::parse_error& e) {
    // "parse error at line L, column C: ...".
    throw InvalidArgument(fmt::format("invalid JSON: {}", printable(message_of(e))));
  } catch (const json::out_of_range& e) {
    // A number beyond double's range: "number overflow parsing '1e400'".
    const std::string_view what = message_of(e);
    std::string literal(what.substr(std::min(what.find('\'') + 1, what.size())));
    if (!literal.empty() && literal.back() == '\'') literal.pop_back();
    throw InvalidArgument(fmt::format("invalid JSON: {} at {}", printable(what), place_of_number(text, literal)));
  }
  return result;
}

}  // namespace propgraph

// -- query values and results ----------------------------------------------------------------------

namespace propgraph {

namespace {

void read(const json& j, QueryValue& out, int depth) {
  switch (j.type()) {
    case json::value_t::null: out = QueryValue(); return;
    case json::value_t::boolean: out = QueryValue(j.get<bool>()); return;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: {
      std::int64_t i = 0;
      read(j, i);
      out = QueryValue(i);
      return;
    }
    case json::value_t::number_float: {
      const double d = j.get<double>();
      try {
        detail::require_json_double(d);
      } catch (const InvalidArgument& e) {
        fail(e.what());
      }
      out = QueryValue(d);
      return;
    }
    case json::value_t::string: out = QueryValue(j.get_ref<const std::string&>()); return;
    case json::value_t::array: {
      if (depth >= max_json_list_depth) fail(fmt::format("lists and maps nested deeper than {}", max_json_list_depth));
      QueryValue::List list;
      list.reserve(j.size());
      for (std::size_t i = 0; i < j.size(); ++i) {
        within(fmt::format("[{}]", i), [&] { read(j[i], list.emplace_back(), depth + 1); });
      }
      out = QueryValue(std::move(list));
      return;
    }
    case json::value_t::object: {
      if (depth >= max_json_list_depth) fail(fmt::format("lists and maps nested deeper than {}", max_json_list_depth));
      QueryValue::Map map;
      for (const auto& [key, value] : j.items()) {
        within(key, [&] { read(value, map[key], depth + 1); });
      }
      out = QueryValue(std::move(map));
      return;
    }
    default: fail(fmt::format("expected a query value, got {}", kind(j)));
  }
}

/// A QueryStats count: absent or null reads as 0.
void count_field(const json& j, const char* key, std::int64_t& out) {
  out = 0;
  if (const json* c = optional_member(j, key)) within(key, [&] { read(*c, out); });
}

}  // namespace

void to_json(json& j, const QueryValue& value) {
  switch (value.type()) {
    case QueryValue::Type::null: j = nullptr; return;
    case QueryValue::Type::boolean: j = value.as_bool(); return;
    case QueryValue::Type::integer: j = value.as_int(); return;
    case QueryValue::Type::real:
      detail::require_json_double(value.as_double());
      j = value.as_double();
      return;
    case QueryValue::Type::string: j = value.as_string(); return;
    case QueryValue::Type::list: {
      json items = json::array();  // built aside, as in to_json(Value)
      for (const QueryValue& item : value.as_list()) to_json(items.emplace_back(), item);
      j = std::move(items);
      return;
    }
    case QueryValue::Type::map: {
      json object = json::object();
      for (const auto& [key, item] : value.as_map()) to_json(object[key], item);
      j = std::move(object);
      return;
    }
    case QueryValue::Type::vertex: to_json(j, value.as_vertex()); return;
    case QueryValue::Type::edge: to_json(j, value.as_edge()); return;
    case QueryValue::Type::path: to_json(j, value.as_path()); return;
  }
}

void from_json(const json& j, QueryValue& value) {
  guarded("QueryValue", [&] { read(j, value, 0); });
}

void to_json(json& j, const QueryStats& stats) {
  j = json{{"vertices_created", stats.vertices_created}, {"vertices_deleted", stats.vertices_deleted},
           {"edges_created", stats.edges_created},       {"edges_deleted", stats.edges_deleted},
           {"properties_set", stats.properties_set},     {"statements_sent", stats.statements_sent}};
}

void from_json(const json& j, QueryStats& stats) {
  guarded("QueryStats", [&] {
    expect_object(j);
    count_field(j, "vertices_created", stats.vertices_created);
    count_field(j, "vertices_deleted", stats.vertices_deleted);
    count_field(j, "edges_created", stats.edges_created);
    count_field(j, "edges_deleted", stats.edges_deleted);
    count_field(j, "properties_set", stats.properties_set);
    count_field(j, "statements_sent", stats.statements_sent);
  });
}

void to_json(json& j, const QueryResult& result) {
  json rows = json::array();
  for (const auto& row : result.rows) {
    json& values = rows.emplace_back(json::array());
    for (const QueryValue& value : row) to_json(values.emplace_back(), value);
  }
  json stats;
  to_json(stats, result.stats);
  j = json{{"columns", result.columns}, {"rows", std::move(rows)}, {"stats", std::move(stats)}};
}

void to_json(json& j, const Parameters& parameters) {
  json object = json::object();
  for (const auto& [name, value] : parameters) to_json(object[name], value);
  j = std::move(object);
}

void from_json(const json& j, Parameters& parameters) {
  guarded("Parameters", [&] {
    expect_object(j);
    Parameters read_in;
    for (const auto& [name, value] : j.items()) {
      if (name.empty()) fail("a parameter needs a non-empty name");
      within(name, [&] {
        QueryValue v;
        read(value, v, 1);
        read_in.set(name, std::move(v));
      });
    }
    parameters = std::move(read_in);
  });
}

}  // namespace propgraph
