// An I/O-aware fiber scheduler for threads that run fibers themselves.
#pragma once

namespace propgraph {

/// Makes the calling thread's Boost.Fiber scheduler a round robin that waits for sockets
/// itself. A fiber of this thread that waits for its database socket (PostgresGraph) registers
/// the socket in this thread's epoll set and suspends; the thread looks at that set every few
/// fiber switches and, when no fiber is ready, sleeps in epoll_wait instead of on a condition
/// variable. Without it such waits are handed to a process-wide reactor thread, which wakes the
/// fiber from there: correct, but two thread wake-ups per round trip instead of none or one.
///
/// FiberPool threads always schedule this way. Call it from a thread's main context, before or
/// after its first fiber (fibers already ready move over); it replaces the thread's current
/// scheduling algorithm, so do not call it on a thread that installed its own. Timers
/// (this_fiber::sleep_for, timed waits) keep nanosecond deadlines (epoll_pwait2).
void use_io_scheduler();

}  // namespace propgraph
