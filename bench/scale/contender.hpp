// The contenders of propgraph-scale: graph implementations that load the same edge list and
// answer the same questions, so that their times, memory and results compare directly.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "propgraph/generate.hpp"

namespace propgraph::scale {

/// The whole-graph operations every contender is timed on.
enum class Operation { bfs, components, page_rank, shortest_path };
inline constexpr std::array kOperations{Operation::bfs, Operation::components, Operation::page_rank,
                                        Operation::shortest_path};

/// "bfs", "components", "page_rank", "shortest_path": the names of --only and of the JSON rows.
std::string_view operation_name(Operation op);

/// page_rank's parameters, the same for every contender that lets them be chosen.
inline constexpr int kPageRankIterations = 20;
inline constexpr double kPageRankDamping = 0.85;

/// Where bfs and shortest_path start (the vertex of highest out-degree, lowest number on ties)
/// and where shortest_path ends (a farthest vertex bfs reaches from there, so a path exists).
struct PathQuery {
  std::uint32_t source = 0;
  std::uint32_t target = 0;
  std::uint64_t source_out_degree = 0;
  std::uint64_t target_depth = 0;  // hops from source to target
};

/// The query of `list` (a breadth-first search with Boost.Graph on a CSR copy of it).
PathQuery choose_query(const generate::EdgeList& list);

/// One graph implementation. Results are compared as text: every contender states the same
/// facts in the same words (the result_* helpers below), so equal strings mean agreement.
class Contender {
 public:
  virtual ~Contender() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// Why this build cannot run it ("not built with igraph"), or nullopt.
  [[nodiscard]] virtual std::optional<std::string> missing() const { return std::nullopt; }
  /// The library version it was built against.
  [[nodiscard]] virtual std::string version() const = 0;
  /// Whether it runs `op` at all.
  [[nodiscard]] virtual bool runs(Operation op) const = 0;
  /// How it runs `op` where that differs from the others (empty when it does not).
  [[nodiscard]] virtual std::string note(Operation /*op*/) const { return {}; }
  /// Builds its graph from `list` (vertices 0..n-1, directed edges), replacing any earlier one.
  virtual void load(const generate::EdgeList& list) = 0;
  /// Drops the graph and the results it holds.
  virtual void clear() = 0;
  /// Bytes the loaded graph holds by the library's own accounting, where it has one.
  [[nodiscard]] virtual std::optional<double> library_bytes() const { return std::nullopt; }
  /// Bytes the contender keeps beside its graph only to ask its questions (propgraph: the ids
  /// of the vertices, which the others number 0..n-1): left out of the graph's memory.
  [[nodiscard]] virtual double harness_bytes() const { return 0; }
  /// Runs `op` and keeps its result: the timed part.
  virtual void run(Operation op, const PathQuery& query) = 0;
  /// The last result of `op`, in the words of the result_* helpers. Not timed.
  [[nodiscard]] virtual std::string result(Operation op) const = 0;
};

// -- results in common words --------------------------------------------------------------------

/// bfs: vertices reached (the start included) and the depth of the deepest one.
std::string result_bfs(std::uint64_t reached, std::uint64_t depth);
/// connected_components (weak): how many.
std::string result_components(std::uint64_t count);
/// page_rank: the vertex numbers of the top five scores (highest first, ties by number).
std::string result_page_rank(const std::vector<std::uint32_t>& top);
/// shortest_path: its length in edges, or that there is none.
std::string result_path(std::optional<std::uint64_t> length);
/// The top five vertex numbers of `scores` (highest first, ties by number).
std::vector<std::uint32_t> top_five(const double* scores, std::size_t n);

// -- the contenders ------------------------------------------------------------------------------

/// Boost.Graph's compressed_sparse_row_graph and Boost's own algorithms.
std::unique_ptr<Contender> make_boost_csr();
/// igraph (igraph_create, bfs_simple, connected_components, pagerank, get_shortest_path), or a
/// contender that is missing when the build has no igraph.
std::unique_ptr<Contender> make_igraph();
/// SuiteSparse:GraphBLAS on one thread with LAGraph's algorithms written on GrB calls, or a
/// contender that is missing when the build has no GraphBLAS.
std::unique_ptr<Contender> make_graphblas();
/// A contender this build does not have: every cell reads "n/a".
std::unique_ptr<Contender> make_missing(std::string name, std::string why);

}  // namespace propgraph::scale
