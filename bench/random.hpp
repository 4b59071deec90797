// The benchmarks' deterministic random numbers: one seed, the same graph and queries every run.
#pragma once

#include <cstdint>

namespace propgraph::bench {

/// splitmix64 (Steele, Lea and Flood): fast, 64-bit state, fine for generating data.
struct SplitMix64 {
  std::uint64_t state = 0;

  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n) (modulo bias below 2^-32 for n < 2^32).
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next() % n); }
  /// Uniform in [0, 1), 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

}  // namespace propgraph::bench
