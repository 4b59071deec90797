// The fiber-aware wait (wait.hpp).
#include "propgraph/latency/wait.hpp"

#include <thread>

#include <boost/fiber/context.hpp>
#include <boost/fiber/operations.hpp>
#include <boost/fiber/type.hpp>

namespace propgraph {

bool running_on_fiber() noexcept {
  const boost::fibers::context* active = boost::fibers::context::active();
  return active != nullptr && !active->is_context(boost::fibers::type::main_context);
}

void wait_until(std::chrono::steady_clock::time_point deadline) {
  if (running_on_fiber()) {
    boost::this_fiber::sleep_until(deadline);
  } else {
    std::this_thread::sleep_until(deadline);
  }
}

void wait_for(std::chrono::nanoseconds duration) {
  if (duration <= std::chrono::nanoseconds::zero()) return;
  wait_until(std::chrono::steady_clock::now() + duration);
}

}  // namespace propgraph
