// Running a callable on a Boost.Fiber of the calling thread: the primitive under the facade.
#pragma once

#include <chrono>
#include <cstddef>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include <boost/fiber/context.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/policy.hpp>

#include "propgraph/fiber/future.hpp"
#include "propgraph/fiber/stack_allocator.hpp"

namespace propgraph {

/// How a fiber is started on the calling thread.
struct FiberOptions {
  /// `dispatch` (the default) switches to the new fiber at once and puts the caller on the ready
  /// queue; `post` puts the new fiber on the ready queue and returns, so it starts when the caller
  /// next blocks or yields. For a call joined immediately, dispatch is faster: a recycled fiber
  /// whose call ends without waiting switches straight back to the caller, taking it out of the
  /// ready queue (no pass through the scheduler or its dispatcher fiber; every 16th such return
  /// goes through the scheduler, so the thread's other fibers still get a turn), while post
  /// makes the caller block in get(). propgraph-bench `launch/*` measures both. The direct return
  /// needs the caller to sit on Boost's intrusive ready queue (round_robin, shared_work's pinned
  /// queue, propgraph's schedulers); a custom scheduling algorithm that keeps ready fibers on
  /// that queue must not also count them elsewhere.
  boost::fibers::launch launch = boost::fibers::launch::dispatch;
  /// Stacks for new fibers; see StackAllocator (default: cached, guarded, 128 KiB).
  StackAllocator stack{};
  /// Reuse finished fibers. A fiber whose call is done parks on a per-thread idle list (at most
  /// `idle_fibers_per_thread`, same stack allocator only) and runs the next call started on
  /// that thread instead of a new fiber being created; this saves about a quarter of the cost
  /// of an immediately joined call (see `launch` above). A thread's list is set up by the first
  /// call started from its main context (plain code, not inside a fiber), and on every
  /// FiberPool thread; until then calls use fresh fibers. Parked fibers end when their thread
  /// exits. A recycled fiber keeps its boost::this_fiber::get_id() and any fiber_specific_ptr
  /// values across calls; set false when code relies on a fresh fiber.
  bool recycle = true;
};

/// Most parked fibers kept per thread for reuse (see FiberOptions::recycle).
inline constexpr std::size_t idle_fibers_per_thread = 16;

#if defined(__SANITIZE_ADDRESS__)
#define PROPGRAPH_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROPGRAPH_FIBER_ASAN 1
#endif
#endif

/// False in AddressSanitizer builds, which always start fresh fibers (FiberOptions::recycle is
/// ignored): Debian's Boost.Context does not tell ASan about stack switches, so stack shadow
/// left behind by an exception unwound inside a fiber would produce false reports when the
/// same stack runs the next call.
#ifdef PROPGRAPH_FIBER_ASAN
inline constexpr bool fiber_recycling_enabled = false;
#else
inline constexpr bool fiber_recycling_enabled = true;
#endif

namespace detail {

/// A parked, reusable fiber. Lives on its own fiber's stack while it waits for work.
struct RecycledFiber {
  static constexpr std::size_t capacity = 64;
  alignas(std::max_align_t) unsigned char storage[capacity];
  void (*run)(void* storage) noexcept = nullptr;  // runs, then destroys, the task in storage
  boost::fibers::context* context = nullptr;
  StackAllocator stack;
  RecycledFiber* next = nullptr;
  bool quit = false;
};

/// Takes a parked fiber of this thread whose stack came from `stack`, or nullptr.
[[nodiscard]] RecycledFiber* take_idle_fiber(const StackAllocator& stack) noexcept;
/// Starts the task already placed in `fiber` (dispatch: switch now; post: make it ready). With
/// dispatch, a task that ends without having waited switches straight back to the caller.
void start_recycled(RecycledFiber& fiber, boost::fibers::launch launch) noexcept;
/// `caller`, ready in this thread's queue, is about to move or run: a dispatched call must no
/// longer switch straight back to it.
void forget_direct_return(boost::fibers::context* caller) noexcept;
/// Body of a recyclable fiber after its first task: parks, runs tasks handed to it, and returns
/// (ending the fiber) when the thread's idle list is full or the thread is exiting.
void recycle_loop(const StackAllocator& stack) noexcept;

/// One unit of work for a fiber; runs once. FiberPool keeps queued jobs in an intrusive FIFO.
struct Job {
  Job* next = nullptr;
  void (*run)(Job*) noexcept = nullptr;
};

/// A call whose result goes to a Future: the job, the callable and the shared state in one
/// block (allocate_block). The callable is stored once and called in place; its result is
/// constructed in the state.
template <class R, class Fn>
class CallJob final : public Job, public FutureState<R> {
 public:
  /// Throws std::bad_alloc, or whatever constructing the callable from `fn` throws.
  template <class F>
  [[nodiscard]] static CallJob* make(F&& fn, std::chrono::nanoseconds join_spin) {
    return construct_in_block(sizeof(CallJob),
                              [&](void* block) { return ::new (block) CallJob(std::forward<F>(fn), join_spin); });
  }

  /// For a job that will never run: drops the callable and the producer's reference (the state
  /// never becomes ready).
  void discard() noexcept {
    fn_.~Fn();
    this->release();
  }

 private:
  template <class F>
  CallJob(F&& fn, std::chrono::nanoseconds join_spin) : FutureState<R>(&destroy, join_spin), fn_(std::forward<F>(fn)) {
    this->run = &run_call;
  }
  ~CallJob() {}  // fn_ is destroyed by run_call() or discard()

  static void run_call(Job* job) noexcept {
    auto* self = static_cast<CallJob*>(job);
    self->store_result_of(self->fn_);
    self->fn_.~Fn();  // captures are released before the waiter wakes
    self->complete();
    self->release();
  }
  static void destroy(FutureStateBase* state) noexcept {
    auto* self = static_cast<CallJob*>(static_cast<FutureState<R>*>(state));
    self->~CallJob();
    free_block(self, sizeof(CallJob));
  }

  union {
    Fn fn_;
  };
};

/// Whether a task of type T is stored in RecycledFiber::storage itself (else on the heap).
template <class T>
inline constexpr bool stored_inline = sizeof(T) <= RecycledFiber::capacity && alignof(T) <= alignof(std::max_align_t) &&
                                      std::is_nothrow_move_constructible_v<T>;

template <class T>
void run_stored(void* storage) noexcept {
  if constexpr (stored_inline<T>) {
    T* task = std::launder(static_cast<T*>(storage));
    (*task)();
    task->~T();
  } else {
    auto* holder = std::launder(static_cast<std::unique_ptr<T>*>(storage));
    std::unique_ptr<T> task = std::move(*holder);
    holder->~unique_ptr();
    (*task)();
  }
}

/// Starts `task` (a noexcept nullary callable) on a fiber of the calling thread.
template <class Task>
void start_task(Task&& task, const FiberOptions& options) {
  using T = std::decay_t<Task>;
  if (fiber_recycling_enabled && options.recycle) {
    if constexpr (stored_inline<T>) {
      if (RecycledFiber* idle = take_idle_fiber(options.stack)) {
        ::new (static_cast<void*>(idle->storage)) T(std::forward<Task>(task));  // cannot throw
        idle->run = &run_stored<T>;
        start_recycled(*idle, options.launch);
        return;
      }
    } else {
      // Allocate before taking a parked fiber: nothing may throw once one is taken.
      auto boxed = std::make_unique<T>(std::forward<Task>(task));
      if (RecycledFiber* idle = take_idle_fiber(options.stack)) {
        ::new (static_cast<void*>(idle->storage)) std::unique_ptr<T>(std::move(boxed));
        idle->run = &run_stored<T>;
        start_recycled(*idle, options.launch);
        return;
      }
      boost::fibers::fiber(options.launch, std::allocator_arg, StackAllocator(options.stack),
                           [first = std::move(boxed), stack = options.stack]() mutable {
                             (*first)();
                             first.reset();  // release the promise before parking
                             recycle_loop(stack);
                           })
          .detach();
      return;
    }
    boost::fibers::fiber(options.launch, std::allocator_arg, StackAllocator(options.stack),
                         [first = T(std::forward<Task>(task)), stack = options.stack]() mutable {
                           {
                             T current(std::move(first));  // destroyed (promise released) before parking
                             current();
                           }
                           recycle_loop(stack);
                         })
        .detach();
    return;
  }
  boost::fibers::fiber(options.launch, std::allocator_arg, StackAllocator(options.stack), T(std::forward<Task>(task)))
      .detach();
}

}  // namespace detail

/// Runs `fn()` on a Boost.Fiber of the calling thread's scheduler and returns its future.
///
/// - Where: the calling thread (its scheduler is created on first use if it has none); with
///   `launch::dispatch` the fiber runs up to its first suspension before this returns.
/// - Result: `get()` returns fn's result, or rethrows the very exception object fn threw (same
///   type, same message). Nothing is thrown by this call except std::bad_alloc for stacks.
/// - `fn` is decay-copied into the fiber, so it must own what it uses: the returned future may
///   be waited on after the caller's temporaries are gone.
/// - Fiber-aware waits (fiber mutexes, condition variables, futures, this_fiber::sleep_for) in
///   fn suspend only that fiber; a std::mutex or blocking system call blocks the whole thread.
template <class Fn>
[[nodiscard]] Future<std::invoke_result_t<std::decay_t<Fn>&>> run_on_fiber(Fn&& fn, const FiberOptions& options = {}) {
  using R = std::invoke_result_t<std::decay_t<Fn>&>;
  using Call = detail::CallJob<R, std::decay_t<Fn>>;
  Call* job = Call::make(std::forward<Fn>(fn), std::chrono::nanoseconds::zero());
  Future<R> future = detail::make_future<R>(job);
  try {
    detail::start_task([job]() noexcept { job->run(job); }, options);
  } catch (...) {
    job->discard();
    throw;
  }
  return future;
}

}  // namespace propgraph
