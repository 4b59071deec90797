// openCypher semantics through MemoryGraph: null logic, comparison and ordering of mixed types,
// aggregation grouping, clause composition, and MERGE under contention.
#include <atomic>
#include <barrier>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/query.hpp"

namespace propgraph {
namespace {

QueryValue single(GraphOperations& g, std::string_view text, const Parameters& p = {}) {
  QueryResult r = g.query(text, p);
  EXPECT_EQ(r.rows.size(), 1u) << text;
  EXPECT_EQ(r.rows.empty() ? 0u : r.rows[0].size(), 1u) << text;
  return r.rows.empty() || r.rows[0].empty() ? QueryValue() : r.rows[0][0];
}

std::vector<QueryValue> column(GraphOperations& g, std::string_view text) {
  std::vector<QueryValue> out;
  for (auto& row : g.query(text).rows) out.push_back(row.at(0));
  return out;
}

TEST(CypherSemantics, ThreeValuedLogic) {
  MemoryGraph g;
  EXPECT_EQ(single(g, "RETURN null AND false"), QueryValue(false));
  EXPECT_EQ(single(g, "RETURN null AND true"), QueryValue());
  EXPECT_EQ(single(g, "RETURN null OR true"), QueryValue(true));
  EXPECT_EQ(single(g, "RETURN null OR false"), QueryValue());
  EXPECT_EQ(single(g, "RETURN null XOR true"), QueryValue());
  EXPECT_EQ(single(g, "RETURN NOT null"), QueryValue());
  EXPECT_EQ(single(g, "RETURN null = null"), QueryValue());
  EXPECT_EQ(single(g, "RETURN null IS NULL"), QueryValue(true));
  EXPECT_EQ(single(g, "RETURN 1 IN [2, null]"), QueryValue());
  EXPECT_EQ(single(g, "RETURN 2 IN [2, null]"), QueryValue(true));
  EXPECT_EQ(single(g, "RETURN [1, null] = [1, null]"), QueryValue());
  EXPECT_EQ(single(g, "RETURN [1, 2] = [1, null]"), QueryValue(false));
  // WHERE keeps only true rows.
  EXPECT_EQ(column(g, "UNWIND [1, null, 3] AS x WITH x WHERE x > 1 RETURN x"), (std::vector<QueryValue>{3}));
}

TEST(CypherSemantics, ComparisonTypeRules) {
  MemoryGraph g;
  EXPECT_EQ(single(g, "RETURN 1 = 1.0"), QueryValue(true));
  EXPECT_EQ(single(g, "RETURN 1 < 1.5"), QueryValue(true));
  EXPECT_EQ(single(g, "RETURN 'a' < 1"), QueryValue()) << "incomparable kinds compare to null";
  EXPECT_EQ(single(g, "RETURN 'a' = 1"), QueryValue(false));
  EXPECT_EQ(single(g, "RETURN 'abc' < 'abd'"), QueryValue(true));
  EXPECT_EQ(single(g, "RETURN [1, 2] < [1, 3]"), QueryValue(true));
  EXPECT_EQ(single(g, "RETURN 1 < 2 < 3"), QueryValue(true));
  EXPECT_EQ(single(g, "RETURN 3 > 2 > 2"), QueryValue(false));
  EXPECT_THROW(g.query("RETURN 1 AND true"), QueryError);
}

TEST(CypherSemantics, OrderByMixedTypesFollowsCyphersTotalOrder) {
  MemoryGraph g;
  // Ascending: map, list, string, boolean, number, null.
  auto values = column(g, "UNWIND [2, 'b', null, true, [1], {k: 1}, 1.5, 'a', false] AS x RETURN x ORDER BY x");
  ASSERT_EQ(values.size(), 9u);
  EXPECT_TRUE(values[0].is_map());
  EXPECT_TRUE(values[1].is_list());
  EXPECT_EQ(values[2], QueryValue("a"));
  EXPECT_EQ(values[3], QueryValue("b"));
  EXPECT_EQ(values[4], QueryValue(false));
  EXPECT_EQ(values[5], QueryValue(true));
  EXPECT_EQ(values[6], QueryValue(1.5));
  EXPECT_EQ(values[7], QueryValue(2));
  EXPECT_TRUE(values[8].is_null());
  auto desc = column(g, "UNWIND [3, null, 1] AS x RETURN x ORDER BY x DESC");
  EXPECT_EQ(desc, (std::vector<QueryValue>{QueryValue(), 3, 1}));
}

TEST(CypherSemantics, AggregationGroupsByTheOtherColumns) {
  MemoryGraph g;
  g.query("UNWIND [['a', 1], ['a', 2], ['b', 5], ['a', null]] AS p CREATE (:T {k: p[0], v: p[1]})");
  auto r = g.query("MATCH (t:T) RETURN t.k AS k, count(t.v) AS n, count(*) AS rows, sum(t.v) AS s ORDER BY k");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0], (std::vector<QueryValue>{"a", 2, 3, 3}));
  EXPECT_EQ(r.rows[1], (std::vector<QueryValue>{"b", 1, 1, 5}));
  // Grouping on an expression, DISTINCT aggregation, collect skipping nulls.
  r = g.query("MATCH (t:T) RETURN t.v IS NULL AS missing, collect(DISTINCT t.k) AS ks ORDER BY missing");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0][1].as_list().size(), 2u);
  EXPECT_EQ(r.rows[1][1], QueryValue(QueryValue::List{"a"}));
  // WITH aggregates, then filters on the aggregate.
  EXPECT_EQ(column(g, "MATCH (t:T) WITH t.k AS k, count(*) AS c WHERE c > 1 RETURN k"), (std::vector<QueryValue>{"a"}));
}

TEST(CypherSemantics, UnionAndUnwindAndCase) {
  MemoryGraph g;
  EXPECT_EQ(column(g, "RETURN 1 AS x UNION RETURN 1 AS x").size(), 1u);
  EXPECT_EQ(column(g, "RETURN 1 AS x UNION ALL RETURN 1 AS x").size(), 2u);
  EXPECT_THROW((void)Query::parse("RETURN 1 AS x UNION RETURN 2 AS y"), QueryError);
  EXPECT_EQ(column(g, "UNWIND range(1, 5) AS x RETURN CASE WHEN x % 2 = 0 THEN 'even' ELSE 'odd' END"),
            (std::vector<QueryValue>{"odd", "even", "odd", "even", "odd"}));
  EXPECT_EQ(single(g, "RETURN [x IN range(1, 10) WHERE x % 3 = 0 | x * x]"), QueryValue(QueryValue::List{9, 36, 81}));
  EXPECT_EQ(single(g, "RETURN reduce(acc = 0, x IN [1, 2, 3] | acc + x)"), QueryValue(6));
  EXPECT_EQ(single(g, "RETURN all(x IN [2, 4] WHERE x % 2 = 0)"), QueryValue(true));
}

TEST(CypherSemantics, ConcurrentMergeCreatesThePatternOnce) {
  MemoryGraph g;
  g.create_vertex("Person", {{"name", "a"}});
  g.create_vertex("Person", {{"name", "b"}});
  constexpr int kThreads = 16;
  std::barrier start(kThreads);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  const Query merge = Query::parse(
      "MATCH (a:Person {name: 'a'}), (b:Person {name: 'b'}) MERGE (a)-[:FOLLOWS]->(b) MERGE (c:City {name: 'Oslo'})");
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      for (int attempt = 0; attempt < 20; ++attempt) {
        try {
          g.query(merge);
          return;
        } catch (const TransactionConflict&) {
          // transact() retried three times; a busy graph may need more
        }
      }
      failures.fetch_add(1);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(g.count_edges("FOLLOWS"), 1);
  EXPECT_EQ(g.count_vertices("City"), 1);
}

}  // namespace
}  // namespace propgraph
