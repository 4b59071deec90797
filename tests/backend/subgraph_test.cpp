// backend::Subgraph without a database: rows with integer keys and a trivial naming ("t:v<key>",
// "t:e<key>", properties stored as "key=value;..." text). Results must come back with the
// backend's ids and decoded properties, equal to MemoryGraph's on a graph built directly in key
// order, whichever order the rows were added in; properties are decoded only for the elements a
// result returns.
#include "propgraph/backend/subgraph.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "propgraph/errors.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace propgraph {
namespace {

/// Ids "t:v<key>" / "t:e<key>"; properties "name=value;..." where a value with a '.' is a
/// double, one of digits an int64, anything else a string.
class TextNaming final : public backend::Subgraph::Naming {
 public:
  ElementId vertex_id(std::int64_t key) const override { return ElementId("t:v" + std::to_string(key)); }
  ElementId edge_id(std::int64_t key) const override { return ElementId("t:e" + std::to_string(key)); }
  std::optional<std::int64_t> vertex_key(const ElementId& id) const override {
    const std::string_view s = id.str();
    if (!s.starts_with("t:v")) return std::nullopt;
    std::int64_t key = 0;
    const auto [end, ec] = std::from_chars(s.data() + 3, s.data() + s.size(), key);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return key;
  }
  Properties decode_properties(std::string_view stored) const override {
    ++decodes;
    Properties p;
    while (!stored.empty()) {
      const auto semi = stored.find(';');
      const std::string_view entry = stored.substr(0, semi);
      stored = semi == std::string_view::npos ? std::string_view() : stored.substr(semi + 1);
      const auto eq = entry.find('=');
      const std::string key(entry.substr(0, eq));
      const std::string value(entry.substr(eq + 1));
      if (value.find('.') != std::string::npos) {
        p.set(key, std::stod(value));
      } else if (!value.empty() &&
                 std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        p.set(key, static_cast<std::int64_t>(std::stoll(value)));
      } else {
        p.set(key, value);
      }
    }
    return p;
  }
  mutable std::atomic<int> decodes{0};
};

std::string encode(const Properties& p) {
  std::string out;
  for (const auto& [key, value] : p) {
    if (!out.empty()) out += ';';
    out += key + '=';
    if (value.is_double()) {
      out += std::to_string(value.as_double());
    } else if (value.is_int()) {
      out += std::to_string(value.as_int());
    } else {
      out += value.as_string();
    }
  }
  return out;
}

struct Row {
  bool vertex = true;
  std::int64_t key = 0;
  std::string label;
  std::int64_t from = 0;
  std::int64_t to = 0;
  Properties properties;
};

/// A graph built two ways: directly in a MemoryGraph (in key order), and as rows for a Subgraph.
class SubgraphTest : public ::testing::TestWithParam<std::int64_t> {
 protected:
  void SetUp() override {
    const std::int64_t stride = GetParam();  // 1: dense keys; large: sparse keys (binary search)
    std::mt19937 rng(7);
    constexpr int kVertices = 40;
    constexpr int kEdges = 110;
    std::vector<NewVertex> vertices;
    for (int i = 0; i < kVertices; ++i) {
      Row r{true, 100 + stride * i, i % 3 == 0 ? "place" : "person", 0, 0, {}};
      r.properties.set("name", "n" + std::to_string(i));
      r.properties.set("rank", static_cast<std::int64_t>(i * 7 % 11));
      vertices.push_back(NewVertex{r.label, r.properties});
      rows.push_back(r);
    }
    const auto vertex_ids = direct.create_vertices(vertices);
    for (int i = 0; i < kVertices; ++i) key_of[vertex_ids[i]] = rows[i].key;
    std::vector<NewEdge> edges;
    for (int i = 0; i < kEdges; ++i) {
      // Two loose clusters (components), parallel edges and self-loops included.
      const int cluster = i % 4 == 0 ? 1 : 0;
      const int a = static_cast<int>(rng() % 20) + cluster * 20;
      const int b = static_cast<int>(rng() % 20) + cluster * 20;
      Row r{false, 5 + 3 * stride * i, i % 2 ? "knows" : "likes", rows[a].key, rows[b].key, {}};
      r.properties.set("w", 0.5 + static_cast<double>(rng() % 8));
      if (i % 3 == 0) r.properties.set("since", static_cast<std::int64_t>(1990 + i));
      edges.push_back(NewEdge{vertex_ids[a], vertex_ids[b], r.label, r.properties});
      rows.push_back(r);
    }
    const auto edge_ids = direct.create_edges(edges);
    for (int i = 0; i < kEdges; ++i) key_of[edge_ids[i]] = rows[kVertices + i].key;
    first = vertex_ids.front();
    last = vertex_ids[19];
  }

  /// A Subgraph of every row, added in `shuffled` order or in key order.
  std::unique_ptr<backend::Subgraph> load(bool records, bool shuffled, const std::string* weight_key = nullptr) {
    auto sub = std::make_unique<backend::Subgraph>(naming);
    std::vector<Row> order = rows;
    if (shuffled) std::shuffle(order.begin(), order.end(), std::mt19937(11));
    for (const auto& r : order) {
      if (r.vertex) {
        sub->add_vertex(r.key, r.label, encode(r.properties));
      } else {
        sub->add_edge(r.key, r.from, r.to, r.label, encode(r.properties), records, weight_key);
      }
    }
    return sub;
  }

  // MemoryGraph's results on the direct graph, in the backend's ids.
  ElementId vertex_id(const ElementId& direct_id) const { return naming.vertex_id(key_of.at(direct_id)); }
  Vertex vertex(const Vertex& v) const { return Vertex{vertex_id(v.id), v.label, v.properties}; }
  Edge edge(const Edge& e) const {
    return Edge{naming.edge_id(key_of.at(e.id)), e.label, vertex_id(e.from), vertex_id(e.to), e.properties};
  }
  Path path(const Path& p) const {
    Path out;
    for (const auto& v : p.vertices) out.vertices.push_back(vertex(v));
    for (const auto& e : p.edges) out.edges.push_back(edge(e));
    return out;
  }

  TextNaming naming;
  MemoryGraph direct{"direct"};
  std::vector<Row> rows;
  std::map<ElementId, std::int64_t> key_of;
  ElementId first;
  ElementId last;
};

TEST_P(SubgraphTest, PathsComeBackWithTheBackendsIdsAndProperties) {
  for (const bool shuffled : {false, true}) {
    SCOPED_TRACE(shuffled ? "rows out of order" : "rows in key order");
    auto sub = load(true, shuffled);
    const ElementId from = naming.vertex_id(rows.front().key);
    const ElementId to = naming.vertex_id(rows[19].key);
    const PathOptions options{.direction = Direction::both};
    const auto expected = direct.shortest_path(first, last, options);
    ASSERT_TRUE(expected.has_value());
    naming.decodes = 0;
    const auto found = sub->graph().shortest_path(sub->memory_vertex(from), sub->memory_vertex(to), options);
    ASSERT_TRUE(found.has_value());
    const Path translated = sub->path(*found);
    EXPECT_EQ(translated, path(*expected));
    EXPECT_EQ(translated.vertices.front().id, from);
    EXPECT_EQ(translated.vertices.front().properties["name"], Value("n0"));
    // Only the elements of the path were decoded.
    EXPECT_EQ(naming.decodes, static_cast<int>(found->vertices.size() + found->edges.size()));

    const PathOptions limited{.direction = Direction::out, .max_depth = 4, .max_paths = 50};
    std::vector<Path> all;
    for (const auto& p : direct.all_paths(first, last, limited)) all.push_back(path(p));
    EXPECT_EQ(sub->paths(sub->graph().all_paths(sub->memory_vertex(from), sub->memory_vertex(to), limited)), all);

    const TraversalOptions traversal{.direction = Direction::both, .max_depth = 3};
    std::vector<Visit> visits;
    for (const auto& v : direct.bfs(first, traversal)) {
      visits.push_back(Visit{vertex(v.vertex), v.depth, v.parent ? std::optional(vertex_id(*v.parent)) : std::nullopt});
    }
    EXPECT_EQ(sub->visits(sub->graph().bfs(sub->memory_vertex(from), traversal)), visits);

    std::vector<Cycle> cycles;
    for (const auto& c : direct.detect_cycles({.max_cycles = 20})) cycles.push_back(Cycle{path(c.path)});
    EXPECT_EQ(sub->cycles(sub->graph().detect_cycles({.max_cycles = 20})), cycles);
  }
}

TEST_P(SubgraphTest, WeightedShortestPathReadsTheWeightKey) {
  const std::string weight = "w";
  for (const bool shuffled : {false, true}) {
    auto sub = load(true, shuffled, &weight);
    const PathOptions options{.direction = Direction::both, .weight_property = "w"};
    const auto expected = direct.shortest_path(first, last, options);
    ASSERT_TRUE(expected.has_value());
    const auto found = sub->graph().shortest_path(sub->memory_vertex(naming.vertex_id(rows.front().key)),
                                                  sub->memory_vertex(naming.vertex_id(rows[19].key)), options);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(sub->path(*found), path(*expected));
  }
}

TEST_P(SubgraphTest, AlgorithmsOverTheWholeGraphMatchMemoryGraph) {
  for (const bool shuffled : {false, true}) {
    SCOPED_TRACE(shuffled ? "rows out of order" : "rows in key order");
    auto sub = load(false, shuffled);
    naming.decodes = 0;
    (void)sub->graph();
    EXPECT_EQ(naming.decodes, 0) << "building decodes nothing without a weight key";

    std::vector<PageRankScore> scores;
    for (const auto& s : direct.page_rank({})) scores.push_back(PageRankScore{vertex(s.vertex), s.score});
    const auto ranked = sub->scores(sub->graph().page_rank({}));
    EXPECT_EQ(ranked, scores);
    EXPECT_EQ(naming.decodes, static_cast<int>(ranked.size())) << "vertices only: no edge row was kept";

    for (const bool weakly : {true, false}) {
      std::vector<Component> components;
      for (const auto& c : direct.connected_components({.weakly = weakly})) {
        Component t{c.id, {}};
        for (const auto& v : c.vertices) t.vertices.push_back(vertex(v));
        components.push_back(std::move(t));
      }
      EXPECT_EQ(sub->components(sub->graph().connected_components({.weakly = weakly})), components);
    }

    const PageRankOptions people{.vertex_label = "person", .edge_label = "knows"};
    std::vector<PageRankScore> labeled;
    for (const auto& s : direct.page_rank(people)) labeled.push_back(PageRankScore{vertex(s.vertex), s.score});
    EXPECT_EQ(sub->scores(sub->graph().page_rank(people)), labeled);
  }
}

TEST_P(SubgraphTest, ForeignIdsFindNothingAndMessagesNameTheBackendsIds) {
  auto sub = load(true, true);
  EXPECT_TRUE(sub->memory_vertex(ElementId("t:e100")).empty());
  EXPECT_TRUE(sub->memory_vertex(ElementId("other:v100")).empty());
  EXPECT_TRUE(sub->memory_vertex(naming.vertex_id(99)).empty());
  const ElementId in_memory = sub->memory_vertex(naming.vertex_id(rows[3].key));
  ASSERT_FALSE(in_memory.empty());
  const std::string message = "vertex " + std::string(in_memory.str()) + " is odd";
  EXPECT_EQ(sub->translate_ids(message), "vertex " + std::string(naming.vertex_id(rows[3].key).str()) + " is odd");
}

TEST(SubgraphEmpty, AnEmptySubgraphFindsNothing) {
  TextNaming naming;
  backend::Subgraph sub(naming);
  EXPECT_EQ(sub.graph().count_vertices(), 0);
  EXPECT_TRUE(sub.memory_vertex(naming.vertex_id(1)).empty());
  EXPECT_EQ(sub.translate_ids("t:v1"), "t:v1");
}

INSTANTIATE_TEST_SUITE_P(Keys, SubgraphTest, ::testing::Values<std::int64_t>(1, 1000003),
                         [](const auto& keys) { return keys.param == 1 ? "dense" : "sparse"; });

}  // namespace
}  // namespace propgraph
