// Conformance suite fixture: the GraphConformance value-parameterized test (its parameter, a
// Backend, names the backend and makes its instances) and the helpers its tests share
// (make_people, node, link, render, names, ids_of, ...). The tests live in conformance_suite.hpp
// and the section headers it includes; see there for how a backend runs them.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "propgraph/errors.hpp"
#include "propgraph/fmt.hpp"
#include "propgraph/model.hpp"
#include "propgraph/operations.hpp"
#include "propgraph/options.hpp"

// Readable GoogleTest failure messages for the model types (found by argument-dependent lookup).
namespace propgraph {
inline void PrintTo(const ElementId& v, std::ostream* os) { *os << fmt::format("{}", v); }
inline void PrintTo(const Value& v, std::ostream* os) { *os << fmt::format("{}", v); }
inline void PrintTo(const Properties& v, std::ostream* os) { *os << fmt::format("{}", v); }
inline void PrintTo(const Vertex& v, std::ostream* os) { *os << fmt::format("{}", v); }
inline void PrintTo(const Edge& v, std::ostream* os) { *os << fmt::format("{}", v); }
inline void PrintTo(const Path& v, std::ostream* os) { *os << fmt::format("{}", v); }
inline void PrintTo(const Degree& v, std::ostream* os) { *os << fmt::format("{}", v); }
}  // namespace propgraph

namespace propgraph::conformance {

// -- describing results by vertex name ------------------------------------------------------

/// The vertex's "name" property, or its id when it has none.
inline std::string name_of(const Vertex& v) {
  if (const auto* name = v.properties["name"].get_if<std::string>()) return *name;
  return std::string(v.id.str());
}

inline std::vector<std::string> names(const std::vector<Vertex>& vertices) {
  std::vector<std::string> out;
  for (const auto& v : vertices) out.push_back(name_of(v));
  return out;
}

inline std::vector<std::string> names(const std::vector<PageRankScore>& scores) {
  std::vector<std::string> out;
  for (const auto& s : scores) out.push_back(name_of(s.vertex));
  return out;
}

template <typename T>
std::vector<ElementId> ids_of(const std::vector<T>& elements) {
  std::vector<ElementId> out;
  for (const auto& e : elements) out.push_back(e.id);
  return out;
}

/// "Alice -FOLLOWS-> Charlie <-KNOWS- Bob": each edge drawn in its real direction; an edge that
/// does not join its neighbours in the path shows as "?LABEL?".
inline std::string render(const Path& path) {
  if (path.vertices.size() != path.edges.size() + 1) {
    return fmt::format("malformed path: {} vertices, {} edges", path.vertices.size(), path.edges.size());
  }
  std::string out = name_of(path.vertices.front());
  for (std::size_t i = 0; i < path.edges.size(); ++i) {
    const auto& e = path.edges[i];
    const auto& here = path.vertices[i].id;
    const auto& next = path.vertices[i + 1].id;
    if (e.from == here && e.to == next) {
      out += fmt::format(" -{}-> ", e.label);
    } else if (e.to == here && e.from == next) {
      out += fmt::format(" <-{}- ", e.label);
    } else {
      out += fmt::format(" ?{}? ", e.label);
    }
    out += name_of(path.vertices[i + 1]);
  }
  return out;
}

inline std::vector<std::string> render(const std::vector<Path>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(render(p));
  return out;
}

inline std::vector<std::string> render(const std::vector<Cycle>& cycles) {
  std::vector<std::string> out;
  for (const auto& c : cycles) out.push_back(render(c.path));
  return out;
}

/// "Bob@1<Alice": name, depth and the parent's name ("Alice@0" for a visit without parent).
inline std::vector<std::string> render(const std::vector<Visit>& visits) {
  std::vector<std::string> out;
  for (const auto& v : visits) {
    std::string text = fmt::format("{}@{}", name_of(v.vertex), v.depth);
    if (v.parent) {
      std::string parent = "?";
      parent += v.parent->str();
      for (const auto& earlier : visits) {
        if (earlier.vertex.id == *v.parent) parent = name_of(earlier.vertex);
      }
      text += "<" + parent;
    }
    out.push_back(std::move(text));
  }
  return out;
}

/// "0:Alice,Bob": position id and member names.
inline std::vector<std::string> render(const std::vector<Component>& components) {
  std::vector<std::string> out;
  for (const auto& c : components) {
    out.push_back(fmt::format("{}:{}", c.id, fmt::join(names(c.vertices), ",")));
  }
  return out;
}

inline double score_sum(const std::vector<PageRankScore>& scores) {
  double sum = 0;
  for (const auto& s : scores) sum += s.score;
  return sum;
}

// -- graph builders -------------------------------------------------------------------------

/// The design's reference fixture, created in this order (so ids ascend in this order):
/// Person Alice 30, Bob 25, Charlie 28, Dave 35; KNOWS Alice->Bob 2020, Bob->Charlie 2021,
/// Charlie->Dave 2022; FOLLOWS Alice->Charlie 2019.
struct People {
  Vertex alice, bob, charlie, dave;
  Edge alice_knows_bob, bob_knows_charlie, charlie_knows_dave, alice_follows_charlie;
};

inline People make_people(GraphOperations& g) {
  People p;
  p.alice = g.create_vertex("Person", {{"name", "Alice"}, {"age", 30}});
  p.bob = g.create_vertex("Person", {{"name", "Bob"}, {"age", 25}});
  p.charlie = g.create_vertex("Person", {{"name", "Charlie"}, {"age", 28}});
  p.dave = g.create_vertex("Person", {{"name", "Dave"}, {"age", 35}});
  p.alice_knows_bob = g.create_edge(p.alice.id, p.bob.id, "KNOWS", {{"since", 2020}});
  p.bob_knows_charlie = g.create_edge(p.bob.id, p.charlie.id, "KNOWS", {{"since", 2021}});
  p.charlie_knows_dave = g.create_edge(p.charlie.id, p.dave.id, "KNOWS", {{"since", 2022}});
  p.alice_follows_charlie = g.create_edge(p.alice.id, p.charlie.id, "FOLLOWS", {{"since", 2019}});
  return p;
}

inline Vertex node(GraphOperations& g, std::string_view name, std::string_view label = "Node") {
  return g.create_vertex(label, {{"name", std::string(name)}});
}

inline Edge link(GraphOperations& g, const Vertex& from, const Vertex& to, std::string_view label = "LINK",
                 const Properties& properties = {}) {
  return g.create_edge(from.id, to.id, label, properties);
}

/// Vertices of every label: the members of all weak components.
inline std::size_t total_vertices(GraphOperations& g) {
  std::size_t n = 0;
  for (const auto& c : g.connected_components()) n += c.vertices.size();
  return n;
}

/// Edges of every label: the out-degrees of all vertices.
inline std::int64_t total_edges(GraphOperations& g) {
  std::int64_t n = 0;
  for (const auto& c : g.connected_components()) {
    for (const auto& v : c.vertices) {
      if (auto d = g.degree_centrality(v.id, {.direction = Direction::out})) n += d->out;
    }
  }
  return n;
}

/// A graph name no other test run uses: random per process, counted within it.
inline std::string unique_graph_name() {
  static const std::uint64_t salt = [] {
    std::random_device rd;
    return (std::uint64_t{rd()} << 32) ^ rd();
  }();
  static std::atomic<unsigned> counter{0};
  return fmt::format("conformance_{:016x}_{}", salt, counter++);
}

// -- observing the whole graph ---------------------------------------------------------------

/// Everything a client can observe of the bound graph's elements: the totals, every vertex and
/// edge (label by label, ascending id) and the indexes. Equal states before and after a call
/// prove that the call had no effect.
struct GraphState {
  std::int64_t vertex_count = 0;
  std::int64_t edge_count = 0;
  std::vector<Vertex> vertices;
  std::vector<Edge> edges;
  std::vector<IndexInfo> indexes;
  friend bool operator==(const GraphState&, const GraphState&) = default;
};

inline GraphState state_of(GraphOperations& g) {
  GraphState state{.vertex_count = g.count_vertices(), .edge_count = g.count_edges()};
  for (const auto& label : g.vertex_labels()) {
    for (auto& v : g.find_vertices_by_label(label)) state.vertices.push_back(std::move(v));
  }
  for (const auto& label : g.edge_labels()) {
    for (auto& e : g.find_edges_by_label(label)) state.edges.push_back(std::move(e));
  }
  state.indexes = g.indexes();
  return state;
}

inline void PrintTo(const GraphState& s, std::ostream* os) {
  *os << fmt::format("{} vertices, {} edges\n", s.vertex_count, s.edge_count);
  for (const auto& v : s.vertices) *os << fmt::format("  {}\n", v);
  for (const auto& e : s.edges) *os << fmt::format("  {}\n", e);
  for (const auto& i : s.indexes) *os << fmt::format("  index {}.{}{}\n", i.label, i.key, i.unique ? " unique" : "");
}

// -- pages -------------------------------------------------------------------------------------

/// The contract's definition of a page, applied to an unpaged ascending-id result: the elements
/// whose id sorts after page.after (ElementId's shortlex order), at most page.limit of them
/// (0: no limit).
template <typename T>
std::vector<T> page_of(const std::vector<T>& all, const Page& page) {
  std::vector<T> out;
  for (const auto& element : all) {
    if (page.after && !(*page.after < element.id)) continue;
    if (page.limit != 0 && out.size() == page.limit) break;
    out.push_back(element);
  }
  return out;
}

/// Walks a paged call from the start, `limit` results a page, passing the last id of each page
/// as the next page's `after` until a page comes back empty; returns the pages joined. Each page
/// must hold at most `limit` results.
template <typename Fetch>
auto walk_pages(Fetch fetch, std::size_t limit) -> decltype(fetch(Page{})) {
  decltype(fetch(Page{})) all;
  Page page{.limit = limit};
  for (int pages = 0; pages < 1'000'000; ++pages) {
    auto chunk = fetch(page);
    EXPECT_LE(chunk.size(), limit) << "page " << pages;
    if (chunk.empty()) return all;
    page.after = chunk.back().id;
    all.insert(all.end(), chunk.begin(), chunk.end());
  }
  ADD_FAILURE() << "the pages never ended";
  return all;
}

// -- errors ------------------------------------------------------------------------------------

/// Expects `call` to throw `E` whose message names every string of `parts`.
template <typename E, typename Call>
void expect_error_naming(Call&& call, const std::vector<std::string>& parts) {
  try {
    call();
  } catch (const E& e) {
    const std::string message = e.what();
    for (const auto& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "\"" << message << "\" does not name " << part;
    }
    return;
  }
  ADD_FAILURE() << "no exception";
}

// -- the suite ------------------------------------------------------------------------------

/// One backend the suite runs against: the parameter of GraphConformance.
struct Backend {
  /// The last part of every test name (`Memory/GraphConformance.<Test>/<name>`): letters, digits
  /// and '_' only, unique within one INSTANTIATE_TEST_SUITE_P.
  std::string name;
  /// A new instance bound to a new, empty graph. Instances from successive calls must not share
  /// elements: the suite looks up ids of one instance in another. nullptr skips the test (for
  /// example when a database server is unreachable).
  std::function<std::unique_ptr<GraphOperations>()> make;
};

/// The Backend of a factory type, a class with `static std::unique_ptr<GraphOperations> make()`.
template <typename Factory>
Backend backend(std::string name) {
  return Backend{.name = std::move(name), .make = [] { return Factory::make(); }};
}

/// GetParam() in GoogleTest's output (--gtest_list_tests, failure messages): the backend's name.
inline void PrintTo(const Backend& b, std::ostream* os) { *os << b.name; }

/// The name generator of every instantiation: test names end in the backend's name.
inline std::string backend_name(const ::testing::TestParamInfo<Backend>& info) { return info.param.name; }

class GraphConformance : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    graph_ = GetParam().make();
    if (!graph_) GTEST_SKIP() << "backend unavailable";
  }

  GraphOperations& graph() { return *graph_; }
  /// A second, independent instance from the same backend.
  std::unique_ptr<GraphOperations> other_instance() { return GetParam().make(); }

 private:
  std::unique_ptr<GraphOperations> graph_;
};

using Strings = std::vector<std::string>;

}  // namespace propgraph::conformance
