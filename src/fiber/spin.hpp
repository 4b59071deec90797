// Bounded busy-waiting, for waits that are usually over long before a thread could sleep and wake.
#pragma once

#include <sched.h>

#include <algorithm>
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

/// How long spin_until() only pauses between looks before it yields the CPU between them.
inline constexpr std::chrono::microseconds pause_only_spin{1};

/// Waits until `done()` or until `end`, whichever comes first, without sleeping; returns whether
/// `done()` became true. The first microsecond it only pauses between looks; after
/// that it yields the CPU between looks (sched_yield), so that on a busy machine the thread it
/// waits for, or one it just woke, is not kept off this CPU by the spinning.
template <class Done>
bool spin_until(Done&& done, std::chrono::steady_clock::time_point end) noexcept {
  const auto start = std::chrono::steady_clock::now();
  const auto yield_from = std::min(end, start + pause_only_spin);
  bool yielding = false;
  for (unsigned i = 1;; ++i) {
    if (done()) return true;
    if (yielding) {
      sched_yield();
    } else {
      spin_pause();
    }
    if (yielding || i % 16 == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= end) return false;
      yielding = now >= yield_from;
    }
  }
}

}  // namespace propgraph::detail
