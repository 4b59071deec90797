// PostgresGraph's COPY paths: create_vertices / create_edges stream rows through COPY in binary
// format in one transaction (all or nothing), with errors located at their record as single
// writes report them; algorithms load the graph through COPY TO.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "pg_test_support.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/fmt.hpp"
#include "propgraph/generate.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/postgres/postgres_graph.hpp"

namespace propgraph {
namespace {

using namespace std::chrono_literals;

template <typename F>
std::string error_of(F&& call) {
  try {
    call();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

/// How many edges of `g` name a vertex that does not exist, counted by the server.
std::string dangling_edges(const PostgresGraph& g) {
  return pgtest::admin_sql(*pgtest::server_dsn(),
                           fmt::format("SELECT count(*) FROM \"{0}\".edges e WHERE NOT EXISTS (SELECT 1 FROM "
                                       "\"{0}\".vertices v WHERE v.id = e.from_id) OR NOT EXISTS (SELECT 1 FROM "
                                       "\"{0}\".vertices v WHERE v.id = e.to_id)",
                                       g.schema_name()))
      .value_or("(no rows)");
}

class PostgresBulk : public ::testing::Test {
 protected:
  void SetUp() override {
    g_ = pgtest::scratch_graph({.pool_size = 2});
    if (!g_) GTEST_SKIP() << pgtest::skip_reason();
  }
  std::unique_ptr<PostgresGraph> g_;
};

TEST_F(PostgresBulk, EveryValueTypeAndUnicodeRoundTripsThroughCopy) {
  const std::vector<NewVertex> records = {
      {"Person",
       {{"name", "Zoë 🚀"},
        {"int", std::int64_t{-42}},
        {"max", INT64_MAX},
        {"double", 0.1},
        {"neg_zero", -0.0},
        {"inf", std::numeric_limits<double>::infinity()},
        {"yes", true},
        {"list", Value::list({1, "two", 3.0, Value::list({false})})},
        {"dropped", nullptr}}},
      {"Person", {}},
      {"City", {{"quote", "tab\t newline\n backslash\\ \"quoted\""}}},
  };
  const auto ids = g_->create_vertices(records);
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_TRUE(ids[0] < ids[1] && ids[1] < ids[2]);  // input order is creation order
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto v = g_->find_vertex(ids[i]);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->label, records[i].label);
    Properties expected = records[i].properties;
    expected.erase("dropped");
    EXPECT_EQ(v->properties, expected) << i;
  }
  EXPECT_TRUE(std::signbit(g_->find_vertex(ids[0])->properties["neg_zero"].as_double()));
  const auto edge_ids = g_->create_edges(std::vector<NewEdge>{
      {ids[0], ids[2], "LIVES_IN", {{"since", 2020}, {"note", "ünïcode"}}}, {ids[0], ids[0], "SELF", {}}});
  ASSERT_EQ(edge_ids.size(), 2u);
  EXPECT_EQ(g_->find_edge(edge_ids[0]),
            (Edge{edge_ids[0], "LIVES_IN", ids[0], ids[2], {{"since", 2020}, {"note", "ünïcode"}}}));
  EXPECT_EQ(g_->find_edge(edge_ids[1]), (Edge{edge_ids[1], "SELF", ids[0], ids[0], {}}));
  EXPECT_TRUE(g_->create_vertices({}).empty());
}

TEST_F(PostgresBulk, BadValuesAreRejectedAtTheirRecordAndNothingIsWritten) {
  g_->create_vertex("Person");
  const std::vector<NewVertex> nul = {{"Person", {}}, {"Person", {}}, {"Person", {{"name", std::string("a\0b", 3)}}}};
  const std::string what = error_of([&] { g_->create_vertices(nul); });
  EXPECT_NE(what.find("create_vertices: vertices[2]: "), std::string::npos) << what;
  EXPECT_NE(what.find("NUL"), std::string::npos) << what;
  EXPECT_THROW(g_->create_vertices(nul), InvalidArgument);
  // Invalid UTF-8 is refused by the server, located by the COPY's line.
  const std::vector<NewVertex> latin1 = {{"Person", {}}, {"Person", {{"name", std::string("caf\xe9")}}}};
  EXPECT_THROW(g_->create_vertices(latin1), InvalidArgument);
  const std::string bad_text = error_of([&] { g_->create_vertices(latin1); });
  EXPECT_NE(bad_text.find("vertices[1]"), std::string::npos) << bad_text;
  EXPECT_THROW(g_->create_vertices(std::vector<NewVertex>{{"bad label", {}}}), InvalidArgument);
  EXPECT_EQ(g_->count_vertices(), 1);
}

TEST_F(PostgresBulk, UniqueViolationsAreLocatedAtTheirRecord) {
  ASSERT_TRUE(g_->create_index("Person", "email", {.unique = true}));
  const auto ann = g_->create_vertex("Person", {{"email", "ann@x"}});
  const std::string existing = error_of([&] {
    g_->create_vertices(std::vector<NewVertex>{{"Person", {{"email", "new@x"}}}, {"Person", {{"email", "ann@x"}}}});
  });
  EXPECT_EQ(existing, fmt::format("create_vertices: vertices[1]: unique index on Person.email: value \"ann@x\" is "
                                  "already held by vertex {}",
                                  ann.id));
  const std::string in_batch = error_of([&] {
    g_->create_vertices(std::vector<NewVertex>{{"Person", {{"email", "a@x"}}},
                                               {"Robot", {{"email", "b@x"}}},
                                               {"Person", {{"email", "b@x"}}},
                                               {"Person", {{"email", "a@x"}}}});
  });
  EXPECT_EQ(in_batch,
            "create_vertices: vertices[3]: unique index on Person.email: value \"a@x\" is already held by "
            "vertices[0] of the same batch");
  EXPECT_THROW(g_->create_vertices(std::vector<NewVertex>{{"Person", {{"email", "ann@x"}}}}), AlreadyExists);
  // Edges of the label too.
  const auto bob = g_->create_vertex("Person", {{"email", "bob@x"}});
  const std::string edge = error_of([&] {
    g_->create_edges(std::vector<NewEdge>{{ann.id, bob.id, "Person", {{"email", "e@x"}}},
                                          {bob.id, ann.id, "Person", {{"email", "e@x"}}}});
  });
  EXPECT_EQ(edge,
            "create_edges: edges[1]: unique index on Person.email: value \"e@x\" is already held by edges[0] "
            "of the same batch");
  EXPECT_EQ(g_->count_vertices(), 2);
  EXPECT_EQ(g_->count_edges(), 0);
}

TEST_F(PostgresBulk, MissingEndpointsAreNotFoundAtTheirRecord) {
  const auto a = g_->create_vertex("V");
  const auto gone = g_->create_vertex("V");
  ASSERT_TRUE(g_->delete_vertex("V", gone.id));
  const std::string foreign = error_of([&] {
    g_->create_edges(std::vector<NewEdge>{{a.id, a.id, "E", {}}, {a.id, ElementId("elsewhere:v1"), "E", {}}});
  });
  EXPECT_EQ(foreign, "create_edges: edges[1]: target vertex 'elsewhere:v1' not found");
  // A well-formed id of a deleted vertex: the foreign key finds it missing.
  const std::string deleted = error_of([&] {
    g_->create_edges(std::vector<NewEdge>{{a.id, a.id, "E", {}}, {a.id, a.id, "E", {}}, {gone.id, a.id, "E", {}}});
  });
  EXPECT_EQ(deleted, fmt::format("create_edges: edges[2]: source vertex '{}' not found", gone.id));
  EXPECT_THROW(g_->create_edges(std::vector<NewEdge>{{gone.id, a.id, "E", {}}}), NotFound);
  EXPECT_EQ(g_->count_edges(), 0);
}

TEST_F(PostgresBulk, DeletingVerticesWhileEdgesAreCreatedLeavesNoDanglingEdge) {
  // Without foreign keys the backend keeps endpoints valid itself: vertex deletes race single
  // and bulk edge creation, and afterwards no edge names a missing vertex.
  std::vector<ElementId> ids = g_->create_vertices(std::vector<NewVertex>(400, NewVertex{"V", {}}));
  std::atomic<bool> stop{false};
  std::atomic<int> created{0};
  std::atomic<int> refused{0};
  const auto creator = [&](bool bulk, unsigned seed) {
    std::mt19937 random(seed);
    while (!stop) {
      try {
        if (bulk) {
          std::vector<NewEdge> batch;
          for (int i = 0; i < 50; ++i)
            batch.push_back({ids[random() % ids.size()], ids[random() % ids.size()], "E", {}});
          created += static_cast<int>(g_->create_edges(batch).size());
        } else {
          g_->create_edge(ids[random() % ids.size()], ids[random() % ids.size()], "E");
          ++created;
        }
      } catch (const NotFound&) {
        ++refused;  // an endpoint was deleted first
      }
    }
  };
  std::thread bulk(creator, true, 1);
  std::thread single(creator, false, 2);
  // The deletes start once edges are being created and the creators stop once some were refused,
  // so the race happens however the threads are scheduled (a slow start, e.g. under ASan, once
  // let every delete finish before the first edge).
  while (created == 0) std::this_thread::yield();
  for (std::size_t i = 0; i < ids.size(); i += 2) ASSERT_TRUE(g_->delete_vertex("V", ids[i]));
  while (refused == 0) std::this_thread::yield();
  stop = true;
  bulk.join();
  single.join();
  EXPECT_EQ(dangling_edges(*g_), "0");
}

// -- rebuild mode (PostgresOptions::bulk_rebuild_min_edges) -----------------------------------

/// A graph whose bulk edge writes of 100 or more edges may take rebuild mode, and what its
/// edge table looks like from outside.
class PostgresRebuild : public ::testing::Test {
 protected:
  void SetUp() override {
    g_ = pgtest::scratch_graph({.pool_size = 2, .bulk_rebuild_min_edges = 100});
    if (!g_) GTEST_SKIP() << pgtest::skip_reason();
    // An autovacuum ANALYZE holding a table when a load asks for its lock would send that load
    // row by row (NOWAIT), which the tests below tell apart from rebuild mode.
    for (const char* table : {"vertices", "edges"}) {
      (void)sql(fmt::format("ALTER TABLE \"{}\".{} SET (autovacuum_enabled = false)", g_->schema_name(), table));
    }
    vertices_ = g_->create_vertices(std::vector<NewVertex>(50, NewVertex{"V", {}}));
  }

  [[nodiscard]] std::string sql(const std::string& statement) const {
    return pgtest::admin_sql(*pgtest::server_dsn(), statement).value_or("(no rows)");
  }
  [[nodiscard]] std::string edges() const { return fmt::format("'\"{}\".edges'::regclass", g_->schema_name()); }
  /// The definitions of the edges' indexes and constraints: what the schema promises.
  [[nodiscard]] std::string schema() const {
    return sql(fmt::format(
        "SELECT string_agg(d, ' | ' ORDER BY d) FROM (SELECT pg_get_indexdef(indexrelid) AS d FROM pg_index "
        "WHERE indrelid = {0} UNION ALL SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = {0}) t",
        edges()));
  }
  /// The object ids of the edges' indexes: they change when the indexes are built again.
  [[nodiscard]] std::string index_oids() const {
    return sql(fmt::format(
        "SELECT string_agg(indexrelid::text, ',' ORDER BY indexrelid) FROM pg_index WHERE indrelid = {}", edges()));
  }
  [[nodiscard]] std::vector<NewEdge> batch(std::size_t n, unsigned seed = 1) const {
    std::mt19937 random(seed);
    std::vector<NewEdge> out;
    for (std::size_t i = 0; i < n; ++i) {
      out.push_back({vertices_[random() % vertices_.size()],
                     vertices_[random() % vertices_.size()],
                     "E",
                     {{"i", static_cast<std::int64_t>(i)}}});
    }
    return out;
  }

  std::unique_ptr<PostgresGraph> g_;
  std::vector<ElementId> vertices_;
};

TEST_F(PostgresRebuild, ALoadIntoASmallerGraphRebuildsTheIndexesAndKeysAsTheyWere) {
  const std::string before = schema();
  ASSERT_NE(before.find("edges_from_id_fkey FOREIGN KEY (from_id)"), std::string::npos) << before;
  ASSERT_NE(before.find("(to_id, id)"), std::string::npos) << before;
  const std::string oids = index_oids();
  const auto records = batch(300);
  const auto ids = g_->create_edges(records);
  ASSERT_EQ(ids.size(), 300u);
  EXPECT_EQ(schema(), before);
  EXPECT_NE(index_oids(), oids);  // built again, not maintained row by row
  for (std::size_t i : {0u, 150u, 299u}) {
    EXPECT_EQ(g_->find_edge(ids[i]), (Edge{ids[i], "E", records[i].from, records[i].to, records[i].properties}));
  }
  // The rebuilt indexes and keys serve: incident edges in id order, and the cascade.
  const auto incident = g_->incident_edges(vertices_[7]);
  EXPECT_TRUE(
      std::is_sorted(incident.begin(), incident.end(), [](const Edge& a, const Edge& b) { return a.id < b.id; }));
  const auto degree = static_cast<std::int64_t>(incident.size());
  ASSERT_GT(degree, 0);
  ASSERT_TRUE(g_->delete_vertex("V", vertices_[7]));
  EXPECT_EQ(g_->count_edges(), 300 - degree);
  EXPECT_EQ(dangling_edges(*g_), "0");
}

TEST_F(PostgresRebuild, SmallLoadsAndLoadsIntoLargerGraphsGoRowByRow) {
  ASSERT_EQ(g_->create_edges(batch(300)).size(), 300u);  // rebuilt: the graph held none
  const std::string oids = index_oids();
  EXPECT_EQ(g_->create_edges(batch(99)).size(), 99u);    // below bulk_rebuild_min_edges
  EXPECT_EQ(g_->create_edges(batch(200)).size(), 200u);  // fewer than the 399 the graph holds
  EXPECT_EQ(index_oids(), oids);
  EXPECT_EQ(g_->create_edges(batch(600)).size(), 600u);  // more than the 599 it holds
  EXPECT_NE(index_oids(), oids);
  EXPECT_EQ(g_->count_edges(), 1199);
}

TEST_F(PostgresRebuild, AMissingEndpointIsNotFoundAtItsRecordAndLeavesTheSchema) {
  const std::string before = schema();
  const std::string oids = index_oids();
  const auto gone = g_->create_vertex("V").id;
  ASSERT_TRUE(g_->delete_vertex("V", gone));
  auto records = batch(300);
  records[217].to = gone;
  EXPECT_EQ(error_of([&] { g_->create_edges(records); }),
            fmt::format("create_edges: edges[217]: target vertex '{}' not found", gone));
  EXPECT_EQ(g_->count_edges(), 0);
  EXPECT_EQ(schema(), before);
  EXPECT_EQ(index_oids(), oids);  // the drops were rolled back with the rows
}

TEST_F(PostgresRebuild, InATransactionTheModeEndsAtTheNextOtherCallAndAtCommit) {
  const std::string before = schema();
  const std::string oids = index_oids();
  {
    auto tx = g_->begin();
    ASSERT_EQ(tx->create_edges(batch(200, 1)).size(), 200u);
    // Later batches of the transaction join the mode, whatever their size.
    ASSERT_EQ(tx->create_edges(batch(5, 2)).size(), 5u);
    const auto gone = tx->create_vertex("V").id;
    ASSERT_TRUE(tx->delete_vertex("V", gone));  // ends the mode: the keys are back
    auto records = batch(300, 3);
    records[3].from = gone;
    EXPECT_EQ(error_of([&] { tx->create_edges(records); }),
              fmt::format("create_edges: edges[3]: source vertex '{}' not found", gone));
    // The transaction goes on after the failed call; the cascade needs the keys.
    auto hub = batch(250, 4);
    const auto hub_id = tx->create_vertex("V").id;
    for (std::size_t i = 0; i < hub.size(); i += 2) hub[i].from = hub_id;
    ASSERT_EQ(tx->create_edges(hub).size(), 250u);  // not larger than the 205 edges: row by row
    ASSERT_TRUE(tx->delete_vertex("V", hub_id));
    EXPECT_EQ(tx->count_edges(), 205 + 125);
    ASSERT_EQ(tx->create_edges(batch(400, 5)).size(), 400u);  // a second round of the mode
    tx->commit();  // ends it
  }
  EXPECT_EQ(schema(), before);
  EXPECT_NE(index_oids(), oids);
  EXPECT_EQ(dangling_edges(*g_), "0");
  {
    const std::string committed = index_oids();
    auto tx = g_->begin();
    const auto count = g_->count_edges();
    ASSERT_EQ(tx->create_edges(batch(1000, 6)).size(), 1000u);
    tx->rollback();
    EXPECT_EQ(g_->count_edges(), count);
    EXPECT_EQ(schema(), before);
    EXPECT_EQ(index_oids(), committed);
  }
}

TEST_F(PostgresRebuild, WhileAnotherTransactionUsesTheGraphALoadGoesRowByRowWithoutWaiting) {
  const std::string oids = index_oids();
  auto reader = g_->begin();
  ASSERT_TRUE(reader->find_vertex(vertices_[0]));  // holds a lock on vertices until it ends
  {
    DeadlineScope scope(30s);  // waiting for the reader would be a Timeout here
    EXPECT_EQ(g_->create_edges(batch(300)).size(), 300u);
  }
  EXPECT_EQ(index_oids(), oids);
  reader->commit();
  EXPECT_EQ(g_->count_edges(), 300);
}

TEST_F(PostgresRebuild, DeletingVerticesWhileLoadsRebuildLeavesNoDanglingEdge) {
  // Each load is at least as large as the graph, so it takes rebuild mode whenever it gets the
  // lock; vertex deletes race it.
  std::vector<ElementId> ids = g_->create_vertices(std::vector<NewVertex>(400, NewVertex{"V", {}}));
  std::atomic<bool> stop{false};
  std::atomic<int> loads{0};
  std::atomic<int> refused{0};
  std::thread loader([&] {
    std::mt19937 random(3);
    while (!stop) {
      std::vector<NewEdge> records;
      const auto n = static_cast<std::size_t>(std::max<std::int64_t>(100, g_->count_edges()));
      for (std::size_t i = 0; i < n && i < 5000; ++i) {
        records.push_back({ids[random() % ids.size()], ids[random() % ids.size()], "E", {}});
      }
      try {
        g_->create_edges(records);
        ++loads;
      } catch (const NotFound&) {
        ++refused;  // an endpoint was deleted first
      }
    }
  });
  while (loads == 0) std::this_thread::yield();
  for (std::size_t i = 0; i < ids.size(); i += 2) ASSERT_TRUE(g_->delete_vertex("V", ids[i]));
  while (refused == 0) std::this_thread::yield();
  stop = true;
  loader.join();
  EXPECT_EQ(dangling_edges(*g_), "0");
  EXPECT_NE(schema().find("edges_to_id_fkey FOREIGN KEY (to_id)"), std::string::npos);
}

TEST_F(PostgresBulk, ACopyPastItsDeadlineIsCancelledAndLeavesNothing) {
  pgtest::install_test_triggers(*g_);
  std::vector<NewVertex> records(50, NewVertex{"P", {}});
  records[10].properties.set("sleep_ms", 30000);
  {
    DeadlineScope scope(200ms);
    EXPECT_THROW(g_->create_vertices(records), Timeout);
  }
  EXPECT_EQ(g_->count_vertices(), 0);
  records[10].properties.erase("sleep_ms");
  EXPECT_EQ(g_->create_vertices(records).size(), 50u);  // the pool's connections still work
}

TEST_F(PostgresBulk, WholeGraphAlgorithmsMatchMemoryGraph) {
  // A generated power-law graph (self-loops, parallel edges, hubs) loaded into both backends
  // through their bulk paths.
  MemoryGraph memory;
  const auto list = generate::rmat_graph(2000, 12000, 7);
  const generate::LoadOptions load{.edge_properties =
                                       [](std::uint64_t i) {
                                         return Properties{{"i", static_cast<std::int64_t>(i)}};
                                       },
                                   .batch = 5000};
  const auto memory_ids = generate::load(memory, list, load);
  const auto pg_ids = generate::load(*g_, list, load);
  const auto position = [](const std::vector<ElementId>& ids, const ElementId& id) {
    return std::lower_bound(ids.begin(), ids.end(), id) - ids.begin();
  };
  const auto ranks_m = memory.page_rank({.top_k = 50});
  const auto ranks_p = g_->page_rank({.top_k = 50});
  ASSERT_EQ(ranks_m.size(), ranks_p.size());
  for (std::size_t i = 0; i < ranks_m.size(); ++i) {
    EXPECT_EQ(position(memory_ids, ranks_m[i].vertex.id), position(pg_ids, ranks_p[i].vertex.id)) << i;
    EXPECT_DOUBLE_EQ(ranks_m[i].score, ranks_p[i].score) << i;
    EXPECT_EQ(ranks_m[i].vertex.properties, ranks_p[i].vertex.properties);
  }
  const auto comps_m = memory.connected_components({.weakly = false, .min_size = 2});
  const auto comps_p = g_->connected_components({.weakly = false, .min_size = 2});
  ASSERT_EQ(comps_m.size(), comps_p.size());
  for (std::size_t i = 0; i < comps_m.size(); ++i) ASSERT_EQ(comps_m[i].vertices.size(), comps_p[i].vertices.size());
  const auto cycles_m = memory.detect_cycles({.max_depth = 3, .max_cycles = 20});
  const auto cycles_p = g_->detect_cycles({.max_depth = 3, .max_cycles = 20});
  ASSERT_EQ(cycles_m.size(), cycles_p.size());
  for (std::size_t i = 0; i < cycles_m.size(); ++i) {
    ASSERT_EQ(cycles_m[i].path.edges.size(), cycles_p[i].path.edges.size());
    EXPECT_EQ(cycles_m[i].path.edges.front().properties, cycles_p[i].path.edges.front().properties);
  }
}

}  // namespace
}  // namespace propgraph
