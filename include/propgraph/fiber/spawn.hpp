// Running a callable on a Boost.Fiber of the calling thread: the primitive under the facade.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include <boost/fiber/context.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/future/future.hpp>
#include <boost/fiber/future/promise.hpp>
#include <boost/fiber/policy.hpp>

#include "propgraph/fiber/stack_allocator.hpp"

namespace propgraph {

/// The future every `_async` call returns.
template <class T>
using Future = boost::fibers::future<T>;

/// How a fiber is started on the calling thread.
struct FiberOptions {
  /// `dispatch` (the default) switches to the new fiber at once and puts the caller on the ready
  /// queue; `post` puts the new fiber on the ready queue and returns, so it starts when the caller
  /// next blocks or yields. For a call joined immediately, dispatch is faster: post makes the
  /// caller block in get() and costs a second pass through the scheduler's dispatcher fiber.
  /// Measured with propgraph-bench `launch/*` (run_on_fiber(noop).get(), this project's 2-core
  /// machine, CPU-time medians of 5 repetitions) and callgrind (instructions per call):
  ///
  ///     recycled fiber   dispatch 0.32 µs / 2,006 instr.   post 0.47 µs / 2,826 instr.
  ///     fresh fiber      dispatch 0.45 µs / 2,655 instr.   post 0.65 µs
  ///     for scale        promise + future + get 0.16 µs / 1,310 instr.; yield 0.12 µs / 690
  ///
  /// so a recycled, dispatched call costs what Boost.Fiber's own promise/future round trip plus
  /// one scheduler round trip cost, with next to nothing added by the facade.
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
  static constexpr std::size_t capacity = 384;
  alignas(std::max_align_t) unsigned char storage[capacity];
  void (*run)(void* storage) noexcept = nullptr;  // runs, then destroys, the task in storage
  boost::fibers::context* context = nullptr;
  StackAllocator stack;
  RecycledFiber* next = nullptr;
  bool quit = false;
};

/// Takes a parked fiber of this thread whose stack came from `stack`, or nullptr.
[[nodiscard]] RecycledFiber* take_idle_fiber(const StackAllocator& stack) noexcept;
/// Starts the task already placed in `fiber` (dispatch: switch now; post: make it ready).
void start_recycled(RecycledFiber& fiber, boost::fibers::launch launch) noexcept;
/// Body of a recyclable fiber after its first task: parks, runs tasks handed to it, and returns
/// (ending the fiber) when the thread's idle list is full or the thread is exiting.
void recycle_loop(const StackAllocator& stack) noexcept;

/// Shared states of the facade's promises come from a per-thread free list of blocks of this
/// size (bounded; larger states use the global heap), which saves a malloc/free pair per call.
inline constexpr std::size_t state_block_size = 256;
[[nodiscard]] void* allocate_state_block();
void free_state_block(void* block) noexcept;

/// The allocator given to the facade's promises (see state_block_size). Stateless; a block
/// may be freed on any thread.
template <class T>
struct StateAllocator {
  using value_type = T;
  static constexpr bool pooled = sizeof(T) <= state_block_size && alignof(T) <= alignof(std::max_align_t);

  StateAllocator() noexcept = default;
  template <class U>
  StateAllocator(const StateAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] T* allocate(std::size_t n) {
    if (pooled && n == 1) return static_cast<T*>(allocate_state_block());
    return std::allocator<T>{}.allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (pooled && n == 1) {
      free_state_block(p);
    } else {
      std::allocator<T>{}.deallocate(p, n);
    }
  }
  template <class U>
  friend bool operator==(const StateAllocator&, const StateAllocator<U>&) noexcept {
    return true;
  }
};

/// A promise whose shared state comes from StateAllocator.
template <class R>
[[nodiscard]] boost::fibers::promise<R> make_promise() {
  return boost::fibers::promise<R>(std::allocator_arg, StateAllocator<R>{});
}

/// Runs `fn` and stores its outcome (value or exception) in `promise`.
template <class R, class Fn>
void fulfil(boost::fibers::promise<R>& promise, Fn& fn) noexcept {
  try {
    if constexpr (std::is_void_v<R>) {
      fn();
      promise.set_value();
    } else {
      promise.set_value(fn());
    }
  } catch (...) {
    // set_exception cannot fail here: the promise is not yet satisfied.
    promise.set_exception(std::current_exception());
  }
}

/// Whether a task of type T is stored in RecycledFiber::storage itself (else on the heap).
template <class T>
inline constexpr bool stored_inline = sizeof(T) <= RecycledFiber::capacity &&
                                      alignof(T) <= alignof(std::max_align_t) &&
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
  boost::fibers::fiber(options.launch, std::allocator_arg, StackAllocator(options.stack),
                       T(std::forward<Task>(task)))
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
[[nodiscard]] Future<std::invoke_result_t<std::decay_t<Fn>&>> run_on_fiber(
    Fn&& fn, const FiberOptions& options = {}) {
  using R = std::invoke_result_t<std::decay_t<Fn>&>;
  boost::fibers::promise<R> promise = detail::make_promise<R>();
  Future<R> future = promise.get_future();
  detail::start_task([promise = std::move(promise), fn = std::decay_t<Fn>(std::forward<Fn>(fn))]() mutable noexcept {
    detail::fulfil(promise, fn);
  }, options);
  return future;
}

}  // namespace propgraph
