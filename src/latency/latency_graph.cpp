// LatencyGraph (latency_graph.hpp): wait, then delegate.
#include "propgraph/latency/latency_graph.hpp"

#include <cmath>
#include <numbers>
#include <utility>

#include "propgraph/deadline.hpp"
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
    case Distribution::fixed: return mean;
    case Distribution::uniform: return to_wait(m - s + 2.0 * s * unit(seed, n, 0));
    case Distribution::normal: return to_wait(m + s * standard_normal(seed, n));
    case Distribution::exponential: return to_wait(-m * std::log1p(-unit(seed, n, 0)));
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
    case Distribution::lognormal: return;
  }
  throw InvalidArgument("LatencyOptions: unknown distribution");
}

LatencyGraph::LatencyGraph(GraphOperations& backend, LatencyOptions options)
    : GraphDecorator(backend), options_(options) {
  options_.validate();
}

LatencyGraph::LatencyGraph(std::shared_ptr<GraphOperations> backend, LatencyOptions options)
    : GraphDecorator(backend ? std::move(backend) : throw InvalidArgument("LatencyGraph: null backend")),
      options_(options) {
  options_.validate();
}

void LatencyGraph::around(Operation, CallRef call) {
  const auto wait = options_.wait_for_call(calls_.fetch_add(1, std::memory_order_relaxed));
  if (const auto deadline = current_deadline()) {
    if (DeadlineClock::now() + wait > *deadline) {  // the call cannot finish in time
      wait_until(*deadline);
      detail::throw_timeout("LatencyGraph");
    }
  }
  wait_for(wait);
  call();
}

}  // namespace propgraph
