// One way to ask for a cache line ahead of its use. GCC 12 can drop __builtin_prefetch: a
// small function that only prefetches is found "looping pure", and once inlined its prefetch
// vanishes with it (every prefetch of MemoryGraph's result building was gone at -O2 and -O3).
// An asm volatile statement stays where it is written.
#pragma once

namespace propgraph::detail {

/// Hints the CPU to bring the cache line holding `p` into every cache level. Never faults,
/// whatever `p` is.
inline void prefetch(const void* p) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 (%0)" : : "r"(p));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace propgraph::detail
