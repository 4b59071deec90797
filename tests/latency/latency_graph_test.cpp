// LatencyGraph: every call waits, then delegates unchanged; fibers overlap their waits.
#include "propgraph/latency/latency_graph.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <gtest/gtest.h>

#include "propgraph/errors.hpp"
#include "propgraph/fiber.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using propgraph::GraphOperations;
using propgraph::LatencyGraph;
using propgraph::LatencyOptions;
using propgraph::MemoryGraph;

/// Alice -KNOWS-> Bob -KNOWS-> Charlie, Alice -FOLLOWS-> Charlie, built on the backend directly.
struct Fixture {
  MemoryGraph backend;
  propgraph::ElementId alice, bob, charlie, knows;
  Fixture() {
    alice = backend.create_vertex("Person", {{"name", "Alice"}, {"age", 30}}).id;
    bob = backend.create_vertex("Person", {{"name", "Bob"}, {"age", 25}}).id;
    charlie = backend.create_vertex("Person", {{"name", "Charlie"}, {"age", 28}}).id;
    knows = backend.create_edge(alice, bob, "KNOWS", {{"since", 2020}}).id;
    backend.create_edge(bob, charlie, "KNOWS", {{"since", 2021}});
    backend.create_edge(alice, charlie, "FOLLOWS", {{"since", 2019}});
  }
};

struct Step {
  std::string_view method;
  std::function<void(GraphOperations&)> call;
};

/// One call of every GraphOperations method, in an order where each one is valid.
std::vector<Step> every_method(const Fixture& f) {
  return {
      {"create_graph", [](GraphOperations& g) { g.create_graph("other"); }},
      {"graph_exists", [](GraphOperations& g) { (void)g.graph_exists("other"); }},
      {"drop_graph", [](GraphOperations& g) { g.drop_graph("other"); }},
      {"vertex_labels", [](GraphOperations& g) { (void)g.vertex_labels(); }},
      {"edge_labels", [](GraphOperations& g) { (void)g.edge_labels(); }},
      {"create_vertex",
       [](GraphOperations& g) {
         g.create_vertex("Person", {{"name", "Eve"}});
       }},
      {"find_vertex_by_id", [&](GraphOperations& g) { (void)g.find_vertex_by_id("Person", f.alice); }},
      {"find_vertices_by_label", [](GraphOperations& g) { (void)g.find_vertices_by_label("Person"); }},
      {"update_vertex",
       [&](GraphOperations& g) {
         g.update_vertex("Person", f.alice, {{"age", 31}});
       }},
      {"count_vertices", [](GraphOperations& g) { (void)g.count_vertices("Person"); }},
      {"create_edge", [&](GraphOperations& g) { g.create_edge(f.alice, f.bob, "LIKES"); }},
      {"find_edge_by_id", [&](GraphOperations& g) { (void)g.find_edge_by_id("KNOWS", f.knows); }},
      {"find_edges_by_label", [](GraphOperations& g) { (void)g.find_edges_by_label("KNOWS"); }},
      {"update_edge",
       [&](GraphOperations& g) {
         g.update_edge("KNOWS", f.knows, {{"since", 2000}});
       }},
      {"count_edges", [](GraphOperations& g) { (void)g.count_edges("KNOWS"); }},
      {"neighbors", [&](GraphOperations& g) { (void)g.neighbors(f.alice); }},
      {"shortest_path", [&](GraphOperations& g) { (void)g.shortest_path(f.alice, f.charlie); }},
      {"all_paths", [&](GraphOperations& g) { (void)g.all_paths(f.alice, f.charlie); }},
      {"page_rank", [](GraphOperations& g) { (void)g.page_rank(); }},
      {"degree_centrality", [&](GraphOperations& g) { (void)g.degree_centrality(f.alice); }},
      {"connected_components", [](GraphOperations& g) { (void)g.connected_components(); }},
      {"bfs", [&](GraphOperations& g) { (void)g.bfs(f.alice); }},
      {"dfs", [&](GraphOperations& g) { (void)g.dfs(f.alice); }},
      {"detect_cycles", [](GraphOperations& g) { (void)g.detect_cycles(); }},
      {"delete_edge", [&](GraphOperations& g) { g.delete_edge("KNOWS", f.knows); }},
      {"delete_vertex", [&](GraphOperations& g) { g.delete_vertex("Person", f.bob); }},
  };
}

TEST(LatencyGraph, EveryMethodWaitsAtLeastTheConfiguredTimeOncePerCall) {
  Fixture f;
  LatencyGraph graph(f.backend, LatencyOptions::fixed(5ms));
  const auto steps = every_method(f);
  ASSERT_EQ(steps.size(), 26U);  // every GraphOperations method
  for (const Step& step : steps) {
    const std::uint64_t before = graph.calls();
    const auto start = Clock::now();
    step.call(graph);
    EXPECT_GE(Clock::now() - start, 5ms) << step.method;
    EXPECT_EQ(graph.calls(), before + 1) << step.method;
  }
}

TEST(LatencyGraph, WritesReachTheBackend) {
  Fixture f;
  LatencyGraph graph(f.backend, LatencyOptions::fixed(0ns));
  const auto eve = graph.create_vertex("Person", {{"name", "Eve"}});
  EXPECT_EQ(f.backend.find_vertex_by_id("Person", eve.id), eve);
  graph.update_vertex("Person", f.alice, {{"age", 31}});
  EXPECT_EQ(f.backend.find_vertex_by_id("Person", f.alice)->properties["age"], propgraph::Value(31));
  const auto likes = graph.create_edge(f.alice, eve.id, "LIKES");
  EXPECT_EQ(f.backend.find_edge_by_id("LIKES", likes.id), likes);
  EXPECT_TRUE(graph.delete_vertex("Person", eve.id));
  EXPECT_FALSE(f.backend.find_edge_by_id("LIKES", likes.id).has_value());
  EXPECT_TRUE(graph.create_graph("other"));
  EXPECT_TRUE(f.backend.graph_exists("other"));
}

TEST(LatencyGraph, ReadsReturnExactlyTheBackendResults) {
  Fixture f;
  LatencyGraph graph(f.backend, LatencyOptions::fixed(0ns));
  EXPECT_EQ(graph.find_vertex_by_id("Person", f.alice), f.backend.find_vertex_by_id("Person", f.alice));
  EXPECT_EQ(graph.find_vertices_by_label("Person", {{"age", 25}}),
            f.backend.find_vertices_by_label("Person", {{"age", 25}}));
  EXPECT_EQ(graph.find_edges_by_label("KNOWS"), f.backend.find_edges_by_label("KNOWS"));
  EXPECT_EQ(graph.neighbors(f.alice, {.max_depth = 2}), f.backend.neighbors(f.alice, {.max_depth = 2}));
  EXPECT_EQ(graph.shortest_path(f.alice, f.charlie), f.backend.shortest_path(f.alice, f.charlie));
  EXPECT_EQ(graph.all_paths(f.alice, f.charlie), f.backend.all_paths(f.alice, f.charlie));
  EXPECT_EQ(graph.page_rank(), f.backend.page_rank());
  EXPECT_EQ(graph.degree_centrality(f.bob), f.backend.degree_centrality(f.bob));
  EXPECT_EQ(graph.connected_components(), f.backend.connected_components());
  EXPECT_EQ(graph.bfs(f.alice), f.backend.bfs(f.alice));
  EXPECT_EQ(graph.dfs(f.alice), f.backend.dfs(f.alice));
  EXPECT_EQ(graph.vertex_labels(), f.backend.vertex_labels());
  EXPECT_EQ(graph.count_edges("KNOWS"), 2);
}

TEST(LatencyGraph, BackendExceptionsPassThroughUnchanged) {
  Fixture f;
  LatencyGraph graph(f.backend, LatencyOptions::fixed(1ms));
  EXPECT_THROW(graph.create_vertex(""), propgraph::InvalidArgument);
  EXPECT_THROW(graph.create_edge(f.alice, propgraph::ElementId("nope"), "KNOWS"), propgraph::NotFound);
  EXPECT_EQ(graph.calls(), 2U);  // both waited before the backend threw
}

TEST(LatencyGraph, WaitsBeforeDelegating) {
  Fixture f;
  LatencyGraph graph(f.backend, LatencyOptions::fixed(500ms));
  const std::int64_t people = f.backend.count_vertices("Person");
  boost::fibers::fiber writer([&] { graph.create_vertex("Person", {{"name", "Eve"}}); });
  boost::this_fiber::sleep_for(20ms);  // the writer is still inside its wait
  EXPECT_EQ(f.backend.count_vertices("Person"), people);
  writer.join();
  EXPECT_EQ(f.backend.count_vertices("Person"), people + 1);
}

TEST(LatencyGraph, EachCallWaitsAtLeastItsDraw) {
  Fixture f;
  const auto options = LatencyOptions::uniform(20ms, 10ms, 3);
  LatencyGraph graph(f.backend, options);
  for (std::uint64_t n = 0; n < 5; ++n) {
    const auto start = Clock::now();
    (void)graph.find_vertex_by_id("Person", f.alice);
    EXPECT_GE(Clock::now() - start, options.wait_for_call(n)) << "call " << n;
  }
}

TEST(LatencyGraph, TwoFibersOnOneThreadOverlapTheirWaits) {
  Fixture f;
  LatencyGraph graph(f.backend, LatencyOptions::fixed(100ms));
  auto ops = propgraph::as_fiber(graph);
  const auto start = Clock::now();
  auto first = ops.find_vertex_by_id_async("Person", f.alice);
  auto second = ops.neighbors_async(f.alice);
  EXPECT_TRUE(first.get().has_value());
  EXPECT_EQ(second.get().size(), 2U);
  const auto elapsed = Clock::now() - start;
  EXPECT_GE(elapsed, 100ms);
  EXPECT_LT(elapsed, 160ms) << "the waits ran one after the other";
}

TEST(LatencyGraph, PoolFibersOverlapTheirWaits) {
  Fixture f;
  LatencyGraph graph(f.backend, LatencyOptions::fixed(100ms));
  propgraph::FiberPool pool(1);
  auto ops = propgraph::as_fiber(graph, pool);
  const auto start = Clock::now();
  std::vector<propgraph::Future<std::optional<propgraph::Vertex>>> calls;
  for (int i = 0; i < 8; ++i) calls.push_back(ops.find_vertex_by_id_async("Person", f.alice));
  for (auto& call : calls) EXPECT_TRUE(call.get().has_value());
  EXPECT_LT(Clock::now() - start, 400ms) << "eight waits on one pool thread did not overlap (800 ms if serial)";
}

TEST(LatencyGraph, CallsOnAPlainThreadBlockOneAfterTheOther) {
  Fixture f;
  LatencyGraph graph(f.backend, LatencyOptions::fixed(30ms));
  const auto start = Clock::now();
  (void)graph.count_vertices("Person");
  (void)graph.count_edges("KNOWS");
  EXPECT_GE(Clock::now() - start, 60ms);
}

TEST(LatencyGraph, SharesOwnershipOrRejectsNull) {
  auto backend = std::make_shared<MemoryGraph>();
  LatencyGraph graph(backend);
  EXPECT_EQ(&graph.backend(), backend.get());
  EXPECT_EQ(backend.use_count(), 2);
  EXPECT_THROW(LatencyGraph(std::shared_ptr<GraphOperations>{}), propgraph::InvalidArgument);
}

// -- LatencyOptions -------------------------------------------------------------------------

struct Moments {
  double mean_ns = 0, stddev_ns = 0, min_ns = 0, max_ns = 0;
};

Moments moments(const LatencyOptions& options, std::uint64_t draws = 20000) {
  double sum = 0, sum_sq = 0;
  Moments m{.min_ns = 1e300, .max_ns = -1e300};
  for (std::uint64_t n = 0; n < draws; ++n) {
    const double x = static_cast<double>(options.wait_for_call(n).count());
    sum += x;
    sum_sq += x * x;
    m.min_ns = std::min(m.min_ns, x);
    m.max_ns = std::max(m.max_ns, x);
  }
  const double count = static_cast<double>(draws);
  m.mean_ns = sum / count;
  m.stddev_ns = std::sqrt(std::max(0.0, sum_sq / count - m.mean_ns * m.mean_ns));
  return m;
}

TEST(LatencyOptions, FixedIsAlwaysTheMean) {
  const auto options = LatencyOptions{.mean = 250us, .seed = 9};
  for (std::uint64_t n = 0; n < 100; ++n) EXPECT_EQ(options.wait_for_call(n), 250us);
}

TEST(LatencyOptions, DrawsAreDeterministicPerSeed) {
  const auto a = LatencyOptions::exponential(1ms, 42);
  const auto b = LatencyOptions::exponential(1ms, 42);
  const auto c = LatencyOptions::exponential(1ms, 43);
  int differing = 0;
  for (std::uint64_t n = 0; n < 100; ++n) {
    EXPECT_EQ(a.wait_for_call(n), b.wait_for_call(n));
    differing += a.wait_for_call(n) != c.wait_for_call(n) ? 1 : 0;
  }
  EXPECT_GT(differing, 90);
}

TEST(LatencyOptions, UniformStaysInItsRange) {
  const Moments m = moments(LatencyOptions::uniform(1ms, 400us, 1));
  EXPECT_GE(m.min_ns, 600e3);
  EXPECT_LE(m.max_ns, 1400e3);
  EXPECT_NEAR(m.mean_ns, 1e6, 0.01e6);
}

TEST(LatencyOptions, NormalHasItsMeanAndDeviationAndNeverGoesNegative) {
  const Moments m = moments(LatencyOptions::normal(1ms, 100us, 2));
  EXPECT_NEAR(m.mean_ns, 1e6, 0.01e6);
  EXPECT_NEAR(m.stddev_ns, 100e3, 5e3);
  const Moments wide = moments(LatencyOptions::normal(1ms, 5ms, 2));
  EXPECT_EQ(wide.min_ns, 0.0);  // negative draws wait 0
}

TEST(LatencyOptions, ExponentialHasItsMean) {
  const Moments m = moments(LatencyOptions::exponential(1ms, 3));
  EXPECT_NEAR(m.mean_ns, 1e6, 0.03e6);
  EXPECT_NEAR(m.stddev_ns, 1e6, 0.05e6);
  EXPECT_GE(m.min_ns, 0.0);
}

TEST(LatencyOptions, LognormalHasItsMeanAndDeviation) {
  const Moments m = moments(LatencyOptions::lognormal(1ms, 300us, 4), 100000);
  EXPECT_NEAR(m.mean_ns, 1e6, 0.01e6);
  EXPECT_NEAR(m.stddev_ns, 300e3, 15e3);
  EXPECT_GT(m.min_ns, 0.0);
}

TEST(LatencyOptions, RejectsOutOfRangeFields) {
  EXPECT_THROW(LatencyOptions::fixed(-1ms).validate(), propgraph::InvalidArgument);
  EXPECT_THROW(LatencyOptions::normal(1ms, -1ms).validate(), propgraph::InvalidArgument);
  EXPECT_THROW(LatencyOptions::uniform(1ms, 2ms).validate(), propgraph::InvalidArgument);
  EXPECT_NO_THROW(LatencyOptions::uniform(1ms, 1ms).validate());
  propgraph::MemoryGraph backend;
  EXPECT_THROW(LatencyGraph(backend, LatencyOptions::fixed(-1ns)), propgraph::InvalidArgument);
}

// Huge means and deviations clamp to nanoseconds::max() instead of overflowing into negatives.
TEST(LatencyOptions, HugeDrawsClampInsteadOfOverflowing) {
  constexpr auto max = std::chrono::nanoseconds::max();
  const std::vector<LatencyOptions> huge{
      LatencyOptions::uniform(max, max, 1),    LatencyOptions::normal(max, max, 2),
      LatencyOptions::normal(max / 2, max, 3), LatencyOptions::exponential(max, 4),
      LatencyOptions::lognormal(max, max, 5),
  };
  for (const auto& options : huge) {
    options.validate();
    bool reached_max = false;
    for (std::uint64_t n = 0; n < 2000; ++n) {
      const auto wait = options.wait_for_call(n);
      ASSERT_GE(wait.count(), 0) << "distribution " << static_cast<int>(options.distribution) << " call " << n;
      reached_max = reached_max || wait == max;
    }
    EXPECT_TRUE(reached_max) << "distribution " << static_cast<int>(options.distribution);
  }
}

// fixed(nanoseconds::max()) waits (for ever) instead of overflowing now() + d into the past.
TEST(LatencyGraph, TheLongestFixedWaitWaits) {
  auto graph = std::make_shared<LatencyGraph>(std::make_shared<MemoryGraph>(),
                                              LatencyOptions::fixed(std::chrono::nanoseconds::max()));
  auto returned = std::make_shared<std::atomic<bool>>(false);
  // The call never returns: the thread is left behind, holding what it uses.
  std::thread([graph, returned] {
    (void)graph->graph_exists("g1");
    returned->store(true);
  }).detach();
  std::this_thread::sleep_for(200ms);
  EXPECT_FALSE(returned->load());
  EXPECT_EQ(graph->calls(), 1u);
}

}  // namespace
