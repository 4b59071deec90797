// Generators are deterministic, and MemoryGraph's algorithms on generated graphs agree with
// raw Boost.Graph on a compressed_sparse_row_graph of the same edges: bfs depths, weak and
// strong component sets, page_rank scores. Each comparison runs on a graph loaded in bulk
// (its adjacency laid out at once, in vertex order) and on the same graph grown edge by edge
// (lists appended to and moved as they grow); both hold the same lists.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <thread>
#include <unordered_map>
#include <vector>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/page_rank.hpp>
#include <boost/graph/strong_components.hpp>
#include <boost/pending/disjoint_sets.hpp>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "propgraph/generate.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace propgraph {
namespace {

using Csr = boost::compressed_sparse_row_graph<boost::directedS>;

TEST(Generators, SameSeedSameGraphOtherSeedOtherGraph) {
  EXPECT_EQ(generate::random_graph(500, 4000, 7).edges, generate::random_graph(500, 4000, 7).edges);
  EXPECT_NE(generate::random_graph(500, 4000, 7).edges, generate::random_graph(500, 4000, 8).edges);
  EXPECT_EQ(generate::rmat_graph(512, 4000, 7).edges, generate::rmat_graph(512, 4000, 7).edges);
  EXPECT_NE(generate::rmat_graph(512, 4000, 7).edges, generate::rmat_graph(512, 4000, 8).edges);
}

TEST(Generators, SizesAndRanges) {
  const auto rmat = generate::rmat_graph(1000, 5000, 1);
  EXPECT_EQ(rmat.vertex_count, 1000u);
  EXPECT_EQ(rmat.edges.size(), 5000u);
  const auto random = generate::random_graph(1000, 16000, 1);
  // G(n, p): the count is binomial around the expectation (sd ~ 126 here).
  EXPECT_NEAR(static_cast<double>(random.edges.size()), 16000.0, 1000.0);
  for (const auto& list : {rmat, random}) {
    for (auto [u, v] : list.edges) {
      ASSERT_LT(u, list.vertex_count);
      ASSERT_LT(v, list.vertex_count);
    }
  }
  for (auto [u, v] : random.edges) ASSERT_NE(u, v);  // no self-loops
  EXPECT_TRUE(
      std::is_sorted(random.edges.begin(), random.edges.end(), [](auto a, auto b) { return a.first < b.first; }));
  // R-MAT is skewed: the busiest vertex has far more than the average degree of 10.
  std::vector<int> degree(1000);
  for (auto [u, v] : rmat.edges) ++degree[u];
  EXPECT_GT(*std::max_element(degree.begin(), degree.end()), 50);
}

TEST(Generators, RejectsBadParameters) {
  EXPECT_THROW((void)generate::rmat_graph(10, 10, 1, {0.5, 0.5, 0.5, 0.5}), InvalidArgument);
  EXPECT_TRUE(generate::random_graph(1, 10, 1).edges.empty());
}

TEST(Generators, LoadCreatesEveryElementWithItsProperties) {
  const auto list = generate::rmat_graph(300, 2000, 3);
  MemoryGraph g;
  generate::LoadOptions options;
  options.batch = 128;  // several batches
  options.vertex_properties = [](std::uint32_t i) { return Properties{{"n", static_cast<std::int64_t>(i)}}; };
  options.edge_properties = [](std::uint64_t i) { return Properties{{"i", static_cast<std::int64_t>(i)}}; };
  const auto ids = generate::load(g, list, options);
  ASSERT_EQ(ids.size(), 300u);
  EXPECT_EQ(g.count_vertices("Node"), 300);
  EXPECT_EQ(g.count_edges("LINK"), 2000);
  EXPECT_EQ(g.find_vertex_by_id("Node", ids[123])->properties.at("n").as_int(), 123);
  const auto edges = g.find_edges_by_label("LINK", {{"i", 1999}});
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(edges[0].from, ids[list.edges[1999].first]);
  EXPECT_EQ(edges[0].to, ids[list.edges[1999].second]);
}

/// A generated graph in a MemoryGraph and in a raw CSR graph, with the id <-> number maps.
struct Fixture {
  generate::EdgeList list;
  MemoryGraph graph;
  std::vector<ElementId> ids;
  std::unordered_map<ElementId, std::uint32_t> number;
  Csr csr;

  /// `batch` edges per create_edges call: the default loads in bulk, 1 grows the graph edge
  /// by edge.
  explicit Fixture(generate::EdgeList l, std::size_t batch = generate::LoadOptions{}.batch)
      : list(std::move(l)),
        ids(generate::load(graph, list, load_options(batch))),
        csr(boost::edges_are_unsorted_multi_pass, list.edges.begin(), list.edges.end(), list.vertex_count) {
    for (std::uint32_t i = 0; i < ids.size(); ++i) number[ids[i]] = i;
  }
  static generate::LoadOptions load_options(std::size_t batch) {
    generate::LoadOptions options;
    options.batch = batch;
    return options;
  }

  /// Vertex number -> BFS depth (-1 unreached) through GraphOperations::bfs.
  std::vector<int> our_depths(std::uint32_t start) {
    std::vector<int> depth(list.vertex_count, -1);
    const TraversalOptions all{.max_depth = std::numeric_limits<int>::max(),
                               .max_vertices = std::numeric_limits<std::size_t>::max()};
    for (const auto& visit : graph.bfs(ids[start], all)) depth[number.at(visit.vertex.id)] = visit.depth;
    return depth;
  }
  std::vector<int> raw_depths(std::uint32_t start) const {
    std::vector<int> depth(list.vertex_count, -1);
    depth[start] = 0;
    struct Recorder : boost::default_bfs_visitor {
      std::vector<int>* depth;
      void tree_edge(Csr::edge_descriptor e, const Csr& g) const {
        (*depth)[boost::target(e, g)] = (*depth)[boost::source(e, g)] + 1;
      }
    };
    Recorder recorder;
    recorder.depth = &depth;
    boost::breadth_first_search(csr, start, boost::visitor(recorder));
    return depth;
  }

  /// Components as sets of vertex numbers.
  std::set<std::set<std::uint32_t>> our_components(bool weakly) {
    std::set<std::set<std::uint32_t>> result;
    for (const auto& c : graph.connected_components({.weakly = weakly})) {
      std::set<std::uint32_t> members;
      for (const auto& v : c.vertices) members.insert(number.at(v.id));
      result.insert(members);
    }
    return result;
  }
  std::set<std::set<std::uint32_t>> raw_components(bool weakly) const {
    const std::size_t n = list.vertex_count;
    std::vector<std::size_t> component(n);
    if (weakly) {
      std::vector<std::size_t> rank(n);
      const boost::typed_identity_property_map<std::size_t> index;
      auto rank_map = boost::make_iterator_property_map(rank.begin(), index);
      auto parent_map = boost::make_iterator_property_map(component.begin(), index);
      boost::disjoint_sets<decltype(rank_map), decltype(parent_map)> sets(rank_map, parent_map);
      for (std::size_t v = 0; v < n; ++v) sets.make_set(v);
      for (auto [u, v] : list.edges) sets.union_set(u, v);
      for (std::size_t v = 0; v < n; ++v) component[v] = sets.find_set(v);
    } else {
      boost::strong_components(
          csr, boost::make_iterator_property_map(component.begin(), boost::get(boost::vertex_index, csr)));
    }
    std::map<std::size_t, std::set<std::uint32_t>> groups;
    for (std::uint32_t v = 0; v < n; ++v) groups[component[v]].insert(v);
    std::set<std::set<std::uint32_t>> result;
    for (auto& [root, members] : groups) result.insert(members);
    return result;
  }

  /// Scores by vertex number.
  std::vector<double> our_page_rank() {
    std::vector<double> score(list.vertex_count, -1.0);
    for (const auto& s : graph.page_rank({.iterations = 20, .tolerance = 0.0})) {
      score[number.at(s.vertex.id)] = s.score;
    }
    return score;
  }
  /// Boost's page_rank iterates r' = (1 - d) + d * sum(r / outdeg) from 1/n; started from 1
  /// (its n argument) it computes n times the normalised rank that GraphOperations reports,
  /// when no vertex is dangling.
  std::vector<double> raw_page_rank() const {
    std::vector<double> rank(list.vertex_count);
    boost::graph::page_rank(csr, boost::make_iterator_property_map(rank.begin(), boost::get(boost::vertex_index, csr)),
                            boost::graph::n_iterations(20), 0.85, 1);
    for (auto& r : rank) r /= list.vertex_count;
    return rank;
  }
};

/// Runs check(fixture) on the graph loaded in bulk and on the same graph grown edge by edge.
template <typename Check>
void bulk_and_edge_by_edge(const generate::EdgeList& list, Check check) {
  for (std::size_t batch : {generate::LoadOptions{}.batch, std::size_t{1}}) {
    SCOPED_TRACE(batch == 1 ? "edge by edge" : "in bulk");
    Fixture f(list, batch);
    check(f);
  }
}

TEST(GeneratedGraphs, BfsDepthsEqualBoost) {
  bulk_and_edge_by_edge(generate::random_graph(2000, 16000, 11), [](Fixture& f) {
    for (std::uint32_t start : {0u, 17u, 1999u}) ASSERT_EQ(f.our_depths(start), f.raw_depths(start));
  });
  bulk_and_edge_by_edge(generate::rmat_graph(2048, 16000, 11), [](Fixture& r) {
    for (std::uint32_t start : {0u, 5u}) ASSERT_EQ(r.our_depths(start), r.raw_depths(start));
  });
}

TEST(GeneratedGraphs, ComponentsEqualBoost) {
  // A sparse R-MAT graph has many components, weak and strong.
  bulk_and_edge_by_edge(generate::rmat_graph(4096, 9000, 5), [](Fixture& f) {
    const auto weak = f.our_components(true);
    ASSERT_GT(weak.size(), 1u);
    ASSERT_EQ(weak, f.raw_components(true));
    ASSERT_EQ(f.our_components(false), f.raw_components(false));
  });
}

TEST(GeneratedGraphs, WeakComponentsEqualBoostFromBelowToAboveTheGiantComponent) {
  // Below about one edge per two vertices there is no giant component; above it one holds most
  // vertices and the search skips it, so edges into and out of it from outside must still join.
  for (const std::size_t edges : {600u, 1500u, 2200u, 4000u, 9000u}) {
    for (const std::uint64_t seed : {1u, 2u}) {
      SCOPED_TRACE(fmt::format("{} edges, seed {}", edges, seed));
      Fixture f(generate::random_graph(3000, edges, seed), generate::LoadOptions{}.batch);
      ASSERT_EQ(f.our_components(true), f.raw_components(true));
    }
  }
}

TEST(GeneratedGraphs, PageRankEqualsBoostWithin1e9) {
  const auto list = generate::random_graph(1500, 24000, 3);
  std::vector<int> out_degree(1500);
  for (auto [u, v] : list.edges) ++out_degree[u];
  ASSERT_EQ(std::count(out_degree.begin(), out_degree.end(), 0), 0) << "the comparison needs no dangling vertex";
  bulk_and_edge_by_edge(list, [](Fixture& f) {
    const auto raw = f.raw_page_rank();
    const auto ours = f.our_page_rank();
    for (std::size_t v = 0; v < ours.size(); ++v) ASSERT_NEAR(ours[v], raw[v], 1e-9) << "vertex " << v;
  });
}

TEST(GeneratedGraphs, PageRankOfAGraphOfSeveralBlocksEqualsAPlainPowerIteration) {
  // Over 2^17 vertices page_rank pulls the shares block by block; this graph has three blocks,
  // hubs (R-MAT) and dangling vertices, whose rank is spread over all.
  const std::uint32_t n = 300'000;
  const auto list = generate::rmat_graph(n, 1'500'000, 9);
  Fixture f(list, generate::LoadOptions{}.batch);
  std::vector<std::uint32_t> out_degree(n, 0);
  for (auto [u, v] : list.edges) ++out_degree[u];
  ASSERT_GT(std::count(out_degree.begin(), out_degree.end(), 0u), 0);
  const double d = 0.85;
  std::vector<double> rank(n, 1.0 / n);
  for (int iteration = 0; iteration < 20; ++iteration) {
    double dangling = 0.0;
    for (std::uint32_t v = 0; v < n; ++v) dangling += out_degree[v] == 0 ? rank[v] : 0.0;
    std::vector<double> next(n, (1.0 - d) / n + d * dangling / n);
    for (auto [u, v] : list.edges) next[v] += d * rank[u] / out_degree[u];
    rank.swap(next);
  }
  std::size_t compared = 0;
  for (const auto& s : f.graph.page_rank({.iterations = 20, .damping = d, .tolerance = 0.0})) {
    ASSERT_NEAR(s.score, rank[f.number.at(s.vertex.id)], 1e-12) << s.vertex.id.str();
    ++compared;
  }
  EXPECT_EQ(compared, n);
}

TEST(GeneratedGraphs, PageRankAmongManyDeletedVerticesEqualsBoostWithin1e9) {
  // A graph with churn: five deleted vertices beside each live one. page_rank then numbers the
  // live vertices through a table sized by them instead of an array over every slot.
  const auto list = generate::random_graph(1500, 24000, 3);
  const Fixture reference(list, generate::LoadOptions{}.batch);
  MemoryGraph g;
  std::vector<ElementId> ids;
  std::vector<ElementId> deleted;
  for (std::uint32_t v = 0; v < list.vertex_count; ++v) {
    for (int k = 0; k < 5; ++k) deleted.push_back(g.create_vertex("Node").id);
    ids.push_back(g.create_vertex("Node").id);
  }
  for (const auto& id : deleted) ASSERT_TRUE(g.delete_vertex("Node", id));
  std::vector<NewEdge> edges;
  for (auto [u, v] : list.edges) edges.push_back(NewEdge{ids[u], ids[v], "LINK", {}});
  g.create_edges(edges);
  std::unordered_map<ElementId, std::uint32_t> number;
  for (std::uint32_t i = 0; i < ids.size(); ++i) number[ids[i]] = i;
  const auto raw = reference.raw_page_rank();
  const auto scores = g.page_rank({.iterations = 20, .tolerance = 0.0});
  ASSERT_EQ(scores.size(), list.vertex_count);
  for (const auto& s : scores) {
    const std::uint32_t v = number.at(s.vertex.id);
    ASSERT_NEAR(s.score, raw[v], 1e-9) << "vertex " << v;
  }
}

/// Each vertex's incident edges, as positions in the edge list (ids differ between graphs).
std::vector<std::vector<std::size_t>> incidence(MemoryGraph& g, const std::vector<ElementId>& ids) {
  std::unordered_map<ElementId, std::size_t> position;
  std::size_t i = 0;
  for (const auto& e : g.find_edges_by_label("LINK")) position[e.id] = i++;
  std::vector<std::vector<std::size_t>> result;
  for (const auto& id : ids) {
    auto& edges = result.emplace_back();
    for (const auto& e : g.incident_edges(id)) edges.push_back(position.at(e.id));
  }
  return result;
}

TEST(GeneratedGraphs, ABulkLoadedGraphHoldsTheListsOfOneGrownEdgeByEdge) {
  for (const auto& list : {generate::rmat_graph(1024, 30000, 13), generate::random_graph(1000, 30000, 13)}) {
    Fixture bulk(list);
    Fixture grown(list, 1);
    const auto expected = incidence(grown.graph, grown.ids);
    EXPECT_EQ(incidence(bulk.graph, bulk.ids), expected);
    // Batches that wait for the next read, read after each: the first is laid out in bulk, the
    // later ones are appended to the lists.
    MemoryGraph mixed;
    const auto ids = generate::load(mixed, {list.vertex_count, {}});
    std::vector<NewEdge> batch;
    for (std::size_t first = 0; first < list.edges.size(); first += 5000) {
      batch.clear();
      for (std::size_t i = first; i < std::min(list.edges.size(), first + 5000); ++i) {
        batch.push_back({ids[list.edges[i].first], ids[list.edges[i].second], "LINK", {}});
      }
      mixed.create_edges(batch);
      EXPECT_TRUE(mixed.degree_centrality(ids[0]).has_value());
    }
    EXPECT_EQ(incidence(mixed, ids), expected);
    for (std::uint32_t start : {0u, 3u, 500u}) EXPECT_EQ(bulk.our_depths(start), grown.our_depths(start));
  }
}

TEST(GeneratedGraphs, WritesAfterABulkLoadShowInTheNextResult) {
  Fixture f(generate::rmat_graph(4096, 9000, 9));
  for (int i = 0; i < 3; ++i) (void)f.graph.connected_components();
  auto before = f.our_components(true);
  ASSERT_GT(before.size(), 2u);
  // Join two components by a new edge: one component fewer.
  auto it = before.begin();
  const std::uint32_t a = *it->begin();
  const std::uint32_t b = *std::next(it)->begin();
  f.graph.create_edge(f.ids[a], f.ids[b], "LINK");
  EXPECT_EQ(f.our_components(true).size(), before.size() - 1);
  EXPECT_EQ(f.our_depths(a)[b], 1);
  // A new vertex is its own component; deleting it restores the count.
  auto lone = f.graph.create_vertex("Node");
  EXPECT_EQ(f.graph.connected_components().size(), before.size());
  f.graph.delete_vertex("Node", lone.id);
  EXPECT_EQ(f.graph.connected_components().size(), before.size() - 1);
}

TEST(GeneratedGraphs, ReadersRaceAWriterThatChangesTheAdjacency) {
  // Readers traverse while a writer keeps changing the adjacency, one edge at a time and in
  // batches large enough to wait for the next read of adjacency (which then links them). Every
  // result must be a valid partition of the vertices present at that moment.
  Fixture f(generate::random_graph(3000, 12000, 21));
  std::atomic<bool> stop{false};
  std::atomic<int> reads{0};
  auto reader = [&] {
    while (!stop.load()) {
      std::int64_t total = 0;
      for (const auto& c : f.graph.connected_components()) total += static_cast<std::int64_t>(c.vertices.size());
      EXPECT_GE(total, 3000);
      EXPECT_FALSE(f.graph.bfs(f.ids[0], {.max_depth = 100, .max_vertices = 100000}).empty());
      reads.fetch_add(1);
    }
  };
  std::thread r1(reader);
  std::thread r2(reader);
  std::vector<NewEdge> batch;
  for (int i = 0; i < 200; ++i) {
    auto v = f.graph.create_vertex("Node");
    auto e = f.graph.create_edge(f.ids[static_cast<std::size_t>(i)], v.id, "LINK");
    if (i % 2 == 0) f.graph.delete_edge("LINK", e.id);
    if (i % 3 == 0) f.graph.delete_vertex("Node", v.id);
    if (i % 20 == 0) {
      batch.clear();
      for (std::size_t k = 0; k < 6000; ++k)
        batch.push_back({f.ids[(k * 7 + i) % 3000], f.ids[(k * 13) % 3000], "LINK", {}});
      f.graph.create_edges(batch);
    }
  }
  while (reads.load() < 10) std::this_thread::yield();
  stop = true;
  r1.join();
  r2.join();
  std::int64_t total = 0;
  for (const auto& c : f.graph.connected_components()) total += static_cast<std::int64_t>(c.vertices.size());
  EXPECT_EQ(total, f.graph.count_vertices("Node"));
}

}  // namespace
}  // namespace propgraph
