#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/erdos_renyi_generator.hpp>
#include <boost/graph/rmat_graph_generator.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <fmt/format.h>

#include "prefetch.hpp"
#include "propgraph/errors.hpp"
#include "propgraph/generate.hpp"
#include "propgraph/operations.hpp"

namespace propgraph::generate {

namespace {
// The generators only read the graph type's traits (directedness, size types).
using TraitsGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
using Engine = boost::random::mt19937_64;
}  // namespace

EdgeList random_graph(std::uint32_t vertices, std::uint64_t expected_edges, std::uint64_t seed) {
  EdgeList list{vertices, {}};
  if (vertices < 2 || expected_edges == 0) return list;
  const double pairs = static_cast<double>(vertices) * static_cast<double>(vertices - 1);
  const double p = std::min(1.0, static_cast<double>(expected_edges) / pairs);
  Engine engine(seed);
  using It = boost::sorted_erdos_renyi_iterator<Engine, TraitsGraph>;
  list.edges.reserve(expected_edges + expected_edges / 16 + 16);
  for (It it(engine, vertices, p, /*loops=*/false), end; it != end; ++it) {
    list.edges.emplace_back(static_cast<std::uint32_t>(it->first), static_cast<std::uint32_t>(it->second));
  }
  return list;
}

EdgeList rmat_graph(std::uint32_t vertices, std::uint64_t edges, std::uint64_t seed, const RmatParameters& rp) {
  const double sum = rp.a + rp.b + rp.c + rp.d;
  if (std::abs(sum - 1.0) > 1e-9 || rp.a < 0 || rp.b < 0 || rp.c < 0 || rp.d < 0) {
    throw InvalidArgument(
        fmt::format("rmat_graph: probabilities a={} b={} c={} d={} must be >= 0 and sum to 1", rp.a, rp.b, rp.c, rp.d));
  }
  if (edges > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    throw InvalidArgument(fmt::format("rmat_graph: {} edges exceed the generator's limit of 2^31 - 1", edges));
  }
  EdgeList list{vertices, {}};
  if (vertices == 0 || edges == 0) return list;
  Engine engine(seed);
  using It = boost::rmat_iterator<Engine, TraitsGraph>;
  list.edges.reserve(edges);
  It it(engine, vertices, edges, rp.a, rp.b, rp.c, rp.d);
  for (std::uint64_t i = 0; i < edges; ++i, ++it) {
    list.edges.emplace_back(static_cast<std::uint32_t>(it->first), static_cast<std::uint32_t>(it->second));
  }
  return list;
}

std::vector<ElementId> load(GraphOperations& graph, const EdgeList& list, const LoadOptions& options) {
  const std::size_t batch = std::max<std::size_t>(options.batch, 1);
  std::vector<ElementId> ids;
  ids.reserve(list.vertex_count);
  std::vector<NewVertex> vertices;
  for (std::uint32_t first = 0; first < list.vertex_count;) {
    const std::uint32_t last =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(list.vertex_count, std::uint64_t{first} + batch));
    vertices.clear();
    for (std::uint32_t i = first; i < last; ++i) {
      vertices.push_back(
          NewVertex{options.vertex_label, options.vertex_properties ? options.vertex_properties(i) : Properties{}});
    }
    auto created = graph.create_vertices(vertices);
    ids.insert(ids.end(), std::make_move_iterator(created.begin()), std::make_move_iterator(created.end()));
    first = last;
  }
  std::vector<NewEdge> edges;
  for (std::uint64_t first = 0; first < list.edges.size();) {
    const std::uint64_t last = std::min<std::uint64_t>(list.edges.size(), first + batch);
    edges.clear();
    for (std::uint64_t i = first; i < last; ++i) {
      if (i + 16 < last) {  // the ids of a random edge list are all over the table
        const auto [ahead_from, ahead_to] = list.edges[i + 16];
        if (ahead_from < ids.size()) propgraph::detail::prefetch(ids.data() + ahead_from);
        if (ahead_to < ids.size()) propgraph::detail::prefetch(ids.data() + ahead_to);
      }
      const auto [from, to] = list.edges[i];
      edges.push_back(NewEdge{ids.at(from), ids.at(to), options.edge_label,
                              options.edge_properties ? options.edge_properties(i) : Properties{}});
    }
    graph.create_edges(edges);
    first = last;
  }
  return ids;
}

}  // namespace propgraph::generate
