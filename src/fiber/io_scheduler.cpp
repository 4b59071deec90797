// use_io_scheduler (io_scheduler.hpp): Boost's round robin with an IoPoller for sleeping.
#include "propgraph/fiber/io_scheduler.hpp"

#include <boost/fiber/algo/algorithm.hpp>
#include <boost/fiber/context.hpp>
#include <boost/fiber/operations.hpp>
#include <boost/fiber/scheduler.hpp>

#include "fiber/io_poller.hpp"

namespace propgraph {

namespace {

class IoRoundRobin final : public boost::fibers::algo::algorithm {
 public:
  IoRoundRobin() { poller_.install(); }

  void awakened(boost::fibers::context* ctx) noexcept override { ready_.push_back(*ctx); }

  boost::fibers::context* pick_next() noexcept override {
    // Socket waits end here while fibers keep this thread busy.
    if (poller_.poll_due(kIoPollEvery)) poller_.poll(detail::IoPoller::Clock::time_point::min());
    if (ready_.empty()) return nullptr;
    boost::fibers::context* ctx = &ready_.front();
    ready_.pop_front();
    return ctx;
  }

  bool has_ready_fibers() const noexcept override { return !ready_.empty(); }

  /// No fiber is ready: wait for a socket, a fiber woken by another thread (notify) or the
  /// next timer.
  void suspend_until(std::chrono::steady_clock::time_point const& deadline) noexcept override {
    poller_.poll(deadline);
  }

  void notify() noexcept override { poller_.interrupt(); }

 private:
  static constexpr unsigned kIoPollEvery = 8;

  boost::fibers::scheduler::ready_queue_type ready_;
  detail::IoPoller poller_;
};

}  // namespace

void use_io_scheduler() {
  // Already I/O-aware (called twice, or a FiberPool thread): replacing the algorithm would
  // orphan the fibers suspended in its poller.
  if (fiber_detail::thread_io_wait != nullptr) return;
  boost::fibers::use_scheduling_algorithm<IoRoundRobin>();
}

}  // namespace propgraph
