// Import policies, reports, rollback of failed writes, export selections and the stream API.
#include <sstream>

#include <gtest/gtest.h>

#include "io_test_support.hpp"

namespace propgraph::io::test {
namespace {

const std::string kPeople =
    ":ID,:LABEL,name,age:int\n"
    "a,Person,Alice,30\n"
    "b,Person,Bob,25\n";

TEST(Import, FileIdsMapToNewIdsAndCanBeKept) {
  TempDir dir;
  write_file(dir / "v.csv", kPeople);
  write_file(dir / "e.csv", ":START_ID,:END_ID,:TYPE,since:int\na,b,KNOWS,2020\n");
  MemoryGraph g;
  auto report = import_csv(g, dir / "v.csv", dir / "e.csv", {.keep_external_id_as = "file_id"});
  EXPECT_EQ(report.vertices_created, 2u);
  EXPECT_EQ(report.edges_created, 1u);
  auto people = g.find_vertices_by_label("Person", {{"file_id", "a"}});
  ASSERT_EQ(people.size(), 1u);
  EXPECT_NE(people[0].id.str(), "a");
  EXPECT_EQ(people[0].properties["name"], Value("Alice"));
  EXPECT_EQ(people[0].properties["age"], Value(30));
  auto knows = g.find_edges_by_label("KNOWS");
  ASSERT_EQ(knows.size(), 1u);
  EXPECT_EQ(knows[0].from, people[0].id);
  EXPECT_EQ(knows[0].properties["since"], Value(2020));
}

TEST(Import, DuplicateVertexSkipKeepsTheFirst) {
  TempDir dir;
  write_file(dir / "g.ndjson",
             "{\"type\":\"vertex\",\"id\":\"a\",\"label\":\"P\",\"properties\":{\"n\":1}}\n"
             "{\"type\":\"vertex\",\"id\":\"a\",\"label\":\"P\",\"properties\":{\"n\":2}}\n"
             "{\"type\":\"edge\",\"from\":\"a\",\"to\":\"a\",\"label\":\"SELF\"}\n");
  MemoryGraph g;
  EXPECT_THROW(import_ndjson(g, dir / "g.ndjson"), ImportFailed);
  auto report = import_ndjson(g, dir / "g.ndjson", {.on_duplicate_vertex = DuplicatePolicy::skip});
  EXPECT_EQ(report.records_read, 3u);
  EXPECT_EQ(report.vertices_created, 1u);
  EXPECT_EQ(report.edges_created, 1u);
  EXPECT_EQ(report.skipped, 1u);
  ASSERT_EQ(report.warning_count(), 1u);
  EXPECT_EQ(report.problems[0].line, 2u);
  EXPECT_EQ(g.find_vertices_by_label("P").at(0).properties["n"], Value(1));
}

TEST(Import, MissingEndpointSkipEdge) {
  TempDir dir;
  write_file(dir / "v.csv", kPeople);
  write_file(dir / "e.csv", ":START_ID,:END_ID,:TYPE\na,b,KNOWS\na,ghost,KNOWS\nghost,b,KNOWS\n");
  MemoryGraph g;
  auto report = import_csv(g, dir / "v.csv", dir / "e.csv", {.on_missing_endpoint = MissingEndpointPolicy::skip_edge});
  EXPECT_EQ(report.edges_created, 1u);
  EXPECT_EQ(report.skipped, 2u);
  ASSERT_EQ(report.problems.size(), 2u);
  EXPECT_EQ(report.problems[0].severity, Severity::warning);
  EXPECT_EQ(report.problems[0].line, 3u);
  EXPECT_EQ(report.problems[0].field, "to");
  EXPECT_EQ(report.problems[1].field, "from");
  EXPECT_EQ(g.count_edges("KNOWS"), 1);
}

TEST(Import, DefaultLabels) {
  TempDir dir;
  write_file(dir / "g.ndjson",
             "{\"type\":\"vertex\",\"id\":1}\n{\"type\":\"vertex\",\"id\":2,\"label\":null}\n"
             "{\"type\":\"edge\",\"from\":1,\"to\":2}\n");
  MemoryGraph g;
  auto report = import_ndjson(g, dir / "g.ndjson");
  EXPECT_EQ(report.vertex_labels, std::vector<std::string>{"vertex"});
  EXPECT_EQ(report.edge_labels, std::vector<std::string>{"edge"});
  MemoryGraph h;
  auto custom = import_ndjson(h, dir / "g.ndjson", {.default_vertex_label = "Node", .default_edge_label = "LINK"});
  EXPECT_EQ(h.count_vertices("Node"), 2);
  EXPECT_EQ(h.count_edges("LINK"), 1);
  MemoryGraph strict;
  try {
    import_ndjson(strict, dir / "g.ndjson", {.default_vertex_label = std::nullopt});
    FAIL();
  } catch (const ImportFailed& e) {
    EXPECT_EQ(first_error(e.report()).field, "label");
    EXPECT_EQ(e.report().error_count(), 2u);
  }
}

TEST(Import, EdgesMayPrecedeVertices) {
  TempDir dir;
  write_file(dir / "g.ndjson",
             "{\"type\":\"edge\",\"from\":\"b\",\"to\":\"a\",\"label\":\"E\",\"id\":\"e1\"}\n"
             "{\"type\":\"vertex\",\"id\":\"a\"}\n{\"type\":\"vertex\",\"id\":\"b\"}\n");
  MemoryGraph g;
  auto report = import_ndjson(g, dir / "g.ndjson", {.keep_external_id_as = "ext"});
  EXPECT_EQ(report.edges_created, 1u);
  auto e = g.find_edges_by_label("E").at(0);
  EXPECT_EQ(e.properties["ext"], Value("e1"));
  EXPECT_EQ(g.find_vertex_by_id("vertex", e.from)->properties["ext"], Value("b"));
}

TEST(Import, GraphmlDefaultsLabelsAndTinkerPopKeys) {
  TempDir dir;
  write_file(dir / "g.graphml", R"(<?xml version="1.0"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="labelV" for="node" attr.name="labelV" attr.type="string"/>
  <key id="labelE" for="edge" attr.name="labelE" attr.type="string"/>
  <key id="d0" for="node" attr.name="age" attr.type="int"><default>7</default></key>
  <key id="d1" for="all" attr.name="weight" attr.type="float"/>
  <key id="d2" for="node" attr.name="ok" attr.type="boolean"/>
  <graph id="G" edgedefault="directed">
    <edge id="e1" source="1" target="2"><data key="labelE">knows</data><data key="d1">0.5</data></edge>
    <node id="1"><data key="labelV">person</data><data key="d0">29</data><data key="d2">true</data></node>
    <node id="2"><data key="labelV">person</data><desc>no age</desc></node>
    <node id="3"/>
  </graph>
</graphml>
)");
  MemoryGraph g;
  auto report = import_graphml(g, dir / "g.graphml");
  EXPECT_TRUE(report.ok()) << fmt::format("{}", report);
  auto people = g.find_vertices_by_label("person");
  ASSERT_EQ(people.size(), 2u);
  EXPECT_EQ(people[0].properties["age"], Value(29));
  EXPECT_EQ(people[0].properties["ok"], Value(true));
  EXPECT_EQ(people[1].properties["age"], Value(7));  // the key's default
  EXPECT_EQ(g.count_vertices("vertex"), 1);
  EXPECT_EQ(g.find_edges_by_label("knows").at(0).properties["weight"], Value(0.5));
}

TEST(Import, CsvHeaderConventions) {
  TempDir dir;
  write_file(dir / "v.csv",
             "\xEF\xBB\xBFpersonId:ID,:LABEL,n:LONG,f:Float,b:bool,skip:IGNORE,plain,tags:string[]\r\n"
             "p1,Person,+5,1e3,TRUE,whatever,\"x, \"\"y\"\"\",a;b\r\n"
             "p2,,-5,-0.5,false,,,\r\n"
             "\r\n");
  write_file(dir / "e.csv", ":START_ID,:END_ID,:LABEL,:ID\np1,p2,,r1\n");
  MemoryGraph g;
  auto report = import_csv(g, dir / "v.csv", dir / "e.csv");
  ASSERT_TRUE(report.ok()) << fmt::format("{}", report);
  auto p1 = g.find_vertices_by_label("Person").at(0);
  EXPECT_EQ(p1.properties["personId"], Value("p1"));
  EXPECT_EQ(p1.properties["n"], Value(5));
  EXPECT_EQ(p1.properties["f"], Value(1000.0));
  EXPECT_EQ(p1.properties["b"], Value(true));
  EXPECT_EQ(p1.properties["plain"], Value("x, \"y\""));
  EXPECT_EQ(p1.properties["tags"], Value::list({"a", "b"}));
  EXPECT_FALSE(p1.properties.contains("skip"));
  auto p2 = g.find_vertices_by_label("vertex").at(0);
  EXPECT_FALSE(p2.properties.contains("plain"));  // unquoted empty: no property
  EXPECT_FALSE(p2.properties.contains("tags"));
  EXPECT_EQ(g.count_edges("edge"), 1);
}

TEST(Import, ReportCollectsEveryProblemInOrder) {
  TempDir dir;
  write_file(dir / "v.csv", ":ID,age:int\na,x\nb,2\nc,y\n,3\n");
  MemoryGraph g;
  try {
    import_csv(g, dir / "v.csv", "");
    FAIL();
  } catch (const ImportFailed& e) {
    const auto& r = e.report();
    EXPECT_EQ(r.records_read, 4u);
    ASSERT_EQ(r.error_count(), 3u);
    EXPECT_EQ(r.problems[0].line, 2u);
    EXPECT_EQ(r.problems[1].line, 4u);
    EXPECT_EQ(r.problems[2].line, 5u);
    EXPECT_EQ(r.problems[0].element, "vertex \"a\"");
    const std::string text = fmt::format("{}", r);
    EXPECT_NE(text.find("csv import failed: 4 records read"), std::string::npos) << text;
    EXPECT_NE(
        text.find(fmt::format("{}:2:3: error: vertex \"a\": field 'age': expected int", (dir / "v.csv").string())),
        std::string::npos)
        << text;
    EXPECT_NE(std::string(e.what()).find("(and 2 more problems)"), std::string::npos) << e.what();
  }
}

TEST(Import, MaxProblemsStopsEarly) {
  TempDir dir;
  std::string lines = ":ID,age:int\n";
  for (int i = 0; i < 100; ++i) lines += fmt::format("v{},bad\n", i);
  write_file(dir / "v.csv", lines);
  MemoryGraph g;
  try {
    import_csv(g, dir / "v.csv", "", {.max_problems = 5});
    FAIL();
  } catch (const ImportFailed& e) {
    EXPECT_EQ(e.report().problems.size(), 5u);
    EXPECT_LT(e.report().records_read, 100u);
  }
}

TEST(Import, UnreadableFileIsAnImportError) {
  MemoryGraph g;
  try {
    import_ndjson(g, "/nonexistent/graph.ndjson");
    FAIL();
  } catch (const ImportError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/graph.ndjson: error: cannot read"), std::string::npos)
        << e.what();
  }
}

TEST(Import, BackendFailureRollsBack) {
  TempDir dir;
  write_file(dir / "v.csv", kPeople + "c,Person,Carol,41\n");
  write_file(dir / "e.csv", ":START_ID,:END_ID,:TYPE\na,b,KNOWS\nb,c,KNOWS\nc,a,KNOWS\n");
  MemoryGraph inner;
  auto keep = inner.create_vertex("Person", {{"name", "Keep"}});
  inner.create_edge(keep.id, keep.id, "KNOWS");
  const Snapshot before = snapshot(inner);
  FailingGraph failing(inner, 3);  // the edge batch fails, and so does the third single edge
  try {
    import_csv(failing, dir / "v.csv", dir / "e.csv");
    FAIL();
  } catch (const ImportFailed& e) {
    const Problem& p = first_error(e.report());
    // The batch failed as a whole; written one by one inside the import's transaction, the third
    // edge (line 4) is the one the graph rejects.
    EXPECT_NE(p.message.find("the graph rejected this edge: injected failure"), std::string::npos) << p.message;
    EXPECT_NE(p.message.find("nothing was written"), std::string::npos) << p.message;
    EXPECT_EQ(p.line, 4u);
    EXPECT_EQ(e.report().vertices_created, 0u);
  }
  EXPECT_EQ(snapshot(inner), before);
}

TEST(Import, UniqueViolationPointsAtTheRecordAndWritesNothing) {
  TempDir dir;
  write_file(dir / "v.csv", kPeople + "c,Person,Alice,41\n");  // a second Alice
  write_file(dir / "e.csv", ":START_ID,:END_ID,:TYPE\na,b,KNOWS\n");
  MemoryGraph g;
  ASSERT_TRUE(g.create_index("Person", "name", {.unique = true}));
  const Snapshot before = snapshot(g);
  try {
    import_csv(g, dir / "v.csv", dir / "e.csv");
    FAIL();
  } catch (const ImportFailed& e) {
    const Problem& p = first_error(e.report());
    EXPECT_EQ(p.line, 4u) << p.message;
    EXPECT_NE(p.message.find("the graph rejected this vertex: unique index on Person.name"), std::string::npos)
        << p.message;
    // The holder is named by its record, not by the id the rolled-back import had given it.
    EXPECT_NE(p.message.find("held by vertex \"a\" (the record at " + (dir / "v.csv").string() +
                             ":2:1, created by this import)"),
              std::string::npos)
        << p.message;
    EXPECT_EQ(p.message.find(":v"), std::string::npos) << p.message;
    EXPECT_NE(p.message.find("nothing was written"), std::string::npos) << p.message;
  }
  EXPECT_EQ(snapshot(g), before);
}

TEST(Import, IntoTheCallersTransactionIsVisibleOnlyAfterCommit) {
  TempDir dir;
  write_file(dir / "v.csv", kPeople);
  write_file(dir / "e.csv", ":START_ID,:END_ID,:TYPE\na,b,KNOWS\n");
  MemoryGraph g;
  auto tx = g.begin();
  const auto report = import_csv(*tx, dir / "v.csv", dir / "e.csv");
  EXPECT_EQ(report.vertices_created, 2u);
  EXPECT_EQ(tx->count_vertices(), 2);
  EXPECT_EQ(g.count_vertices(), 0);
  tx->commit();
  EXPECT_EQ(g.count_vertices(), 2);
  EXPECT_EQ(g.count_edges(), 1);
}

TEST(Import, FailedImportIntoTheCallersTransactionUndoesItsPartOnly) {
  TempDir dir;
  write_file(dir / "v.csv", kPeople);
  write_file(dir / "e.csv", ":START_ID,:END_ID,:TYPE\na,b,KNOWS\n");
  MemoryGraph inner;
  FailingGraph failing(inner, 1);
  auto tx = failing.begin();
  const auto mine = tx->create_vertex("Person", {{"name", "Mine"}});
  EXPECT_THROW(import_csv(*tx, dir / "v.csv", dir / "e.csv"), ImportFailed);
  // The import's vertices were deleted again inside the transaction; the caller's write stays.
  EXPECT_EQ(tx->count_vertices(), 1);
  EXPECT_TRUE(tx->find_vertex(mine.id));
  tx->commit();
  EXPECT_EQ(inner.count_vertices(), 1);
}

TEST(Import, AFailedImportKeepsItsFirstErrorWhenWarningsFillTheReport) {
  // A warning (unknown key) comes first and fills max_problems = 1; the error must still show.
  std::istringstream in("{\"type\":\"vertex\",\"id\":\"a\",\"extra\":1}\n{\"type\":\"edge\",\"from\":\"a\"}\n");
  MemoryGraph g;
  try {
    import_ndjson(g, in, {.max_problems = 1}, "body");
    FAIL();
  } catch (const ImportFailed& e) {
    ASSERT_EQ(e.report().problems.size(), 1u);
    EXPECT_EQ(e.report().problems[0].severity, Severity::error) << e.report().problems[0].message;
    EXPECT_EQ(e.report().problems[0].line, 2u);
  }
  EXPECT_EQ(g.count_vertices(), 0);
}

TEST(Import, StreamsNameTheirSource) {
  std::istringstream in("{\"type\":\"vertex\",\"id\":\"a\"}\n{\"type\":\"vertex\"}\n");
  MemoryGraph g;
  try {
    import_ndjson(g, in, {}, "request-body");
    FAIL();
  } catch (const ImportFailed& e) {
    EXPECT_EQ(first_error(e.report()).file, "request-body");
    EXPECT_EQ(first_error(e.report()).line, 2u);
  }
  std::istringstream vertices(kPeople), edges(":START_ID,:END_ID\na,b\n");
  auto report = import_csv(g, vertices, edges);
  EXPECT_EQ(report.records_read, 3u);
}

// -- export -------------------------------------------------------------------------------------

TEST(Export, WritesTheSelectedLabelsInIdOrder) {
  MemoryGraph g;
  auto a = g.create_vertex("Person", {{"name", "A"}});
  auto c = g.create_vertex("Company", {{"name", "C"}});
  auto b = g.create_vertex("Person", {{"name", "B"}});
  g.create_edge(a.id, b.id, "KNOWS");
  g.create_edge(a.id, c.id, "WORKS_AT");
  std::ostringstream out;
  auto report = export_ndjson(g, out, {.vertex_labels = {"Person"}, .edge_labels = {"KNOWS"}});
  EXPECT_EQ(report.vertices_written, 2u);
  EXPECT_EQ(report.edges_written, 1u);
  const std::string expected = fmt::format(
      "{{\"type\":\"vertex\",\"id\":\"{}\",\"label\":\"Person\",\"properties\":{{\"name\":\"A\"}}}}\n"
      "{{\"type\":\"vertex\",\"id\":\"{}\",\"label\":\"Person\",\"properties\":{{\"name\":\"B\"}}}}\n"
      "{{\"type\":\"edge\",\"id\":\"{}\",\"label\":\"KNOWS\",\"from\":\"{}\",\"to\":\"{}\",\"properties\":{{}}}}\n",
      a.id, b.id, g.find_edges_by_label("KNOWS").at(0).id, a.id, b.id);
  EXPECT_EQ(out.str(), expected);

  std::ostringstream all;
  auto every = export_ndjson(g, all);
  EXPECT_EQ(every.vertices_written, 3u);
  EXPECT_EQ(every.edges_written, 2u);
  // Ascending id across labels: A, C, B.
  EXPECT_LT(all.str().find("\"A\""), all.str().find("\"C\""));
  EXPECT_LT(all.str().find("\"C\""), all.str().find("\"B\""));
}

TEST(Export, CsvHeaderCarriesTypes) {
  MemoryGraph g;
  g.create_vertex(
      "P", {{"i", 1}, {"d", 2.0}, {"b", true}, {"s", "x"}, {"l", Value::list({1, 2})}, {"j", Value::list({1, "a"})}});
  std::ostringstream v, e;
  export_csv(g, v, e);
  const std::string text = v.str();
  EXPECT_EQ(text.substr(0, text.find('\n')), ":ID,:LABEL,b:boolean,d:double,i:int,j:json,l:int[],s:string");
  EXPECT_NE(text.find(",true,2,1,\"[1,\"\"a\"\"]\",1;2,x\n"), std::string::npos) << text;
  EXPECT_EQ(e.str(), ":ID,:START_ID,:END_ID,:TYPE\n");
}

TEST(Export, UnrepresentableValueFailsAndLeavesNoFile) {
  TempDir dir;
  MemoryGraph g;
  g.create_vertex("P", {{"x", std::numeric_limits<double>::infinity()}});
  write_file(dir / "g.ndjson", "previous content\n");
  EXPECT_THROW(export_ndjson(g, dir / "g.ndjson"), InvalidArgument);
  EXPECT_EQ(read_file(dir / "g.ndjson"), "previous content\n");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);
  EXPECT_THROW(export_graphml(g, dir.path() / "missing-dir" / "g.graphml"), Error);
}

TEST(Export, InvalidUtf8IsRejected) {
  MemoryGraph inner;
  inner.create_vertex("P", {{"s", "good"}});
  FailingGraph g(inner);
  g.alter_found_vertices = [](std::vector<Vertex>& found) {
    for (auto& v : found) v.properties = Properties{{"s", "bad \xff"}};
  };
  std::ostringstream out, v, e;
  EXPECT_THROW(export_ndjson(g, out), InvalidArgument);
  EXPECT_THROW(export_graphml(g, out), InvalidArgument);
  EXPECT_THROW(export_csv(g, v, e), InvalidArgument);
}

TEST(Format, GuessedFromTheExtension) {
  EXPECT_EQ(guess_format("a/b.CSV"), Format::csv);
  EXPECT_EQ(guess_format("x.jsonl"), Format::ndjson);
  EXPECT_EQ(guess_format("x.ndjson"), Format::ndjson);
  EXPECT_EQ(guess_format("x.graphml"), Format::graphml);
  EXPECT_EQ(guess_format("x.xml"), Format::graphml);
  EXPECT_EQ(guess_format("x.txt"), std::nullopt);
  EXPECT_EQ(guess_format("noext"), std::nullopt);
  EXPECT_EQ(to_string(Format::ndjson), "ndjson");
}

}  // namespace
}  // namespace propgraph::io::test
