// Round trips: each format, and every chain of formats, on a graph with every Value type,
// unicode, quotes, separators and line breaks in strings, empty properties, self-loops and
// parallel edges.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

#include <gtest/gtest.h>

#include "io_test_support.hpp"

namespace propgraph::io::test {
namespace {

/// Fills g with the round-trip fixture. `non_finite` adds NaN and infinities (not for NDJSON).
void build_fixture(GraphOperations& g, bool non_finite = false) {
  Properties alice{
      {"name", "Alice"},
      {"age", 30},
      {"score", 9.5},
      {"whole_double", 30.0},
      {"negative_zero", -0.0},
      {"tiny", 4.9e-324},
      {"huge", 1.7976931348623157e308},
      {"active", true},
      {"min", std::numeric_limits<std::int64_t>::min()},
      {"max", std::numeric_limits<std::int64_t>::max()},
      {"tags", Value::list({"admin", "dev ops", "a,b", "quote \"q\""})},
      {"numbers", Value::list({1, -2, 3})},
      {"ratios", Value::list({0.5, 2.0})},
      {"flags", Value::list({true, false})},
      {"mixed", Value::list({1, "two", 3.5, nullptr, Value::list({true, Value::list({})})})},
      {"empty_list", ValueList{}},
      {"semicolons", Value::list({"x;y", ""})},
      {"unicode", "Zoë — 東京 🚀"},
      {"quotes", "say \"hi\" and 'bye'"},
      {"commas", "a,b,,c"},
      {"newlines", "line1\nline2\r\nline3\rend"},
      {"blanks", "  padded\t"},
      {"empty", ""},
      {"controls", "bell\x07 soh\x01 esc\x1b"},  // NUL is outside the text rule (model.hpp)
      {"non_characters", "\xEF\xBF\xBE\xEF\xBF\xBF"},
      {"xml", "<a href=\"x\">&amp;</a> ]]>"},
      {"key with space", 1},
      {"colon:key", "c"},
      {"comma,key", "k"},
      {"quote\"key", "q"},
      {"ünïcödé", "ü"},
  };
  if (non_finite) {
    alice.set("nan", std::nan(""));
    alice.set("inf", std::numeric_limits<double>::infinity());
    alice.set("minus_inf", -std::numeric_limits<double>::infinity());
  }
  auto a = g.create_vertex("Person", alice);
  auto b = g.create_vertex("Person", {{"name", "Bob"}, {"age", 25}, {"score", 7.0}});
  auto empty = g.create_vertex("Thing");
  auto acme = g.create_vertex("Company", {{"name", "ACME, Inc."}, {"age", "old"}});  // age: string here
  g.create_edge(a.id, b.id, "KNOWS", {{"since", 2020}, {"weight", 0.5}});
  g.create_edge(a.id, b.id, "KNOWS", {{"since", 2021}, {"weight", 1}});  // parallel; weight int here
  g.create_edge(a.id, a.id, "KNOWS", {{"note", "self,\"loop\"\n"}});      // self-loop
  g.create_edge(b.id, empty.id, "FOLLOWS");                              // no properties
  g.create_edge(empty.id, acme.id, "WORKS_AT", {{"roles", Value::list({"a", "b"})}});
  g.create_edge(empty.id, acme.id, "WORKS_AT", {{"roles", Value::list({"c"})}});
}

enum class Fmt { csv, ndjson, graphml };

std::string name_of(Fmt f) { return f == Fmt::csv ? "csv" : f == Fmt::ndjson ? "ndjson" : "graphml"; }
std::ostream& operator<<(std::ostream& out, Fmt f) { return out << name_of(f); }

void export_to(Fmt f, GraphOperations& g, const TempDir& dir, const std::string& stem) {
  switch (f) {
    case Fmt::csv: export_csv(g, dir / (stem + ".vertices.csv"), dir / (stem + ".edges.csv")); break;
    case Fmt::ndjson: export_ndjson(g, dir / (stem + ".ndjson")); break;
    case Fmt::graphml: export_graphml(g, dir / (stem + ".graphml")); break;
  }
}

ImportReport import_from(Fmt f, GraphOperations& g, const TempDir& dir, const std::string& stem,
                         const ImportOptions& options = {}) {
  switch (f) {
    case Fmt::csv: return import_csv(g, dir / (stem + ".vertices.csv"), dir / (stem + ".edges.csv"), options);
    case Fmt::ndjson: return import_ndjson(g, dir / (stem + ".ndjson"), options);
    case Fmt::graphml: return import_graphml(g, dir / (stem + ".graphml"), options);
  }
  return {};
}

class RoundTrip : public ::testing::TestWithParam<Fmt> {};

TEST_P(RoundTrip, KeepsEveryValueAndStructure) {
  const Fmt f = GetParam();
  TempDir dir;
  MemoryGraph original;
  build_fixture(original, f != Fmt::ndjson);
  export_to(f, original, dir, "g");

  MemoryGraph copy;
  ImportReport report;
  try {
    report = import_from(f, copy, dir, "g");
  } catch (const ImportFailed& e) {
    FAIL() << fmt::format("{}", e.report());
  }
  EXPECT_TRUE(report.ok()) << fmt::format("{}", report);
  EXPECT_EQ(report.records_read, 10u);
  EXPECT_EQ(report.vertices_created, 4u);
  EXPECT_EQ(report.edges_created, 6u);
  EXPECT_EQ(report.vertex_labels, (std::vector<std::string>{"Company", "Person", "Thing"}));
  EXPECT_EQ(report.edge_labels, (std::vector<std::string>{"FOLLOWS", "KNOWS", "WORKS_AT"}));

  // NaN != NaN: compare those by hand, the rest by value.
  const std::string nan_key = "nan";
  auto expected = shape(original, f != Fmt::ndjson ? nan_key : "");
  auto actual = shape(copy, f != Fmt::ndjson ? nan_key : "");
  EXPECT_EQ(expected, actual) << "expected:\n" << describe(expected) << "actual:\n" << describe(actual);
  if (f != Fmt::ndjson) {
    auto people = copy.find_vertices_by_label("Person");
    ASSERT_FALSE(people.empty());
    const Value& nan = people.front().properties["nan"];
    ASSERT_TRUE(nan.is_double());
    EXPECT_TRUE(std::isnan(nan.as_double()));
  }
}

TEST_P(RoundTrip, ExportIsDeterministicAndStable) {
  const Fmt f = GetParam();
  TempDir dir;
  MemoryGraph original;
  build_fixture(original);
  export_to(f, original, dir, "a");
  export_to(f, original, dir, "b");
  for (const auto& suffix : f == Fmt::csv ? std::vector<std::string>{".vertices.csv", ".edges.csv"}
                                          : std::vector<std::string>{fmt::format(".{}", name_of(f))}) {
    EXPECT_EQ(read_file(dir / ("a" + suffix)), read_file(dir / ("b" + suffix))) << suffix;
  }
  // Importing an export and exporting again gives the same file, but for the ids.
  MemoryGraph copy;
  import_from(f, copy, dir, "a");
  export_to(f, copy, dir, "c");
  MemoryGraph copy2;
  import_from(f, copy2, dir, "c");
  EXPECT_EQ(shape(copy), shape(copy2));
}

TEST_P(RoundTrip, EmptyGraph) {
  const Fmt f = GetParam();
  TempDir dir;
  MemoryGraph empty;
  auto written = [&] {
    switch (f) {
      case Fmt::csv: return export_csv(empty, dir / "g.vertices.csv", dir / "g.edges.csv");
      case Fmt::ndjson: return export_ndjson(empty, dir / "g.ndjson");
      default: return export_graphml(empty, dir / "g.graphml");
    }
  }();
  EXPECT_EQ(written.vertices_written + written.edges_written, 0u);
  MemoryGraph copy;
  auto report = import_from(f, copy, dir, "g");
  EXPECT_EQ(report.records_read, 0u);
  EXPECT_TRUE(snapshot(copy).vertices.empty());
}

INSTANTIATE_TEST_SUITE_P(Formats, RoundTrip, ::testing::Values(Fmt::csv, Fmt::ndjson, Fmt::graphml),
                         [](const auto& test) { return name_of(test.param); });

class CrossFormat : public ::testing::TestWithParam<std::tuple<Fmt, Fmt>> {};

TEST_P(CrossFormat, ChainsKeepTheGraph) {
  auto [first, second] = GetParam();
  TempDir dir;
  MemoryGraph original;
  build_fixture(original);  // no NaN: every format can hold it
  export_to(first, original, dir, "one");
  MemoryGraph middle;
  import_from(first, middle, dir, "one");
  export_to(second, middle, dir, "two");
  MemoryGraph last;
  import_from(second, last, dir, "two");
  auto expected = shape(original);
  auto actual = shape(last);
  EXPECT_EQ(expected, actual) << "expected:\n" << describe(expected) << "actual:\n" << describe(actual);
}

INSTANTIATE_TEST_SUITE_P(Formats, CrossFormat,
                         ::testing::Combine(::testing::Values(Fmt::csv, Fmt::ndjson, Fmt::graphml),
                                            ::testing::Values(Fmt::csv, Fmt::ndjson, Fmt::graphml)),
                         [](const auto& test) {
                           return name_of(std::get<0>(test.param)) + "_to_" + name_of(std::get<1>(test.param));
                         });

}  // namespace
}  // namespace propgraph::io::test
