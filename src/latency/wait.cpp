// The fiber-aware wait (wait.hpp).
#include "propgraph/latency/wait.hpp"

#include <thread>

#include <boost/fiber/context.hpp>
#include <boost/fiber/operations.hpp>
#include <boost/fiber/type.hpp>

#include "fiber/fiber_io.hpp"

namespace propgraph {

bool running_on_fiber() noexcept { return fiber_detail::running_on_fiber(); }

namespace {

/// The calling fiber, or nullptr on a thread's main context.
boost::fibers::context* current_fiber() noexcept {
  boost::fibers::context* active = boost::fibers::context::active();
  return active->is_context(boost::fibers::type::main_context) ? nullptr : active;
}

void sleep_fiber(boost::fibers::context* self, std::chrono::steady_clock::time_point deadline) {
  // On a FiberPool thread, or one that called use_io_scheduler(): its own timer queue.
  if (fiber_detail::ThreadIoWait* thread = fiber_detail::thread_io_wait) {
    thread->sleep_until(self, deadline);
  } else {
    boost::this_fiber::sleep_until(deadline);
  }
}

}  // namespace

void wait_until(std::chrono::steady_clock::time_point deadline) {
  boost::fibers::context* self = current_fiber();
  if (self == nullptr) {
    std::this_thread::sleep_until(deadline);
  } else if (std::chrono::steady_clock::now() < deadline) {
    sleep_fiber(self, deadline);
  }
}

void wait_for(std::chrono::nanoseconds duration) {
  using Clock = std::chrono::steady_clock;
  if (duration <= std::chrono::nanoseconds::zero()) return;
  // Saturate: now() + nanoseconds::max() would overflow into the past and not wait at all.
  const auto now = Clock::now();
  const auto room = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::time_point::max() - now);
  const auto deadline =
      duration >= room ? Clock::time_point::max() : now + std::chrono::duration_cast<Clock::duration>(duration);
  if (boost::fibers::context* self = current_fiber()) {
    sleep_fiber(self, deadline);
  } else {
    std::this_thread::sleep_until(deadline);
  }
}

}  // namespace propgraph
