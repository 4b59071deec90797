// Conformance: openCypher queries (GraphOperations::query, query.hpp) on every backend: reads
// over make_people's graph, writes and their atomicity, parameters, errors, transactions.
#pragma once

#include <string>
#include <vector>

#include "conformance_fixture.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/query.hpp"

namespace propgraph::conformance {

// NOLINTBEGIN(readability-function-cognitive-complexity)

/// The rows of a result as strings: one "a|b|c" per row, values of QueryValue's own kinds.
inline std::vector<std::string> query_rows(const QueryResult& r) {
  std::vector<std::string> out;
  for (const auto& row : r.rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) line += '|';
      const QueryValue& v = row[i];
      switch (v.type()) {
        case QueryValue::Type::null: line += "null"; break;
        case QueryValue::Type::boolean: line += v.as_bool() ? "true" : "false"; break;
        case QueryValue::Type::integer: line += std::to_string(v.as_int()); break;
        case QueryValue::Type::real: line += fmt::format("{:.2f}", v.as_double()); break;
        case QueryValue::Type::string: line += v.as_string(); break;
        case QueryValue::Type::vertex: line += "(" + v.as_vertex().properties["name"].as_string() + ")"; break;
        case QueryValue::Type::edge: line += "[" + v.as_edge().label + "]"; break;
        case QueryValue::Type::list: line += fmt::format("list{}", v.as_list().size()); break;
        case QueryValue::Type::map: line += fmt::format("map{}", v.as_map().size()); break;
        case QueryValue::Type::path: line += fmt::format("path{}", v.as_path().length()); break;
      }
    }
    out.push_back(line);
  }
  return out;
}

TEST_P(GraphConformance, QueryMatchesPatternsWithFiltersAndOrder) {
  auto& g = this->graph();
  make_people(g);
  // Alice knows Bob, Bob knows Charlie, Charlie knows Dave; Alice follows Charlie.
  auto r =
      g.query("MATCH (a:Person)-[:KNOWS]->(b:Person) WHERE a.age >= 28 RETURN a.name AS a, b.name AS b ORDER BY a");
  EXPECT_EQ(r.columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(query_rows(r), (std::vector<std::string>{"Alice|Bob", "Charlie|Dave"}));
  // Two hops, then friends of friends not already known.
  r = g.query(
      "MATCH (a:Person {name: 'Alice'})-[:KNOWS]->()-[:KNOWS]->(fof) "
      "WHERE NOT (a)-[:KNOWS]->(fof) RETURN fof.name");
  EXPECT_EQ(query_rows(r), (std::vector<std::string>{"Charlie"}));
  // Undirected, any type: Charlie's neighbours, de-duplicated and sorted.
  r = g.query("MATCH (c:Person {name: 'Charlie'})--(n) RETURN DISTINCT n.name ORDER BY n.name DESC");
  EXPECT_EQ(query_rows(r), (std::vector<std::string>{"Dave", "Bob", "Alice"}));
  // Variable length: everyone Alice reaches over 1..3 KNOWS edges.
  r = g.query("MATCH (:Person {name: 'Alice'})-[:KNOWS*1..3]->(x) RETURN x.name ORDER BY x.name");
  EXPECT_EQ(query_rows(r), (std::vector<std::string>{"Bob", "Charlie", "Dave"}));
  // SKIP and LIMIT after ORDER BY.
  r = g.query("MATCH (p:Person) RETURN p.name ORDER BY p.age SKIP 1 LIMIT 2");
  EXPECT_EQ(query_rows(r), (std::vector<std::string>{"Charlie", "Alice"}));
}

TEST_P(GraphConformance, QueryAggregatesByGroup) {
  auto& g = this->graph();
  make_people(g);
  auto r = g.query("MATCH (p:Person)-[k:KNOWS]->() RETURN count(*) AS n, sum(k.since) AS s, min(p.age) AS youngest");
  EXPECT_EQ(query_rows(r), (std::vector<std::string>{"3|6063|25"}));
  r = g.query(
      "MATCH (p:Person)-[e]->() RETURN type(e) AS t, count(DISTINCT p) AS people, collect(p.name) AS who "
      "ORDER BY t");
  EXPECT_EQ(query_rows(r), (std::vector<std::string>{"FOLLOWS|1|list1", "KNOWS|3|list3"}));
  // Aggregation over no rows: one row, count 0 and null min.
  r = g.query("MATCH (p:Robot) RETURN count(p), min(p.age)");
  EXPECT_EQ(query_rows(r), (std::vector<std::string>{"0|null"}));
  // avg of ints is a double.
  r = g.query("MATCH (p:Person) RETURN avg(p.age)");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_TRUE(r.rows[0][0].is_double());
  EXPECT_DOUBLE_EQ(r.rows[0][0].as_double(), 29.5);
}

TEST_P(GraphConformance, QueryReturnsElementsAndPaths) {
  auto& g = this->graph();
  const auto p = make_people(g);
  auto r = g.query("MATCH path = (a:Person {name: 'Alice'})-[r:KNOWS]->(b) RETURN a, r, b, path");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][0].as_vertex(), p.alice);
  EXPECT_EQ(r.rows[0][1].as_edge(), p.alice_knows_bob);
  EXPECT_EQ(r.rows[0][2].as_vertex(), p.bob);
  const Path& path = r.rows[0][3].as_path();
  EXPECT_EQ(path.vertices, (std::vector<Vertex>{p.alice, p.bob}));
  EXPECT_EQ(path.edges, (std::vector<Edge>{p.alice_knows_bob}));
  r = g.query("MATCH (a {name: 'Alice'}), (d {name: 'Dave'}) RETURN length(shortestPath((a)-[*]-(d)))");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][0], QueryValue(2)) << "Alice -FOLLOWS-> Charlie -KNOWS-> Dave";
}

TEST_P(GraphConformance, QueryWritesAndCountsWhatItChanged) {
  auto& g = this->graph();
  make_people(g);
  auto r = g.query("CREATE (x:Person {name: 'Eve', age: 22})-[:KNOWS {since: 2024}]->(y:Person {name: 'Finn'})");
  EXPECT_TRUE(r.columns.empty());
  EXPECT_EQ(r.stats.vertices_created, 2);
  EXPECT_EQ(r.stats.edges_created, 1);
  EXPECT_EQ(r.stats.properties_set, 4);
  EXPECT_EQ(g.count_vertices("Person"), 6);
  r = g.query("MATCH (p:Person {name: 'Eve'}) SET p.age = p.age + 1, p.city = 'Oslo' RETURN p.age, p.city");
  EXPECT_EQ(query_rows(r), (std::vector<std::string>{"23|Oslo"}));
  EXPECT_EQ(r.stats.properties_set, 2);
  r = g.query("MATCH (p:Person {name: 'Eve'}) REMOVE p.city RETURN p.city");
  EXPECT_EQ(query_rows(r), (std::vector<std::string>{"null"}));
  // MERGE finds, then creates once.
  r = g.query("MERGE (p:Person {name: 'Eve'}) ON MATCH SET p.seen = true RETURN p.seen");
  EXPECT_EQ(query_rows(r), (std::vector<std::string>{"true"}));
  EXPECT_EQ(r.stats.vertices_created, 0);
  r = g.query("MERGE (p:Person {name: 'Gus'}) ON CREATE SET p.new = true RETURN p.new");
  EXPECT_EQ(r.stats.vertices_created, 1);
  g.query("MERGE (p:Person {name: 'Gus'})");
  EXPECT_EQ(g.query("MATCH (p:Person {name: 'Gus'}) RETURN count(p)").rows[0][0], QueryValue(1));
  // A node with edges needs DETACH DELETE.
  EXPECT_THROW(g.query("MATCH (p:Person {name: 'Eve'}) DELETE p"), QueryError);
  r = g.query("MATCH (p:Person {name: 'Eve'}) DETACH DELETE p");
  EXPECT_EQ(r.stats.vertices_deleted, 1);
  EXPECT_EQ(r.stats.edges_deleted, 1);
  EXPECT_EQ(g.count_vertices("Person"), 6);
}

TEST_P(GraphConformance, QueryThatFailsLeavesTheGraphAsItWas) {
  auto& g = this->graph();
  make_people(g);
  const auto before = state_of(g);
  // The third row divides by zero after two vertices were created.
  EXPECT_THROW(g.query("UNWIND [1, 1, 0] AS x CREATE (:Tmp {v: 10 / x})"), QueryError);
  EXPECT_EQ(state_of(g), before);
  // A type error after an update.
  EXPECT_THROW(g.query("MATCH (p:Person) SET p.age = p.age + 1 WITH p RETURN p.name + 1 < 'x' AND 1"), QueryError);
  EXPECT_EQ(state_of(g), before);
}

TEST_P(GraphConformance, QueryParametersAndErrors) {
  auto& g = this->graph();
  make_people(g);
  auto r = g.query("MATCH (p:Person) WHERE p.age > $min AND p.name IN $names RETURN p.name ORDER BY p.name",
                   Parameters{{"min", 26}, {"names", QueryValue::List{"Alice", "Bob", "Dave"}}});
  EXPECT_EQ(query_rows(r), (std::vector<std::string>{"Alice", "Dave"}));
  try {
    (void)g.query("MATCH (p:Person) RETURN $missing");
    ADD_FAILURE() << "a missing parameter must throw";
  } catch (const QueryError& e) {
    EXPECT_EQ(e.code(), "ParameterMissing: MissingParameter");
  }
  try {
    (void)Query::parse("MATCH (p:Person) RETURN q");
    ADD_FAILURE() << "an undefined variable must throw";
  } catch (const QueryError& e) {
    EXPECT_EQ(e.code(), "SyntaxError: UndefinedVariable");
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.column(), 25);
  }
  try {
    (void)Query::parse("MATCH (p:Person)\nRETURN p.name +");
    ADD_FAILURE() << "a syntax error must throw";
  } catch (const QueryError& e) {
    EXPECT_EQ(e.code().rfind("SyntaxError", 0), 0u) << e.code();
    EXPECT_EQ(e.line(), 2);
  }
  // Outside the model: two labels on one node.
  try {
    (void)Query::parse("CREATE (:A:B)");
    ADD_FAILURE() << "two labels must throw";
  } catch (const QueryError& e) {
    EXPECT_EQ(e.code(), "OutsideModel: MultipleLabels");
  }
}

TEST_P(GraphConformance, QueryInsideATransactionSeesItsWrites) {
  auto& g = this->graph();
  make_people(g);
  {
    auto tx = g.begin();
    tx->query("CREATE (:Person {name: 'Tx'})");
    EXPECT_EQ(tx->query("MATCH (p:Person) RETURN count(p)").rows[0][0], QueryValue(5));
    tx->rollback();
  }
  EXPECT_EQ(g.count_vertices("Person"), 4);
  transact(g, [](Transaction& tx) { tx.query("CREATE (:Person {name: 'Kept'})"); });
  EXPECT_EQ(g.query("MATCH (p:Person {name: 'Kept'}) RETURN count(*)").rows[0][0], QueryValue(1));
}

TEST_P(GraphConformance, QueryUnlabeledNodesHaveNoLabel) {
  auto& g = this->graph();
  auto r = g.query("CREATE (n {k: 1}) RETURN labels(n) AS l, n.k AS k");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][0], QueryValue(QueryValue::List{}));
  EXPECT_EQ(g.query("MATCH (n) RETURN count(n)").rows[0][0], QueryValue(1));
  EXPECT_THROW((void)Query::parse(fmt::format("MATCH (n:{}) RETURN n", unlabeled_vertex_label)), QueryError);
}

// NOLINTEND(readability-function-cognitive-complexity)

}  // namespace propgraph::conformance
