// PostgresGraph's service calls beyond the shared contract: keyset pages for any `after` id,
// incident edges, property indexes as real PostgreSQL indexes (used by the planner, unique ones
// enforced by the server), and upsert under contention from threads and fibers.
#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "conformance_fixture.hpp"
#include "pg_test_support.hpp"
#include "postgres/connection.hpp"
#include "postgres/ids.hpp"
#include "postgres/statements.hpp"
#include "propgraph/fiber.hpp"
#include "propgraph/fmt.hpp"
#include "propgraph/postgres/postgres_graph.hpp"

namespace propgraph {
namespace {

using conformance::ids_of;

/// What a page must hold, worked out from the whole result with ElementId's ordering.
template <typename T>
std::vector<ElementId> expected_page(const std::vector<T>& all, const Page& page) {
  return ids_of(conformance::page_of(all, page));
}

std::string count_rows(const std::string& dsn, const std::string& sql) {
  return pgtest::admin_sql(dsn, sql).value_or("");
}

// == ids and pages =============================================================================

TEST(PostgresIds, RowsAfterAgreesWithElementIdOrderForAnyString) {
  using postgres_detail::IdCodec;
  const IdCodec ids("pg7:");
  const std::vector<std::string> afters = {"",
                                           "a",
                                           "pg",
                                           "pg7",
                                           "pg7:",
                                           "pg7:v",
                                           "pg7:v0",
                                           "pg7:v1",
                                           "pg7:v9",
                                           "pg7:v10",
                                           "pg7:v09",
                                           "pg7:v1a",
                                           "pg7:v99",
                                           "pg7:v100",
                                           "pg7:e5",
                                           "pg7:x5",
                                           "pg8:v5",
                                           "pg6:v5",
                                           "pg70:v5",
                                           "pg7:v~",
                                           "pg7:v5~",
                                           "pg7:v9223372036854775806",
                                           "pg7:v9223372036854775807",
                                           "pg7:v9223372036854775808",
                                           "pg7:v99999999999999999999",
                                           "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
                                           "pg7:v12345"};
  const std::vector<std::int64_t> rows = {
      1, 2, 5, 9, 10, 11, 99, 100, 101, 999, 12345, 12346, 9223372036854775806, 9223372036854775807};
  for (const auto& a : afters) {
    const ElementId after(a);
    const auto bound = ids.rows_after(after, 'v');
    for (std::int64_t r : rows) {
      const bool sorts_after = after < ids.make('v', r);
      const bool selected = bound && r > *bound;
      EXPECT_EQ(selected, sorts_after) << "after '" << a << "', row " << r;
    }
  }
}

class PostgresServices : public ::testing::Test {
 protected:
  void SetUp() override {
    g_ = pgtest::scratch_graph({.pool_size = 4});
    if (!g_) GTEST_SKIP() << pgtest::skip_reason();
    dsn_ = *pgtest::server_dsn();
  }
  std::unique_ptr<PostgresGraph> g_;
  std::string dsn_;
};

TEST_F(PostgresServices, PagesOfEveryKindOfAfterMatchTheUnpagedResult) {
  auto other = pgtest::scratch_graph();
  const auto foreign = other->create_vertex("P");
  for (int i = 0; i < 23; ++i) g_->create_vertex("P", {{"i", i}, {"even", i % 2 == 0}});
  const auto a = g_->create_vertex("Q");
  const auto e = g_->create_edge(a.id, a.id, "SELF");
  const auto all = g_->find_vertices_by_label("P");
  ASSERT_EQ(all.size(), 23u);
  const auto deleted = all[7].id;
  ASSERT_TRUE(g_->delete_vertex("P", deleted));
  const auto live = g_->find_vertices_by_label("P");
  const std::vector<std::optional<ElementId>> afters = {
      std::nullopt,
      live.front().id,
      live[5].id,
      deleted,
      live.back().id,
      a.id,
      e.id,
      foreign.id,
      ElementId("garbage"),
      ElementId(""),
      ElementId(std::string(g_->find_vertices_by_label("Q")[0].id.str()) + "0")};
  for (const auto& after : afters) {
    for (std::size_t limit : {0, 1, 4, 100}) {
      const Page page{.limit = limit, .after = after};
      EXPECT_EQ(ids_of(g_->find_vertices_by_label("P", {}, page)), expected_page(live, page))
          << "after " << (after ? after->str() : "none") << " limit " << limit;
      const auto even = g_->find_vertices_by_label("P", {{"even", true}});
      EXPECT_EQ(ids_of(g_->find_vertices_by_label("P", {{"even", true}}, page)), expected_page(even, page));
    }
  }
  // Walking page by page gives exactly the unpaged result.
  std::vector<ElementId> walked;
  Page page{.limit = 5};
  while (true) {
    auto chunk = g_->find_vertices_by_label("P", {}, page);
    if (chunk.empty()) break;
    for (auto& v : chunk) walked.push_back(v.id);
    page.after = chunk.back().id;
  }
  EXPECT_EQ(walked, ids_of(live));
}

TEST_F(PostgresServices, LabelFreeLookupsAndTotals) {
  const auto v = g_->create_vertex("Person", {{"name", "Ann"}});
  const auto w = g_->create_vertex("City", {{"name", "Oslo"}});
  const auto e = g_->create_edge(v.id, w.id, "LIVES_IN", {{"since", 2020}});
  EXPECT_EQ(g_->find_vertex(v.id), v);
  EXPECT_EQ(g_->find_vertex(w.id), w);
  EXPECT_EQ(g_->find_edge(e.id), e);
  EXPECT_FALSE(g_->find_vertex(e.id));  // an edge id is no vertex id
  EXPECT_FALSE(g_->find_edge(v.id));
  EXPECT_FALSE(g_->find_vertex(ElementId("pg1:v1; DROP TABLE x")));
  EXPECT_EQ(g_->count_vertices(), 2);
  EXPECT_EQ(g_->count_edges(), 1);
}

TEST_F(PostgresServices, IncidentEdgesByDirectionLabelAndPage) {
  const auto a = g_->create_vertex("V");
  const auto b = g_->create_vertex("V");
  const auto ab = g_->create_edge(a.id, b.id, "X");
  const auto ba = g_->create_edge(b.id, a.id, "Y");
  const auto aa = g_->create_edge(a.id, a.id, "X");  // a self-loop: once in every direction
  const auto ab2 = g_->create_edge(a.id, b.id, "Y");
  using Ids = std::vector<ElementId>;
  EXPECT_EQ(ids_of(g_->incident_edges(a.id)), (Ids{ab.id, ba.id, aa.id, ab2.id}));
  EXPECT_EQ(ids_of(g_->incident_edges(a.id, {.direction = Direction::out})), (Ids{ab.id, aa.id, ab2.id}));
  EXPECT_EQ(ids_of(g_->incident_edges(a.id, {.direction = Direction::in})), (Ids{ba.id, aa.id}));
  EXPECT_EQ(ids_of(g_->incident_edges(a.id, {.edge_label = "X"})), (Ids{ab.id, aa.id}));
  EXPECT_EQ(ids_of(g_->incident_edges(a.id, {.edge_label = std::string("X\0Y", 3)})), Ids{});
  EXPECT_EQ(ids_of(g_->incident_edges(a.id, {.page = {.limit = 2, .after = ab.id}})), (Ids{ba.id, aa.id}));
  EXPECT_EQ(g_->incident_edges(a.id, {.page = {.limit = 1}}).front(), ab);
  EXPECT_TRUE(g_->incident_edges(ab.id).empty());  // not a vertex
}

TEST_F(PostgresServices, DeepNeighborsArePagedAfterTheTraversal) {
  // A chain of 14 vertices: depth 12 takes the reachable-subgraph path.
  std::vector<Vertex> chain;
  for (int i = 0; i < 14; ++i) chain.push_back(g_->create_vertex("V", {{"i", i}}));
  for (int i = 0; i + 1 < 14; ++i) g_->create_edge(chain[i].id, chain[i + 1].id, "N");
  for (int depth : {3, 12}) {
    const auto all = g_->neighbors(chain[0].id, {.max_depth = depth});
    ASSERT_EQ(all.size(), static_cast<std::size_t>(depth));
    const Page page{.limit = 2, .after = chain[2].id};
    EXPECT_EQ(ids_of(g_->neighbors(chain[0].id, {.max_depth = depth, .page = page})), expected_page(all, page));
  }
}

// == indexes ===================================================================================

TEST_F(PostgresServices, IndexesArePartialExpressionIndexesListedInTheCatalog) {
  EXPECT_TRUE(g_->create_index("Person", "email", {.unique = true}));
  EXPECT_TRUE(g_->create_index("Person", "it's \"odd\"\\ key"));
  EXPECT_FALSE(g_->create_index("Person", "email"));  // exists, whatever the options
  EXPECT_THROW(g_->create_index("bad label", "k"), InvalidArgument);
  EXPECT_THROW(g_->create_index("Person", ""), InvalidArgument);
  EXPECT_EQ(g_->indexes(),
            (std::vector<IndexInfo>{{"Person", "email", true}, {"Person", "it's \"odd\"\\ key", false}}));
  const std::string where = fmt::format("schemaname = '{}'", g_->schema_name());
  EXPECT_EQ(count_rows(dsn_, fmt::format("SELECT count(*) FROM pg_indexes WHERE {} AND indexname LIKE 'pg%'", where)),
            "4");
  const auto def = pgtest::admin_sql(
      dsn_,
      fmt::format("SELECT indexdef FROM pg_indexes WHERE {} AND tablename = 'vertices' AND indexdef LIKE '%email%'",
                  where));
  ASSERT_TRUE(def);
  EXPECT_NE(def->find("CREATE UNIQUE INDEX"), std::string::npos) << *def;
  EXPECT_NE(def->find("(properties -> 'email'::text)"), std::string::npos) << *def;
  EXPECT_NE(def->find("WHERE ((label = 'Person'::text)"), std::string::npos) << *def;
  EXPECT_TRUE(g_->drop_index("Person", "email"));
  EXPECT_FALSE(g_->drop_index("Person", "email"));
  EXPECT_FALSE(g_->drop_index("bad label", "email"));
  EXPECT_EQ(g_->indexes(), (std::vector<IndexInfo>{{"Person", "it's \"odd\"\\ key", false}}));
  EXPECT_EQ(count_rows(dsn_, fmt::format("SELECT count(*) FROM pg_indexes WHERE {} AND indexname LIKE 'pg%'", where)),
            "2");
  // Dropping the bound graph empties it, indexes included.
  EXPECT_TRUE(g_->drop_graph(g_->options().graph));
  EXPECT_TRUE(g_->indexes().empty());
  EXPECT_EQ(count_rows(dsn_, fmt::format("SELECT count(*) FROM pg_indexes WHERE {} AND indexname LIKE 'pg%'", where)),
            "0");
}

TEST_F(PostgresServices, ThePlannerUsesTheIndexForAFilterEvenWithAGenericPlan) {
  ASSERT_TRUE(g_->create_index("Person", "email"));
  for (int i = 0; i < 2000; ++i) g_->create_vertex(i % 2 ? "Person" : "Robot", {{"email", fmt::format("e{}", i)}});
  pgtest::admin_sql(dsn_, fmt::format("ANALYZE \"{}\".vertices", g_->schema_name()));
  // The statement PostgresGraph sends for find_vertices_by_label("Person", {{"email", ...}}).
  const postgres_detail::GraphSql sql(g_->schema_name());
  const postgres_detail::IndexedKey key{"Person", "email"};
  const std::string statement = sql.scan(postgres_detail::Table::vertices, postgres_detail::FilterShape::scalars, &key,
                                         postgres_detail::Scan::page);
  using namespace postgres_detail;
  auto conn = Connection::open(dsn_, *Reactor::shared(), std::chrono::seconds(10));
  conn->exec("SET plan_cache_mode = force_generic_plan", {}, false);
  conn->exec(fmt::format("PREPARE q AS {}", statement), {}, false);
  Result plan = conn->exec(R"(EXPLAIN EXECUTE q('Person', '{"email": "e7"}', '{}', '"e7"', 0, 10))", {}, false);
  std::string text;
  for (int i = 0; i < plan.rows(); ++i) text += fmt::format("{}\n", plan.text(i, 0));
  // An index scan or a bitmap index scan on the property index.
  EXPECT_TRUE(text.find("Index Scan using \"pgv_Person_email_") != std::string::npos ||
              text.find("Bitmap Index Scan on \"pgv_Person_email_") != std::string::npos)
      << text;
  EXPECT_EQ(g_->find_vertices_by_label("Person", {{"email", "e7"}}).size(), 1u);
}

TEST_F(PostgresServices, FiltersReturnTheSameWithAndWithoutAnIndex) {
  // Typed values: int 1, double 1.0, string "1", lists, NaN, missing keys, null filters.
  const std::vector<Value> values = {1,
                                     1.0,
                                     "1",
                                     2,
                                     Value::list({1, 2}),
                                     Value::list({2, 1}),
                                     true,
                                     std::numeric_limits<double>::quiet_NaN(),
                                     Value::list({1.0, 2})};
  for (std::size_t i = 0; i < values.size(); ++i) {
    g_->create_vertex("T", {{"k", values[i]}, {"j", static_cast<std::int64_t>(i % 3)}});
    g_->create_vertex("U", {{"k", values[i]}});
  }
  g_->create_vertex("T", {{"j", 0}});
  std::vector<Properties> filters;
  for (const auto& v : values) {
    filters.push_back({{"k", v}});
    filters.push_back({{"k", v}, {"j", 0}});
  }
  filters.push_back({{"k", nullptr}});
  filters.push_back({{"k", nullptr}, {"j", 0}});
  std::vector<std::vector<Vertex>> before;
  for (const auto& f : filters) before.push_back(g_->find_vertices_by_label("T", f));
  ASSERT_TRUE(g_->create_index("T", "k"));
  ASSERT_TRUE(g_->create_index("T", "j"));
  for (std::size_t i = 0; i < filters.size(); ++i) {
    EXPECT_EQ(g_->find_vertices_by_label("T", filters[i]), before[i]) << fmt::format("{}", filters[i]);
    EXPECT_EQ(g_->find_vertices_by_label("T", filters[i], {.limit = 1}),
              std::vector<Vertex>(before[i].begin(), before[i].begin() + std::min<std::size_t>(1, before[i].size())));
  }
  EXPECT_EQ(g_->find_vertices_by_label("T", {{"k", 1}}).size(), 1u);
}

TEST_F(PostgresServices, TheServerEnforcesUniqueIndexesOnEveryWritePath) {
  ASSERT_TRUE(g_->create_index("Person", "email", {.unique = true}));
  const auto ann = g_->create_vertex("Person", {{"email", "ann@x"}});
  const auto expect_duplicate = [&](auto&& call) {
    try {
      call();
      ADD_FAILURE() << "no AlreadyExists";
    } catch (const AlreadyExists& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("Person.email"), std::string::npos) << what;
      EXPECT_NE(what.find("\"ann@x\""), std::string::npos) << what;
      EXPECT_NE(what.find(fmt::format("vertex {}", ann.id)), std::string::npos) << what;
    }
  };
  expect_duplicate([&] { g_->create_vertex("Person", {{"email", "ann@x"}}); });
  const auto bob = g_->create_vertex("Person", {{"email", "bob@x"}});
  expect_duplicate([&] { g_->update_vertex("Person", bob.id, {{"email", "ann@x"}}); });
  expect_duplicate([&] { g_->upsert_vertex("Person", {{"name", "Ann"}}, {{"email", "ann@x"}}); });
  expect_duplicate([&] {
    g_->create_vertices(std::vector<NewVertex>{{"Person", {{"email", "new@x"}}}, {"Person", {{"email", "ann@x"}}}});
  });
  EXPECT_EQ(g_->count_vertices("Person"), 2);  // nothing of the failed writes stayed
  EXPECT_EQ(g_->find_vertex(bob.id)->properties["email"], Value("bob@x"));
  // Typed: int 1 and double 1.0 differ; other labels and absent keys are not constrained; NaN
  // equals nothing.
  g_->create_vertex("Person", {{"email", 1}});
  g_->create_vertex("Person", {{"email", 1.0}});
  g_->create_vertex("Robot", {{"email", "ann@x"}});
  g_->create_vertex("Person", {});
  g_->create_vertex("Person", {});
  g_->create_vertex("Person", {{"email", std::numeric_limits<double>::quiet_NaN()}});
  g_->create_vertex("Person", {{"email", std::numeric_limits<double>::quiet_NaN()}});
  EXPECT_THROW(g_->create_vertex("Person", {{"email", 1.0}}), AlreadyExists);
  // Edges of the label are constrained too.
  const auto e1 = g_->create_edge(ann.id, bob.id, "Person", {{"email", "edge@x"}});
  EXPECT_THROW(g_->create_edge(bob.id, ann.id, "Person", {{"email", "edge@x"}}), AlreadyExists);
  EXPECT_THROW(g_->update_edge("Person", g_->create_edge(bob.id, ann.id, "Person").id, {{"email", "edge@x"}}),
               AlreadyExists);
  EXPECT_EQ(g_->find_edges_by_label("Person", {{"email", "edge@x"}}), std::vector<Edge>{e1});
}

TEST_F(PostgresServices, AUniqueIndexOverDuplicatesIsRefusedAndCreatesNothing) {
  const auto a = g_->create_vertex("Person", {{"email", "same"}});
  const auto b = g_->create_vertex("Person", {{"email", "same"}});
  try {
    g_->create_index("Person", "email", {.unique = true});
    ADD_FAILURE() << "no AlreadyExists";
  } catch (const AlreadyExists& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(fmt::format("{} and {}", a.id, b.id)), std::string::npos) << what;
    EXPECT_NE(what.find("email = \"same\""), std::string::npos) << what;
  }
  EXPECT_TRUE(g_->indexes().empty());
  EXPECT_EQ(
      count_rows(dsn_, fmt::format("SELECT count(*) FROM pg_indexes WHERE schemaname = '{}' AND indexname LIKE 'pg%'",
                                   g_->schema_name())),
      "0");
  EXPECT_TRUE(g_->create_index("Person", "email"));  // a plain one is fine
}

// == upsert ====================================================================================

TEST_F(PostgresServices, UpsertCreatesThenMergesAndRefusesAmbiguousMatches) {
  const auto first = g_->upsert_vertex("Person", {{"email", "a@x"}}, {{"name", "Ann"}, {"gone", nullptr}});
  EXPECT_TRUE(first.created);
  EXPECT_EQ(first.vertex.properties, (Properties{{"email", "a@x"}, {"name", "Ann"}}));
  const auto second = g_->upsert_vertex("Person", {{"email", "a@x"}}, {{"name", nullptr}, {"age", 30}});
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.vertex.id, first.vertex.id);
  EXPECT_EQ(second.vertex.properties, (Properties{{"age", 30}, {"email", "a@x"}}));
  EXPECT_EQ(g_->find_vertex(first.vertex.id), second.vertex);
  g_->create_vertex("Person", {{"team", "x"}});
  g_->create_vertex("Person", {{"team", "x"}});
  g_->create_vertex("Person", {{"team", "x"}});
  try {
    g_->upsert_vertex("Person", {{"team", "x"}});
    ADD_FAILURE() << "no InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("3 vertices"), std::string::npos) << e.what();
  }
  EXPECT_THROW(g_->upsert_vertex("bad label", {{"k", 1}}), InvalidArgument);
  EXPECT_EQ(g_->count_vertices(), 4);
}

TEST_F(PostgresServices, ConcurrentUpsertsFromThreadsAndFibersCreateOneVertex) {
  // 16 threads, then 256 fibers on a FiberPool, all upserting the same match at once.
  std::atomic<int> created{0};
  std::atomic<int> failures{0};
  const auto upsert = [&](int who) {
    try {
      if (g_->upsert_vertex("Person", {{"email", "race@x"}}, {{"last", who}}).created) ++created;
    } catch (const std::exception& e) {
      ++failures;
      ADD_FAILURE() << e.what();
    }
  };
  {
    std::vector<std::thread> threads;
    for (int t = 0; t < 16; ++t) threads.emplace_back(upsert, t);
    for (auto& t : threads) t.join();
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(g_->find_vertices_by_label("Person", {{"email", "race@x"}}).size(), 1u);
  {
    FiberPool fibers(2);
    std::vector<Future<void>> done;
    for (int f = 0; f < 256; ++f) done.push_back(fibers.submit([&, f] { upsert(1000 + f); }));
    for (auto& d : done) d.get();
  }
  const auto fiber_match = [&] { return g_->find_vertices_by_label("Person", {{"email", "race@x"}}); };
  EXPECT_EQ(created, 1) << "the fibers found the threads' vertex";
  EXPECT_EQ(fiber_match().size(), 1u);
  // A fresh key raced by 256 fibers: exactly one creates it.
  created = 0;
  {
    FiberPool fibers(2);
    std::vector<Future<void>> done;
    for (int f = 0; f < 256; ++f) {
      done.push_back(fibers.submit([&, f] {
        if (g_->upsert_vertex("Person", {{"email", "fiber@x"}}, {{"last", f}}).created) ++created;
      }));
    }
    for (auto& d : done) d.get();
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(g_->find_vertices_by_label("Person", {{"email", "fiber@x"}}).size(), 1u);
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace propgraph
