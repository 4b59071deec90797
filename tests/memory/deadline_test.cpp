// MemoryGraph's long algorithms check the deadline as they go: on a generated graph where a call
// takes far longer than its budget, the call throws Timeout and leaves the graph as it was. The
// tests assert the exception, never a duration; the sizes give each call a run time of well over
// 100 ms on the project's machines (measured once), against a 10 ms budget.
#include "propgraph/deadline.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "propgraph/errors.hpp"
#include "propgraph/generate.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace propgraph {
namespace {

constexpr auto kBudget = std::chrono::milliseconds(10);

/// An R-MAT graph of 65,536 vertices and 524,288 edges (power-law degrees, so there are hubs,
/// cycles and many paths between hubs), built once for all tests.
class MemoryGraphDeadline : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const auto list = generate::rmat_graph(1U << 16, 1U << 19, 7);
    graph_ = std::make_unique<MemoryGraph>();
    ids_ = generate::load(*graph_, list);
    // The busiest source and the busiest other target: the most paths between two vertices.
    std::vector<std::int64_t> out(list.vertex_count), in(list.vertex_count);
    for (const auto& [from, to] : list.edges) {
      ++out[from];
      ++in[to];
    }
    hub_ = static_cast<std::size_t>(std::max_element(out.begin(), out.end()) - out.begin());
    in[hub_] = -1;
    other_hub_ = static_cast<std::size_t>(std::max_element(in.begin(), in.end()) - in.begin());
  }
  static void TearDownTestSuite() { graph_.reset(); }

  /// What the tests compare before and after a timed-out call.
  struct Observed {
    std::int64_t vertices = 0;
    std::int64_t edges = 0;
    std::vector<PageRankScore> top;
    std::vector<Vertex> first_page;
    friend bool operator==(const Observed&, const Observed&) = default;
  };
  static Observed observe() {
    auto& g = *graph_;
    return {g.count_vertices(), g.count_edges(), g.page_rank({.iterations = 2, .top_k = 10}),
            g.find_vertices_by_label("Node", {}, {.limit = 100})};
  }

  static std::unique_ptr<MemoryGraph> graph_;
  static std::vector<ElementId> ids_;
  static std::size_t hub_, other_hub_;
};

std::unique_ptr<MemoryGraph> MemoryGraphDeadline::graph_;
std::vector<ElementId> MemoryGraphDeadline::ids_;
std::size_t MemoryGraphDeadline::hub_ = 0;
std::size_t MemoryGraphDeadline::other_hub_ = 0;

TEST_F(MemoryGraphDeadline, PageRankOverBudgetThrowsTimeoutAndChangesNothing) {
  const auto before = observe();
  ASSERT_EQ(before.vertices, 1 << 16);
  ASSERT_EQ(before.edges, 1 << 19);
  {
    DeadlineScope scope(kBudget);
    // tolerance 0: all 20 iterations, over 10 M edge visits.
    EXPECT_THROW((void)graph_->page_rank({.tolerance = 0}), Timeout);
  }
  EXPECT_TRUE(observe() == before) << "the graph changed";
  // The graph still answers, the same without a deadline and under a generous one.
  const auto ranks = graph_->page_rank({.iterations = 1, .top_k = 3});
  EXPECT_EQ(ranks.size(), 3u);
  DeadlineScope generous(std::chrono::hours(1));
  EXPECT_EQ(graph_->page_rank({.iterations = 1, .top_k = 3}), ranks);
}

TEST_F(MemoryGraphDeadline, CycleAndPathEnumerationsOverBudgetThrowTimeout) {
  const auto before = observe();
  {
    DeadlineScope scope(kBudget);
    // Without a deadline each takes a few hundred milliseconds or more (a hundred thousand
    // cycles; twenty thousand paths between the two hubs).
    EXPECT_THROW((void)graph_->detect_cycles({.max_depth = 4, .max_cycles = 100'000}), Timeout);
    EXPECT_THROW((void)graph_->all_paths(ids_[hub_], ids_[other_hub_], {.max_depth = 6, .max_paths = 20'000}), Timeout);
  }
  EXPECT_TRUE(observe() == before) << "the graph changed";
}

// A durable write's deadline bounds its start (and its wait for the writer gate), not its log
// sync: a write or commit that starts after the deadline throws Timeout and leaves nothing on
// disk; one that started in time is applied and kept (its sync wait is exempt, see
// DeadlineScope).
TEST(DurableWriteDeadline, WritesStartedAfterTheDeadlineLeaveNothingOnDisk) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("propgraph-write-deadline-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const MemoryOptions options{.data_dir = dir, .sync = SyncPolicy::every_commit, .checkpoint_log_bytes = 0};
  {
    MemoryGraph g(options);
    auto tx = g.begin();
    (void)tx->create_vertex("Late", {{"via", "transaction"}});
    {
      const DeadlineScope passed(DeadlineClock::now() - std::chrono::milliseconds(1));
      EXPECT_THROW((void)g.create_vertex("Late", {{"via", "create_vertex"}}), Timeout);
      EXPECT_THROW((void)g.create_vertices(std::vector<NewVertex>{{"Late", {}}}), Timeout);
      EXPECT_THROW(transact(g, [](Transaction& t) { (void)t.create_vertex("Late", {{"via", "transact"}}); }), Timeout);
      EXPECT_THROW(tx->commit(), Timeout);
    }
    {
      const DeadlineScope ample(std::chrono::hours(1));
      (void)g.create_vertex("InTime", {});
    }
    EXPECT_EQ(g.count_vertices("Late"), 0);
  }
  MemoryGraph reopened(options);
  EXPECT_EQ(reopened.count_vertices("Late"), 0);
  EXPECT_EQ(reopened.count_vertices("InTime"), 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace propgraph
