// Bounded busy-waiting, for waits that are usually over long before a thread could sleep and wake.
#pragma once

#include <chrono>

namespace propgraph::detail {

/// One round of a spin loop: tells the CPU (and a hypervisor) that this thread is waiting.
inline void spin_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// Spins until `done()` or until `end`, whichever comes first (the clock is read every few
/// rounds); returns whether `done()` became true.
template <class Done>
bool spin_until(Done&& done, std::chrono::steady_clock::time_point end) noexcept {
  for (unsigned i = 1;; ++i) {
    if (done()) return true;
    spin_pause();
    if (i % 16 == 0 && std::chrono::steady_clock::now() >= end) return false;
  }
}

}  // namespace propgraph::detail
