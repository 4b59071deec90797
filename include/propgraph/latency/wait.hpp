// A fiber-aware wait: suspends only the calling fiber, or blocks a plain thread.
#pragma once

#include <chrono>

namespace propgraph {

/// True when the caller runs on a Boost.Fiber started on this thread (by run_on_fiber,
/// FiberPool, boost::fibers::fiber, ...), false on a thread's main context: code that was not
/// started as a fiber. The first call on a thread that never used Boost.Fiber sets up Boost.Fiber's
/// per-thread scheduler, as any Boost.Fiber call does (a few KiB of memory, no thread).
[[nodiscard]] bool running_on_fiber() noexcept;

/// Waits until `deadline` (steady clock). On a fiber, only that fiber is suspended
/// (boost::this_fiber::sleep_until) and the thread's other fibers run meanwhile; on a thread's
/// main context the whole thread blocks (std::this_thread::sleep_until), and with it any fibers
/// of that thread, exactly as a blocking driver call would. Returns at once when the deadline
/// has passed. Never returns before the deadline; it may return later by the OS timer slack
/// plus scheduling delay. Linux's default slack is 50 µs per thread; for short simulated waits
/// lower it with prctl(PR_SET_TIMERSLACK, ns), which also applies to threads started afterwards.
void wait_until(std::chrono::steady_clock::time_point deadline);

/// wait_until(now + duration), the sum saturating at time_point::max() (a huge duration waits
/// for ever rather than overflowing). A zero or negative duration returns at once without
/// yielding.
void wait_for(std::chrono::nanoseconds duration);

}  // namespace propgraph
