// Conformance: keyset pages (Page{limit, after}) on find_vertices_by_label, find_edges_by_label,
// incident_edges and neighbors, also while other threads write.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "conformance_fixture.hpp"

namespace propgraph::conformance {

/// Twelve "Node" vertices n0..n11 ({name, parity = i % 2}), so numbered ids cross a digit
/// boundary, with a "Robot" vertex after every third one (r0 after n2, r1 after n5, ...), so that
/// the ids of one label are not contiguous; and the "LINK" chain n0->n1->...->n11 (same
/// parity property), with a "NEXT" edge after every third LINK.
struct Numbered {
  std::vector<Vertex> nodes, robots;
  std::vector<Edge> links, nexts;
};

inline Numbered make_numbered(GraphOperations& g) {
  Numbered n;
  for (int i = 0; i < 12; ++i) {
    n.nodes.push_back(g.create_vertex("Node", {{"name", fmt::format("n{}", i)}, {"parity", i % 2}}));
    if (i % 3 == 2) n.robots.push_back(node(g, fmt::format("r{}", i / 3), "Robot"));
  }
  for (int i = 0; i + 1 < 12; ++i) {
    n.links.push_back(link(g, n.nodes[i], n.nodes[i + 1], "LINK", {{"parity", i % 2}}));
    if (i % 3 == 2) n.nexts.push_back(link(g, n.nodes[i], n.nodes[i + 1], "NEXT"));
  }
  return n;
}

/// Names of the numbered vertices n<first>..n<last>, skipping `except`.
inline Strings numbered(int first, int last, std::vector<int> except = {}) {
  Strings out;
  for (int i = first; i <= last; ++i) {
    if (std::find(except.begin(), except.end(), i) == except.end()) out.push_back(fmt::format("n{}", i));
  }
  return out;
}

/// The `after` values every paged call is checked with: each id of the graph (vertices and edges,
/// so also ids of other labels and kinds), deleted ids, the other instance's ids, malformed ones
/// and ids one byte shorter or longer than the graph's own (shortlex puts those before or after
/// all of them).
inline std::vector<ElementId> probe_afters(const std::vector<ElementId>& own, const std::vector<ElementId>& foreign) {
  std::vector<ElementId> afters = own;
  afters.insert(afters.end(), foreign.begin(), foreign.end());
  for (const char* text : {"", "garbage", "-1", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"}) {
    afters.emplace_back(text);
  }
  std::size_t shortest = SIZE_MAX;
  std::size_t longest = 0;
  for (const auto& id : own) {
    shortest = std::min(shortest, id.str().size());
    longest = std::max(longest, id.str().size());
  }
  if (shortest != SIZE_MAX) {
    afters.emplace_back(std::string(shortest - 1, '\xff'));
    afters.emplace_back(std::string(shortest, '\0'));
    afters.emplace_back(std::string(longest, '\xff'));
    afters.emplace_back(std::string(longest + 1, '\0'));
  }
  return afters;
}

/// Checks a paged call against its unpaged result for every `after` and a few limits, and walks it
/// page by page.
template <typename Fetch>
void expect_pages_follow_the_contract(Fetch fetch, const std::vector<ElementId>& afters) {
  const auto all = fetch(Page{});
  for (std::size_t i = 1; i < all.size(); ++i) ASSERT_LT(all[i - 1].id, all[i].id) << "unpaged result not by id";
  for (std::size_t limit : {0, 1, 3, 100}) {
    EXPECT_EQ(fetch(Page{.limit = limit}), page_of(all, Page{.limit = limit})) << "limit " << limit;
    for (const auto& after : afters) {
      const Page page{.limit = limit, .after = after};
      EXPECT_EQ(fetch(page), page_of(all, page)) << "limit " << limit << " after \"" << after.str() << "\"";
    }
  }
  for (std::size_t limit : std::vector<std::size_t>{1, 2, 5, all.size(), all.size() + 1}) {
    if (limit == 0) continue;
    EXPECT_EQ(walk_pages(fetch, limit), all) << "walked in pages of " << limit;
  }
}

// NOLINTBEGIN(readability-function-cognitive-complexity)

TEST_P(GraphConformance, PagesOfVerticesFirstMiddleLastAndEmpty) {
  auto& g = this->graph();
  const auto n = make_numbered(g);
  const auto& v = n.nodes;
  auto page = [&](const Page& p) { return names(g.find_vertices_by_label("Node", {}, p)); };
  EXPECT_EQ(page({.limit = 5}), numbered(0, 4));
  EXPECT_EQ(page({.limit = 5, .after = v[4].id}), numbered(5, 9));
  EXPECT_EQ(page({.limit = 5, .after = v[9].id}), numbered(10, 11));
  EXPECT_EQ(page({.limit = 5, .after = v[11].id}), Strings{});
  EXPECT_EQ(page({.limit = 1, .after = v[0].id}), numbered(1, 1));
  // limit 0 is no limit.
  EXPECT_EQ(page({}), numbered(0, 11));
  EXPECT_EQ(page({.after = v[9].id}), numbered(10, 11));
  EXPECT_EQ(page({.limit = 12}), numbered(0, 11));
  EXPECT_EQ(page({.limit = 100, .after = v[3].id}), numbered(4, 11));
  // `after` an id of another label: r0 was created between n2 and n3.
  EXPECT_EQ(page({.limit = 2, .after = n.robots[0].id}), numbered(3, 4));
  // `after` an id that no longer exists.
  ASSERT_TRUE(g.delete_vertex("Node", v[5].id));
  EXPECT_EQ(page({.limit = 3, .after = v[5].id}), numbered(6, 8));
  EXPECT_EQ(page({.limit = 5, .after = v[4].id}), numbered(6, 10));
  EXPECT_EQ(page({.limit = 5, .after = v[3].id}), (Strings{"n4", "n6", "n7", "n8", "n9"}));
  // Walking all pages gives the unpaged result.
  for (std::size_t limit : {1, 2, 3, 5, 10, 11, 12}) {
    EXPECT_EQ(names(walk_pages([&](const Page& p) { return g.find_vertices_by_label("Node", {}, p); }, limit)),
              numbered(0, 11, {5}))
        << "pages of " << limit;
  }
  // Pages of a label without vertices are empty.
  EXPECT_TRUE(g.find_vertices_by_label("Nobody", {}, {.limit = 5}).empty());
  EXPECT_TRUE(g.find_vertices_by_label("Nobody", {}, {.limit = 5, .after = v[0].id}).empty());
}

TEST_P(GraphConformance, PagesOfEdgesFirstMiddleLastAndEmpty) {
  auto& g = this->graph();
  const auto n = make_numbered(g);
  const auto& l = n.links;  // l[i] = n<i> -> n<i+1>
  using Edges = std::vector<Edge>;
  auto page = [&](const Page& p) { return g.find_edges_by_label("LINK", {}, p); };
  EXPECT_EQ(page({.limit = 4}), (Edges{l[0], l[1], l[2], l[3]}));
  EXPECT_EQ(page({.limit = 4, .after = l[3].id}), (Edges{l[4], l[5], l[6], l[7]}));
  EXPECT_EQ(page({.limit = 4, .after = l[7].id}), (Edges{l[8], l[9], l[10]}));
  EXPECT_EQ(page({.limit = 4, .after = l[10].id}), Edges{});
  EXPECT_EQ(page({.after = l[8].id}), (Edges{l[9], l[10]}));
  EXPECT_EQ(page({}), l);
  // nexts[0] was created between l[2] and l[3].
  EXPECT_EQ(page({.limit = 1, .after = n.nexts[0].id}), Edges{l[3]});
  // A deleted edge, and edges deleted with their vertex (n6 takes l[5] and l[6]).
  ASSERT_TRUE(g.delete_edge("LINK", l[2].id));
  ASSERT_TRUE(g.delete_vertex("Node", n.nodes[6].id));
  EXPECT_EQ(page({.limit = 2, .after = l[2].id}), (Edges{l[3], l[4]}));
  EXPECT_EQ(page({.limit = 2, .after = l[5].id}), (Edges{l[7], l[8]}));
  const Edges rest{l[0], l[1], l[3], l[4], l[7], l[8], l[9], l[10]};
  for (std::size_t limit : {1, 2, 3, 7, 8, 9}) {
    EXPECT_EQ(walk_pages(page, limit), rest) << "pages of " << limit;
  }
}

TEST_P(GraphConformance, PagesAfterAnyIdFollowIdOrder) {
  auto& g = this->graph();
  const auto n = make_numbered(g);
  const auto hub = node(g, "hub");
  for (const auto& v : n.nodes) link(g, hub, v, v.id < n.nodes[6].id ? "OUT" : "LINK");
  link(g, n.nodes[3], hub, "LINK");
  link(g, hub, hub, "LINK");
  const auto gone = node(g, "gone");
  const auto gone_link = link(g, hub, gone, "LINK");
  ASSERT_TRUE(g.delete_vertex("Node", gone.id));
  auto other = this->other_instance();
  ASSERT_NE(other, nullptr);
  std::vector<ElementId> foreign;
  for (int i = 0; i < 3; ++i) foreign.push_back(node(*other, fmt::format("f{}", i)).id);
  foreign.push_back(other->create_edge(foreign[0], foreign[1], "LINK").id);

  std::vector<ElementId> own{gone.id, gone_link.id, hub.id};
  for (const auto& v : n.nodes) own.push_back(v.id);
  for (const auto& r : n.robots) own.push_back(r.id);
  for (const auto& e : g.find_edges_by_label("LINK")) own.push_back(e.id);
  for (const auto& e : g.find_edges_by_label("OUT")) own.push_back(e.id);
  const auto afters = probe_afters(own, foreign);
  {
    SCOPED_TRACE("find_vertices_by_label");
    expect_pages_follow_the_contract([&](const Page& p) { return g.find_vertices_by_label("Node", {}, p); }, afters);
  }
  {
    SCOPED_TRACE("find_edges_by_label");
    expect_pages_follow_the_contract([&](const Page& p) { return g.find_edges_by_label("LINK", {}, p); }, afters);
  }
  for (auto direction : {Direction::out, Direction::in, Direction::both}) {
    SCOPED_TRACE(fmt::format("incident_edges {}", direction));
    expect_pages_follow_the_contract(
        [&](const Page& p) { return g.incident_edges(hub.id, {.direction = direction, .page = p}); }, afters);
    expect_pages_follow_the_contract(
        [&](const Page& p) {
          return g.incident_edges(hub.id, {.direction = direction, .edge_label = "LINK", .page = p});
        },
        afters);
  }
  for (int depth : {1, 2}) {
    SCOPED_TRACE(fmt::format("neighbors, depth {}", depth));
    expect_pages_follow_the_contract(
        [&](const Page& p) {
          return g.neighbors(n.nodes[3].id, {.direction = Direction::both, .max_depth = depth, .page = p});
        },
        afters);
  }
}

TEST_P(GraphConformance, PagedFiltersWithAndWithoutAnIndex) {
  auto& g = this->graph();
  const auto n = make_numbered(g);
  const auto& v = n.nodes;
  const auto& l = n.links;
  for (const bool indexed : {false, true}) {
    SCOPED_TRACE(indexed ? "indexed" : "unindexed");
    if (indexed) {
      ASSERT_TRUE(g.create_index("Node", "parity"));
      ASSERT_TRUE(g.create_index("LINK", "parity"));
    }
    auto even = [&](const Page& p) { return names(g.find_vertices_by_label("Node", {{"parity", 0}}, p)); };
    EXPECT_EQ(even({.limit = 2}), (Strings{"n0", "n2"}));
    EXPECT_EQ(even({.limit = 2, .after = v[2].id}), (Strings{"n4", "n6"}));
    // `after` an element the filter does not match: n3 is odd.
    EXPECT_EQ(even({.limit = 2, .after = v[3].id}), (Strings{"n4", "n6"}));
    EXPECT_EQ(even({.limit = 2, .after = v[8].id}), (Strings{"n10"}));
    EXPECT_EQ(even({.limit = 2, .after = v[10].id}), Strings{});
    EXPECT_EQ(even({.after = v[5].id}), (Strings{"n6", "n8", "n10"}));
    // A filter on two keys, one of them indexed.
    EXPECT_EQ(names(g.find_vertices_by_label("Node", {{"parity", 1}, {"name", "n7"}}, {.limit = 1, .after = v[1].id})),
              Strings{"n7"});
    // The typed value decides: parity 0.0 matches nothing.
    EXPECT_EQ(names(g.find_vertices_by_label("Node", {{"parity", 0.0}}, {.limit = 2})), Strings{});
    for (std::size_t limit : {1, 2, 4, 6, 7}) {
      EXPECT_EQ(names(walk_pages(
                    [&](const Page& p) {
                      return g.find_vertices_by_label("Node", {{"parity", 1}}, p);
                    },
                    limit)),
                (Strings{"n1", "n3", "n5", "n7", "n9", "n11"}))
          << "pages of " << limit;
    }
    // Edges: l[i] has parity i % 2.
    auto odd_links = [&](const Page& p) { return g.find_edges_by_label("LINK", {{"parity", 1}}, p); };
    EXPECT_EQ(odd_links({.limit = 2}), (std::vector{l[1], l[3]}));
    EXPECT_EQ(odd_links({.limit = 2, .after = l[4].id}), (std::vector{l[5], l[7]}));
    EXPECT_EQ(walk_pages(odd_links, 2), (std::vector{l[1], l[3], l[5], l[7], l[9]}));
  }
  // Writes under the index move elements in and out of the filtered pages.
  ASSERT_TRUE(g.update_vertex("Node", v[3].id, {{"parity", 0}}));
  ASSERT_TRUE(g.delete_vertex("Node", v[4].id));
  EXPECT_EQ(names(g.find_vertices_by_label("Node", {{"parity", 0}}, {.limit = 3, .after = v[2].id})),
            (Strings{"n3", "n6", "n8"}));
  EXPECT_EQ(names(g.find_vertices_by_label("Node", {{"parity", 0}}, {.limit = 3, .after = v[4].id})),
            (Strings{"n6", "n8", "n10"}));
}

TEST_P(GraphConformance, PagesOfIncidentEdges) {
  auto& g = this->graph();
  const auto hub = node(g, "hub");
  const auto a = node(g, "a");
  const auto b = node(g, "b");
  // Out-, in-edges and self-loops of two labels, interleaved in id order.
  std::vector<Edge> e;
  e.push_back(link(g, hub, a));            // 0 out
  e.push_back(link(g, a, hub));            // 1 in
  e.push_back(link(g, hub, hub));          // 2 loop
  e.push_back(link(g, hub, b, "OTHER"));   // 3 out
  e.push_back(link(g, b, hub));            // 4 in
  e.push_back(link(g, hub, a));            // 5 out, parallel to 0
  e.push_back(link(g, a, b));              // 6 not the hub's
  e.push_back(link(g, b, hub, "OTHER"));   // 7 in
  e.push_back(link(g, hub, hub, "OTHER")); // 8 loop
  e.push_back(link(g, hub, b));            // 9 out
  using Edges = std::vector<Edge>;
  auto page = [&](Direction direction, const Page& p) {
    return g.incident_edges(hub.id, {.direction = direction, .page = p});
  };
  EXPECT_EQ(page(Direction::both, {.limit = 3}), (Edges{e[0], e[1], e[2]}));
  EXPECT_EQ(page(Direction::both, {.limit = 3, .after = e[2].id}), (Edges{e[3], e[4], e[5]}));
  EXPECT_EQ(page(Direction::both, {.limit = 3, .after = e[5].id}), (Edges{e[7], e[8], e[9]}));
  EXPECT_EQ(page(Direction::both, {.limit = 3, .after = e[9].id}), Edges{});
  EXPECT_EQ(page(Direction::both, {.after = e[6].id}), (Edges{e[7], e[8], e[9]}));
  EXPECT_EQ(page(Direction::out, {.limit = 2, .after = e[0].id}), (Edges{e[2], e[3]}));
  EXPECT_EQ(page(Direction::in, {.limit = 2, .after = e[2].id}), (Edges{e[4], e[7]}));
  EXPECT_EQ(g.incident_edges(hub.id, {.edge_label = "OTHER", .page = {.limit = 2}}), (Edges{e[3], e[7]}));
  EXPECT_EQ(g.incident_edges(hub.id, {.edge_label = "OTHER", .page = {.limit = 2, .after = e[3].id}}),
            (Edges{e[7], e[8]}));
  // `after` a deleted edge.
  ASSERT_TRUE(g.delete_edge("LINK", e[4].id));
  EXPECT_EQ(page(Direction::both, {.limit = 2, .after = e[4].id}), (Edges{e[5], e[7]}));
  EXPECT_EQ(page(Direction::in, {.limit = 2, .after = e[1].id}), (Edges{e[2], e[7]}));
  const Edges both{e[0], e[1], e[2], e[3], e[5], e[7], e[8], e[9]};
  for (std::size_t limit : {1, 2, 3, 7, 8}) {
    EXPECT_EQ(walk_pages([&](const Page& p) { return page(Direction::both, p); }, limit), both) << "pages of " << limit;
  }
}

TEST_P(GraphConformance, PagesOfNeighbors) {
  auto& g = this->graph();
  const auto n = make_numbered(g);
  const auto& v = n.nodes;
  const auto s = node(g, "s");
  // s -> n0, n2, n4, ..., n10 (created in reverse order: discovery order is not id order);
  // the LINK chain then reaches every n<i> within two hops.
  for (int i = 10; i >= 0; i -= 2) link(g, s, v[i], "STAR");
  auto page = [&](int depth, const Page& p) { return names(g.neighbors(s.id, {.max_depth = depth, .page = p})); };
  EXPECT_EQ(page(1, {.limit = 2}), (Strings{"n0", "n2"}));
  EXPECT_EQ(page(1, {.limit = 2, .after = v[2].id}), (Strings{"n4", "n6"}));
  EXPECT_EQ(page(1, {.limit = 2, .after = v[7].id}), (Strings{"n8", "n10"}));
  EXPECT_EQ(page(1, {.limit = 2, .after = v[10].id}), Strings{});
  EXPECT_EQ(page(1, {.after = v[5].id}), (Strings{"n6", "n8", "n10"}));
  // Depth 2 adds the odd ones; the page applies to the whole de-duplicated result.
  EXPECT_EQ(page(2, {.limit = 4}), numbered(0, 3));
  EXPECT_EQ(page(2, {.limit = 4, .after = v[3].id}), numbered(4, 7));
  EXPECT_EQ(page(2, {.limit = 4, .after = v[7].id}), numbered(8, 11));
  // The start itself is never a neighbour, also as `after`: s sorts after every n<i>.
  EXPECT_EQ(page(2, {.limit = 4, .after = s.id}), Strings{});
  // `after` a deleted neighbour (n5 was reached only through it).
  ASSERT_TRUE(g.delete_vertex("Node", v[4].id));
  EXPECT_EQ(page(2, {.limit = 3, .after = v[4].id}), numbered(6, 8));
  for (std::size_t limit : {1, 2, 5, 10, 11}) {
    EXPECT_EQ(names(walk_pages([&](const Page& p) { return g.neighbors(s.id, {.max_depth = 2, .page = p}); }, limit)),
              numbered(0, 11, {4, 5}))
        << "pages of " << limit;
  }
}

/// Writes between the pages of one walk: each page starts after the last id of the one before,
/// whatever happened since. Elements inserted meanwhile (higher ids) come at the end, deleted
/// ones no longer show, and a deleted `after` still works.
TEST_P(GraphConformance, PagesBetweenWritesSkipNothing) {
  auto& g = this->graph();
  const auto n = make_numbered(g);
  Strings walked;
  Page page{.limit = 2};
  for (int round = 0; round < 100; ++round) {
    const auto chunk = g.find_vertices_by_label("Node", {}, page);
    if (chunk.empty()) break;
    for (const auto& v : chunk) walked.push_back(name_of(v));
    page.after = chunk.back().id;
    if (round < 3) {
      // Round r deletes the page's last vertex (the next `after`) and n<10 - r>, not reached yet,
      // and adds x<r>.
      ASSERT_TRUE(g.delete_vertex("Node", chunk.back().id));
      ASSERT_TRUE(g.delete_vertex("Node", n.nodes[static_cast<std::size_t>(10 - round)].id));
      node(g, fmt::format("x{}", round));
    }
  }
  // Pages: n0 n1 | n2 n3 | n4 n5 | n6 n7 | n11 x0 | x1 x2 | (empty).
  EXPECT_EQ(walked, (Strings{"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n11", "x0", "x1", "x2"}));
}

/// Lets writer threads take turns with a reader that walks pages: after each page the reader
/// fetches, every writer gets a turn (writing an element while the walk's budget lasts) and the
/// reader waits until one of them has written before it fetches the next page. So writes land
/// between the pages of every walk, and the other writers' writes overlap the reader's next call.
class PageWritePacer {
 public:
  /// Reader: starts a walk whose pages may see `writes` more writes.
  void start_walk(int writes) {
    std::lock_guard lock(mutex_);
    budget_ = writes;
  }
  /// Reader: a page was fetched; gives the writers a turn and, while the budget lasts, waits for
  /// one write (at most 10 s, should every writer have failed).
  void page_fetched() {
    std::unique_lock lock(mutex_);
    ++pages_;
    const long before = writes_;
    changed_.notify_all();
    if (budget_ > 0) changed_.wait_for(lock, std::chrono::seconds(10), [&] { return writes_ != before; });
  }
  /// Reader: no more turns.
  void finish() {
    std::lock_guard lock(mutex_);
    done_ = true;
    changed_.notify_all();
  }
  enum class Turn { write, skip, stop };
  /// Writer: waits for the next page after the one it saw last.
  Turn next_turn(long& seen) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return done_ || pages_ != seen; });
    seen = pages_;
    if (done_) return Turn::stop;
    if (budget_ == 0) return Turn::skip;
    --budget_;
    return Turn::write;
  }
  /// Writer: one write done.
  void wrote() {
    std::lock_guard lock(mutex_);
    ++writes_;
    changed_.notify_all();
  }
  [[nodiscard]] long writes() {
    std::lock_guard lock(mutex_);
    return writes_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  long pages_ = 0;
  long writes_ = 0;
  int budget_ = 0;
  bool done_ = false;
};

/// One thread walks pages of vertices, edges and a hub's incident edges, again and again, while
/// other threads insert vertices with edges to the hub and delete vertices present at the start
/// (the "doomed" ones), paced so that writes happen during every walk. Each walk must give its
/// elements in strictly ascending id order (so none twice) and every element present throughout.
TEST_P(GraphConformance, PagingIsStableUnderConcurrentWrites) {
  auto& g = this->graph();
  constexpr int kSteady = 120;
  constexpr int kWriters = 3;
  constexpr int kWritesPerWalk = 12;
  constexpr int kWalks = 6;
  const auto hub = node(g, "hub", "Hub");
  std::set<ElementId> steady_vertices, steady_edges, steady_hub_edges;
  std::vector<Vertex> doomed;
  for (int i = 0; i < kSteady; ++i) {
    const auto v = node(g, fmt::format("s{}", i));
    const auto e = link(g, hub, v);
    if (i % 4 == 3) {
      doomed.push_back(v);  // deleted (with e) while the pages are walked
      continue;
    }
    steady_vertices.insert(v.id);
    steady_edges.insert(e.id);
    steady_hub_edges.insert(e.id);
  }
  // The hub's edges of another label, present throughout: pages of "LINK" must skip them.
  for (int i = 0; i < 10; ++i) steady_hub_edges.insert(link(g, hub, hub, "SELF").id);

  PageWritePacer pacer;
  std::atomic<int> inserted{0};
  std::vector<std::exception_ptr> errors(kWriters);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      try {
        std::size_t next_doomed = static_cast<std::size_t>(w);
        long seen = 0;
        for (int i = 0;; ++i) {
          const auto turn = pacer.next_turn(seen);
          if (turn == PageWritePacer::Turn::stop) break;
          if (turn == PageWritePacer::Turn::write) {
            link(g, node(g, fmt::format("w{}_{}", w, i)), hub);
            ++inserted;
            if (next_doomed < doomed.size()) {
              g.delete_vertex("Node", doomed[next_doomed].id);
              next_doomed += kWriters;
            }
            pacer.wrote();
          }
        }
        for (; next_doomed < doomed.size(); next_doomed += kWriters) g.delete_vertex("Node", doomed[next_doomed].id);
      } catch (...) {
        errors[static_cast<std::size_t>(w)] = std::current_exception();
      }
    });
  }
  auto paced = [&pacer](auto fetch) {
    return [&pacer, fetch](const Page& p) {
      auto page = fetch(p);
      pacer.page_fetched();
      return page;
    };
  };
  auto check_walk = [](const auto& walked, const std::set<ElementId>& steady, std::string_view what) {
    std::set<ElementId> seen;
    for (std::size_t i = 0; i < walked.size(); ++i) {
      if (i > 0) {
        EXPECT_LT(walked[i - 1].id, walked[i].id) << what << ": not ascending at " << i;
      }
      seen.insert(walked[i].id);
    }
    for (const auto& id : steady) EXPECT_TRUE(seen.contains(id)) << what << ": skipped " << id.str();
  };
  std::vector<long> writes_per_walk;
  for (int walk = 0; walk < kWalks; ++walk) {
    SCOPED_TRACE(fmt::format("walk {}", walk));
    const std::size_t limit = 3 + static_cast<std::size_t>(walk);
    const long before = pacer.writes();
    pacer.start_walk(kWritesPerWalk);
    check_walk(walk_pages(paced([&](const Page& p) { return g.find_vertices_by_label("Node", {}, p); }), limit),
               steady_vertices, "find_vertices_by_label");
    pacer.start_walk(kWritesPerWalk);
    check_walk(walk_pages(paced([&](const Page& p) { return g.find_edges_by_label("LINK", {}, p); }), limit),
               steady_edges, "find_edges_by_label");
    pacer.start_walk(kWritesPerWalk);
    check_walk(walk_pages(paced([&](const Page& p) { return g.incident_edges(hub.id, {.page = p}); }), limit),
               steady_hub_edges, "incident_edges");
    writes_per_walk.push_back(pacer.writes() - before);
  }
  pacer.finish();
  for (auto& t : writers) t.join();
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  for (const long writes : writes_per_walk) EXPECT_GT(writes, 0) << "a walk saw no concurrent write";
  // The steady elements are still there, the doomed ones gone, the inserted ones all present.
  for (const auto& id : steady_vertices) EXPECT_TRUE(g.find_vertex(id));
  for (const auto& v : doomed) EXPECT_FALSE(g.find_vertex(v.id));
  EXPECT_EQ(g.count_vertices("Node"), static_cast<std::int64_t>(steady_vertices.size()) + inserted.load());
  EXPECT_EQ(g.count_vertices("Hub"), 1);
}

// NOLINTEND(readability-function-cognitive-complexity)

}  // namespace propgraph::conformance
