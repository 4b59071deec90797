// The TCK runner's own pieces: the Gherkin reader, TCK values (parsing, canonical rendering,
// comparison, conversion from query values) and the side-effect diff.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "gherkin.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "runner.hpp"
#include "tck_values.hpp"

namespace propgraph::tck {
namespace {

constexpr const char* kFeature = R"(# a comment
@feat
Feature: Shapes - counting shapes
  Some free description.

  Background:
    Given an empty graph

  @first
  Scenario: [1] Count squares
    And having executed:
      """
      CREATE (:Square {side: 2})
        RETURN 1
      """
    When executing query:
      """cypher
      MATCH (s) RETURN count(s) AS n
      """
    Then the result should be, in any order:
      | n |
      | 1 |
    # a comment between steps
    And no side effects

  Scenario Outline: [2] Sides of <shape>
    When executing query:
      """
      RETURN <sides> AS sides
      """
    Then the result should be, in order:
      | sides   |
      | <sides> |

    Examples:
      | shape    | sides |
      | triangle | 3     |
      | square   | 4     |

    @more
    Examples:
      | shape | sides |
      | pipe  | 'a\|b' |
)";

TEST(Gherkin, ReadsBackgroundScenariosAndExpandsOutlines) {
  const Feature f = parse_feature(kFeature, "shapes.feature");
  EXPECT_EQ(f.name, "Shapes - counting shapes");
  ASSERT_EQ(f.scenarios.size(), 4u);

  const Scenario& first = f.scenarios[0];
  EXPECT_EQ(first.name, "[1] Count squares");
  EXPECT_EQ(first.example_index, 0);
  EXPECT_EQ(first.tags, (std::vector<std::string>{"@feat", "@first"}));
  ASSERT_EQ(first.steps.size(), 5u);
  EXPECT_EQ(first.steps[0].keyword, "Given");
  EXPECT_EQ(first.steps[0].text, "an empty graph");
  EXPECT_EQ(first.steps[1].text, "having executed:");
  EXPECT_TRUE(first.steps[1].has_doc_string);
  // The doc string's indentation is stripped, deeper indentation kept.
  EXPECT_EQ(first.steps[1].doc_string, "CREATE (:Square {side: 2})\n  RETURN 1");
  EXPECT_EQ(first.steps[2].doc_string, "MATCH (s) RETURN count(s) AS n");
  EXPECT_EQ(first.steps[3].table, (Table{{"n"}, {"1"}}));
  EXPECT_EQ(first.steps[4].text, "no side effects");

  const Scenario& triangle = f.scenarios[1];
  EXPECT_EQ(triangle.name, "[2] Sides of triangle");
  EXPECT_EQ(triangle.example_index, 1);
  ASSERT_EQ(triangle.steps.size(), 3u);
  EXPECT_EQ(triangle.steps[1].doc_string, "RETURN 3 AS sides");
  EXPECT_EQ(triangle.steps[2].table, (Table{{"sides"}, {"3"}}));
  EXPECT_EQ(f.scenarios[2].example_index, 2);
  EXPECT_EQ(f.scenarios[2].steps[1].doc_string, "RETURN 4 AS sides");

  const Scenario& pipe = f.scenarios[3];
  EXPECT_EQ(pipe.example_index, 3);
  EXPECT_EQ(pipe.tags, (std::vector<std::string>{"@feat", "@more"}));
  EXPECT_EQ(pipe.steps[1].doc_string, "RETURN 'a|b' AS sides");
}

TEST(Gherkin, TableCellsAreUnescapedAndTrimmed) {
  EXPECT_EQ(split_table_row(R"(| a |  b c |)"), (std::vector<std::string>{"a", "b c"}));
  EXPECT_EQ(split_table_row(R"(| x\|y | \\ | 'p\nq' | \' |)"),
            (std::vector<std::string>{"x|y", "\\", "'p\nq'", "\\'"}));
  EXPECT_EQ(split_table_row("||"), (std::vector<std::string>{""}));
}

TEST(Gherkin, ReportsErrorsWithTheLine) {
  EXPECT_THROW((void)parse_feature("Scenario: no feature\n"), GherkinError);
  try {
    (void)parse_feature("Feature: f\n  Scenario: s\n    When executing query:\n      \"\"\"\n      RETURN 1\n",
                        "open.feature");
    FAIL() << "no error";
  } catch (const GherkinError& e) {
    EXPECT_NE(std::string(e.what()).find("open.feature:4"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)parse_feature("Feature: f\n  Scenario Outline: s\n    Given any graph\n"), GherkinError);
  EXPECT_THROW((void)parse_feature("Feature: f\n  Scenario: s\n    Given any graph\n      | a | b |\n      | c |\n"),
               GherkinError);
}

std::string canon(std::string_view text, bool unordered = false) { return canonical(parse_tck_value(text), unordered); }

TEST(TckValues, ParsesScalars) {
  EXPECT_EQ(parse_tck_value("null").kind, TckValue::Kind::null);
  EXPECT_TRUE(parse_tck_value("true").boolean);
  EXPECT_EQ(parse_tck_value("-42").integer, -42);
  EXPECT_EQ(parse_tck_value("-9223372036854775808").integer, INT64_MIN);
  EXPECT_EQ(parse_tck_value(" 7 ").kind, TckValue::Kind::integer);
  EXPECT_EQ(parse_tck_value("2.5").real, 2.5);
  EXPECT_EQ(parse_tck_value("1e3").kind, TckValue::Kind::real);
  EXPECT_EQ(parse_tck_value(".5").real, 0.5);
  EXPECT_TRUE(std::isnan(parse_tck_value("NaN").real));
  EXPECT_EQ(parse_tck_value("-Inf").real, -INFINITY);
  EXPECT_EQ(parse_tck_value("Inf").real, INFINITY);
  EXPECT_EQ(parse_tck_value(R"('it\'s \\ here')").string, "it's \\ here");
  EXPECT_EQ(parse_tck_value("''").string, "");
  for (const char* bad :
       {"", "nul", "'open", "[1, 2", "{a 1}", "1x", "(:A", "<(:A)-[:T]-(:B)>", "99999999999999999999"}) {
    EXPECT_THROW((void)parse_tck_value(bad), ValueSyntaxError) << bad;
  }
}

TEST(TckValues, CanonicalFormSortsKeysAndLabels) {
  EXPECT_EQ(canon("{b: 1, a: [1, 'x', null]}"), "{a: [1, 'x', null], b: 1}");
  EXPECT_EQ(canon("{``: true, `a b`: 0}"), "{``: true, `a b`: 0}");
  EXPECT_EQ(canon("(:B:A {z: 1, y: 2.0})"), "(:A:B {y: 2.0, z: 1})");
  EXPECT_EQ(canon("( )"), "()");
  EXPECT_EQ(canon("({k: 'v'})"), "({k: 'v'})");
  EXPECT_EQ(canon("[:T {w: 0.5}]"), "[:T {w: 0.5}]");
  EXPECT_EQ(canon("[ :T ]"), "[:T]");
  EXPECT_EQ(canon("<(:A)-[:T]->(:B)<-[:U {x: 1}]-()>"), "<(:A)-[:T]->(:B)<-[:U {x: 1}]-()>");
  EXPECT_EQ(canon("<()>"), "<()>");
  EXPECT_EQ(canon("[[], [[]], {}]"), "[[], [[]], {}]");
  EXPECT_EQ(canon("'a\\'b'"), "'a\\'b'");
}

TEST(TckValues, NumbersKeepTheirType) {
  EXPECT_NE(canon("1"), canon("1.0"));
  EXPECT_EQ(canon("1.0"), "1.0");
  EXPECT_EQ(canon("1.0"), canon("1.00"));
  EXPECT_EQ(canon("0.1"), "0.1");
  EXPECT_EQ(canon("1e2"), canon("100.0"));
  EXPECT_EQ(canon("NaN"), canonical(TckValue::of_real(std::nan(""))));
  EXPECT_EQ(canon("-Inf"), "-Inf");
  EXPECT_EQ(canon("-0.0"), canon("0.0"));
  EXPECT_EQ(format_real(0.30000000000000004), "0.30000000000000004");
  EXPECT_NE(canon("0.3"), format_real(0.1 + 0.2));
}

TEST(TckValues, UnorderedListsCompareAsMultisets) {
  EXPECT_NE(canon("[1, 2, 2]"), canon("[2, 1, 2]"));
  EXPECT_EQ(canon("[1, 2, 2]", true), canon("[2, 1, 2]", true));
  EXPECT_NE(canon("[1, 2, 2]", true), canon("[2, 1, 1]", true));
  EXPECT_EQ(canon("{k: [[2, 1], 'a']}", true), canon("{k: ['a', [1, 2]]}", true));
}

TEST(TckValues, ConvertsQueryValues) {
  Vertex a{ElementId("v1"), "A", Properties{{"name", "a"}}};
  Vertex plain{ElementId("v2"), std::string(unlabeled_vertex_label), {}};
  Edge t{ElementId("e1"), "T", ElementId("v1"), ElementId("v2"), Properties{{"w", 1.5}}};
  EXPECT_EQ(canonical(from_query_value(QueryValue(a))), "(:A {name: 'a'})");
  EXPECT_EQ(canonical(from_query_value(QueryValue(plain))), "()");
  EXPECT_EQ(canonical(from_query_value(QueryValue(t))), "[:T {w: 1.5}]");
  EXPECT_EQ(canonical(from_query_value(QueryValue(Path{{a, plain}, {t}}))), "<(:A {name: 'a'})-[:T {w: 1.5}]->()>");
  EXPECT_EQ(canonical(from_query_value(QueryValue(Path{{plain, a}, {t}}))), "<()<-[:T {w: 1.5}]-(:A {name: 'a'})>");
  EXPECT_EQ(
      canonical(from_query_value(QueryValue(QueryValue::Map{{"b", 2}, {"a", QueryValue::List{1.0, "x", nullptr}}}))),
      "{a: [1.0, 'x', null], b: 2}");
  EXPECT_EQ(canonical(from_value(Value::list({1, "two", true}))), "[1, 'two', true]");

  const QueryValue p = to_query_value(parse_tck_value("{xs: [1, 2.5, 'a'], n: null}"));
  ASSERT_TRUE(p.is_map());
  EXPECT_EQ(canonical(from_query_value(p)), "{n: null, xs: [1, 2.5, 'a']}");
  EXPECT_THROW((void)to_query_value(parse_tck_value("(:A)")), ValueSyntaxError);
}

TEST(SideEffects, DiffsSnapshotsAsTheTckObservesThem) {
  MemoryGraph graph;
  const Vertex kept = graph.create_vertex("A", {{"x", 1}});
  const Vertex gone = graph.create_vertex("B", {{"y", 2}});
  const GraphSnapshot before = snapshot(graph);
  EXPECT_EQ(before.labels, (std::set<std::string>{"A", "B"}));

  graph.create_vertex("A");                                       // a label already there
  graph.create_vertex(std::string(unlabeled_vertex_label), {});   // no label at all
  graph.create_vertex("C", {{"z", 3}});                           // a new label
  (void)graph.update_vertex("A", kept.id, {{"x", 5}});            // a changed value: -1 +1
  (void)graph.delete_vertex("B", gone.id);                        // its label and property go
  const auto e = graph.create_edge(kept.id, kept.id, "T", {{"w", true}});
  (void)e;

  const auto effects = side_effects(before, snapshot(graph));
  EXPECT_EQ(effects.at("+nodes"), 3);
  EXPECT_EQ(effects.at("-nodes"), 1);
  EXPECT_EQ(effects.at("+relationships"), 1);
  EXPECT_EQ(effects.at("-relationships"), 0);
  EXPECT_EQ(effects.at("+properties"), 3);  // x: 5, z: 3, w: true
  EXPECT_EQ(effects.at("-properties"), 2);  // x: 1, y: 2
  EXPECT_EQ(effects.at("+labels"), 1);      // C
  EXPECT_EQ(effects.at("-labels"), 1);      // B
  EXPECT_EQ(side_effects(before, before).at("+nodes"), 0);
}

// The runner end to end, on queries any engine state answers.
constexpr const char* kScenarios = R"(Feature: runner
  Scenario: [1] a right value
    Given any graph
    When executing query: UNWIND [1, 2] AS a RETURN a
    Then the result should be, in any order:
      | a |
      | 2 |
      | 1 |
    And no side effects
  Scenario: [2] a float where an integer is
    Given any graph
    When executing query: RETURN 1 AS a
    Then the result should be, in any order:
      | a   |
      | 1.0 |
  Scenario: [3] the wrong order
    Given any graph
    When executing query: UNWIND [1, 2] AS a RETURN a
    Then the result should be, in order:
      | a |
      | 2 |
      | 1 |
  Scenario: [4] side effects
    Given an empty graph
    And having executed: CREATE (:A {x: 1})
    When executing query: MATCH (n:A) SET n.x = 2 CREATE (:B)
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +properties | 1 |
      | -properties | 1 |
      | +labels     | 1 |
  Scenario: [5] unexpected side effects
    Given an empty graph
    When executing query: CREATE ()
    Then the result should be empty
    And no side effects
  Scenario: [6] a procedure
    Given an empty graph
    And there exists a procedure test.doNothing() :: ():
      | in | out |
    When executing query: CALL test.doNothing()
    Then the result should be empty
  Scenario: [7] an expected syntax error
    Given any graph
    When executing query: RETURN (1
    Then a SyntaxError should be raised at compile time: *
  Scenario: [8] an error that does not come
    Given any graph
    When executing query: RETURN 1 AS a
    Then a TypeError should be raised at runtime: InvalidArgumentType
)";

TEST(Runner, ClassifiesScenarios) {
  const Feature f = parse_feature(kScenarios, "runner.feature");
  ASSERT_EQ(f.scenarios.size(), 8u);
  const RunOptions options;
  auto run = [&](std::size_t i) { return run_scenario(f.scenarios[i], options); };
  EXPECT_EQ(run(0).outcome, Outcome::passed) << run(0).reason;
  EXPECT_EQ(run(1).outcome, Outcome::failed);
  EXPECT_NE(run(1).reason.find("result differs"), std::string::npos) << run(1).reason;
  EXPECT_EQ(run(2).outcome, Outcome::failed);
  EXPECT_EQ(run(3).outcome, Outcome::passed) << run(3).reason;
  EXPECT_EQ(run(4).outcome, Outcome::failed);
  EXPECT_NE(run(4).reason.find("+nodes expected 0, actual 1"), std::string::npos) << run(4).reason;
  EXPECT_EQ(run(5).outcome, Outcome::outside);
  EXPECT_EQ(run(5).reason, "procedures");
  EXPECT_EQ(run(6).outcome, Outcome::passed) << run(6).reason;
  EXPECT_EQ(run(7).outcome, Outcome::failed);
  EXPECT_NE(run(7).reason.find("the query succeeded"), std::string::npos) << run(7).reason;
}

}  // namespace
}  // namespace propgraph::tck
