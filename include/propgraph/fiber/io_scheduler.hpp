// An I/O-aware fiber scheduler for threads that run fibers themselves.
#pragma once

namespace propgraph {

/// Makes the calling thread's Boost.Fiber scheduler a round robin (FIFO) that waits for sockets
/// and timers itself. A fiber of this thread that waits for its database socket (PostgresGraph) registers
/// the socket in this thread's epoll set and suspends; the thread looks at that set every few
/// fiber switches and, when no fiber is ready, sleeps in epoll_wait instead of on a condition
/// variable. Without it such waits are handed to a process-wide reactor thread, which wakes the
/// fiber from there: correct, but two thread wake-ups per round trip instead of none or one.
///
/// propgraph::wait_for / wait_until on this thread's fibers use the scheduler's own timer queue
/// (no allocation per wait, O(1) for equal waits); this_fiber::sleep_for and timed waits keep
/// working through Boost's. Timers and sockets are looked at at least every 32 fiber switches
/// while fibers keep the thread busy, and the thread sleeps until the next deadline with
/// nanosecond resolution (epoll_pwait2).
///
/// FiberPool threads always schedule this way. Call it from a thread's main context, before or
/// after its first fiber (fibers already ready move over); it replaces the thread's current
/// scheduling algorithm, so do not call it on a thread that installed its own.
void use_io_scheduler();

}  // namespace propgraph
