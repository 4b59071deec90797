// MemoryGraph's native read path (the executor over one view of its store) against the generic
// executor of the backend kit (the same statement through GraphOperations calls): random
// read-only queries over random graphs, committed and inside a transaction with its own writes,
// must give the same columns, the same rows in the same order, or the same error.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "propgraph/backend/query_executor.hpp"
#include "propgraph/errors.hpp"
#include "propgraph/fmt.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/query.hpp"

namespace propgraph {
namespace {

using Random = std::mt19937_64;

int pick(Random& random, int n) { return static_cast<int>(std::uniform_int_distribution<int>(0, n - 1)(random)); }
bool chance(Random& random, int percent) { return pick(random, 100) < percent; }
template <class T, std::size_t N>
const T& one_of(Random& random, const T (&items)[N]) {
  return items[pick(random, static_cast<int>(N))];
}

const char* const kLabels[] = {"A", "B", "C"};
const char* const kTypes[] = {"X", "Y"};
const char* const kStrings[] = {"", "a", "ab", "b", "ba"};

Properties random_properties(Random& random) {
  Properties p;
  if (chance(random, 80)) p.set("x", Value(static_cast<std::int64_t>(pick(random, 6))));
  if (chance(random, 60)) p.set("s", Value(std::string(one_of(random, kStrings))));
  if (chance(random, 20)) p.set("f", Value(pick(random, 7) / 2.0));
  return p;
}

/// 8-24 vertices over three labels, up to 40 edges of two types (self-loops and parallel edges
/// included); then a few vertices deleted with their edges, so ids have gaps.
void fill(MemoryGraph& g, Random& random) {
  std::vector<Vertex> vertices;
  const int n = 8 + pick(random, 17);
  for (int i = 0; i < n; ++i) vertices.push_back(g.create_vertex(one_of(random, kLabels), random_properties(random)));
  const int m = pick(random, 41);
  for (int i = 0; i < m; ++i) {
    const Vertex& from = vertices[static_cast<std::size_t>(pick(random, n))];
    const Vertex& to = vertices[static_cast<std::size_t>(pick(random, n))];
    Properties p;
    if (chance(random, 70)) p.set("w", Value(static_cast<std::int64_t>(pick(random, 4))));
    g.create_edge(from.id, to.id, one_of(random, kTypes), p);
  }
  for (int i = 0, deletions = pick(random, 3); i < deletions; ++i) {
    const Vertex& v = vertices[static_cast<std::size_t>(pick(random, n))];
    g.delete_vertex(v.label, v.id);
  }
}

/// Random read-only statements over the graphs `fill` makes: patterns of one or two hops in
/// any direction, variable length, property maps, predicates, OPTIONAL MATCH, WITH, UNWIND,
/// aggregation, DISTINCT, ORDER BY / SKIP / LIMIT, functions over elements and paths.
class QueryGenerator {
 public:
  explicit QueryGenerator(Random& random) : random_(random) {}

  std::string statement() {
    switch (pick(random_, 5)) {
      case 0: return match_return();
      case 1: return match_with_aggregate();
      case 2: return optional_match();
      case 3: return paths();
      default: return unwind_and_exists();
    }
  }

 private:
  std::string label() { return chance(random_, 75) ? std::string(":") + one_of(random_, kLabels) : ""; }
  std::string node(const std::string& var) {
    std::string props;
    if (chance(random_, 20)) props = fmt::format(" {{x: {}}}", pick(random_, 6));
    return fmt::format("({}{}{})", var, label(), props);
  }
  std::string rel(const std::string& var, bool allow_varlength) {
    std::string type = chance(random_, 70) ? std::string(":") + one_of(random_, kTypes) : "";
    if (chance(random_, 15)) type = ":X|Y";
    std::string length;
    if (allow_varlength && chance(random_, 25)) {
      const int lo = pick(random_, 2);
      length = fmt::format("*{}..{}", lo, lo + 1 + pick(random_, 2));
    }
    const std::string body = fmt::format("[{}{}{}]", length.empty() ? var : "", type, length);
    switch (pick(random_, 3)) {
      case 0: return "-" + body + "->";
      case 1: return "<-" + body + "-";
      default: return "-" + body + "-";
    }
  }
  std::string predicate(const std::string& v) {
    switch (pick(random_, 8)) {
      case 0: return fmt::format("{}.x > {}", v, pick(random_, 6));
      case 1: return fmt::format("{}.s STARTS WITH '{}'", v, one_of(random_, kStrings));
      case 2: return fmt::format("{}.x IS NULL", v);
      case 3: return fmt::format("{}.x IN [1, 3, null]", v);
      case 4: return fmt::format("({})-[:{}]->()", v, one_of(random_, kTypes));
      case 5: return fmt::format("NOT {}.f <= 1.5", v);
      case 6: return fmt::format("{}.x % 2 = 0 OR {}.s = 'a'", v, v);
      default: return fmt::format("{}.x + coalesce({}.f, 0) < 4", v, v);
    }
  }
  std::string order_tail(const std::string& keys) {
    std::string tail = " ORDER BY " + keys;
    if (chance(random_, 30)) tail += fmt::format(" SKIP {}", pick(random_, 3));
    if (chance(random_, 40)) tail += fmt::format(" LIMIT {}", 1 + pick(random_, 5));
    return tail;
  }

  std::string match_return() {
    std::string q = "MATCH " + node("a") + rel("r", false) + node("b");
    if (chance(random_, 60)) q += " WHERE " + predicate(chance(random_, 50) ? "a" : "b");
    switch (pick(random_, 4)) {
      case 0: return q + " RETURN a.x, type(r), b.s";
      case 1: return q + " RETURN DISTINCT labels(b) AS l, b.x AS x" + order_tail("l, x DESC");
      case 2: return q + " RETURN a, r, b";
      default: return q + " RETURN id(startNode(r)) = id(a) AS forward, r.w" + order_tail("r.w");
    }
  }
  std::string match_with_aggregate() {
    std::string q = "MATCH " + node("a") + rel("r", true) + node("b");
    if (chance(random_, 40)) q += ", " + node("c");
    switch (pick(random_, 4)) {
      case 0: return q + " RETURN count(*) AS n, count(DISTINCT b) AS d";
      case 1: return q + " RETURN a.x AS k, count(*) AS n, collect(DISTINCT b.s) AS s" + order_tail("k");
      case 2:
        return q + " WITH a, count(b) AS degree WHERE degree > 1 RETURN a.s, degree, sum(a.x) AS total" +
               order_tail("degree DESC");
      default: return q + " RETURN min(b.x), max(b.s), avg(b.f)";
    }
  }
  std::string optional_match() {
    std::string q = "MATCH " + node("a");
    if (chance(random_, 50)) q += " WHERE " + predicate("a");
    q += " OPTIONAL MATCH (a)" + rel("r", false) + node("b");
    if (chance(random_, 40)) q += " WHERE " + predicate("b");
    return q + " RETURN a.x, b.x, r IS NULL AS missing";
  }
  std::string paths() {
    switch (pick(random_, 3)) {
      case 0: {
        std::string q = "MATCH p = " + node("a") + rel("", true) + node("b");
        return q + " RETURN length(p) AS len, [n IN nodes(p) | n.x] AS xs" + order_tail("len");
      }
      case 1:
        return "MATCH " + node("a") + ", " + node("b") +
               " WHERE id(a) < id(b) MATCH p = shortestPath((a)-[*..4]-(b)) RETURN a.x, b.x, length(p)";
      default:
        return "MATCH (a" + label() + ") RETURN a.x AS x, size([(a)" + rel("", false) + "(b) | b.s]) AS reach" +
               order_tail("reach DESC, x");
    }
  }
  std::string unwind_and_exists() {
    std::string q =
        fmt::format("UNWIND [{}, {}] AS k MATCH (a{} {{x: k}})", pick(random_, 6), pick(random_, 6), label());
    if (chance(random_, 50)) {
      q += fmt::format(" WHERE EXISTS {{ MATCH (a){}() }}", rel("", false));
    }
    return q + " RETURN k, a.s, reduce(t = 0, e IN [(a)-->(x) | x.x] | t + coalesce(e, 0)) AS total";
  }

  Random& random_;
};

/// The answer as text: columns and every cell, or the error code and message.
std::string answer(const std::function<QueryResult()>& run) {
  try {
    QueryResult r = run();
    std::string text = fmt::format("{}\n", fmt::join(r.columns, "|"));
    for (const auto& row : r.rows) text += fmt::format("{}\n", fmt::join(row, "|"));
    return text;
  } catch (const QueryError& e) {
    return fmt::format("QueryError {}: {}", e.code(), e.what());
  }
}

bool has_rows(const std::string& text) { return std::count(text.begin(), text.end(), '\n') > 1; }

TEST(CypherDifferential, NativeReadsAnswerAsTheGenericExecutor) {
  Random random(20261204);
  int compared = 0;
  int with_rows = 0;
  for (int graph = 0; graph < 30; ++graph) {
    MemoryGraph g;
    fill(g, random);
    QueryGenerator generate(random);
    for (int i = 0; i < 40; ++i) {
      const std::string text = generate.statement();
      const Query q = Query::parse(text);
      ASSERT_FALSE(q.is_write()) << text;
      const std::string native = answer([&] { return g.query(q, {}); });
      const std::string generic = answer([&] { return backend::execute_query(g, q, {}); });
      ASSERT_EQ(native, generic) << text;
      ++compared;
      with_rows += has_rows(native) ? 1 : 0;
    }
  }
  // The generator must reach matches, not only empty answers.
  EXPECT_GT(with_rows, compared / 2) << with_rows << " of " << compared << " answers had rows";
}

TEST(CypherDifferential, NativeReadsInATransactionSeeItsWrites) {
  Random random(42);
  int compared = 0;
  for (int graph = 0; graph < 10; ++graph) {
    MemoryGraph g;
    fill(g, random);
    auto tx = g.begin();
    // Writes of the transaction, which its reads (native: through its overlay) must see.
    Vertex fresh = tx->create_vertex("A", {{"x", Value(std::int64_t{1})}, {"s", Value(std::string("a"))}});
    const auto others = tx->find_vertices_by_label("B");
    if (!others.empty()) tx->create_edge(fresh.id, others.front().id, "X", {});
    QueryGenerator generate(random);
    for (int i = 0; i < 30; ++i) {
      const Query q = Query::parse(generate.statement());
      const std::string native = answer([&] { return tx->query(q, {}); });
      const std::string generic = answer([&] { return backend::execute_query(*tx, q, {}); });
      ASSERT_EQ(native, generic) << q.text();
      ++compared;
    }
    EXPECT_EQ(tx->query("MATCH (a:A {s: 'a', x: 1}) RETURN count(a) > 0").rows.at(0).at(0), QueryValue(true));
    tx->rollback();
  }
  EXPECT_EQ(compared, 300);
}

}  // namespace
}  // namespace propgraph
