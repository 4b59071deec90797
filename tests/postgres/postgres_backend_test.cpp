// PostgresGraph beyond the shared contract: typed jsonb round trips, injection attempts, ids,
// the depth-bounded vs reachable subgraph paths (checked against MemoryGraph), the connection
// pool's limit and timeout, server errors, and fiber-aware waiting.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "fiber/fiber_io.hpp"
#include "pg_test_support.hpp"
#include "postgres/connection_pool.hpp"
#include "propgraph/fiber.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/postgres/postgres_graph.hpp"

namespace propgraph {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Strings = std::vector<std::string>;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// == values ====================================================================================

TEST(PostgresValues, ExtremeValuesRoundTripWithTheirTypes) {
  auto g = pgtest::scratch_graph();
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  const Properties props{
      {"int_min", INT64_MIN},
      {"int_max", INT64_MAX},
      {"beyond_2_53", (std::int64_t{1} << 53) + 1},
      {"zero_int", 0},
      {"zero_double", 0.0},
      {"tenth", 0.1},
      {"huge", 1e300},
      {"tiny", 5e-324},
      {"negative_huge", -1.7976931348623157e308},
      {"infinity", std::numeric_limits<double>::infinity()},
      {"minus_infinity", -std::numeric_limits<double>::infinity()},
      {"unicode", "Grüße, 世界 🌍"},
      {"controls", std::string("tab\tnl\nbell\x07 esc\x1b")},
      {"json_breaker", "\"}, {\"$d\": 1"},
      {"backslashes", "C:\\path\\to\\"},
      {"nested", Value::list({Value::list({1, 2.5}), Value::list({}), "x", true, 3})},
      {"$d", "a key that looks like the double wrapper"},
      {"key with \"quotes\" and \\", 1},
  };
  const auto v = g->create_vertex("Thing", props);
  const auto found = g->find_vertex_by_id("Thing", v.id);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->properties, props);
  for (const auto& [key, value] : props) {
    EXPECT_EQ(found->properties[key].type(), value.type()) << key;
  }
  // Negative zero keeps its sign and NaN stays a double NaN.
  const auto special = g->create_vertex("Thing", {{"negative_zero", -0.0}, {"nan", std::nan("")}});
  const auto back = g->find_vertex_by_id("Thing", special.id);
  ASSERT_TRUE(back);
  ASSERT_TRUE(back->properties["negative_zero"].is_double());
  EXPECT_TRUE(std::signbit(back->properties["negative_zero"].as_double()));
  ASSERT_TRUE(back->properties["nan"].is_double());
  EXPECT_TRUE(std::isnan(back->properties["nan"].as_double()));
}

TEST(PostgresValues, FiltersCompareListsExactlyAndNumbersByType) {
  auto g = pgtest::scratch_graph();
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  g->create_vertex("T", {{"name", "list"}, {"tags", Value::list({1, 2, 3})}});
  g->create_vertex("T", {{"name", "longer"}, {"tags", Value::list({1, 2, 3, 4})}});
  g->create_vertex("T", {{"name", "reordered"}, {"tags", Value::list({3, 2, 1})}});
  g->create_vertex("T", {{"name", "big"}, {"n", (std::int64_t{1} << 53) + 1}});
  g->create_vertex("T", {{"name", "big-1"}, {"n", std::int64_t{1} << 53}});
  g->create_vertex("T", {{"name", "huge"}, {"x", 1e300}});
  g->create_vertex("T", {{"name", "nan"}, {"x", std::nan("")}});
  auto names = [&](const Properties& filter) {
    Strings out;
    for (const auto& v : g->find_vertices_by_label("T", filter)) out.push_back(v.properties["name"].as_string());
    return out;
  };
  EXPECT_EQ(names({{"tags", Value::list({1, 2, 3})}}), Strings{"list"});
  EXPECT_EQ(names({{"tags", Value::list({1, 2})}}), Strings{});  // containment is not equality
  EXPECT_EQ(names({{"tags", Value::list({1.0, 2.0, 3.0})}}), Strings{});
  EXPECT_EQ(names({{"n", (std::int64_t{1} << 53) + 1}}), Strings{"big"});
  EXPECT_EQ(names({{"n", std::int64_t{1} << 53}}), Strings{"big-1"});
  EXPECT_EQ(names({{"x", 1e300}}), Strings{"huge"});
  EXPECT_EQ(names({{"x", std::nan("")}}), Strings{}) << "NaN equals nothing";
}

TEST(PostgresValues, InvalidTextIsAnInvalidArgumentAndWritesNothing) {
  auto g = pgtest::scratch_graph();
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  EXPECT_THROW(g->create_vertex("T", {{"s", std::string("a\0b", 3)}}), InvalidArgument);
  EXPECT_THROW(g->create_vertex("T", {{"s", std::string("\xff\xfe")}}), InvalidArgument);
  EXPECT_THROW(g->create_vertex("T", {{std::string("k\0", 2), 1}}), InvalidArgument);
  EXPECT_EQ(g->count_vertices("T"), 0);
  // Such keys and values are simply never stored: filters and patches treat them so.
  const auto v = g->create_vertex("T", {{"s", "ok"}});
  const std::string nul_key("k\0", 2);
  EXPECT_EQ(g->find_vertices_by_label("T", {{nul_key, nullptr}}).size(), 1u);
  EXPECT_TRUE(g->find_vertices_by_label("T", {{nul_key, 1}}).empty());
  EXPECT_TRUE(g->find_vertices_by_label("T", {{"s", std::string("o\0k", 3)}}).empty());
  EXPECT_EQ(g->update_vertex("T", v.id, {{nul_key, nullptr}}), v);
  EXPECT_THROW(g->update_vertex("T", v.id, {{"s", std::string("o\0k", 3)}}), InvalidArgument);
  EXPECT_EQ(g->find_vertex_by_id("T", v.id), v);
}

// == injection =================================================================================

const Strings kInjections{
    "Person'; DROP TABLE vertices; --",      "x' OR '1'='1",
    "\"; DROP SCHEMA propgraph CASCADE; --", "$1",
    "') UNION SELECT 1, '{}'::jsonb --",     "Robert'); DELETE FROM edges; --",
};

TEST(PostgresInjection, LabelsAreValidatedOrBoundAsParameters) {
  auto g = pgtest::scratch_graph();
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  const auto a = g->create_vertex("Person", {{"name", "a"}});
  const auto b = g->create_vertex("Person", {{"name", "b"}});
  const auto ab = g->create_edge(a.id, b.id, "KNOWS");
  for (const auto& evil : kInjections) {
    SCOPED_TRACE(evil);
    EXPECT_THROW(g->create_vertex(evil), InvalidArgument);
    EXPECT_THROW(g->create_edge(a.id, b.id, evil), InvalidArgument);
    EXPECT_FALSE(g->find_vertex_by_id(evil, a.id));
    EXPECT_TRUE(g->find_vertices_by_label(evil).empty());
    EXPECT_EQ(g->count_vertices(evil), 0);
    EXPECT_EQ(g->count_edges(evil), 0);
    EXPECT_FALSE(g->update_vertex(evil, a.id, {{"x", 1}}));
    EXPECT_FALSE(g->delete_vertex(evil, a.id));
    EXPECT_FALSE(g->delete_edge(evil, ab.id));
    // Option labels travel as parameters: they simply match no edge.
    EXPECT_TRUE(g->neighbors(a.id, {.edge_label = evil}).empty());
    EXPECT_FALSE(g->shortest_path(a.id, b.id, {.edge_label = evil}));
    EXPECT_EQ(g->bfs(a.id, {.edge_label = evil}).size(), 1u);
    EXPECT_EQ(g->degree_centrality(a.id, {.edge_label = evil}), (Degree{a.id, 0, 0}));
    EXPECT_TRUE(g->page_rank({.vertex_label = evil}).empty());
    EXPECT_TRUE(g->connected_components({.vertex_label = evil}).empty());
    EXPECT_TRUE(g->detect_cycles({.edge_label = evil}).empty());
    // Graph names are labels too.
    EXPECT_THROW(g->create_graph(evil), InvalidArgument);
    EXPECT_FALSE(g->graph_exists(evil));
    EXPECT_FALSE(g->drop_graph(evil));
  }
  EXPECT_EQ(g->count_vertices("Person"), 2);
  EXPECT_EQ(g->count_edges("KNOWS"), 1);
  EXPECT_EQ(g->vertex_labels(), Strings{"Person"});
}

TEST(PostgresInjection, KeysAndValuesAreData) {
  auto g = pgtest::scratch_graph();
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  Properties props;
  for (std::size_t i = 0; i < kInjections.size(); ++i)
    props.set(kInjections[i], kInjections[(i + 1) % kInjections.size()]);
  const auto v = g->create_vertex("Person", props);
  const auto w = g->create_vertex("Person", {{"name", "plain"}});
  const auto e = g->create_edge(v.id, w.id, "KNOWS", props);
  EXPECT_EQ(g->find_vertex_by_id("Person", v.id)->properties, props);
  EXPECT_EQ(g->find_edge_by_id("KNOWS", e.id)->properties, props);
  for (const auto& [key, value] : props) {
    SCOPED_TRACE(key);
    EXPECT_EQ(g->find_vertices_by_label("Person", {{key, value}}).size(), 1u);
    EXPECT_EQ(g->find_edges_by_label("KNOWS", {{key, value}}).size(), 1u);
    EXPECT_EQ(g->find_vertices_by_label("Person", {{key, nullptr}}).size(), 1u) << "only 'plain' lacks it";
    EXPECT_TRUE(g->find_vertices_by_label("Person", {{key, "no such value"}}).empty());
    // A weight key is a parameter too: absent on the path's edge means weight 1.
    EXPECT_TRUE(g->shortest_path(v.id, w.id, {.weight_property = key + "_missing"}));
  }
  // Removing keys through a patch: the key list is a parameter as well.
  Properties removal;
  for (const auto& [key, value] : props) removal.set(key, nullptr);
  removal.set("kept", 1);
  EXPECT_EQ(g->update_vertex("Person", v.id, removal)->properties, (Properties{{"kept", 1}}));
  EXPECT_EQ(g->count_vertices("Person"), 2);
}

TEST(PostgresInjection, CraftedIdsFindNothing) {
  auto g = pgtest::scratch_graph();
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  const auto v = g->create_vertex("Person", {{"name", "a"}});
  const std::string id(v.id.str());
  const std::string prefix = id.substr(0, id.find(':') + 2);  // "pg<n>:v"
  for (const std::string& crafted :
       {prefix + "1 OR 1=1", prefix + "0" + id.substr(prefix.size()), prefix + "-1", prefix + "99999999999999999999",
        prefix + "1; DROP TABLE vertices", prefix + "", prefix + "+1", prefix + " 1", id + " "}) {
    SCOPED_TRACE(crafted);
    EXPECT_FALSE(g->find_vertex_by_id("Person", ElementId(crafted)));
    EXPECT_FALSE(g->delete_vertex("Person", ElementId(crafted)));
    EXPECT_THROW(g->create_edge(ElementId(crafted), v.id, "L"), NotFound);
  }
  EXPECT_EQ(g->count_vertices("Person"), 1);
}

// == ids and graphs ============================================================================

TEST(PostgresGraphs, IdsNameTheGraphAndAreNeverReissuedAfterADrop) {
  auto g = pgtest::scratch_graph();
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  const auto a = g->create_vertex("Person");
  const auto b = g->create_vertex("Person");
  const auto e = g->create_edge(a.id, b.id, "KNOWS");
  EXPECT_TRUE(a.id.str().starts_with("pg")) << a.id.str();
  EXPECT_NE(a.id.str().find(":v"), std::string_view::npos);
  EXPECT_NE(e.id.str().find(":e"), std::string_view::npos);
  EXPECT_LT(a.id, b.id);
  // Dropping the bound graph empties it; new ids keep ascending.
  EXPECT_TRUE(g->drop_graph(g->options().graph));
  EXPECT_TRUE(g->graph_exists(g->options().graph));
  EXPECT_EQ(g->count_vertices("Person"), 0);
  EXPECT_FALSE(g->find_vertex_by_id("Person", a.id));
  const auto c = g->create_vertex("Person");
  EXPECT_LT(b.id, c.id);
  EXPECT_NE(c.id, a.id);
  // A second instance bound to the same graph sees the same elements (a service's replicas).
  PostgresGraph twin({.conninfo = g->options().conninfo, .graph = g->options().graph, .pool_size = 1});
  EXPECT_EQ(twin.schema_name(), g->schema_name());
  EXPECT_EQ(twin.find_vertex_by_id("Person", c.id), c);
}

TEST(PostgresGraphs, OpeningAGraphWithoutForeignKeysAddsThemAndDropsEdgesWithoutAnEndpoint) {
  auto g = pgtest::scratch_graph();
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  const auto a = g->create_vertex("Person").id;
  const auto b = g->create_vertex("Person").id;
  const auto kept = g->create_edge(a, b, "KNOWS").id;
  const auto doomed = g->create_vertex("Person").id;
  const auto dangling = g->create_edge(a, doomed, "KNOWS").id;
  // The schema of versions without the foreign keys, and the edge their gap could leave: its
  // target deleted without it.
  const std::string& dsn = g->options().conninfo;
  const std::string edges = fmt::format("\"{}\".edges", g->schema_name());
  const std::string keys =
      fmt::format("SELECT count(*) FROM pg_constraint WHERE conrelid = '{}'::regclass AND contype = 'f'", edges);
  pgtest::admin_sql(
      dsn, fmt::format("ALTER TABLE {} DROP CONSTRAINT edges_from_id_fkey, DROP CONSTRAINT edges_to_id_fkey", edges));
  ASSERT_EQ(pgtest::admin_sql(dsn, keys), "0");
  pgtest::admin_sql(dsn, fmt::format("DELETE FROM \"{}\".vertices WHERE id = {}", g->schema_name(),
                                     doomed.str().substr(doomed.str().find(":v") + 2)));
  ASSERT_TRUE(g->find_edge(dangling));

  PostgresGraph reopened({.conninfo = dsn, .graph = g->options().graph, .pool_size = 1});
  EXPECT_EQ(pgtest::admin_sql(dsn, keys), "2");
  EXPECT_FALSE(reopened.find_edge(dangling)) << "an edge without its endpoint is not kept";
  EXPECT_TRUE(reopened.find_edge(kept));
  EXPECT_THROW(reopened.create_edge(a, doomed, "KNOWS"), NotFound);
  // The keys work: deleting a vertex deletes its edges with it.
  EXPECT_TRUE(reopened.delete_vertex("Person", b));
  EXPECT_FALSE(reopened.find_edge(kept));
  EXPECT_EQ(reopened.count_edges(), 0);
  // Opening it again changes nothing.
  PostgresGraph again({.conninfo = dsn, .graph = g->options().graph, .pool_size = 1});
  EXPECT_EQ(pgtest::admin_sql(dsn, keys), "2");
  EXPECT_EQ(again.count_vertices(), 1);
}

TEST(PostgresGraphs, UnreachableServerIsAConnectionError) {
  const auto start = Clock::now();
  try {
    PostgresGraph g({.conninfo = "host=/nonexistent/propgraph port=1", .connect_timeout = 2s});
    FAIL() << "connected to nothing";
  } catch (const ConnectionError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot connect to PostgreSQL"), std::string::npos) << e.what();
  }
  EXPECT_LT(seconds_since(start), 2.0);
  EXPECT_THROW(PostgresGraph({.conninfo = "host=/tmp", .graph = "not a label"}), InvalidArgument);
  EXPECT_THROW(PostgresGraph({.conninfo = "host=/tmp", .pool_size = 0}), InvalidArgument);
}

// == one code path: PostgresGraph answers exactly like MemoryGraph ==============================

/// Renders results by the "name" property of vertices and edges, so that two backends' results
/// compare although their ids differ.
struct Renderer {
  std::map<std::string, std::string> names;  // id -> name

  std::string name(const ElementId& id) const { return names.at(std::string(id.str())); }
  std::string operator()(const Vertex& v) const { return v.properties["name"].as_string(); }
  std::string operator()(const Path& p) const {
    std::string out = p.vertices.empty() ? "" : (*this)(p.vertices[0]);
    for (std::size_t i = 0; i < p.edges.size(); ++i) {
      out += fmt::format(" -{}- {}", p.edges[i].properties["name"].as_string(), (*this)(p.vertices[i + 1]));
    }
    return out;
  }
  std::string operator()(const Visit& v) const {
    return fmt::format("{}@{}<{}", (*this)(v.vertex), v.depth, v.parent ? name(*v.parent) : "-");
  }
  std::string operator()(const PageRankScore& s) const { return fmt::format("{}={:.17g}", (*this)(s.vertex), s.score); }
  std::string operator()(const Component& c) const {
    std::string out = fmt::format("{}:", c.id);
    for (const auto& v : c.vertices) out += (*this)(v) + ",";
    return out;
  }
  std::string operator()(const Cycle& c) const { return (*this)(c.path); }
  template <typename T>
  Strings operator()(const std::vector<T>& items) const {
    Strings out;
    for (const auto& item : items) out.push_back((*this)(item));
    return out;
  }
  std::string operator()(const std::optional<Path>& p) const { return p ? (*this)(*p) : "none"; }
  std::string operator()(const std::optional<Degree>& d) const {
    return d ? fmt::format("{}/{}", d->in, d->out) : "none";
  }
};

/// The same random multigraph (self-loops, parallel edges, two vertex and two edge labels,
/// numeric weights) in any backend.
std::vector<ElementId> build_random_graph(GraphOperations& g, Renderer& r) {
  std::mt19937 rng(20240611);
  std::vector<ElementId> ids;
  for (int i = 0; i < 28; ++i) {
    const auto v = g.create_vertex(i % 3 == 0 ? "Q" : "P", {{"name", fmt::format("v{}", i)}});
    r.names[std::string(v.id.str())] = fmt::format("v{}", i);
    ids.push_back(v.id);
  }
  std::uniform_int_distribution<std::size_t> pick(0, ids.size() - 1);
  for (int j = 0; j < 64; ++j) {
    const std::size_t from = pick(rng);
    const std::size_t to = j % 13 == 0 ? from : pick(rng);
    Properties props{{"name", fmt::format("e{}", j)}};
    if (j % 4 != 0) props.set("w", j % 2 ? Value(static_cast<std::int64_t>(rng() % 7)) : Value((rng() % 70) / 10.0));
    g.create_edge(ids[from], ids[to], j % 3 == 0 ? "B" : "A", props);
    if (j % 17 == 0) g.create_edge(ids[from], ids[to], "A", {{"name", fmt::format("e{}p", j)}});  // parallel
  }
  return ids;
}

TEST(PostgresMatchesMemory, TraversalsAndAlgorithmsGiveIdenticalResults) {
  auto pg = pgtest::scratch_graph();
  if (!pg) GTEST_SKIP() << pgtest::skip_reason();
  MemoryGraph mem;
  Renderer rp;
  Renderer rm;
  const auto pg_ids = build_random_graph(*pg, rp);
  const auto mem_ids = build_random_graph(mem, rm);
  const std::vector<std::optional<std::string>> edge_labels{std::nullopt, "A"};
  for (std::size_t s : {0u, 5u, 13u}) {
    for (auto direction : {Direction::out, Direction::in, Direction::both}) {
      for (const auto& label : edge_labels) {
        // Depths on both sides of the CTE bound: 12 goes through the reachable subgraph.
        for (int depth : {1, 2, 3, 12}) {
          SCOPED_TRACE(fmt::format("start v{} direction {} label {} depth {}", s, static_cast<int>(direction),
                                   label.value_or("-"), depth));
          EXPECT_EQ(rp(pg->neighbors(pg_ids[s], {label, direction, depth})),
                    rm(mem.neighbors(mem_ids[s], {label, direction, depth})));
          const TraversalOptions t{label, direction, depth, 20};
          EXPECT_EQ(rp(pg->bfs(pg_ids[s], t)), rm(mem.bfs(mem_ids[s], t)));
          EXPECT_EQ(rp(pg->dfs(pg_ids[s], t)), rm(mem.dfs(mem_ids[s], t)));
          for (std::size_t target : {3u, 20u}) {
            const PathOptions p{label, direction, depth, std::nullopt, 25};
            EXPECT_EQ(rp(pg->shortest_path(pg_ids[s], pg_ids[target], p)),
                      rm(mem.shortest_path(mem_ids[s], mem_ids[target], p)));
            const PathOptions weighted{label, direction, depth, "w", 25};
            EXPECT_EQ(rp(pg->shortest_path(pg_ids[s], pg_ids[target], weighted)),
                      rm(mem.shortest_path(mem_ids[s], mem_ids[target], weighted)));
            if (depth <= 4) {
              EXPECT_EQ(rp(pg->all_paths(pg_ids[s], pg_ids[target], p)),
                        rm(mem.all_paths(mem_ids[s], mem_ids[target], p)));
            }
          }
        }
      }
    }
  }
  for (std::size_t i = 0; i < pg_ids.size(); ++i) {
    for (auto direction : {Direction::out, Direction::in, Direction::both}) {
      EXPECT_EQ(rp(pg->degree_centrality(pg_ids[i], {std::nullopt, direction})),
                rm(mem.degree_centrality(mem_ids[i], {std::nullopt, direction})));
    }
  }
  const std::vector<std::optional<std::string>> vertex_labels{std::nullopt, "P"};
  for (const auto& vl : vertex_labels) {
    for (const auto& el : edge_labels) {
      SCOPED_TRACE(fmt::format("vertex label {} edge label {}", vl.value_or("-"), el.value_or("-")));
      const PageRankOptions pr{.vertex_label = vl, .edge_label = el, .top_k = 10};
      EXPECT_EQ(rp(pg->page_rank(pr)), rm(mem.page_rank(pr)));
      for (bool weakly : {true, false}) {
        const ComponentOptions c{.vertex_label = vl, .edge_label = el, .weakly = weakly};
        EXPECT_EQ(rp(pg->connected_components(c)), rm(mem.connected_components(c)));
      }
      const CycleOptions cy{.vertex_label = vl, .edge_label = el, .max_depth = 4, .max_cycles = 40};
      EXPECT_EQ(rp(pg->detect_cycles(cy)), rm(mem.detect_cycles(cy)));
    }
  }
}

TEST(PostgresMatchesMemory, BadOptionsAreRejectedLikeMemoryGraph) {
  auto g = pgtest::scratch_graph();
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  const auto a = g->create_vertex("P");
  EXPECT_THROW(g->neighbors(a.id, {.max_depth = 0}), InvalidArgument);
  EXPECT_THROW(g->bfs(a.id, {.max_depth = -1}), InvalidArgument);
  EXPECT_THROW(g->all_paths(a.id, a.id, {.max_depth = -1}), InvalidArgument);
  EXPECT_THROW(g->page_rank({.iterations = 0}), InvalidArgument);
  EXPECT_THROW(g->page_rank({.damping = 1.5}), InvalidArgument);
  EXPECT_THROW(g->detect_cycles({.max_depth = -1}), InvalidArgument);
  // A negative weight is reported with the database's edge id.
  const auto e = g->create_edge(a.id, a.id, "L", {{"w", -1}});
  const auto b = g->create_vertex("P");
  g->create_edge(a.id, b.id, "L", {{"w", -1}});
  try {
    (void)g->shortest_path(a.id, b.id, {.weight_property = "w"});
    FAIL() << "negative weight accepted";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find(":e"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(std::string(e.id.str()).substr(0, 3)), std::string::npos) << error.what();
  }
}

// == server errors =============================================================================

TEST(PostgresErrors, ServerErrorIsAQueryErrorWithTheServersMessageAndWritesNothing) {
  auto g = pgtest::scratch_graph();
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  pgtest::install_test_triggers(*g);
  const auto a = g->create_vertex("P");
  const auto b = g->create_vertex("P");
  const auto open_before = g->pool_status().open;
  try {
    g->create_edge(a.id, b.id, "L", {{"fail", "no edges today"}});
    FAIL() << "the trigger did not fire";
  } catch (const QueryError& e) {
    EXPECT_NE(std::string(e.what()).find("refused by trigger: no edges today"), std::string::npos) << e.what();
  }
  EXPECT_EQ(g->count_edges("L"), 0);
  EXPECT_EQ(g->degree_centrality(a.id), (Degree{a.id, 0, 0}));
  // A statement error does not cost the connection.
  EXPECT_EQ(g->pool_status().open, open_before);
  EXPECT_NO_THROW(g->create_edge(a.id, b.id, "L"));
  EXPECT_EQ(g->count_edges("L"), 1);
}

// == connection pool ===========================================================================

TEST(PostgresPool, NeverOpensMoreThanPoolSizeConnections) {
  const std::string app = pgtest::unique_graph_name("pool_limit");
  auto g = pgtest::scratch_graph({.conninfo = "application_name=" + app, .pool_size = 3});
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  const auto v = g->create_vertex("P", {{"name", "v"}});
  std::atomic<std::size_t> most_open{0};
  std::atomic<int> found{0};
  auto work = [&] {
    for (int i = 0; i < 15; ++i) {
      if (g->find_vertex_by_id("P", v.id)) ++found;
      const auto open = g->pool_status().open;
      std::size_t seen = most_open.load();
      while (open > seen && !most_open.compare_exchange_weak(seen, open)) {
      }
    }
  };
  // Plain threads and fibers on threads compete for the same 3 connections.
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(work);
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      std::vector<boost::fibers::fiber> fibers;
      for (int f = 0; f < 6; ++f) fibers.emplace_back(work);
      for (auto& f : fibers) f.join();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(found.load(), 16 * 15);
  EXPECT_LE(most_open.load(), 3u);
  const auto on_server = pgtest::admin_sql(
      *pgtest::server_dsn(), fmt::format("SELECT count(*) FROM pg_stat_activity WHERE application_name = '{}'", app));
  ASSERT_TRUE(on_server);
  EXPECT_LE(std::stoi(*on_server), 3);
  EXPECT_GE(std::stoi(*on_server), 1);
}

TEST(PostgresPool, WaitersAreServedInTurn) {
  // One connection and callers that re-acquire the moment they release: a pool that let a
  // newcomer take the connection ahead of queued waiters would starve some of them into
  // timeouts.
  auto g = pgtest::scratch_graph({.pool_size = 1, .acquire_timeout = 3000ms});
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  const auto v = g->create_vertex("P");
  std::atomic<int> done{0};
  auto hammer = [&] {
    for (int i = 0; i < 40; ++i) {
      if (g->find_vertex_by_id("P", v.id)) ++done;
    }
  };
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) threads.emplace_back(hammer);
  threads.emplace_back([&] {
    std::vector<boost::fibers::fiber> fibers;
    for (int f = 0; f < 3; ++f) fibers.emplace_back(hammer);
    for (auto& f : fibers) f.join();
  });
  for (auto& t : threads) t.join();
  EXPECT_EQ(done.load(), 6 * 40);
  EXPECT_LT(seconds_since(start), 3.0);
}

TEST(PostgresPool, AnEmptyPoolTimesOutWithAClearError) {
  auto g = pgtest::scratch_graph({.pool_size = 1, .acquire_timeout = 200ms});
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  pgtest::install_test_triggers(*g);
  std::thread slow([&] { g->create_vertex("Slow", {{"sleep_ms", 1200}}); });
  const auto deadline = Clock::now() + 2s;
  while (g->pool_status().idle != 0 && Clock::now() < deadline) std::this_thread::sleep_for(5ms);
  ASSERT_EQ(g->pool_status().idle, 0u) << "the slow call never took the connection";
  // A plain thread waits, then gets the error.
  auto start = Clock::now();
  try {
    (void)g->count_vertices("P");
    FAIL() << "got a connection from an empty pool";
  } catch (const ConnectionError& e) {
    EXPECT_STREQ(e.what(), "connection pool exhausted: waited 200 ms for one of 1 connections");
  }
  EXPECT_GE(seconds_since(start), 0.19);
  EXPECT_LT(seconds_since(start), 0.9);
  // A fiber waits without blocking its thread: a second fiber keeps running meanwhile.
  if (pgtest::fiber_exceptions_checkable) {
    start = Clock::now();
    int ticks = 0;
    bool fiber_timed_out = false;
    boost::fibers::fiber waiter([&] {
      try {
        (void)g->count_vertices("P");
      } catch (const ConnectionError&) {
        fiber_timed_out = true;
      }
    });
    boost::fibers::fiber ticker([&] {
      while (seconds_since(start) < 0.15) {
        ++ticks;
        boost::this_fiber::sleep_for(5ms);
      }
    });
    waiter.join();
    ticker.join();
    EXPECT_TRUE(fiber_timed_out);
    EXPECT_GE(ticks, 10);
  }
  slow.join();
  EXPECT_EQ(g->count_vertices("Slow"), 1);  // the pool works again once the call returned
}

// == fibers ====================================================================================

constexpr double kSleep = 0.3;

/// Two slow queries on fibers of the calling thread, with a ticker fiber: checks that they
/// overlap and that the thread kept running fibers meanwhile.
void expect_two_slow_queries_overlap(postgres_detail::ConnectionPool& pool) {
  const std::string sleep_sql = fmt::format("SELECT pg_sleep({})", kSleep);
  const auto start = Clock::now();
  bool done = false;
  int ticks = 0;
  auto slow_query = [&] {
    auto c = pool.acquire();
    c->exec(sleep_sql);
  };
  boost::fibers::fiber a(slow_query);
  boost::fibers::fiber b(slow_query);
  boost::fibers::fiber ticker([&] {
    while (!done) {
      ++ticks;
      boost::this_fiber::sleep_for(10ms);
    }
  });
  a.join();
  b.join();
  done = true;
  ticker.join();
  const double elapsed = seconds_since(start);
  EXPECT_GE(elapsed, kSleep);
  EXPECT_LT(elapsed, 1.6 * kSleep) << "the two sleeps ran one after the other";
  EXPECT_GE(ticks, 10) << "the thread was blocked while its fibers waited";
}

TEST(PostgresFibers, TwoFibersOnOneThreadOverlapSlowQueries) {
  PROPGRAPH_REQUIRE_SERVER();
  using namespace postgres_detail;
  ConnectionPool pool(PoolSettings{*pgtest::server_dsn(), 2, 5000ms, 10000ms}, Reactor::shared());
  {  // open both connections first: the measurement is about the queries
    auto c1 = pool.acquire();
    auto c2 = pool.acquire();
  }
  expect_two_slow_queries_overlap(pool);
}

TEST(PostgresFibers, TwoFibersOnOneThreadOverlapSlowGraphCalls) {
  auto g = pgtest::scratch_graph({.pool_size = 2});
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  pgtest::install_test_triggers(*g);
  auto slow_call = [&](int ms) { g->create_vertex("Slow", {{"sleep_ms", ms}}); };
  {  // two overlapping calls open both connections: the measurement is about the calls
    boost::fibers::fiber a(slow_call, 50);
    boost::fibers::fiber b(slow_call, 50);
    a.join();
    b.join();
  }
  ASSERT_EQ(g->pool_status().open, 2u);
  const auto start = Clock::now();
  boost::fibers::fiber a(slow_call, static_cast<int>(kSleep * 1000));
  boost::fibers::fiber b(slow_call, static_cast<int>(kSleep * 1000));
  a.join();
  b.join();
  const double elapsed = seconds_since(start);
  EXPECT_GE(elapsed, kSleep);
  EXPECT_LT(elapsed, 1.6 * kSleep) << "the two calls ran one after the other";
  EXPECT_EQ(g->count_vertices("Slow"), 4);
}

TEST(PostgresFibers, ManyFibersOnOneThreadShareASmallPool) {
  auto g = pgtest::scratch_graph({.pool_size = 4});
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  const auto v = g->create_vertex("P", {{"name", "v"}});
  int found = 0;
  std::vector<boost::fibers::fiber> fibers;
  for (int f = 0; f < 64; ++f) {
    fibers.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        if (g->find_vertex_by_id("P", v.id)) ++found;
        if (!g->neighbors(v.id).empty()) found = -1000;
      }
    });
  }
  for (auto& f : fibers) f.join();
  EXPECT_EQ(found, 64 * 5);
  EXPECT_LE(g->pool_status().open, 4u);
}

// == fibers whose own thread waits for the sockets (use_io_scheduler, FiberPool) ===============

TEST(PostgresIoScheduler, TheFibersOwnThreadWaitsAndSlowQueriesStillOverlap) {
  PROPGRAPH_REQUIRE_SERVER();
  using namespace postgres_detail;
  ConnectionPool pool(PoolSettings{*pgtest::server_dsn(), 2, 5000ms, 10000ms}, Reactor::shared());
  std::thread([&] {
    use_io_scheduler();
    bool own_waits = false;
    boost::fibers::fiber([&] {
      own_waits = fiber_detail::thread_io_wait != nullptr;
      auto c1 = pool.acquire();  // opened on this fiber: connection set-up waits here too
      auto c2 = pool.acquire();
    }).join();
    EXPECT_TRUE(own_waits) << "use_io_scheduler() did not make the thread's waits its own";
    expect_two_slow_queries_overlap(pool);
  }).join();
}

TEST(PostgresIoScheduler, AServerThatNeverAnswersTimesOutAndTheThreadGoesOn) {
  PROPGRAPH_REQUIRE_SERVER();
  // The timeout is a ConnectionError thrown on a fiber (see fiber_exceptions_checkable).
  if (!pgtest::fiber_exceptions_checkable) GTEST_SKIP() << "exceptions on fiber stacks under ASan";
  using namespace postgres_detail;
  // A unix socket that accepts connections into its backlog and never answers them: libpq
  // sends its start-up packet and waits for a reply, a timed wait.
  char dir_template[] = "/tmp/propgraph-mute.XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string path = dir + "/.s.PGSQL.5432";
  const int mute = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(mute, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(mute, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(mute, 8), 0);

  ConnectionPool real(PoolSettings{*pgtest::server_dsn(), 1, 5000ms, 10000ms}, Reactor::shared());
  std::thread([&] {
    use_io_scheduler();
    bool done = false;
    int ticks = 0;
    boost::fibers::fiber ticker([&] {
      while (!done) {
        ++ticks;
        boost::this_fiber::sleep_for(10ms);
      }
    });
    for (int attempt = 0; attempt < 2; ++attempt) {  // the second reuses the first's fd number
      const auto start = Clock::now();
      std::string error;
      boost::fibers::fiber([&] {
        try {
          Connection::open(fmt::format("host={} port=5432 user=nobody dbname=none", dir), *Reactor::shared(), 200ms);
        } catch (const ConnectionError& e) {
          error = e.what();
        }
      }).join();
      EXPECT_NE(error.find("no answer within 200 ms"), std::string::npos) << error;
      EXPECT_GE(seconds_since(start), 0.19);
      EXPECT_LT(seconds_since(start), 1.5);
    }
    std::optional<std::string> answer;
    boost::fibers::fiber([&] {  // the thread's waits still work for a server that answers
      auto c = real.acquire();
      answer = std::string(c->exec("SELECT 'yes'").text(0, 0));
    })
        .join();
    EXPECT_EQ(answer, "yes");
    done = true;
    ticker.join();
    EXPECT_GE(ticks, 20) << "the thread was blocked while its fibers waited";
  }).join();
  ::close(mute);
  ::unlink(path.c_str());
  ::rmdir(dir.c_str());
}

TEST(PostgresIoScheduler, ManyFibersOnAFiberPoolShareASmallPool) {
  auto g = pgtest::scratch_graph({.pool_size = 4});
  if (!g) GTEST_SKIP() << pgtest::skip_reason();
  const auto v = g->create_vertex("P", {{"name", "v"}});
  const auto w = g->create_vertex("P", {{"name", "w"}});
  g->create_edge(v.id, w.id, "E");
  std::atomic<int> found{0};
  std::atomic<int> own_waits{0};
  {
    FiberPool fibers(2);
    std::vector<Future<void>> done;
    for (int f = 0; f < 64; ++f) {
      done.push_back(fibers.submit([&] {
        if (fiber_detail::thread_io_wait != nullptr) ++own_waits;
        for (int i = 0; i < 5; ++i) {
          if (g->find_vertex_by_id("P", v.id)) ++found;
          if (g->neighbors(v.id).size() != 1) found -= 1000;
        }
      }));
    }
    for (auto& d : done) d.get();
  }
  EXPECT_EQ(found, 64 * 5);
  EXPECT_EQ(own_waits, 64);
  EXPECT_LE(g->pool_status().open, 4u);
}

TEST(PostgresIoScheduler, SlowQueriesOnAFiberPoolOverlap) {
  PROPGRAPH_REQUIRE_SERVER();
  using namespace postgres_detail;
  ConnectionPool pool(PoolSettings{*pgtest::server_dsn(), 4, 5000ms, 10000ms}, Reactor::shared());
  {
    auto c1 = pool.acquire();
    auto c2 = pool.acquire();
    auto c3 = pool.acquire();
    auto c4 = pool.acquire();
  }
  FiberPool fibers(2);
  const std::string sleep_sql = fmt::format("SELECT pg_sleep({})", kSleep);
  const auto start = Clock::now();
  std::vector<Future<void>> done;
  for (int q = 0; q < 4; ++q) {  // more slow queries than pool threads
    done.push_back(fibers.submit([&] {
      auto c = pool.acquire();
      c->exec(sleep_sql);
    }));
  }
  for (auto& d : done) d.get();
  const double elapsed = seconds_since(start);
  EXPECT_GE(elapsed, kSleep);
  EXPECT_LT(elapsed, 1.6 * kSleep) << "the sleeps did not overlap";
}

}  // namespace
}  // namespace propgraph
