// Shared words for results, and the stand-in for a contender the build does not have.
#include "contender.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace propgraph::scale {

std::string_view operation_name(Operation op) {
  switch (op) {
    case Operation::bfs: return "bfs";
    case Operation::components: return "components";
    case Operation::page_rank: return "page_rank";
    case Operation::shortest_path: return "shortest_path";
  }
  return "?";
}

std::string result_bfs(std::uint64_t reached, std::uint64_t depth) {
  return fmt::format("reached {}, depth {}", reached, depth);
}

std::string result_components(std::uint64_t count) {
  return fmt::format("{} component{}", count, count == 1 ? "" : "s");
}

std::string result_page_rank(const std::vector<std::uint32_t>& top) {
  return fmt::format("top 5: {}", fmt::join(top, " "));
}

std::string result_path(std::optional<std::uint64_t> length) {
  return length ? fmt::format("{} hops", *length) : std::string("no path");
}

std::vector<std::uint32_t> top_five(const double* scores, std::size_t n) {
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0U);
  const std::size_t k = std::min<std::size_t>(5, n);
  std::partial_sort(
      order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
      [&](std::uint32_t a, std::uint32_t b) { return scores[a] != scores[b] ? scores[a] > scores[b] : a < b; });
  order.resize(k);
  return order;
}

namespace {

class Missing final : public Contender {
 public:
  Missing(std::string name, std::string why) : name_(std::move(name)), why_(std::move(why)) {}
  [[nodiscard]] std::string_view name() const override { return name_; }
  [[nodiscard]] std::optional<std::string> missing() const override { return why_; }
  [[nodiscard]] std::string version() const override { return "n/a"; }
  [[nodiscard]] bool runs(Operation) const override { return false; }
  void load(const generate::EdgeList&) override {}
  void clear() override {}
  void run(Operation, const PathQuery&) override { throw std::logic_error(name_ + " is not built"); }
  [[nodiscard]] std::string result(Operation) const override { return "n/a"; }

 private:
  std::string name_;
  std::string why_;
};

}  // namespace

std::unique_ptr<Contender> make_missing(std::string name, std::string why) {
  return std::make_unique<Missing>(std::move(name), std::move(why));
}

#ifndef PROPGRAPH_SCALE_WITH_IGRAPH
std::unique_ptr<Contender> make_igraph() { return make_missing("igraph", "not built with igraph"); }
#endif
#ifndef PROPGRAPH_SCALE_WITH_GRAPHBLAS
std::unique_ptr<Contender> make_graphblas() { return make_missing("GraphBLAS", "not built with GraphBLAS"); }
#endif

}  // namespace propgraph::scale
