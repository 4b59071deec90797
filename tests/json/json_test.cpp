// propgraph::json: round trips of every type through JSON text, the typed-number rule shared
// with NDJSON, and the errors malformed input gets.
#include "propgraph/json.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "propgraph/io/ndjson.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace {

using namespace std::string_view_literals;
using nlohmann::json;
using propgraph::ElementId;
using propgraph::InvalidArgument;
using propgraph::Properties;
using propgraph::Value;

/// x -> JSON -> text -> JSON -> T.
template <class T>
T through_text(const T& x) {
  const std::string text = json(x).dump();
  return propgraph::parse_json(text).get<T>();
}

/// The InvalidArgument message of reading `text` as T; fails the test when nothing is thrown.
template <class T>
std::string read_error(std::string_view text) {
  try {
    static_cast<void>(propgraph::parse_json(text).get<T>());
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvalidArgument reading " << text;
  return {};
}

propgraph::Vertex alice() {
  return {ElementId("g1:v1"), "Person", Properties{{"name", "Alice"}, {"age", 30}, {"height", 1.65}}};
}
propgraph::Vertex bob() { return {ElementId("g1:v2"), "Person", Properties{{"name", "Bob"}, {"score", 30.0}}}; }
propgraph::Edge knows() {
  return {ElementId("g1:e1"), "KNOWS", ElementId("g1:v1"), ElementId("g1:v2"), Properties{{"since", 2020}}};
}

TEST(JsonValue, IntsStayIntsAndDoublesStayDoubles) {
  for (std::int64_t i : {std::int64_t{0}, std::int64_t{30}, std::int64_t{-7}, std::numeric_limits<std::int64_t>::max(),
                         std::numeric_limits<std::int64_t>::min()}) {
    const Value back = through_text(Value(i));
    ASSERT_TRUE(back.is_int()) << i;
    EXPECT_EQ(back.as_int(), i);
  }
  for (double d : {30.0, 0.0, -0.0, 0.1, -2.5, 1e300, 1e-300, 1e15, 1e16, 123456789.0}) {
    const Value back = through_text(Value(d));
    ASSERT_TRUE(back.is_double()) << d;
    EXPECT_EQ(back.as_double(), d);
    EXPECT_EQ(std::signbit(back.as_double()), std::signbit(d));
  }
  // An integral double is written with a fraction, so a reader of the text sees a double.
  EXPECT_EQ(json(Value(30.0)).dump(), "30.0");
  EXPECT_EQ(json(Value(30)).dump(), "30");
  EXPECT_NE(Value(30), through_text(Value(30.0)));
}

TEST(JsonValue, LiteralsMapByTheirSpelling) {
  const auto p = propgraph::parse_json(R"({"a": 30, "b": 30.0, "c": 3e1, "d": -0, "e": 1E2})").get<Properties>();
  EXPECT_TRUE(p["a"].is_int());
  EXPECT_TRUE(p["b"].is_double());
  EXPECT_TRUE(p["c"].is_double());
  EXPECT_TRUE(p["d"].is_int());
  EXPECT_TRUE(p["e"].is_double());
  EXPECT_EQ(p["e"].as_double(), 100.0);
}

TEST(JsonValue, NullBoolStringsAndUnicode) {
  EXPECT_TRUE(through_text(Value()).is_null());
  EXPECT_EQ(through_text(Value(true)), Value(true));
  EXPECT_EQ(through_text(Value(false)), Value(false));
  for (std::string s :
       {std::string(""), std::string("plain"), std::string("Zoë, 日本語, \xF0\x9F\x98\x80 (U+1F600)"),
        std::string("quote \" backslash \\ tab \t newline \n nul \0 end"sv), std::string("\x01\x1f\x7f")}) {
    const Value back = through_text(Value(s));
    ASSERT_TRUE(back.is_string());
    EXPECT_EQ(back.as_string(), s);
  }
  // Escapes in the text are decoded, surrogate pairs included.
  EXPECT_EQ(propgraph::parse_json(R"("caf\u00e9 \ud83d\ude00")").get<Value>(), Value("café \xF0\x9F\x98\x80"));
}

TEST(JsonValue, ListsKeepTheirElementsTypes) {
  const Value list =
      Value::list({1, 2.0, "three", nullptr, true, Value::list({}), Value::list({Value::list({4, 4.5})})});
  const Value back = through_text(list);
  EXPECT_EQ(back, list);
  ASSERT_TRUE(back.is_list());
  EXPECT_TRUE(back.as_list()[0].is_int());
  EXPECT_TRUE(back.as_list()[1].is_double());
  EXPECT_TRUE(back.as_list()[3].is_null());
  EXPECT_EQ(json(list).dump(), R"([1,2.0,"three",null,true,[],[[4,4.5]]])");
}

TEST(JsonModel, IdsPropertiesVerticesEdgesPaths) {
  EXPECT_EQ(through_text(ElementId("g1:v1")), ElementId("g1:v1"));
  const ElementId long_id(std::string(100, 'x'));
  EXPECT_EQ(through_text(long_id), long_id);
  EXPECT_EQ(propgraph::parse_json("42").get<ElementId>(), ElementId("42"));  // as NDJSON reads ids

  const Properties props{{"a", 1}, {"b", 2.0}, {"c", "ü"}, {"d", Value::list({1, "x"})}, {"gone", nullptr}};
  EXPECT_EQ(through_text(props), props);
  EXPECT_EQ(through_text(Properties{}), Properties{});

  EXPECT_EQ(through_text(alice()), alice());
  EXPECT_EQ(through_text(knows()), knows());
  EXPECT_EQ(json(alice()), json::parse(R"({"id":"g1:v1","label":"Person",
      "properties":{"age":30,"height":1.65,"name":"Alice"}})"));
  EXPECT_EQ(json(knows()), json::parse(R"({"id":"g1:e1","label":"KNOWS","from":"g1:v1","to":"g1:v2",
      "properties":{"since":2020}})"));

  const propgraph::Path path{{alice(), bob()}, {knows()}};
  EXPECT_EQ(through_text(path), path);
  EXPECT_EQ(json(path)["length"], 1);
  const propgraph::Path zero{{alice()}, {}};
  EXPECT_EQ(through_text(zero), zero);
  EXPECT_EQ(through_text(propgraph::Path{}), propgraph::Path{});
  // Vectors come for free.
  const std::vector<propgraph::Vertex> vertices{alice(), bob()};
  EXPECT_EQ(through_text(vertices), vertices);
}

TEST(JsonModel, ResultRecords) {
  const propgraph::PageRankScore score{alice(), 0.25};
  EXPECT_EQ(through_text(score), score);
  const propgraph::PageRankScore integral{bob(), 1.0};
  EXPECT_EQ(through_text(integral), integral);

  const propgraph::Degree degree{ElementId("g1:v1"), 2, 3};
  EXPECT_EQ(through_text(degree), degree);
  EXPECT_EQ(json(degree)["total"], 5);

  const propgraph::Component component{1, {alice(), bob()}};
  EXPECT_EQ(through_text(component), component);

  const propgraph::Visit start{alice(), 0, std::nullopt};
  const propgraph::Visit next{bob(), 1, ElementId("g1:v1")};
  EXPECT_EQ(through_text(start), start);
  EXPECT_EQ(through_text(next), next);
  EXPECT_TRUE(json(start)["parent"].is_null());

  const propgraph::Cycle cycle{propgraph::Path{
      {alice(), alice()}, {propgraph::Edge{ElementId("g1:e9"), "SELF", ElementId("g1:v1"), ElementId("g1:v1"), {}}}}};
  EXPECT_EQ(through_text(cycle), cycle);

  const propgraph::Upserted upserted{alice(), true};
  EXPECT_EQ(through_text(upserted), upserted);

  const propgraph::IndexInfo index{"Person", "email", true};
  EXPECT_EQ(through_text(index), index);
  EXPECT_EQ(propgraph::parse_json(R"({"label":"Person","key":"email"})").get<propgraph::IndexInfo>(),
            (propgraph::IndexInfo{"Person", "email", false}));
}

TEST(JsonModel, RecordsFromABackend) {
  propgraph::MemoryGraph graph;
  const auto a = graph.create_vertex("Person", {{"name", "Alice"}, {"age", 30}});
  const auto b = graph.create_vertex("Person", {{"name", "Bob"}, {"weight", 70.0}});
  graph.create_edge(a.id, b.id, "KNOWS", {{"since", 2020}});
  graph.create_edge(b.id, a.id, "KNOWS", {{"since", 2021}});
  const auto path = graph.shortest_path(a.id, b.id);
  ASSERT_TRUE(path);
  EXPECT_EQ(through_text(*path), *path);
  EXPECT_EQ(through_text(graph.page_rank()), graph.page_rank());
  EXPECT_EQ(through_text(graph.bfs(a.id)), graph.bfs(a.id));
  EXPECT_EQ(through_text(graph.detect_cycles()), graph.detect_cycles());
  EXPECT_EQ(through_text(graph.connected_components()), graph.connected_components());
  EXPECT_EQ(through_text(*graph.degree_centrality(a.id)), *graph.degree_centrality(a.id));
}

// NDJSON export and propgraph::json follow one rule: each reads what the other writes, with
// the same types.
TEST(JsonModel, AgreesWithNdjson) {
  propgraph::MemoryGraph graph;
  const auto a = graph.create_vertex(
      "Person", {{"age", 30}, {"score", 30.0}, {"tags", Value::list({1, 1.5, "x"})}, {"name", "Zoë \"Z\""}});
  const auto b = graph.create_vertex("Person", {{"big", std::numeric_limits<std::int64_t>::max()}});
  const auto e = graph.create_edge(a.id, b.id, "KNOWS", {{"w", 2.0}});

  std::stringstream exported;
  propgraph::io::export_ndjson(graph, exported);
  std::vector<json> lines;
  for (std::string line; std::getline(exported, line);) lines.push_back(propgraph::parse_json(line));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].get<propgraph::Vertex>(), a);  // the "type" key is ignored
  EXPECT_EQ(lines[1].get<propgraph::Vertex>(), b);
  EXPECT_EQ(lines[2].get<propgraph::Edge>(), e);

  std::string written;
  for (const propgraph::Vertex& v : {a, b}) {
    json record = v;
    record["type"] = "vertex";
    written += record.dump() + "\n";
  }
  json edge = e;
  edge["type"] = "edge";
  written += edge.dump() + "\n";
  propgraph::MemoryGraph copy;
  std::istringstream in(written);
  propgraph::io::import_ndjson(copy, in);
  const auto imported = copy.find_vertices_by_label("Person");
  ASSERT_EQ(imported.size(), 2u);
  EXPECT_EQ(imported[0].properties, a.properties);
  EXPECT_TRUE(imported[0].properties["score"].is_double());
  EXPECT_TRUE(imported[0].properties["age"].is_int());
  EXPECT_EQ(imported[1].properties, b.properties);
  ASSERT_EQ(copy.find_edges_by_label("KNOWS").size(), 1u);
  EXPECT_EQ(copy.find_edges_by_label("KNOWS")[0].properties, e.properties);
}

TEST(JsonErrors, MalformedTextNamesLineAndColumn) {
  try {
    static_cast<void>(propgraph::parse_json("{\n  \"a\": ,\n}"));
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("invalid JSON"), std::string::npos) << what;
    EXPECT_NE(what.find("line 2, column"), std::string::npos) << what;
    EXPECT_EQ(what.find("json.exception"), std::string::npos) << what;
  }
  EXPECT_THROW(static_cast<void>(propgraph::parse_json("")), InvalidArgument);
  EXPECT_THROW(static_cast<void>(propgraph::parse_json("\"\xC3\x28\"")), InvalidArgument);  // invalid UTF-8
  EXPECT_THROW(static_cast<void>(propgraph::parse_json("[1, 2")), InvalidArgument);
}

TEST(JsonErrors, NumbersJsonCannotHoldAreRefusedWithTheirPlace) {
  auto error = [](std::string_view text) {
    try {
      static_cast<void>(propgraph::parse_json(text));
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    ADD_FAILURE() << "no InvalidArgument parsing " << text;
    return std::string();
  };
  // Beyond uint64: nlohmann alone would read a double, 1.2345678901234568e+29.
  std::string what = error("{\"a\": 1,\n \"b\": 123456789012345678901234567890}");
  EXPECT_NE(what.find("integer 123456789012345678901234567890"), std::string::npos) << what;
  EXPECT_NE(what.find("line 2, column 7"), std::string::npos) << what;
  // Beyond double's range: nlohmann throws its own out_of_range.
  what = error("[1, 1e400]");
  EXPECT_NE(what.find("1e400"), std::string::npos) << what;
  EXPECT_NE(what.find("line 1, column 5"), std::string::npos) << what;
  EXPECT_EQ(what.find("json.exception"), std::string::npos) << what;
  // What still fits is read as it was.
  EXPECT_EQ(propgraph::parse_json("18446744073709551615").get<std::uint64_t>(), 18446744073709551615u);
  EXPECT_EQ(propgraph::parse_json("-9223372036854775808").get<std::int64_t>(), INT64_MIN);
  EXPECT_EQ(propgraph::parse_json("1e300").get<double>(), 1e300);
}

TEST(JsonErrors, NestingIsBoundedAndMessagesAreValidUtf8) {
  const int max = propgraph::max_json_nesting;
  const std::string deepest = std::string(max, '[') + std::string(max, ']');
  EXPECT_NO_THROW(static_cast<void>(propgraph::parse_json(deepest)));
  const std::string deeper = std::string(max + 1, '[') + std::string(max + 1, ']');
  EXPECT_THROW(static_cast<void>(propgraph::parse_json(deeper)), InvalidArgument);
  // A million levels: refused, not a stack overflow.
  EXPECT_THROW(static_cast<void>(propgraph::parse_json(std::string(1'000'000, '['))), InvalidArgument);
  // The message about an invalid byte quotes it as \xNN: the message itself is valid JSON text.
  try {
    static_cast<void>(propgraph::parse_json("{\"name\": \"\xff\"}"));
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NO_THROW(static_cast<void>(json(e.what()).dump())) << "the message is not valid UTF-8";
    EXPECT_NE(std::string(e.what()).find("\\xFF"), std::string::npos) << e.what();
  }
}

TEST(JsonErrors, MissingAndMistypedFieldsAreNamed) {
  auto has = [](const std::string& what, std::string_view part) { return what.find(part) != std::string::npos; };
  std::string what = read_error<propgraph::Vertex>(R"({"label":"Person"})");
  EXPECT_TRUE(has(what, "JSON Vertex") && has(what, "missing field \"id\"")) << what;

  what = read_error<propgraph::Vertex>(R"({"id":"v1","label":7})");
  EXPECT_TRUE(has(what, "field label") && has(what, "expected a string, got an integer")) << what;

  what = read_error<propgraph::Vertex>(R"([1])");
  EXPECT_TRUE(has(what, "expected an object, got an array")) << what;

  what = read_error<propgraph::Vertex>(R"({"id":"v1","label":"P","properties":{"address":{"city":"Oslo"}}})");
  EXPECT_TRUE(has(what, "field properties.address") && has(what, "JSON objects are not property values")) << what;

  what = read_error<propgraph::Path>(
      R"({"vertices":[{"id":"a","label":"P"},{"id":"b","label":"P","properties":{"tags":[1,{"x":1}]}}],
          "edges":[{"id":"e","label":"K","from":"a","to":"b"}]})");
  EXPECT_TRUE(has(what, "JSON Path, field vertices[1].properties.tags[1]")) << what;

  what = read_error<propgraph::Edge>(R"({"id":"e","label":"K","from":true,"to":"b"})");
  EXPECT_TRUE(has(what, "field from") && has(what, "expected an id")) << what;

  what = read_error<Value>("18446744073709551615");
  EXPECT_TRUE(has(what, "integer 18446744073709551615 is beyond the int64 range")) << what;

  what = read_error<Properties>(R"({"": 1})");
  EXPECT_TRUE(has(what, "non-empty name")) << what;

  what = read_error<propgraph::Degree>(R"({"id":"v","in":1,"out":2,"total":4})");
  EXPECT_TRUE(has(what, "field total") && has(what, "implies 3")) << what;

  what = read_error<propgraph::Degree>(R"({"id":"v","in":1.5,"out":2})");
  EXPECT_TRUE(has(what, "field in") && has(what, "expected a JSON integer")) << what;

  what = read_error<propgraph::Path>(
      R"({"vertices":[{"id":"a","label":"P"}],"edges":[{"id":"e","label":"K","from":"a","to":"b"}]})");
  EXPECT_TRUE(has(what, "a path of 1 edges needs 2 vertices, got 1")) << what;

  what = read_error<propgraph::Visit>(R"({"vertex":{"id":"a","label":"P"},"depth":9999999999})");
  EXPECT_TRUE(has(what, "field depth") && has(what, "beyond the int range")) << what;

  std::string deep(propgraph::max_json_list_depth + 1, '[');
  deep += std::string(propgraph::max_json_list_depth + 1, ']');
  what = read_error<Value>(deep);
  EXPECT_TRUE(has(what, "nested deeper than")) << what;
}

TEST(JsonErrors, NonFiniteDoublesCannotBeWritten) {
  for (double d : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW(json(Value(d)), InvalidArgument);
    EXPECT_THROW(json(Properties{{"x", Value::list({1, d})}}), InvalidArgument);
  }
}

}  // namespace
