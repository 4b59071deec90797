#include "fiber/fiber_thread.hpp"

#include <algorithm>
#include <iterator>
#include <mutex>
#include <utility>

#include <boost/fiber/type.hpp>

#include "fiber/pool_state.hpp"
#include "fiber/spin.hpp"
#include "propgraph/fiber/spawn.hpp"

namespace propgraph::detail {

namespace {}  // namespace

FiberThread::FiberThread(PoolState* pool) : pool_(pool) {
  fiber_detail::thread_io_wait = this;
  if (pool_ != nullptr) {
    spin_budget_ = pool_->options.idle_spin;
    main_ = context::active();  // constructed on the pool thread's main context
    handing_over_.reserve(64);
    std::lock_guard lock(pool_->workers_mutex);
    pool_->workers.push_back(this);
  }
}

FiberThread::~FiberThread() {
  if (fiber_detail::thread_io_wait == this) fiber_detail::thread_io_wait = nullptr;
  if (pool_ != nullptr) {
    std::lock_guard lock(pool_->workers_mutex);
    auto& workers = pool_->workers;
    workers.erase(std::remove(workers.begin(), workers.end(), this), workers.end());
  }
}

FiberThread* FiberThread::current() noexcept { return static_cast<FiberThread*>(fiber_detail::thread_io_wait); }

// -- scheduling --------------------------------------------------------------------------------

void FiberThread::awakened(context* ctx) noexcept {
  if (ctx->is_context(boost::fibers::type::dispatcher_context)) {
    dispatcher_ = ctx;
    return;
  }
  push_ready(ctx);
}

FiberThread::context* FiberThread::take_dispatcher() noexcept {
  since_dispatch_ = 0;
  // Cleared before the dispatcher takes in remote wake-ups: one that arrives later sets it again.
  notified_.store(false, std::memory_order_relaxed);
  return std::exchange(dispatcher_, nullptr);
}

FiberThread::context* FiberThread::pick_next() noexcept {
  context* const outgoing = std::exchange(outgoing_, nullptr);
  if (outgoing == nullptr && (ready_count_ == 0 || ++picks_ >= kHousekeepEvery)) housekeeping(ready_count_ != 0);
  if (main_parked_ && outgoing != main_ && pool_->intake_has_work()) {
    main_parked_ = false;
    push_ready(main_);
  }
  if (dispatcher_ != nullptr && (since_dispatch_ >= kDispatchEvery || notified_.load(std::memory_order_relaxed))) {
    return take_dispatcher();
  }
  if (ready_count_ != 0) {
    ++since_dispatch_;
    context* ctx = &ready_.front();
    ready_.pop_front();
    --ready_count_;
    return ctx;
  }
  if (pool_ != nullptr) {
    if (context* ctx = take_shared()) return ctx;
  }
  // Nothing ready: the dispatcher runs (it is ready whenever it is not the one asking) and, when
  // it finds nothing either, calls suspend_until().
  if (dispatcher_ != nullptr) return take_dispatcher();
  return nullptr;
}

bool FiberThread::has_ready_fibers() const noexcept { return ready_count_ != 0 || dispatcher_ != nullptr; }

void FiberThread::housekeeping(bool sockets) noexcept {
  picks_ = 0;
  if (!timers_.empty()) {
    const Clock::time_point now = Clock::now();
    while (!timers_.empty() && timers_.next() <= now) push_ready(timers_.pop().ctx);
  }
  if (sockets && socket_waits_ != 0) poll_sockets(Clock::time_point::min());
  if (pool_ != nullptr && ready_count_ >= 2 && pool_->idle.load(std::memory_order_relaxed) > 0) share();
}

FiberThread::Clock::time_point FiberThread::next_deadline() const noexcept {
  Clock::time_point deadline = timers_.next();
  for (const SocketWait* w : timed_sockets_) deadline = std::min(deadline, *w->deadline);
  return deadline;
}

bool FiberThread::work_pending() const noexcept {
  if (notified_.load()) return true;
  if (pool_ == nullptr) return false;
  return (main_parked_ && pool_->intake_has_work()) || pool_->shared_count.load() != 0;
}

void FiberThread::suspend_until(Clock::time_point const& boost_deadline) noexcept {
  // Another thread made one of our fibers ready since the dispatcher took them in: go round again.
  if (notified_.exchange(false)) return;
  const Clock::time_point deadline = std::min(boost_deadline, next_deadline());
  if (pool_ != nullptr) pool_->idle.fetch_add(1);
  if (pool_ == nullptr || !look_for_work(deadline)) {
    // Announce the sleep, then look once more: a waker either sees sleeping_ and interrupts the
    // poll, or queued its work before that look (seq_cst on both sides).
    sleeping_.store(true);
    if (!work_pending()) {
      poll_sockets(deadline);
      // Woken for a queued job: looking a little longer next time might have caught it.
      if (pool_ != nullptr && pool_->intake_has_work()) {
        spin_budget_ = std::min(pool_->options.idle_spin, std::max(2 * spin_budget_, kMinSpin));
      }
    }
    sleeping_.store(false);
  }
  if (pool_ != nullptr) pool_->idle.fetch_sub(1);
}

bool FiberThread::look_for_work(Clock::time_point deadline) noexcept {
  if (spin_budget_ <= std::chrono::nanoseconds::zero()) return false;
  int expected = 0;
  if (!pool_->spinning.compare_exchange_strong(expected, 1)) return false;  // another thread looks
  const bool found = spin_until([this] { return work_pending(); }, std::min(deadline, Clock::now() + spin_budget_));
  pool_->spinning.store(0);
  // Adapt: keep looking as long as it pays off (work keeps arriving within the budget); halve the
  // budget each time it does not (the next work is a timer, or far away), down to not at all.
  if (found) {
    spin_budget_ = pool_->options.idle_spin;
  } else {
    spin_budget_ /= 2;
    if (spin_budget_ < kMinSpin) spin_budget_ = std::chrono::nanoseconds::zero();
  }
  return found;
}

void FiberThread::notify() noexcept {
  notified_.store(true);
  wake_if_sleeping();
}

bool FiberThread::wake_if_sleeping() noexcept {
  if (!sleeping_.load() || !sleeping_.exchange(false)) return false;
  poller_.interrupt();
  return true;
}

// -- sharing ready fibers between pool threads -------------------------------------------------

void FiberThread::share() noexcept {
  // The newest half of the ready fibers that may move (not the main or dispatcher fibers).
  std::size_t give = ready_count_ / 2;
  handing_over_.clear();
  for (auto it = ready_.end(); give != 0 && it != ready_.begin();) {
    const auto victim = std::prev(it);
    context* ctx = &*victim;
    if (ctx->is_context(boost::fibers::type::pinned_context)) {
      it = victim;
      continue;
    }
    ctx->ready_unlink();  // `it`, the element after it, stays valid
    --ready_count_;
    --give;
    forget_direct_return(ctx);
    ctx->detach();
    handing_over_.push_back(ctx);
  }
  if (handing_over_.empty()) return;
  {
    std::lock_guard lock(pool_->shared_mutex);
    // Oldest first, as they were queued here.
    pool_->shared.insert(pool_->shared.end(), handing_over_.rbegin(), handing_over_.rend());
    pool_->shared_count.fetch_add(handing_over_.size());
  }
  pool_->wake_one();
}

FiberThread::context* FiberThread::take_shared() noexcept {
  if (pool_->shared_count.load(std::memory_order_relaxed) == 0) return nullptr;
  context* ctx = nullptr;
  {
    std::lock_guard lock(pool_->shared_mutex);
    if (pool_->shared.empty()) return nullptr;
    ctx = pool_->shared.front();
    pool_->shared.pop_front();
    pool_->shared_count.fetch_sub(1);
  }
  context::active()->attach(ctx);
  return ctx;
}

// -- the intake loop's parking spot -------------------------------------------------------------

void FiberThread::park_main() noexcept {
  main_parked_ = true;
  suspend_self(main_);
}

void FiberThread::adopt_shared() noexcept {
  while (context* ctx = take_shared()) push_ready(ctx);
}

// -- waits served by this thread ---------------------------------------------------------------

void FiberThread::sleep_until(context* self, Clock::time_point deadline) {
  timers_.push(deadline, self);
  suspend_self(self);
}

FiberThread::Result FiberThread::wait(int fd, std::uint32_t epoll_events, std::optional<Clock::time_point> deadline) {
  SocketWait w;
  w.ctx = context::active();
  w.fd = fd;
  w.deadline = deadline;
  if (!poller_.arm(fd, epoll_events, &w)) return Result::error;
  ++socket_waits_;
  if (deadline) timed_sockets_.push_back(&w);
  suspend_self(w.ctx);  // until socket_done(&w)
  return w.timed_out ? Result::timed_out : Result::ready;
}

void FiberThread::socket_done(SocketWait* w) noexcept {
  --socket_waits_;
  if (w->deadline) timed_sockets_.erase(std::find(timed_sockets_.begin(), timed_sockets_.end(), w));
  push_ready(w->ctx);
}

void FiberThread::poll_sockets(Clock::time_point deadline) noexcept {
  poller_.poll(deadline, [this](void* token) { socket_done(static_cast<SocketWait*>(token)); });
  if (!timed_sockets_.empty()) {
    const Clock::time_point now = Clock::now();
    for (std::size_t i = 0; i < timed_sockets_.size();) {
      SocketWait* w = timed_sockets_[i];
      if (*w->deadline > now) {
        ++i;
        continue;
      }
      poller_.disarm(w->fd);  // its event can no longer arrive
      w->timed_out = true;
      socket_done(w);  // removes it from timed_sockets_
    }
  }
}

}  // namespace propgraph::detail
