// igraph 0.10 as a contender: its C API on an igraph_t built from the edge list.
#include <igraph.h>
#include <omp.h>

#include <stdexcept>

#include <fmt/format.h>

#include "contender.hpp"

namespace propgraph::scale {

namespace {

void check(igraph_error_t code, const char* what) {
  if (code != IGRAPH_SUCCESS)
    throw std::runtime_error(fmt::format("igraph: {} failed: {}", what, igraph_strerror(code)));
}

/// An igraph_vector_int_t that frees itself.
struct IntVector {
  igraph_vector_int_t v{};
  IntVector() { check(igraph_vector_int_init(&v, 0), "igraph_vector_int_init"); }
  ~IntVector() { igraph_vector_int_destroy(&v); }
  IntVector(const IntVector&) = delete;
  IntVector& operator=(const IntVector&) = delete;
  [[nodiscard]] igraph_integer_t size() const { return igraph_vector_int_size(&v); }
};

class Igraph final : public Contender {
 public:
  Igraph() {
    // Errors come back as codes (thrown above) instead of aborting the process.
    igraph_set_error_handler(igraph_error_handler_printignore);
    // igraph's PRPACK solver runs OpenMP loops: one thread, like every other contender.
    omp_set_num_threads(1);
    check(igraph_vector_init(&ranks_, 0), "igraph_vector_init");
  }
  ~Igraph() override {
    clear();
    igraph_vector_destroy(&ranks_);
  }
  Igraph(const Igraph&) = delete;
  Igraph& operator=(const Igraph&) = delete;

  [[nodiscard]] std::string_view name() const override { return "igraph"; }
  [[nodiscard]] std::string version() const override {
    const char* text = nullptr;
    igraph_version(&text, nullptr, nullptr, nullptr);
    return text;
  }
  [[nodiscard]] bool runs(Operation) const override { return true; }
  [[nodiscard]] std::string note(Operation op) const override {
    if (op == Operation::page_rank)
      return "igraph_pagerank (PRPACK): solved to convergence, it takes no iteration count";
    return {};
  }

  void load(const generate::EdgeList& list) override {
    clear();
    // igraph's input: one vector of endpoints, two per edge.
    IntVector edges;
    check(igraph_vector_int_resize(&edges.v, static_cast<igraph_integer_t>(2 * list.edges.size())),
          "igraph_vector_int_resize");
    igraph_integer_t* at = VECTOR(edges.v);
    for (const auto& [from, to] : list.edges) {
      *at++ = from;
      *at++ = to;
    }
    check(igraph_create(&graph_, &edges.v, list.vertex_count, IGRAPH_DIRECTED), "igraph_create");
    loaded_ = true;
  }

  void clear() override {
    if (loaded_) igraph_destroy(&graph_);
    loaded_ = false;
  }

  void run(Operation op, const PathQuery& query) override {
    switch (op) {
      case Operation::bfs:
        check(igraph_bfs_simple(&graph_, query.source, IGRAPH_OUT, &order_.v, &layers_.v, &parents_.v),
              "igraph_bfs_simple");
        break;
      case Operation::components:
        check(igraph_connected_components(&graph_, &membership_.v, &sizes_.v, &components_, IGRAPH_WEAK),
              "igraph_connected_components");
        break;
      case Operation::page_rank:
        check(igraph_pagerank(&graph_, IGRAPH_PAGERANK_ALGO_PRPACK, &ranks_, nullptr, igraph_vss_all(), IGRAPH_DIRECTED,
                              kPageRankDamping, nullptr, nullptr),
              "igraph_pagerank");
        break;
      case Operation::shortest_path:
        check(igraph_get_shortest_path(&graph_, &path_vertices_.v, &path_edges_.v, query.source, query.target,
                                       IGRAPH_OUT),
              "igraph_get_shortest_path");
        break;
    }
  }

  [[nodiscard]] std::string result(Operation op) const override {
    switch (op) {
      case Operation::bfs:
        // layers holds the start of each layer in `order` plus one past the last.
        return result_bfs(static_cast<std::uint64_t>(order_.size()),
                          layers_.size() < 2 ? 0 : static_cast<std::uint64_t>(layers_.size() - 2));
      case Operation::components: return result_components(static_cast<std::uint64_t>(components_));
      case Operation::page_rank:
        return result_page_rank(top_five(VECTOR(ranks_), static_cast<std::size_t>(igraph_vector_size(&ranks_))));
      case Operation::shortest_path:
        return result_path(path_vertices_.size() == 0 ? std::nullopt
                                                      : std::optional<std::uint64_t>(path_edges_.size()));
    }
    return {};
  }

 private:
  igraph_t graph_{};
  bool loaded_ = false;
  IntVector order_, layers_, parents_;
  IntVector membership_, sizes_;
  igraph_integer_t components_ = 0;
  igraph_vector_t ranks_{};
  IntVector path_vertices_, path_edges_;
};

}  // namespace

std::unique_ptr<Contender> make_igraph() { return std::make_unique<Igraph>(); }

}  // namespace propgraph::scale
