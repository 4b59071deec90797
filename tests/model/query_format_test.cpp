// {fmt} for query values and results: Cypher's notation with element ids, and the shell's table.
#include <limits>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "propgraph/fmt.hpp"

namespace {

using propgraph::ElementId;
using propgraph::Properties;
using propgraph::QueryResult;
using propgraph::QueryValue;

std::string str(const QueryValue& v) { return fmt::format("{}", v); }

propgraph::Vertex ann() { return {ElementId("g1:v1"), "Person", Properties{{"name", "Ann"}, {"age", 30}}}; }
propgraph::Vertex bob() { return {ElementId("g1:v2"), "Person", {}}; }
propgraph::Edge knows() {
  return {ElementId("g1:e1"), "KNOWS", ElementId("g1:v1"), ElementId("g1:v2"), Properties{{"since", 2020}}};
}

TEST(QueryValueFormat, Scalars) {
  EXPECT_EQ(str(QueryValue()), "null");
  EXPECT_EQ(str(true), "true");
  EXPECT_EQ(str(1), "1");
  EXPECT_EQ(str(-7), "-7");
  EXPECT_EQ(str(1.0), "1.0");
  EXPECT_EQ(str(2.5), "2.5");
  EXPECT_EQ(str(1e20), "1e+20");
  EXPECT_EQ(str(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(str(-std::numeric_limits<double>::infinity()), "-Infinity");
  EXPECT_EQ(str("Ann"), "'Ann'");
  EXPECT_EQ(str("it's \"x\"\\\n\x01"), R"('it\'s "x"\\\n\u0001')");
}

TEST(QueryValueFormat, ListsAndMaps) {
  EXPECT_EQ(str(QueryValue::List{1, 2}), "[1, 2]");
  EXPECT_EQ(str(QueryValue::List{}), "[]");
  EXPECT_EQ(str(QueryValue::Map{{"k", 1}, {"a", QueryValue::List{"x", nullptr}}}), "{a: ['x', null], k: 1}");
  EXPECT_EQ(str(QueryValue::Map{{"two words", 1}, {"back`tick", 2}}), "{`back``tick`: 2, `two words`: 1}");
  EXPECT_EQ(str(QueryValue::Map{}), "{}");
}

TEST(QueryValueFormat, ElementsCarryTheirIds) {
  EXPECT_EQ(str(ann()), "(g1:v1:Person {age: 30, name: 'Ann'})");
  EXPECT_EQ(str(bob()), "(g1:v2:Person)");
  EXPECT_EQ(str(propgraph::Vertex{ElementId("g1:v3"), std::string(propgraph::unlabeled_vertex_label), {}}), "(g1:v3)");
  EXPECT_EQ(str(knows()), "[g1:e1:KNOWS g1:v1->g1:v2 {since: 2020}]");
  EXPECT_EQ(str(propgraph::Vertex{ElementId("g1:v4"), "Person",
                                  Properties{{"score", 1.0}, {"tags", propgraph::ValueList{"a"}}}}),
            "(g1:v4:Person {score: 1.0, tags: ['a']})");
}

TEST(QueryValueFormat, PathsShowEachEdgesDirection) {
  const propgraph::Edge back{ElementId("g1:e2"), "KNOWS", ElementId("g1:v3"), ElementId("g1:v2"), {}};
  const propgraph::Vertex carl{ElementId("g1:v3"), "Person", {}};
  EXPECT_EQ(str(propgraph::Path{{ann(), bob(), carl}, {knows(), back}}),
            "<(g1:v1:Person {age: 30, name: 'Ann'})-[g1:e1:KNOWS {since: 2020}]->(g1:v2:Person)"
            "<-[g1:e2:KNOWS]-(g1:v3:Person)>");
  EXPECT_EQ(str(propgraph::Path{{bob()}, {}}), "<(g1:v2:Person)>");
}

TEST(QueryResultFormat, AlignedTableAndFooter) {
  QueryResult r;
  r.columns = {"n.name", "n.age"};
  r.rows = {{"Ann", 30}, {"Björn", nullptr}};
  EXPECT_EQ(fmt::format("{}", r),
            "+---------+-------+\n"
            "| n.name  | n.age |\n"
            "+---------+-------+\n"
            "| 'Ann'   | 30    |\n"
            "| 'Björn' | null  |\n"
            "+---------+-------+\n"
            "2 rows");
  r.rows.resize(1);
  r.stats.properties_set = 1;
  EXPECT_TRUE(fmt::format("{}", r).ends_with("+\n1 row; 1 property set"));
}

TEST(QueryResultFormat, WithoutColumnsOnlyTheFooter) {
  QueryResult r;
  EXPECT_EQ(fmt::format("{}", r), "0 rows");
  r.stats.vertices_created = 2;
  r.stats.edges_created = 1;
  r.stats.properties_set = 3;
  r.stats.statements_sent = 4;
  EXPECT_EQ(fmt::format("{}", r), "0 rows; 2 vertices created, 1 edge created, 3 properties set");
  EXPECT_EQ(fmt::format("{}", propgraph::QueryStats{}), "no changes");
}

}  // namespace
