// The rules every import, write and export share: what text a graph may hold (model.hpp), and
// import options that are checked before any input is read.
#include <sstream>

#include <gtest/gtest.h>

#include "io_test_support.hpp"

namespace propgraph::io::test {
namespace {

// -- the text rule at write ----------------------------------------------------------------------

TEST(TextRule, NamesAndStringValues) {
  EXPECT_EQ(property_key_fault("name"), "");
  EXPECT_EQ(property_key_fault("Zoë ключ: a/b.c"), "");
  EXPECT_EQ(property_key_fault(""), "must not be empty");
  EXPECT_EQ(property_key_fault("a\x10"), "control character U+0010 at byte 1");
  EXPECT_EQ(property_key_fault("tab\there"), "control character U+0009 at byte 3");
  EXPECT_EQ(property_key_fault("x\x7f"), "control character U+007F at byte 1");
  EXPECT_EQ(property_key_fault("c1\xc2\x85"), "control character U+0085 at byte 2");
  EXPECT_EQ(property_key_fault("nc\xef\xbf\xbe"), "noncharacter U+FFFE at byte 2");
  EXPECT_EQ(property_key_fault("long ascii name before a bad byte \xff"), "invalid UTF-8 at byte 34");

  EXPECT_EQ(string_fault(""), "");
  EXPECT_EQ(string_fault("tabs\tnewlines\r\n and \x01 controls, \xef\xbf\xbf, Zoë"), "");
  EXPECT_EQ(string_fault(std::string("a\0b", 3)), "a NUL character at byte 1");
  EXPECT_EQ(string_fault("\xed\xa0\x80"), "invalid UTF-8 at byte 0");      // U+D800, a surrogate
  EXPECT_EQ(string_fault("ab\xf4\x90\x80\x80"), "invalid UTF-8 at byte 2");  // U+110000
  EXPECT_EQ(string_fault("\xc0\xaf"), "invalid UTF-8 at byte 0");          // overlong '/'
  EXPECT_EQ(string_fault("\xe2\x82"), "invalid UTF-8 at byte 0");          // truncated
  EXPECT_EQ(string_fault("\xf0\x9f\x98\x80"), "");                         // U+1F600

  EXPECT_EQ(value_fault(Value::list({"ok", "\xff"})), "element 2: invalid UTF-8 at byte 0");
  EXPECT_EQ(value_fault(Value(42)), "");
}

TEST(TextRule, WritesRefuseWhatNoFormatCouldCarry) {
  MemoryGraph g;
  auto a = g.create_vertex("P", {{"name", "a"}});
  const Snapshot before = snapshot(g);
  EXPECT_THROW(g.create_vertex("P", {{"a\x10", 1}}), InvalidArgument);
  EXPECT_THROW(g.create_vertex("P", {{"s", "\xed\xa0\x80"}}), InvalidArgument);
  EXPECT_THROW(g.create_vertex("P", {{"s", std::string("a\0b", 3)}}), InvalidArgument);
  EXPECT_THROW(g.create_vertex("P", {{"l", Value::list({1, "\xff"})}}), InvalidArgument);
  EXPECT_THROW(g.update_vertex("P", a.id, {{"s", "\xff"}}), InvalidArgument);
  EXPECT_THROW(g.create_edge(a.id, a.id, "E", {{"\xef\xbf\xbf", 1}}), InvalidArgument);
  EXPECT_THROW(g.create_vertices(std::vector<NewVertex>{{"P", {{"k\n", 1}}}}), InvalidArgument);
  try {
    g.create_vertex("P", {{"s", "ok"}, {"t", "bad \xff"}});
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "property 't': invalid UTF-8 at byte 4");
  }
  EXPECT_EQ(snapshot(g), before);
}

// Whatever the rule accepts, every format writes and reads back unchanged.
TEST(TextRule, AcceptedTextRoundTripsThroughEveryFormat) {
  TempDir dir;
  MemoryGraph source;
  const Properties odd{{"Zoë ключ: a/b.c", "v"},
                       {"ctl", "tab\tline\ncr\r\x01\x1f\x7f end"},
                       {"nonchar", "\xef\xbf\xbe\xef\xbf\xbf"},
                       {"list", Value::list({"a;b", "\x02", ""})},
                       {" spaced ", "  "}};
  auto a = source.create_vertex("P", odd);
  source.create_edge(a.id, a.id, "E", odd);
  const Shape expected = shape(source);
  export_csv(source, dir / "v.csv", dir / "e.csv");
  export_ndjson(source, dir / "g.ndjson");
  export_graphml(source, dir / "g.graphml");
  MemoryGraph from_csv, from_ndjson, from_graphml;
  import_csv(from_csv, dir / "v.csv", dir / "e.csv");
  import_ndjson(from_ndjson, dir / "g.ndjson");
  import_graphml(from_graphml, dir / "g.graphml");
  EXPECT_EQ(shape(from_csv), expected) << describe(shape(from_csv));
  EXPECT_EQ(shape(from_ndjson), expected) << describe(shape(from_ndjson));
  EXPECT_EQ(shape(from_graphml), expected) << describe(shape(from_graphml));
}

// A graph that holds text its writes would refuse fails every export, naming the element, and
// leaves no file behind.
TEST(TextRule, ExportsRefuseTextNoImportWouldReadBack) {
  TempDir dir;
  MemoryGraph inner;
  auto v = inner.create_vertex("P", {{"name", "a"}});
  FailingGraph g(inner);
  for (const std::string bad_key : {"a\x10", "\xed\xa0\x80", ""}) {
    g.alter_found_vertices = [&](std::vector<Vertex>& found) {
      for (auto& f : found) f.properties = Properties{{bad_key, 1}};
    };
    std::ostringstream out, edges;
    for (const auto& run : std::vector<std::function<void()>>{
             [&] { export_csv(g, out, edges); }, [&] { export_ndjson(g, out); }, [&] { export_graphml(g, out); },
             [&] { export_graphml(g, dir / "g.graphml"); }}) {
      try {
        run();
        ADD_FAILURE() << "exported a property named \"" << bad_key << "\"";
      } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("vertex " + std::string(v.id.str())), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("property key is invalid"), std::string::npos) << e.what();
      }
    }
    EXPECT_FALSE(fs::exists(dir / "g.graphml"));
  }
}

// -- import options --------------------------------------------------------------------------------

void import_each_format(GraphOperations& g, const TempDir& dir, const ImportOptions& options,
                        const std::function<void(const std::string&, const std::function<void()>&)>& check) {
  check("csv", [&] { import_csv(g, dir / "v.csv", dir / "e.csv", options); });
  check("ndjson", [&] { import_ndjson(g, dir / "g.ndjson", options); });
  check("graphml", [&] { import_graphml(g, dir / "g.graphml", options); });
}

struct Inputs {
  TempDir dir;
  explicit Inputs(bool malformed) {
    MemoryGraph source;
    auto a = source.create_vertex("P", {{"age", 3}});
    source.create_edge(a.id, a.id, "E");
    export_csv(source, dir / "v.csv", dir / "e.csv");
    export_ndjson(source, dir / "g.ndjson");
    export_graphml(source, dir / "g.graphml");
    if (malformed) {
      write_file(dir / "v.csv", ":ID,:LABEL,age:int\nv1,P,old\nv2,P,1\n");
      write_file(dir / "g.ndjson", "{\"type\":\"vertex\",\"id\":\"v2\"}\n{\"type\":\"vertex\"\n");
      write_file(dir / "g.graphml", "<graphml><graph><node id=\"a\"/><node></graph></graphml>\n");
    }
  }
};

TEST(ImportOptions, ZeroMaxProblemsIsRejectedBeforeReading) {
  for (bool malformed : {false, true}) {
    Inputs in(malformed);
    MemoryGraph g;
    g.create_vertex("Keep");
    const Snapshot before = snapshot(g);
    import_each_format(g, in.dir, {.max_problems = 0}, [&](const std::string& format, const auto& run) {
      try {
        run();
        ADD_FAILURE() << format << ": max_problems = 0 was accepted";
      } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("max_problems must be at least 1"), std::string::npos) << e.what();
      }
    });
    EXPECT_EQ(snapshot(g), before);
  }
}

// max_problems = 1 is the strictest setting: the first error fails the import, located.
TEST(ImportOptions, OneMaxProblemFailsAtTheFirstErrorWithItsLocation) {
  Inputs bad(true);
  MemoryGraph g;
  import_each_format(g, bad.dir, {.max_problems = 1}, [&](const std::string& format, const auto& run) {
    try {
      run();
      ADD_FAILURE() << format << ": malformed input imported";
    } catch (const ImportFailed& e) {
      ASSERT_EQ(e.report().problems.size(), 1u) << format;
      const Problem& p = e.report().problems.front();
      EXPECT_EQ(p.severity, Severity::error) << format;
      EXPECT_EQ(p.line, format == "graphml" ? 1u : 2u) << to_string(p);
      EXPECT_GT(p.column, 0u) << to_string(p);
    }
  });
  EXPECT_TRUE(snapshot(g).vertices.empty());
  Inputs good(false);
  import_each_format(g, good.dir, {.max_problems = 1}, [&](const std::string&, const auto& run) { run(); });
  EXPECT_EQ(g.count_vertices("P"), 3);
  EXPECT_EQ(g.count_edges("E"), 3);
}

TEST(ImportOptions, NamesAreCheckedBeforeReading) {
  Inputs in(false);
  MemoryGraph g;
  const std::vector<ImportOptions> invalid{
      {.keep_external_id_as = ""},
      {.keep_external_id_as = "a\nb"},
      {.default_vertex_label = ""},
      {.default_edge_label = "two words"},
  };
  for (const auto& options : invalid) {
    import_each_format(g, in.dir, options, [&](const std::string& format, const auto& run) {
      EXPECT_THROW(run(), InvalidArgument) << format;
    });
  }
  EXPECT_TRUE(snapshot(g).vertices.empty());
}

}  // namespace
}  // namespace propgraph::io::test
