// MemoryGraph property indexes: an indexed filter must give exactly what an unindexed scan of
// the label gives, in the same order, through every write path. Random operation sequences
// over small value domains (so filters hit often), with the typed-equality corner cases
// (int 1 vs double 1.0, -0.0 vs 0.0, NaN, lists, null filter values).
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "propgraph/memory/memory_graph.hpp"

namespace propgraph {
namespace {

const std::vector<std::string> kLabels{"Person", "Robot"};
const std::vector<std::string> kKeys{"a", "b", "c"};

Value random_value(std::mt19937& rng) {
  switch (rng() % 9) {
    case 0: return Value(std::int64_t{1});
    case 1: return Value(1.0);
    case 2: return Value(-0.0);
    case 3: return Value(0.0);
    case 4: return Value(std::numeric_limits<double>::quiet_NaN());
    case 5: return Value("x");
    case 6: return Value(std::string(20, 'y'));  // longer than a short-string buffer
    case 7: return Value::list({1, "x"});
    default: return Value(static_cast<std::int64_t>(rng() % 3));
  }
}

Properties random_properties(std::mt19937& rng, bool allow_null) {
  Properties p;
  for (const auto& key : kKeys) {
    switch (rng() % 3) {
      case 0: break;
      case 1: p.set(key, random_value(rng)); break;
      default:
        if (allow_null) p.set(key, Value());
        break;
    }
  }
  return p;
}

std::vector<ElementId> ids_of(const std::vector<Vertex>& vs) {
  std::vector<ElementId> ids;
  for (const auto& v : vs) ids.push_back(v.id);
  return ids;
}
std::vector<ElementId> ids_of(const std::vector<Edge>& es) {
  std::vector<ElementId> ids;
  for (const auto& e : es) ids.push_back(e.id);
  return ids;
}

/// Unindexed reference: every element of the label, filtered by Properties::matches.
template <typename Element>
std::vector<ElementId> scan(const std::vector<Element>& all, const Properties& filter) {
  std::vector<ElementId> ids;
  for (const auto& e : all) {
    if (e.properties.matches(filter)) ids.push_back(e.id);
  }
  return ids;
}

class IndexPropertyTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(IndexPropertyTest, IndexedFiltersEqualAnUnindexedScanThroughRandomWrites) {
  std::mt19937 rng(GetParam());
  MemoryGraph g;
  std::vector<ElementId> vertices;
  std::vector<std::pair<ElementId, std::string>> edges;
  std::vector<std::string> vertex_label_of;
  // One index from the start, others created and dropped along the way.
  ASSERT_TRUE(g.create_index("Person", "a"));
  ASSERT_FALSE(g.create_index("Person", "a"));
  std::size_t checks = 0;
  for (int step = 0; step < 400; ++step) {
    const auto& label = kLabels[rng() % kLabels.size()];
    switch (rng() % 10) {
      case 0:
      case 1:
      case 2: {
        auto v = g.create_vertex(label, random_properties(rng, false));
        vertices.push_back(v.id);
        vertex_label_of.push_back(label);
        break;
      }
      case 3:
      case 4: {
        if (vertices.size() < 2) break;
        auto e = g.create_edge(vertices[rng() % vertices.size()], vertices[rng() % vertices.size()], label,
                               random_properties(rng, false));
        edges.emplace_back(e.id, label);
        break;
      }
      case 5: {
        if (vertices.empty()) break;
        const std::size_t i = rng() % vertices.size();
        // Patches with nulls remove keys; a wrong label finds nothing.
        g.update_vertex(vertex_label_of[i], vertices[i], random_properties(rng, true));
        break;
      }
      case 6: {
        if (edges.empty()) break;
        const auto& [id, l] = edges[rng() % edges.size()];
        g.update_edge(l, id, random_properties(rng, true));
        break;
      }
      case 7: {
        if (vertices.empty() || rng() % 3 != 0) break;
        const std::size_t i = rng() % vertices.size();
        ASSERT_TRUE(g.delete_vertex(vertex_label_of[i], vertices[i]));  // also deletes its edges
        vertices.erase(vertices.begin() + static_cast<std::ptrdiff_t>(i));
        vertex_label_of.erase(vertex_label_of.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
      case 8: {
        if (edges.empty()) break;
        const auto& [id, l] = edges[rng() % edges.size()];
        g.delete_edge(l, id);
        break;
      }
      default: {
        const auto& key = kKeys[rng() % kKeys.size()];
        if (rng() % 4 == 0) {
          g.drop_index(label, key);
        } else {
          g.create_index(label, key);
        }
        break;
      }
    }
    for (const auto& l : kLabels) {
      const auto all_vertices = g.find_vertices_by_label(l);
      const auto all_edges = g.find_edges_by_label(l);
      for (int q = 0; q < 4; ++q) {
        const Properties filter = random_properties(rng, true);
        ASSERT_EQ(ids_of(g.find_vertices_by_label(l, filter)), scan(all_vertices, filter))
            << "step " << step << " label " << l;
        ASSERT_EQ(ids_of(g.find_edges_by_label(l, filter)), scan(all_edges, filter))
            << "step " << step << " label " << l;
        ++checks;
      }
    }
  }
  EXPECT_GT(checks, 0u);
  EXPECT_FALSE(g.indexes().empty());
}

INSTANTIATE_TEST_SUITE_P(Seeds, IndexPropertyTest, ::testing::Values(1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u));

TEST(MemoryIndex, LookupIsByTypedValue) {
  MemoryGraph g;
  ASSERT_TRUE(g.create_index("Person", "age"));
  auto a = g.create_vertex("Person", {{"age", 30}});
  auto b = g.create_vertex("Person", {{"age", 30.0}});
  auto c = g.create_vertex("Person", {{"age", "30"}});
  g.create_vertex("Person", {{"name", "no age"}});
  EXPECT_EQ(ids_of(g.find_vertices_by_label("Person", {{"age", 30}})), std::vector{a.id});
  EXPECT_EQ(ids_of(g.find_vertices_by_label("Person", {{"age", 30.0}})), std::vector{b.id});
  EXPECT_EQ(ids_of(g.find_vertices_by_label("Person", {{"age", "30"}})), std::vector{c.id});
  EXPECT_TRUE(g.find_vertices_by_label("Person", {{"age", 31}}).empty());
}

TEST(MemoryIndex, NegativeZeroAndNaNFollowValueEquality) {
  MemoryGraph g;
  ASSERT_TRUE(g.create_index("P", "x"));
  auto neg = g.create_vertex("P", {{"x", -0.0}});
  auto pos = g.create_vertex("P", {{"x", 0.0}});
  g.create_vertex("P", {{"x", std::nan("")}});
  const std::vector<ElementId> zeros{neg.id, pos.id};
  EXPECT_EQ(ids_of(g.find_vertices_by_label("P", {{"x", 0.0}})), zeros);
  EXPECT_EQ(ids_of(g.find_vertices_by_label("P", {{"x", -0.0}})), zeros);
  // The stored -0.0 keeps its sign.
  EXPECT_TRUE(std::signbit(g.find_vertex_by_id("P", neg.id)->properties.at("x").as_double()));
  EXPECT_TRUE(g.find_vertices_by_label("P", {{"x", std::nan("")}}).empty());
}

TEST(MemoryIndex, CoversExistingElementsAndEdgesOfTheLabel) {
  MemoryGraph g;
  auto a = g.create_vertex("Node", {{"k", 1}});
  auto b = g.create_vertex("Node", {{"k", 2}});
  auto e = g.create_edge(a.id, b.id, "Node", {{"k", 1}});
  ASSERT_TRUE(g.create_index("Node", "k"));
  EXPECT_EQ(ids_of(g.find_vertices_by_label("Node", {{"k", 1}})), std::vector{a.id});
  EXPECT_EQ(ids_of(g.find_edges_by_label("Node", {{"k", 1}})), std::vector{e.id});
  const std::vector<IndexInfo> expected{{"Node", "k", false}};
  EXPECT_EQ(g.indexes(), expected);
  EXPECT_TRUE(g.drop_index("Node", "k"));
  EXPECT_FALSE(g.drop_index("Node", "k"));
  EXPECT_TRUE(g.indexes().empty());
}

TEST(MemoryIndex, DropGraphRemovesIndexes) {
  MemoryGraph g("g");
  ASSERT_TRUE(g.create_index("Node", "k"));
  g.drop_graph("g");
  EXPECT_TRUE(g.indexes().empty());
  auto v = g.create_vertex("Node", {{"k", 1}});
  EXPECT_EQ(ids_of(g.find_vertices_by_label("Node", {{"k", 1}})), std::vector{v.id});
}

TEST(MemoryIndex, RejectsBadArguments) {
  MemoryGraph g;
  EXPECT_THROW(g.create_index("bad label", "k"), InvalidArgument);
  EXPECT_THROW(g.create_index("Node", ""), InvalidArgument);
}

TEST(MemoryProperties, EveryValueTypeRoundTripsThroughStorage) {
  std::mt19937 rng(99);
  MemoryGraph g;
  for (int i = 0; i < 200; ++i) {
    Properties p = random_properties(rng, false);
    p.set("nested", Value::list({Value::list({1, 2.5, "s"}), Value(), true, std::string(40, 'z')}));
    p.set("big", std::numeric_limits<std::int64_t>::min());
    auto v = g.create_vertex("Node", p);
    auto found = g.find_vertex_by_id("Node", v.id);
    ASSERT_TRUE(found);
    // NaN never equals itself: compare those entries by type only.
    for (const auto& [key, value] : p) {
      const Value& got = found->properties.at(key);
      if (value.is_double() && std::isnan(value.as_double())) {
        EXPECT_TRUE(got.is_double() && std::isnan(got.as_double()));
      } else {
        EXPECT_EQ(got, value) << key;
      }
    }
    EXPECT_EQ(found->properties.size(), p.size());
  }
}

}  // namespace
}  // namespace propgraph
