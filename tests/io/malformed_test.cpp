// The malformed-input table: each broken input fails with the documented error at its
// location, and leaves the graph exactly as it was.
#include <functional>

#include <gtest/gtest.h>

#include "io_test_support.hpp"

namespace propgraph::io::test {
namespace {

struct Malformed {
  std::string name;
  std::string format;     // csv, ndjson or graphml
  std::string input;      // the vertices file for csv, the only file otherwise
  std::string edges;      // csv only
  std::string message;    // a part of the first error's message
  std::uint64_t line;
  std::uint64_t column;   // 0: not checked
  std::string field;      // the first error's field
  bool in_edges = false;  // csv: the error is in the edges file
  std::function<void(ImportOptions&)> options = {};
};

std::ostream& operator<<(std::ostream& out, const Malformed& m) { return out << m.format << "_" << m.name; }

const std::string kVertexHeader = ":ID,:LABEL,name:string,age:int\n";
const std::string kEdgeHeader = ":START_ID,:END_ID,:TYPE,since:int\n";
const std::string kGraphmlHead =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
    "  <key id=\"age\" for=\"node\" attr.name=\"age\" attr.type=\"int\"/>\n"
    "  <graph id=\"G\" edgedefault=\"directed\">\n";  // lines 1-4
const std::string kGraphmlTail = "  </graph>\n</graphml>\n";

std::string graphml(const std::string& body) { return kGraphmlHead + body + kGraphmlTail; }

std::vector<Malformed> cases() {
  auto small_records = [](ImportOptions& o) { o.max_record_bytes = 1024; };
  const std::string huge(5000, 'x');
  return {
      // -- CSV ------------------------------------------------------------------------------
      {"truncated_in_quotes", "csv", kVertexHeader + "a,Person,\"Al", kEdgeHeader, "unterminated quoted field", 2, 10,
       ""},
      {"truncated_record", "csv", kVertexHeader + "a,Person,Alice,30\nb,Person", kEdgeHeader,
       "expected 4 fields, found 2", 3, 1, ""},
      {"bad_quoting_after_quote", "csv", kVertexHeader + "a,Person,\"Al\"ice,30\n", kEdgeHeader,
       "unexpected character after a closing quote", 2, 14, ""},
      {"bad_quoting_in_field", "csv", kVertexHeader + "a,Person,Al\"ice,30\n", kEdgeHeader,
       "quote inside an unquoted field", 2, 12, ""},
      {"wrong_type", "csv", kVertexHeader + "a,Person,Alice,thirty\n", kEdgeHeader, "expected int", 2, 16, "age"},
      {"wrong_type_array", "csv", ":ID,scores:int[]\na,1;x;3\n", kEdgeHeader, "element 2 of the array", 2, 3, "scores"},
      {"unknown_type_tag", "csv", ":ID,age:integer\na,1\n", kEdgeHeader, "unknown type 'integer'", 1, 5, "age:integer"},
      {"missing_id", "csv", kVertexHeader + ",Person,Alice,30\n", kEdgeHeader, "missing id", 2, 1, "id"},
      {"missing_id_column", "csv", ":LABEL,name\nPerson,Alice\n", kEdgeHeader, "needs an :ID column", 1, 1, ""},
      {"missing_endpoint", "csv", kVertexHeader + "a,Person,Alice,30\n", kEdgeHeader + "a,zz,KNOWS,2020\n",
       "no vertex has id \"zz\"", 2, 3, "to", true},
      {"duplicate_id", "csv", kVertexHeader + "a,Person,Alice,30\na,Person,Again,31\n", kEdgeHeader,
       "duplicate vertex id \"a\"", 3, 1, "id"},
      {"invalid_utf8", "csv",
       kVertexHeader + "a,Person,Al\xff"
                       "ice,30\n",
       kEdgeHeader, "invalid UTF-8", 2, 12, ""},
      {"huge_line", "csv", kVertexHeader + "a,Person," + huge + ",30\n", kEdgeHeader,
       "record longer than the limit of 1024 bytes", 2, 1, "", false, small_records},
      {"empty_file", "csv", "", kEdgeHeader, "the file is empty", 1, 1, ""},
      {"bad_label", "csv", kVertexHeader + "a,Bad Label,Alice,30\n", kEdgeHeader, "label \"Bad Label\" is malformed", 2,
       3, "label"},
      {"empty_quoted_label", "csv", kVertexHeader + "a,\"\",Alice,30\n", kEdgeHeader, "label must not be blank", 2, 3,
       "label"},
      {"empty_quoted_edge_label", "csv", kVertexHeader + "a,P,A,1\n", kEdgeHeader + "a,a,\"\",2020\n",
       "label must not be blank", 2, 5, "label", true},
      {"control_in_property_name", "csv",
       ":ID,a\x10"
       "b:string\na,x\n",
       kEdgeHeader,
       "property name 'a\x10"
       "b' is invalid: control character U+0010 at byte 1",
       1, 5,
       "a\x10"
       "b:string"},
      {"nul_in_value", "csv", kVertexHeader + std::string("a,Person,Al\0ice,30\n", 19), kEdgeHeader,
       "a NUL character at byte 2", 2, 10, "name"},
      {"nul_in_json_value", "csv", ":ID,j:json\na,\"[\"\"\\u0000\"\"]\"\n", kEdgeHeader,
       "element 1: a NUL character at byte 0", 2, 3, "j"},
      {"json_list_nested_too_deep", "csv", ":ID,j:json\na," + std::string(65, '[') + std::string(65, ']') + "\n",
       kEdgeHeader, "lists nested deeper than 64", 2, 3, "j"},
      {"nul_in_id", "csv", kVertexHeader + std::string("a\0,Person,Alice,30\n", 19), kEdgeHeader,
       "id: a NUL character at byte 1", 2, 1, "id"},
      // -- NDJSON ----------------------------------------------------------------------------
      {"truncated", "ndjson", "{\"type\":\"vertex\",\"id\":\"a\"}\n{\"type\":\"vertex\",\"id\":\"b\",\"pro", "",
       "invalid JSON", 2, 1, ""},
      {"bad_quoting", "ndjson", "{\"type\":\"vertex\",\"id\":\"a\\\"}\n", "", "invalid JSON", 1, 1, ""},
      {"wrong_type", "ndjson", "{\"type\":\"vertex\",\"id\":\"a\",\"label\":5}\n", "", "expected a string", 1, 27,
       "label"},
      {"nested_object", "ndjson", "{\"type\":\"vertex\",\"id\":\"a\",\"properties\":{\"p\":{\"x\":1}}}\n", "",
       "JSON objects are not property values", 1, 41, "p"},
      {"integer_out_of_range", "ndjson",
       "{\"type\":\"vertex\",\"id\":\"a\",\"properties\":{\"big\":18446744073709551615}}\n", "",
       "beyond the int64 range", 1, 41, "big"},
      {"list_nested_too_deep", "ndjson",
       "{\"type\":\"vertex\",\"id\":\"a\",\"properties\":{\"p\":" + std::string(65, '[') + std::string(65, ']') +
           "}}\n",
       "", "lists nested deeper than 64", 1, 41, "p"},
      {"unknown_type_tag", "ndjson", "{\"type\":\"node\",\"id\":\"a\"}\n", "", "expected \"vertex\" or \"edge\"", 1, 2,
       "type"},
      {"missing_id", "ndjson", "{\"type\":\"vertex\",\"id\":\"a\"}\n{\"type\":\"vertex\",\"label\":\"P\"}\n", "",
       "missing id", 2, 1, "id"},
      {"missing_endpoint", "ndjson",
       "{\"type\":\"vertex\",\"id\":\"a\"}\n{\"type\":\"edge\",\"from\":\"a\",\"to\":\"zz\"}\n", "",
       "no vertex has id \"zz\"", 2, 27, "to"},
      {"duplicate_id", "ndjson", "{\"type\":\"vertex\",\"id\":\"a\"}\n\n{\"type\":\"vertex\",\"id\":\"a\"}\n", "",
       "duplicate vertex id \"a\"", 3, 1, "id"},
      {"invalid_utf8", "ndjson", "{\"type\":\"vertex\",\"id\":\"a\xc3\x28\"}\n", "", "invalid UTF-8", 1, 25, ""},
      {"huge_line", "ndjson", "{\"type\":\"vertex\",\"id\":\"a\",\"label\":\"" + huge + "\"}\n", "",
       "line longer than the limit of 1024 bytes", 1, 1, "", false, small_records},
      {"not_an_object", "ndjson", "[1,2]\n", "", "expected a JSON object", 1, 1, ""},
      {"duplicate_key", "ndjson", "{\"type\":\"edge\",\"type\":\"vertex\",\"id\":\"a\"}\n", "",
       "duplicate key in the record", 1, 16, "type"},
      {"duplicate_property", "ndjson", "{\"type\":\"vertex\",\"id\":\"a\",\"properties\":{\"p\":1,\"p\":2}}\n", "",
       "duplicate property name", 1, 47, "p"},
      {"empty_label", "ndjson", "{\"type\":\"vertex\",\"id\":\"a\",\"label\":\"\"}\n", "", "label must not be blank", 1,
       27, "label"},
      {"nul_in_value", "ndjson", "{\"type\":\"vertex\",\"id\":\"a\",\"properties\":{\"p\":\"x\\u0000y\"}}\n", "",
       "a NUL character at byte 1", 1, 41, "p"},
      {"control_in_property_name", "ndjson", "{\"type\":\"vertex\",\"id\":\"a\",\"properties\":{\"a\\u0010\":1}}\n", "",
       "property name is invalid: control character U+0010 at byte 1", 1, 0, "a\x10"},
      {"nul_in_id", "ndjson", "{\"type\":\"vertex\",\"id\":\"a\\u0000\"}\n", "", "id: a NUL character at byte 1", 1, 18,
       "id"},
      // -- GraphML ---------------------------------------------------------------------------
      {"truncated", "graphml", kGraphmlHead + "    <node id=\"a\"><data key=\"age\">3", "", "malformed XML", 5, 0, ""},
      {"bad_quoting", "graphml", graphml("    <node id=\"a><data key=\"age\">3</data></node>\n"), "", "malformed XML",
       5, 0, ""},
      {"wrong_type", "graphml", graphml("    <node id=\"a\"><data key=\"age\">thirty</data></node>\n"), "",
       "expected int", 5, 18, "age"},
      {"unknown_type_tag", "graphml",
       "<graphml>\n  <key id=\"k\" for=\"node\" attr.name=\"k\" attr.type=\"integer\"/>\n  <graph/>\n</graphml>\n", "",
       "unknown type 'integer'", 2, 3, "attr.type"},
      {"missing_id", "graphml", graphml("    <node><data key=\"age\">3</data></node>\n"), "", "missing id", 5, 5, "id"},
      {"missing_endpoint", "graphml", graphml("    <edge source=\"a\" target=\"zz\"/>\n    <node id=\"a\"/>\n"), "",
       "no vertex has id \"zz\"", 5, 5, "to"},
      {"duplicate_id", "graphml", graphml("    <node id=\"a\"/>\n    <node id=\"a\"/>\n"), "",
       "duplicate vertex id \"a\"", 6, 5, "id"},
      {"invalid_utf8", "graphml", graphml("    <node id=\"\xe2\x82\"/>\n"), "", "invalid UTF-8", 5, 15, ""},
      {"huge_value", "graphml",
       "<graphml>\n  <key id=\"s\" for=\"node\" attr.name=\"s\"/>\n  <graph>" +
           std::string("<node id=\"a\"><data key=\"s\">") + huge + "</data></node>" + "</graph>\n</graphml>\n",
       "", "value longer than the limit of 1024 bytes", 3, 23, "s", false, small_records},
      {"undeclared_key", "graphml", graphml("    <node id=\"a\"><data key=\"nope\">1</data></node>\n"), "",
       "no <key> declares this key", 5, 18, "nope"},
      {"hyperedge", "graphml", graphml("    <hyperedge/>\n"), "", "hyperedges are not supported", 5, 5, ""},
      {"not_graphml", "graphml", "<html/>\n", "", "no <graphml> root element", 1, 1, ""},
      {"surrogate_reference", "graphml", graphml("    <node id=\"a\"><data key=\"age\">&#xD800;</data></node>\n"), "",
       "character reference to U+D800, which XML 1.0 does not allow", 5, 34, ""},
      {"reference_beyond_unicode", "graphml",
       graphml("    <node id=\"a\"><data key=\"age\">&#x110000;</data></node>\n"), "",
       "character reference beyond U+10FFFF", 5, 34, ""},
      {"nul_reference", "graphml", graphml("    <node id=\"a&#0;b\"/>\n"), "",
       "character reference to U+0000, which XML 1.0 does not allow", 5, 16, ""},
      {"raw_control_in_attr_name", "graphml",
       "<graphml>\n  <key id=\"k\" for=\"node\" attr.name=\"a\x10"
       "b\"/>\n  <graph/>\n</graphml>\n",
       "", "character U+0010 is not allowed in XML 1.0", 2, 38, ""},
      {"tab_reference_in_attr_name", "graphml",
       "<graphml>\n  <key id=\"k\" for=\"node\" attr.name=\"a&#9;b\"/>\n  <graph/>\n</graphml>\n", "",
       "property name is invalid: control character U+0009 at byte 1", 2, 3, "attr.name"},
      {"empty_label", "graphml", graphml("    <node id=\"a\"><data key=\"labelV\"></data></node>\n"), "",
       "label must not be blank", 5, 5, "labelV"},
      {"empty_edge_label", "graphml",
       graphml("    <node id=\"a\"/>\n    <edge source=\"a\" target=\"a\"><data key=\"labelE\"/></edge>\n"), "",
       "label must not be blank", 6, 5, "labelE"},
  };
}

class MalformedInput : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedInput, FailsWithLocationAndLeavesGraphUnchanged) {
  const Malformed& m = GetParam();
  TempDir dir;
  MemoryGraph g;
  // Something to keep: the failed import must not touch it.
  auto alice = g.create_vertex("Person", {{"name", "Alice"}});
  auto bob = g.create_vertex("Person", {{"name", "Bob"}});
  g.create_edge(alice.id, bob.id, "KNOWS", {{"since", 2020}});
  const Snapshot before = snapshot(g);

  ImportOptions options;
  if (m.options) m.options(options);
  fs::path file;
  try {
    if (m.format == "csv") {
      write_file(dir / "vertices.csv", m.input);
      write_file(dir / "edges.csv", m.edges);
      file = dir / (m.in_edges ? "edges.csv" : "vertices.csv");
      import_csv(g, dir / "vertices.csv", dir / "edges.csv", options);
    } else if (m.format == "ndjson") {
      file = dir / "graph.ndjson";
      write_file(file, m.input);
      import_ndjson(g, file, options);
    } else {
      file = dir / "graph.graphml";
      write_file(file, m.input);
      import_graphml(g, file, options);
    }
    FAIL() << "the import succeeded";
  } catch (const ImportFailed& e) {
    const ImportReport& report = e.report();
    ASSERT_FALSE(report.ok());
    const Problem& p = first_error(report);
    EXPECT_NE(p.message.find(m.message), std::string::npos) << to_string(p);
    EXPECT_EQ(p.file, file.string()) << to_string(p);
    EXPECT_EQ(p.line, m.line) << to_string(p);
    if (m.column != 0) {
      EXPECT_EQ(p.column, m.column) << to_string(p);
    }
    EXPECT_EQ(p.field, m.field) << to_string(p);
    EXPECT_EQ(report.vertices_created + report.edges_created, 0u);
    // what() names the place and the problem.
    const std::string what = e.what();
    EXPECT_NE(what.find(fmt::format("{}:{}", file.string(), m.line)), std::string::npos) << what;
    EXPECT_NE(what.find(m.message), std::string::npos) << what;
  }
  EXPECT_EQ(snapshot(g), before);
}

INSTANTIATE_TEST_SUITE_P(Table, MalformedInput, ::testing::ValuesIn(cases()),
                         [](const auto& test) { return test.param.format + "_" + test.param.name; });

// Arbitrary cuts of a valid file never crash, hang, or leave anything behind.
TEST(MalformedInput, EveryTruncationOfAValidFileIsSafe) {
  TempDir dir;
  MemoryGraph source;
  auto a = source.create_vertex("Person", {{"name", "A \"q\", b\nc"}, {"tags", Value::list({"x", "y"})}});
  auto b = source.create_vertex("Person", {{"age", 3}});
  source.create_edge(a.id, b.id, "KNOWS", {{"w", 0.5}});
  export_csv(source, dir / "v.csv", dir / "e.csv");
  export_ndjson(source, dir / "g.ndjson");
  export_graphml(source, dir / "g.graphml");
  for (const std::string name : {"v.csv", "g.ndjson", "g.graphml"}) {
    const std::string full = read_file(dir / name);
    for (std::size_t cut = 0; cut < full.size(); ++cut) {
      write_file(dir / "cut", full.substr(0, cut));
      MemoryGraph g;
      try {
        if (name == "v.csv") {
          import_csv(g, dir / "cut", "");
        } else if (name == "g.ndjson") {
          import_ndjson(g, dir / "cut");
        } else {
          import_graphml(g, dir / "cut");
        }
      } catch (const ImportFailed& e) {
        EXPECT_TRUE(snapshot(g).vertices.empty()) << name << " cut at " << cut;
        EXPECT_FALSE(e.report().problems.empty());
      }
    }
  }
}

// Random byte changes to valid files: every result is a clean success or a clean failure.
TEST(MalformedInput, RandomCorruptionIsSafe) {
  TempDir dir;
  MemoryGraph source;
  auto a = source.create_vertex("Person", {{"name", "Zoë \"q\", b"}, {"tags", Value::list({"x", "y"})}});
  auto b = source.create_vertex("Person", {{"age", 3}, {"score", 1.5}});
  source.create_edge(a.id, b.id, "KNOWS", {{"w", 0.5}});
  source.create_edge(b.id, b.id, "KNOWS");
  export_csv(source, dir / "v.csv", dir / "e.csv");
  export_ndjson(source, dir / "g.ndjson");
  export_graphml(source, dir / "g.graphml");
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  const char replacements[] = {'"', ',', '\n', '\r', '<', '>', '{', '}', '[', ']', ':', '\\', '\0', 'x', '\xff', '1'};
  for (const std::string name : {"v.csv", "e.csv", "g.ndjson", "g.graphml"}) {
    const std::string original = read_file(dir / name);
    for (int round = 0; round < 200; ++round) {
      std::string text = original;
      for (int k = 0; k < 3; ++k) text[next() % text.size()] = replacements[next() % sizeof replacements];
      MemoryGraph g;
      try {
        if (name == "v.csv") {
          write_file(dir / "x.csv", text);
          import_csv(g, dir / "x.csv", dir / "e.csv");
        } else if (name == "e.csv") {
          write_file(dir / "x.csv", text);
          import_csv(g, dir / "v.csv", dir / "x.csv");
        } else if (name == "g.ndjson") {
          write_file(dir / "x", text);
          import_ndjson(g, dir / "x");
        } else {
          write_file(dir / "x", text);
          import_graphml(g, dir / "x");
        }
      } catch (const ImportFailed& e) {
        EXPECT_TRUE(snapshot(g).vertices.empty()) << name << " round " << round;
        EXPECT_FALSE(e.report().ok());
      }
    }
  }
}

}  // namespace
}  // namespace propgraph::io::test
