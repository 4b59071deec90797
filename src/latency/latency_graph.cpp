// LatencyGraph (latency_graph.hpp): wait, then delegate.
#include "propgraph/latency/latency_graph.hpp"

#include <cmath>
#include <numbers>
#include <utility>

#include "propgraph/errors.hpp"

namespace propgraph {

namespace {

/// SplitMix64's finaliser: a high-quality 64-bit mix of a counter.
constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// A uniform double in [0, 1) for (seed, call, stream): counter-based, so draws need no shared
/// generator state and call n always gets the same value.
double unit(std::uint64_t seed, std::uint64_t call, std::uint64_t stream) noexcept {
  const std::uint64_t bits = mix64(mix64(seed ^ 0x9e3779b97f4a7c15ULL) + call * 2 + stream);
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

/// A standard normal draw (Box-Muller on two independent uniforms).
double standard_normal(std::uint64_t seed, std::uint64_t call) noexcept {
  const double u1 = 1.0 - unit(seed, call, 0);  // (0, 1]: log() stays finite
  const double u2 = unit(seed, call, 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

/// A drawn wait in nanoseconds as a duration: negative draws and NaN wait 0, draws beyond the
/// range of nanoseconds (huge means, long tails) wait nanoseconds::max().
std::chrono::nanoseconds to_wait(double ns) noexcept {
  if (!(ns > 0.0)) return std::chrono::nanoseconds::zero();
  if (ns >= 0x1p63) return std::chrono::nanoseconds::max();  // llround would overflow
  return std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(ns)));
}

}  // namespace

std::chrono::nanoseconds LatencyOptions::wait_for_call(std::uint64_t n) const noexcept {
  const double m = static_cast<double>(mean.count());
  const double s = static_cast<double>(spread.count());
  switch (distribution) {
    case Distribution::fixed:
      return mean;
    case Distribution::uniform:
      return to_wait(m - s + 2.0 * s * unit(seed, n, 0));
    case Distribution::normal:
      return to_wait(m + s * standard_normal(seed, n));
    case Distribution::exponential:
      return to_wait(-m * std::log1p(-unit(seed, n, 0)));
    case Distribution::lognormal: {
      if (m <= 0.0) return std::chrono::nanoseconds::zero();
      // Parameters of the underlying normal that give the wait mean m and deviation s.
      const double sigma2 = std::log1p((s * s) / (m * m));
      const double mu = std::log(m) - sigma2 / 2.0;
      return to_wait(std::exp(mu + std::sqrt(sigma2) * standard_normal(seed, n)));
    }
  }
  return mean;
}

void LatencyOptions::validate() const {
  if (mean.count() < 0) throw InvalidArgument("LatencyOptions: mean wait must not be negative");
  if (spread.count() < 0) throw InvalidArgument("LatencyOptions: spread must not be negative");
  if (distribution == Distribution::uniform && spread > mean) {
    throw InvalidArgument("LatencyOptions: uniform half-width must not exceed the mean");
  }
  switch (distribution) {
    case Distribution::fixed:
    case Distribution::uniform:
    case Distribution::normal:
    case Distribution::exponential:
    case Distribution::lognormal:
      return;
  }
  throw InvalidArgument("LatencyOptions: unknown distribution");
}

LatencyGraph::LatencyGraph(GraphOperations& backend, LatencyOptions options)
    : backend_(&backend), options_(options) {
  options_.validate();
}

LatencyGraph::LatencyGraph(std::shared_ptr<GraphOperations> backend, LatencyOptions options)
    : owner_(std::move(backend)), backend_(owner_.get()), options_(options) {
  if (backend_ == nullptr) throw InvalidArgument("LatencyGraph: null backend");
  options_.validate();
}

template <auto Method, class... Args>
decltype(auto) LatencyGraph::after_wait(Args&&... args) {
  wait_for(options_.wait_for_call(calls_.fetch_add(1, std::memory_order_relaxed)));
  return (backend_->*Method)(std::forward<Args>(args)...);
}

using G = GraphOperations;

bool LatencyGraph::create_graph(std::string_view name) { return after_wait<&G::create_graph>(name); }
bool LatencyGraph::drop_graph(std::string_view name) { return after_wait<&G::drop_graph>(name); }
bool LatencyGraph::graph_exists(std::string_view name) { return after_wait<&G::graph_exists>(name); }
std::vector<std::string> LatencyGraph::vertex_labels() { return after_wait<&G::vertex_labels>(); }
std::vector<std::string> LatencyGraph::edge_labels() { return after_wait<&G::edge_labels>(); }

Vertex LatencyGraph::create_vertex(std::string_view label, const Properties& properties) { return after_wait<&G::create_vertex>(label, properties); }
std::optional<Vertex> LatencyGraph::find_vertex_by_id(std::string_view label, const ElementId& id) { return after_wait<&G::find_vertex_by_id>(label, id); }
std::vector<Vertex> LatencyGraph::find_vertices_by_label(std::string_view label, const Properties& filter) { return after_wait<&G::find_vertices_by_label>(label, filter); }
std::optional<Vertex> LatencyGraph::update_vertex(std::string_view label, const ElementId& id, const Properties& properties) { return after_wait<&G::update_vertex>(label, id, properties); }
bool LatencyGraph::delete_vertex(std::string_view label, const ElementId& id) { return after_wait<&G::delete_vertex>(label, id); }
std::int64_t LatencyGraph::count_vertices(std::string_view label) { return after_wait<&G::count_vertices>(label); }

Edge LatencyGraph::create_edge(const ElementId& from, const ElementId& to, std::string_view label, const Properties& properties) { return after_wait<&G::create_edge>(from, to, label, properties); }
std::optional<Edge> LatencyGraph::find_edge_by_id(std::string_view label, const ElementId& id) { return after_wait<&G::find_edge_by_id>(label, id); }
std::vector<Edge> LatencyGraph::find_edges_by_label(std::string_view label, const Properties& filter) { return after_wait<&G::find_edges_by_label>(label, filter); }
std::optional<Edge> LatencyGraph::update_edge(std::string_view label, const ElementId& id, const Properties& properties) { return after_wait<&G::update_edge>(label, id, properties); }
bool LatencyGraph::delete_edge(std::string_view label, const ElementId& id) { return after_wait<&G::delete_edge>(label, id); }
std::int64_t LatencyGraph::count_edges(std::string_view label) { return after_wait<&G::count_edges>(label); }

std::vector<Vertex> LatencyGraph::neighbors(const ElementId& start, const NeighborOptions& options) { return after_wait<&G::neighbors>(start, options); }
std::optional<Path> LatencyGraph::shortest_path(const ElementId& from, const ElementId& to, const PathOptions& options) { return after_wait<&G::shortest_path>(from, to, options); }
std::vector<Path> LatencyGraph::all_paths(const ElementId& from, const ElementId& to, const PathOptions& options) { return after_wait<&G::all_paths>(from, to, options); }

std::vector<PageRankScore> LatencyGraph::page_rank(const PageRankOptions& options) { return after_wait<&G::page_rank>(options); }
std::optional<Degree> LatencyGraph::degree_centrality(const ElementId& id, const DegreeOptions& options) { return after_wait<&G::degree_centrality>(id, options); }
std::vector<Component> LatencyGraph::connected_components(const ComponentOptions& options) { return after_wait<&G::connected_components>(options); }
std::vector<Visit> LatencyGraph::bfs(const ElementId& start, const TraversalOptions& options) { return after_wait<&G::bfs>(start, options); }
std::vector<Visit> LatencyGraph::dfs(const ElementId& start, const TraversalOptions& options) { return after_wait<&G::dfs>(start, options); }
std::vector<Cycle> LatencyGraph::detect_cycles(const CycleOptions& options) { return after_wait<&G::detect_cycles>(options); }

}  // namespace propgraph
