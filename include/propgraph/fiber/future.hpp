// Future<T>: the result of a call started on a fiber (run_on_fiber, FiberPool::submit, the facade).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include <boost/fiber/exceptions.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/future/future.hpp>
#include <boost/fiber/future/future_status.hpp>
#include <boost/fiber/future/promise.hpp>

namespace propgraph {

template <class T>
class Future;

namespace detail {

/// Memory for shared states and jobs: per-thread free lists by size class (64, 128, 256 and 512
/// bytes, a few dozen blocks each); larger requests go to the global heap. A block may be freed
/// on any thread (it joins that thread's list). Throws std::bad_alloc.
[[nodiscard]] void* allocate_block(std::size_t size);
void free_block(void* block, std::size_t size) noexcept;
/// `construct(block)` on a block of `size` bytes from allocate_block(); frees the block and
/// rethrows when it throws. Returns what `construct` returns (the constructed object).
template <class Construct>
[[nodiscard]] auto construct_in_block(std::size_t size, Construct&& construct) {
  void* block = allocate_block(size);
  try {
    return std::forward<Construct>(construct)(block);
  } catch (...) {
    free_block(block, size);
    throw;
  }
}

/// The value-independent part of a Future's shared state: completion, the waiting protocol, the
/// stored exception and the reference count (the Future and the producer hold one each).
///
/// Waiting never takes a lock: the state word is `pending`, `ready`, `busy` (a producer is waking
/// the waiter) or the waiting context (tagged when the wait is timed). A waiter on a fiber
/// suspends only its fiber; a plain thread waiting for a producer on another thread (a pool job)
/// first spins for `join_spin`, then suspends like any Boost.Fiber wait.
class FutureStateBase {
 public:
  FutureStateBase(const FutureStateBase&) = delete;
  FutureStateBase& operator=(const FutureStateBase&) = delete;

  [[nodiscard]] bool is_ready() const noexcept { return word_.load(std::memory_order_acquire) == ready_word; }
  /// Returns once the state is ready.
  void wait() noexcept;
  /// Returns true once ready, false when `deadline` passed first.
  [[nodiscard]] bool wait_until(std::chrono::steady_clock::time_point deadline) noexcept;
  /// Drops one reference; the last one destroys the state.
  void release() noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) destroy_(this);
  }
  /// The stored exception (ready states only); null when a value was stored.
  [[nodiscard]] const std::exception_ptr& error() const noexcept { return error_; }

 protected:
  using Destroy = void (*)(FutureStateBase*) noexcept;
  FutureStateBase(Destroy destroy, std::chrono::nanoseconds join_spin) noexcept
      : join_spin_(join_spin), destroy_(destroy) {}
  ~FutureStateBase() = default;

  /// Publishes the outcome stored before (a value, or set_error()) and wakes the waiter, if any.
  void complete() noexcept;
  void set_error(std::exception_ptr error) noexcept { error_ = std::move(error); }
  void fail(std::exception_ptr error) noexcept {
    set_error(std::move(error));
    complete();
  }

 private:
  static constexpr std::uintptr_t pending_word = 0;
  static constexpr std::uintptr_t ready_word = 1;
  static constexpr std::uintptr_t busy_word = 3;
  static constexpr std::uintptr_t timed_bit = 2;  // contexts are at least 8-byte aligned

  [[nodiscard]] bool spin_until_ready(std::chrono::steady_clock::time_point end) const noexcept;
  void await_not_busy() const noexcept;

  std::atomic<std::uintptr_t> word_{pending_word};
  std::atomic<std::uint32_t> refs_{2};
  std::chrono::nanoseconds join_spin_;
  Destroy destroy_;
  std::exception_ptr error_;
};

/// A shared state holding a T (an object type, a reference or void).
template <class T>
class FutureState : public FutureStateBase {
  // What the state holds: T, a pointer for a reference, a placeholder byte for void.
  using Stored = std::conditional_t<std::is_void_v<T>, unsigned char,
                                    std::conditional_t<std::is_reference_v<T>, std::remove_reference_t<T>*, T>>;

 public:
  /// Stores `fn()`, constructed in place (no intermediate move), or the exception it throws.
  /// Does not publish: complete() does, so the caller may release resources in between.
  template <class Fn>
  void store_result_of(Fn& fn) noexcept {
    try {
      if constexpr (std::is_void_v<T>) {
        fn();
      } else if constexpr (std::is_reference_v<T>) {
        ::new (static_cast<void*>(storage_)) Stored(std::addressof(fn()));
        has_value_ = true;
      } else {
        ::new (static_cast<void*>(storage_)) Stored(fn());
        has_value_ = true;
      }
    } catch (...) {
      set_error(std::current_exception());
    }
  }
  template <class... A>
  void set_value(A&&... value) {
    if constexpr (!std::is_void_v<T>) {
      if constexpr (std::is_reference_v<T>) {
        ::new (static_cast<void*>(storage_)) Stored(std::addressof(value)...);
      } else {
        ::new (static_cast<void*>(storage_)) Stored(std::forward<A>(value)...);
      }
      has_value_ = true;
    }
    complete();
  }
  using FutureStateBase::complete;
  using FutureStateBase::fail;

  /// The value (moved out) or the stored exception rethrown. Ready states only, once.
  T take() {
    if (error()) std::rethrow_exception(error());
    if constexpr (std::is_void_v<T>) {
      return;
    } else if constexpr (std::is_reference_v<T>) {
      return **value();
    } else {
      return std::move(*value());
    }
  }

 protected:
  FutureState(Destroy destroy, std::chrono::nanoseconds join_spin) noexcept : FutureStateBase(destroy, join_spin) {}
  ~FutureState() {
    if constexpr (!std::is_void_v<T>) {
      if (has_value_) value()->~Stored();
    }
  }

 private:
  Stored* value() noexcept { return std::launder(reinterpret_cast<Stored*>(storage_)); }

  alignas(Stored) unsigned char storage_[sizeof(Stored)];
  bool has_value_ = false;
};

template <class T>
Future<T> make_future(FutureState<T>* state) noexcept;

/// The producing side of a stand-alone shared state (one heap block), for code that completes a
/// Future itself rather than through a job. Destroying an unsatisfied promise stores
/// boost::fibers::broken_promise.
template <class T>
class Promise {
  class State final : public FutureState<T> {
   public:
    State() noexcept : FutureState<T>(&destroy, std::chrono::nanoseconds::zero()) {}

   private:
    static void destroy(FutureStateBase* state) noexcept { delete static_cast<State*>(state); }
  };

 public:
  Promise() : state_(new State) {}
  Promise(const Promise&) = delete;
  Promise& operator=(const Promise&) = delete;
  ~Promise() {
    if (!satisfied_) state_->fail(std::make_exception_ptr(boost::fibers::broken_promise()));
    if (!retrieved_) state_->release();
    state_->release();
  }

  /// The Future of this promise; call once.
  [[nodiscard]] Future<T> get_future() noexcept {
    retrieved_ = true;
    return make_future<T>(state_);
  }
  template <class... A>
  void set_value(A&&... value) {
    satisfied_ = true;
    state_->set_value(std::forward<A>(value)...);
  }
  void set_exception(std::exception_ptr error) noexcept {
    satisfied_ = true;
    state_->fail(std::move(error));
  }

 private:
  State* state_;
  bool retrieved_ = false;
  bool satisfied_ = false;
};

}  // namespace detail

/// The result of a call started on a fiber: every `_async` call, run_on_fiber, FiberPool::submit
/// and when_all / when_any return one. Used like boost::fibers::future (and std::future):
///
/// - get() waits, then returns the value or rethrows the very exception object the call threw;
///   afterwards the future is no longer valid(). get() on an invalid future throws
///   boost::fibers::future_uninitialized.
/// - wait(), wait_for(d), wait_until(t) wait without consuming; the timed ones return
///   boost::fibers::future_status::ready or ::timeout.
/// - Waiting is fiber-aware: on a fiber only that fiber is suspended and its thread runs other
///   fibers meanwhile. A plain thread waiting for a FiberPool call spins briefly (see
///   FiberPoolOptions::join_spin), then blocks like any Boost.Fiber wait.
/// - Move-only, one consumer. Destroying a future that is not ready detaches from the call,
///   which still runs to completion.
/// - Cost: a call joined immediately needs no lock and no allocation beyond one block of a
///   per-thread free list holding the call and its result together.
/// - Converts implicitly to boost::fibers::future<T> (an rvalue, consumed), so code written
///   against `boost::fibers::future<R> f = graph.x_async(...)` keeps working; see the
///   conversion operator for its cost and the one condition of a pending result.
template <class T>
class Future {
 public:
  Future() noexcept = default;
  Future(Future&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
  Future& operator=(Future&& other) noexcept {
    if (this != &other) {
      reset();
      state_ = std::exchange(other.state_, nullptr);
    }
    return *this;
  }
  Future(const Future&) = delete;
  Future& operator=(const Future&) = delete;
  ~Future() { reset(); }

  /// True until get() consumed the result (and for no default-constructed or moved-from future).
  [[nodiscard]] bool valid() const noexcept { return state_ != nullptr; }

  /// Waits for the result; returns it or rethrows the call's exception. Consumes the future.
  T get() {
    detail::FutureState<T>* state = checked();
    state->wait();
    state_ = nullptr;
    const Release release{state};
    return state->take();
  }

  /// Waits for the result without consuming it.
  void wait() const { checked()->wait(); }

  /// Waits at most `timeout`; ready or timeout. A zero timeout only looks.
  template <class Rep, class Period>
  boost::fibers::future_status wait_for(const std::chrono::duration<Rep, Period>& timeout) const {
    return wait_until(std::chrono::steady_clock::now() +
                      std::chrono::ceil<std::chrono::steady_clock::duration>(timeout));
  }

  /// Waits until `deadline` at most; ready or timeout.
  template <class Clock, class Duration>
  boost::fibers::future_status wait_until(const std::chrono::time_point<Clock, Duration>& deadline) const {
    detail::FutureState<T>* state = checked();
    std::chrono::steady_clock::time_point steady;
    if constexpr (std::is_same_v<Clock, std::chrono::steady_clock>) {
      steady = std::chrono::time_point_cast<std::chrono::steady_clock::duration>(deadline);
    } else {
      steady = std::chrono::steady_clock::now() +
               std::chrono::ceil<std::chrono::steady_clock::duration>(deadline - Clock::now());
    }
    return state->wait_until(steady) ? boost::fibers::future_status::ready : boost::fibers::future_status::timeout;
  }

  /// Waits, then returns the stored exception (null when the call returned a value) without
  /// consuming the future.
  [[nodiscard]] std::exception_ptr get_exception_ptr() const {
    detail::FutureState<T>* state = checked();
    state->wait();
    return state->error();
  }

  /// The same outcome as a boost::fibers::future<T>: the value, or the very exception object
  /// the call threw. Consumes this future (throws boost::fibers::future_uninitialized when it
  /// is not valid()).
  ///
  /// - Ready: the outcome moves into a satisfied boost::fibers::promise at once.
  /// - Not ready: a detached fiber started on the calling thread (launch::post) waits for the
  ///   result and satisfies the promise. It runs whenever that thread runs its fibers, which
  ///   every fiber-aware wait there does (get() or wait() of the converted future, a fiber
  ///   wait, a yield); a thread that converts and then hands the boost future to another
  ///   thread must itself keep running fibers until the result is in.
  /// - Cost: one Boost shared state (an allocation) on top of the call; one fiber when not ready.
  // NOLINTNEXTLINE(google-explicit-constructor): the implicit conversion is the point
  operator boost::fibers::future<T>() && {
    checked();
    boost::fibers::promise<T> promise;
    boost::fibers::future<T> converted = promise.get_future();
    if (state_->is_ready()) {
      settle(promise, *this);
    } else {
      boost::fibers::fiber(boost::fibers::launch::post, [promise = std::move(promise),
                                                         self = std::move(*this)]() mutable {
        settle(promise, self);
      }).detach();
    }
    return converted;
  }

 private:
  /// Moves the outcome of `from` (waiting for it) into `to`.
  static void settle(boost::fibers::promise<T>& to, Future& from) noexcept {
    try {
      if constexpr (std::is_void_v<T>) {
        from.get();
        to.set_value();
      } else {
        to.set_value(from.get());
      }
    } catch (...) {
      to.set_exception(std::current_exception());
    }
  }

  friend Future detail::make_future<T>(detail::FutureState<T>*) noexcept;
  explicit Future(detail::FutureState<T>* state) noexcept : state_(state) {}

  struct Release {
    detail::FutureState<T>* state;
    ~Release() { state->release(); }
  };

  detail::FutureState<T>* checked() const {
    if (state_ == nullptr) throw boost::fibers::future_uninitialized();
    return state_;
  }
  void reset() noexcept {
    if (state_ != nullptr) std::exchange(state_, nullptr)->release();
  }

  detail::FutureState<T>* state_ = nullptr;
};

template <class T>
Future<T> detail::make_future(FutureState<T>* state) noexcept {
  return Future<T>(state);
}

}  // namespace propgraph
