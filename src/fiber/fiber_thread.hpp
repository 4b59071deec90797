// FiberThread: the scheduling algorithm of propgraph's own fiber threads.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <boost/fiber/algo/algorithm.hpp>
#include <boost/fiber/context.hpp>
#include <boost/fiber/scheduler.hpp>

#include "fiber/fiber_io.hpp"
#include "fiber/io_poller.hpp"
#include "fiber/timer_queue.hpp"

namespace propgraph::detail {

struct PoolState;

/// The scheduler of a thread that runs fibers for propgraph: a FiberPool thread (with `pool`) or
/// a thread that called use_io_scheduler() (without).
///
/// - One FIFO ready queue of this thread. Boost's dispatcher fiber (which takes in fibers woken
///   from other threads, Boost's sleepers and finished fibers) gets a turn when another thread
///   woke one of ours, every kDispatchEvery picks, and when nothing else is ready.
/// - Its own waits (fiber_detail::ThreadIoWait): sleepers in a TimerQueue, sockets in an epoll
///   set; both are looked at every kHousekeepEvery picks and whenever the thread runs dry.
/// - Idle: sleeps in epoll_pwait2 until the next deadline, a socket, or a wake-up from another
///   thread (notify(), or the pool). A pool thread first looks for work for the pool's
///   idle_spin (one thread of a pool at a time).
/// - Pool threads also run the pool's intake (their main fiber, parked here while there is no
///   job) and hand half their ready fibers to the pool's shared queue when another pool thread
///   is idle; idle threads take fibers from there.
class FiberThread final : public boost::fibers::algo::algorithm, public fiber_detail::ThreadIoWait {
 public:
  using Clock = std::chrono::steady_clock;
  using context = boost::fibers::context;

  explicit FiberThread(PoolState* pool = nullptr);
  ~FiberThread() override;
  FiberThread(const FiberThread&) = delete;
  FiberThread& operator=(const FiberThread&) = delete;

  /// The calling thread's FiberThread, or nullptr.
  [[nodiscard]] static FiberThread* current() noexcept;

  // -- boost::fibers::algo::algorithm --------------------------------------------------------
  void awakened(context* ctx) noexcept override;
  context* pick_next() noexcept override;
  bool has_ready_fibers() const noexcept override;
  void suspend_until(Clock::time_point const& deadline) noexcept override;
  void notify() noexcept override;

  // -- fiber_detail::ThreadIoWait -------------------------------------------------------------
  Result wait(int fd, std::uint32_t epoll_events, std::optional<Clock::time_point> deadline) override;
  void sleep_until(context* self, Clock::time_point deadline) override;

  /// Takes `ctx`, ready in this thread's queue, out of it: the caller is about to resume it
  /// directly (spawn.cpp, return_to_caller()).
  void unready(context& ctx) noexcept {
    ctx.ready_unlink();
    --ready_count_;
  }

  // -- the pool's side ------------------------------------------------------------------------
  /// The pool thread's intake loop (its main fiber) parks here while there is no job; it is made
  /// ready when a job is queued or the pool may stop.
  void park_main() noexcept;
  /// At pool thread exit: the fibers other threads handed over become this thread's, so that
  /// thread exit runs them to completion like the thread's own.
  void adopt_shared() noexcept;
  /// Wakes this thread when it sleeps in epoll; true when it did. Any thread.
  bool wake_if_sleeping() noexcept;

 private:
  /// Picks between two looks at timers and sockets while fibers keep the thread busy.
  static constexpr unsigned kHousekeepEvery = 16;
  /// Picks between two turns of Boost's dispatcher fiber while fibers keep the thread busy.
  static constexpr unsigned kDispatchEvery = 32;
  /// Shortest look for work worth its clock reads; a budget halved below it becomes zero.
  static constexpr std::chrono::nanoseconds kMinSpin = std::chrono::microseconds(1);

  struct SocketWait {
    context* ctx = nullptr;
    int fd = -1;
    std::optional<Clock::time_point> deadline;
    bool timed_out = false;
  };

  void push_ready(context* ctx) noexcept {
    ready_.push_back(*ctx);
    ++ready_count_;
  }
  context* take_dispatcher() noexcept;
  /// Suspends the calling fiber of this thread; the pick_next() of that switch wakes nobody, so
  /// a timer or socket already due cannot make the fiber ready before it has switched out.
  void suspend_self(context* self) noexcept {
    outgoing_ = self;
    self->suspend();
  }
  /// Due timers and (with `sockets`) ready sockets make their fibers ready; a pool thread with
  /// spare ready fibers shares them.
  void housekeeping(bool sockets) noexcept;
  void poll_sockets(Clock::time_point deadline) noexcept;
  void socket_done(SocketWait* w) noexcept;
  [[nodiscard]] Clock::time_point next_deadline() const noexcept;
  /// Something for this thread to do that arrived without making a fiber ready here.
  [[nodiscard]] bool work_pending() const noexcept;
  /// Pool threads: looks for work for up to spin_budget_ before sleeping; true when it found
  /// some. The budget adapts to whether looking pays off (see the definition).
  [[nodiscard]] bool look_for_work(Clock::time_point deadline) noexcept;
  void share() noexcept;
  context* take_shared() noexcept;

  PoolState* pool_;
  boost::fibers::scheduler::ready_queue_type ready_;
  std::size_t ready_count_ = 0;
  context* dispatcher_ = nullptr;  // Boost's dispatcher fiber while it is ready (it never waits)
  context* outgoing_ = nullptr;    // see suspend_self()
  unsigned picks_ = 0;             // since the last housekeeping
  unsigned since_dispatch_ = 0;    // picks since the dispatcher's last turn
  std::atomic<bool> notified_{false};  // notify(): another thread made one of our fibers ready
  std::atomic<bool> sleeping_{false};  // in epoll, or about to be

  IoPoller poller_;
  TimerQueue timers_;
  std::size_t socket_waits_ = 0;
  std::vector<SocketWait*> timed_sockets_;  // socket waits with a deadline (few: connection set-up)

  context* main_ = nullptr;  // pool threads: the main fiber, running the intake
  std::chrono::nanoseconds spin_budget_{0};  // pool threads: how long the next idle look lasts
  bool main_parked_ = false;
  std::vector<context*> handing_over_;  // share(): reused batch
};

}  // namespace propgraph::detail
