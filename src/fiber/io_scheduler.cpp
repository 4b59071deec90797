// use_io_scheduler (io_scheduler.hpp): the calling thread's scheduler becomes a FiberThread.
#include "propgraph/fiber/io_scheduler.hpp"

#include <boost/fiber/operations.hpp>

#include "fiber/fiber_thread.hpp"

namespace propgraph {

void use_io_scheduler() {
  // Already I/O-aware (called twice, or a FiberPool thread): replacing the algorithm would
  // orphan the fibers suspended in its poller and timer queue.
  if (fiber_detail::thread_io_wait != nullptr) return;
  boost::fibers::use_scheduling_algorithm<detail::FiberThread>();
}

}  // namespace propgraph
