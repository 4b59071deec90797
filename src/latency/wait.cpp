// The fiber-aware wait (wait.hpp).
#include "propgraph/latency/wait.hpp"

#include <thread>

#include <boost/fiber/operations.hpp>

#include "fiber/fiber_io.hpp"

namespace propgraph {

bool running_on_fiber() noexcept { return fiber_detail::running_on_fiber(); }

void wait_until(std::chrono::steady_clock::time_point deadline) {
  if (running_on_fiber()) {
    boost::this_fiber::sleep_until(deadline);
  } else {
    std::this_thread::sleep_until(deadline);
  }
}

void wait_for(std::chrono::nanoseconds duration) {
  using Clock = std::chrono::steady_clock;
  if (duration <= std::chrono::nanoseconds::zero()) return;
  // Saturate: now() + nanoseconds::max() would overflow into the past and not wait at all.
  const auto now = Clock::now();
  const auto room = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::time_point::max() - now);
  wait_until(duration >= room ? Clock::time_point::max()
                              : now + std::chrono::duration_cast<Clock::duration>(duration));
}

}  // namespace propgraph
