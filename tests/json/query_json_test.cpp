// propgraph::json for query values and results: the Value rules carried over, objects read as
// maps, the result and parameter documents.
#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "propgraph/errors.hpp"
#include "propgraph/json.hpp"

namespace {

using nlohmann::json;
using propgraph::ElementId;
using propgraph::InvalidArgument;
using propgraph::Parameters;
using propgraph::Properties;
using propgraph::QueryResult;
using propgraph::QueryStats;
using propgraph::QueryValue;

QueryValue through_text(const QueryValue& v) { return propgraph::parse_json(json(v).dump()).get<QueryValue>(); }

std::string error_of(std::string_view text) {
  try {
    static_cast<void>(propgraph::parse_json(text).get<QueryValue>());
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvalidArgument reading " << text;
  return {};
}

propgraph::Vertex ann() { return {ElementId("g1:v1"), "Person", Properties{{"name", "Ann"}, {"age", 30}}}; }
propgraph::Vertex bob() { return {ElementId("g1:v2"), "Person", Properties{{"name", "Bob"}}}; }
propgraph::Edge knows() {
  return {ElementId("g1:e1"), "KNOWS", ElementId("g1:v1"), ElementId("g1:v2"), Properties{{"since", 2020}}};
}

TEST(JsonQueryValue, ScalarsKeepTheirTypes) {
  EXPECT_EQ(json(QueryValue()).dump(), "null");
  EXPECT_EQ(json(QueryValue(true)).dump(), "true");
  EXPECT_EQ(json(QueryValue(30)).dump(), "30");
  EXPECT_EQ(json(QueryValue(30.0)).dump(), "30.0");
  EXPECT_EQ(json(QueryValue("it's")).dump(), "\"it's\"");
  for (const QueryValue& v : {QueryValue(), QueryValue(false), QueryValue(std::numeric_limits<std::int64_t>::min()),
                              QueryValue(30), QueryValue(30.0), QueryValue(-0.5), QueryValue("Ann")}) {
    EXPECT_EQ(through_text(v), v) << json(v).dump();
  }
  EXPECT_TRUE(through_text(QueryValue(30.0)).is_double());
  EXPECT_TRUE(through_text(QueryValue(30)).is_int());
}

TEST(JsonQueryValue, ListsAndMapsNest) {
  const QueryValue v =
      QueryValue::Map{{"b", QueryValue::List{1, 2.0, "x", QueryValue::Map{{"k", nullptr}}}}, {"a", QueryValue::Map{}}};
  EXPECT_EQ(json(v).dump(), R"({"a":{},"b":[1,2.0,"x",{"k":null}]})");
  EXPECT_EQ(through_text(v), v);
}

TEST(JsonQueryValue, ElementsAsTheirModelObjectsAndReadBackAsMaps) {
  const json vertex = QueryValue(ann());
  EXPECT_EQ(vertex, json(ann()));
  EXPECT_EQ(json(QueryValue(knows())), json(knows()));
  const propgraph::Path path{{ann(), bob()}, {knows()}};
  EXPECT_EQ(json(QueryValue(path)), json(path));

  // The documented choice: an object is a map, whatever wrote it.
  const auto back = vertex.get<QueryValue>();
  ASSERT_TRUE(back.is_map());
  EXPECT_EQ(back.as_map().at("label"), QueryValue("Person"));
  EXPECT_EQ(back.as_map().at("properties").as_map().at("age"), QueryValue(30));
}

TEST(JsonQueryValue, ErrorsNameTheField) {
  EXPECT_NE(error_of(R"({"a": [1, 9223372036854775808]})").find("field a[1]"), std::string::npos)
      << error_of(R"({"a": [1, 9223372036854775808]})");
  std::string deep;
  for (int i = 0; i < 70; ++i) deep += i % 2 ? "{\"k\":" : "[";
  deep += "1";
  for (int i = 69; i >= 0; --i) deep += i % 2 ? "}" : "]";
  EXPECT_NE(error_of(deep).find("nested deeper"), std::string::npos) << error_of(deep);
  EXPECT_THROW(static_cast<void>(json(QueryValue(std::numeric_limits<double>::quiet_NaN()))), InvalidArgument);
}

TEST(JsonQueryResult, ColumnsRowsAndStats) {
  QueryResult result;
  result.columns = {"n", "n.age"};
  result.rows = {{ann(), 30}, {bob(), nullptr}};
  result.stats.vertices_created = 2;
  result.stats.properties_set = 3;
  const json j = result;
  EXPECT_EQ(j["columns"], json::array({"n", "n.age"}));
  ASSERT_EQ(j["rows"].size(), 2U);
  EXPECT_EQ(j["rows"][0][0], json(ann()));
  EXPECT_EQ(j["rows"][0][1], json(30));
  EXPECT_TRUE(j["rows"][1][1].is_null());
  EXPECT_EQ(j["stats"]["vertices_created"], 2);
  EXPECT_EQ(j["stats"]["properties_set"], 3);
  EXPECT_EQ(j["stats"]["statements_sent"], 0);
  EXPECT_EQ(j["stats"].get<QueryStats>(), result.stats);

  const json empty = QueryResult{};
  EXPECT_EQ(empty.dump(), R"({"columns":[],"rows":[],"stats":{"edges_created":0,"edges_deleted":0,)"
                          R"("properties_set":0,"statements_sent":0,"vertices_created":0,"vertices_deleted":0}})");
}

TEST(JsonParameters, AnObjectOfNamedValues) {
  const auto parameters =
      propgraph::parse_json(R"({"id": 7, "ratio": 7.0, "names": ["a", "b"], "m": {"k": 1}})").get<Parameters>();
  ASSERT_EQ(parameters.size(), 4U);
  EXPECT_EQ(*parameters.find("id"), QueryValue(7));
  EXPECT_TRUE(parameters.find("ratio")->is_double());
  EXPECT_EQ(*parameters.find("names"), (QueryValue::List{"a", "b"}));
  EXPECT_EQ(*parameters.find("m"), (QueryValue::Map{{"k", 1}}));
  EXPECT_EQ(json(parameters), propgraph::parse_json(R"({"id": 7, "ratio": 7.0, "names": ["a", "b"], "m": {"k": 1}})"));

  try {
    static_cast<void>(propgraph::parse_json("[1]").get<Parameters>());
    ADD_FAILURE() << "an array is not parameters";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("JSON Parameters"), std::string::npos) << e.what();
  }
  EXPECT_THROW(static_cast<void>(propgraph::parse_json(R"({"": 1})").get<Parameters>()), InvalidArgument);
}

}  // namespace
