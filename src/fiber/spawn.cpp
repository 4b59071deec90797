// Recycling of finished fibers: a per-thread list of parked fibers that take the next call.
#include "propgraph/fiber/spawn.hpp"

#include <boost/fiber/context.hpp>
#include <boost/fiber/type.hpp>

#include "fiber/fiber_thread.hpp"

namespace propgraph::detail {
namespace {

/// Parked fibers of one thread. Parking and taking happen only on the owning thread, so no
/// locking: a parked fiber is in no ready queue and cannot migrate.
struct IdleList {
  RecycledFiber* head = nullptr;
  std::size_t count = 0;

  IdleList() noexcept;
  ~IdleList();
  IdleList(const IdleList&) = delete;
  IdleList& operator=(const IdleList&) = delete;
};

// Trivially destructible, hence readable during the whole thread exit.
constinit thread_local IdleList* tl_idle = nullptr;
constinit thread_local bool tl_idle_gone = false;

IdleList::IdleList() noexcept { tl_idle = this; }

// Runs at thread exit, before Boost.Fiber's per-thread scheduler is destroyed (the list is
// created inside a fiber, so after that scheduler): ends every parked fiber here, on its own
// thread, so the scheduler finds no fiber left waiting forever.
IdleList::~IdleList() {
  tl_idle = nullptr;
  tl_idle_gone = true;
  boost::fibers::context* self = boost::fibers::context::active();
  while (head != nullptr) {
    RecycledFiber* fiber = head;
    head = fiber->next;
    --count;
    fiber->quit = true;
    fiber->context->resume(self);  // it returns from recycle_loop and terminates
  }
}

// Never inlined: a fiber may resume on another thread (FiberPool), so the thread-local address
// must be computed afresh at each call rather than cached across a suspension.
[[gnu::noinline]] IdleList* current_list() noexcept { return tl_idle; }

// The list must be destroyed before Boost.Fiber's per-thread scheduler, or that scheduler's
// destructor would wait forever for the parked fibers. Thread-locals are destroyed in reverse
// order of construction, so the list is created only on the thread's main context: there the
// scheduler certainly exists already (context::active() creates it) and is not being torn down
// (its destructor runs on the main context and does not return to user code). A list created
// from inside a fiber could be created during that teardown, after which its parked fibers
// would never be released.
[[gnu::noinline]] IdleList* list_for_taking() noexcept {
  if (tl_idle != nullptr || tl_idle_gone) return tl_idle;
  if (!boost::fibers::context::active()->is_context(boost::fibers::type::main_context)) return nullptr;
  thread_local IdleList list;  // constructor sets tl_idle; destructor registered for this thread
  return &list;
}

/// The dispatched call of this thread whose caller has not run since: start_recycled() switched
/// from `caller` to `fiber`, leaving the caller in the ready queue. While this is set, the caller
/// is alive and ready, so the fiber may hand the thread straight back to it when the call ends.
/// Cleared when the caller runs again, and by forget_direct_return() when it moves away.
struct DirectReturn {
  RecycledFiber* fiber = nullptr;
  boost::fibers::context* caller = nullptr;
  unsigned taken = 0;  // direct returns so far, for the scheduler's turn every few
};
constinit thread_local DirectReturn tl_direct{};

// Never inlined, like current_list(): the fiber that reads it may have moved threads.
[[gnu::noinline]] DirectReturn& direct_return() noexcept { return tl_direct; }

/// Every this many direct returns, one goes through the scheduler instead, so the thread's other
/// ready fibers and its dispatcher (wake-ups from other threads, Boost's sleepers) get a turn
/// even while the caller joins one call after another.
constexpr unsigned kSchedulerTurnEvery = 16;

/// Ends the call of `fiber` (now parked) by switching straight back to its caller, when that
/// caller has waited in this thread's ready queue since: no pass through the scheduler and its
/// dispatcher fiber. Returns after the fiber was resumed again; false (nothing done) otherwise.
bool return_to_caller(RecycledFiber& fiber) noexcept {
  DirectReturn& pending = direct_return();
  if (pending.fiber != &fiber) return false;
  boost::fibers::context* caller = pending.caller;
  pending.fiber = nullptr;
  if (++pending.taken % kSchedulerTurnEvery == 0) return false;
  // The ready queue must be the intrusive one of this thread's scheduler (Boost's round robin,
  // the pinned queue of shared_work, propgraph's FiberThread): algorithms that keep ready fibers
  // elsewhere leave the hook unlinked.
  if (caller->get_scheduler() != fiber.context->get_scheduler() || !caller->ready_is_linked()) return false;
  if (FiberThread* thread = FiberThread::current()) {
    thread->unready(*caller);
  } else {
    caller->ready_unlink();
  }
  caller->resume();  // this fiber stays parked
  return true;
}

}  // namespace

RecycledFiber* take_idle_fiber(const StackAllocator& stack) noexcept {
  IdleList* list = list_for_taking();
  if (list == nullptr) return nullptr;
  for (RecycledFiber** link = &list->head; *link != nullptr; link = &(*link)->next) {
    RecycledFiber* fiber = *link;
    if (fiber->stack == stack) {
      *link = fiber->next;
      fiber->next = nullptr;
      --list->count;
      return fiber;
    }
  }
  return nullptr;
}

void forget_direct_return(boost::fibers::context* caller) noexcept {
  DirectReturn& pending = direct_return();
  if (pending.caller == caller) pending.fiber = nullptr;
}

void start_recycled(RecycledFiber& fiber, boost::fibers::launch launch) noexcept {
  boost::fibers::context* self = boost::fibers::context::active();
  if (launch == boost::fibers::launch::dispatch) {
    DirectReturn& pending = direct_return();
    pending.fiber = &fiber;
    pending.caller = self;
    fiber.context->resume(self);  // run it now; the caller goes to the ready queue
    forget_direct_return(self);   // back here by any path: the caller runs again
  } else {
    self->schedule(fiber.context);  // ready queue; it runs when the caller yields or blocks
  }
}

void recycle_loop(const StackAllocator& stack) noexcept {
  RecycledFiber self;
  self.stack = stack;
  self.context = boost::fibers::context::active();
  for (;;) {
    IdleList* list = current_list();  // parks only where the list exists (see list_for_taking)
    if (list == nullptr || list->count >= idle_fibers_per_thread) return;
    self.next = list->head;
    list->head = &self;
    ++list->count;
    // Parked until start_recycled() or ~IdleList() resumes it.
    if (!return_to_caller(self)) self.context->suspend();
    if (self.quit) return;
    self.run(self.storage);
  }
}

}  // namespace propgraph::detail
