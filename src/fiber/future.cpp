// Future's shared state (future.hpp): the lock-free waiting protocol and the block allocator.
#include "propgraph/fiber/future.hpp"

#include <array>

#include <boost/fiber/context.hpp>

#include "fiber/fiber_io.hpp"
#include "fiber/spin.hpp"

namespace propgraph::detail {

namespace {

using Clock = std::chrono::steady_clock;

// -- blocks -------------------------------------------------------------------------------------

constexpr std::array<std::size_t, 4> block_classes{64, 128, 256, 512};
constexpr std::size_t blocks_kept = 64;  // per class and thread

/// Size class index of `size`, or block_classes.size() for the global heap.
constexpr std::size_t class_of(std::size_t size) noexcept {
  std::size_t c = 0;
  while (c < block_classes.size() && size > block_classes[c]) ++c;
  return c;
}

/// Free blocks of one thread, one list per class.
struct FreeBlocks {
  struct List {
    void* head = nullptr;  // each free block starts with the pointer to the next
    std::size_t count = 0;
  };
  std::array<List, block_classes.size()> lists{};

  FreeBlocks() noexcept;
  ~FreeBlocks();
  FreeBlocks(const FreeBlocks&) = delete;
  FreeBlocks& operator=(const FreeBlocks&) = delete;
};

constinit thread_local FreeBlocks* tl_blocks = nullptr;
constinit thread_local bool tl_blocks_gone = false;

FreeBlocks::FreeBlocks() noexcept { tl_blocks = this; }

FreeBlocks::~FreeBlocks() {
  tl_blocks = nullptr;
  tl_blocks_gone = true;
  for (List& list : lists) {
    while (list.head != nullptr) {
      void* block = list.head;
      list.head = *static_cast<void**>(block);
      ::operator delete(block);
    }
  }
}

FreeBlocks* thread_blocks() noexcept {
  FreeBlocks* blocks = tl_blocks;
  if (blocks == nullptr && !tl_blocks_gone) {
    thread_local FreeBlocks list;
    blocks = &list;
  }
  return blocks;
}

}  // namespace

void* allocate_block(std::size_t size) {
  const std::size_t c = class_of(size);
  if (c == block_classes.size()) return ::operator new(size);
  if (FreeBlocks* blocks = thread_blocks(); blocks != nullptr && blocks->lists[c].head != nullptr) {
    FreeBlocks::List& list = blocks->lists[c];
    void* block = list.head;
    list.head = *static_cast<void**>(block);
    --list.count;
    return block;
  }
  return ::operator new(block_classes[c]);
}

void free_block(void* block, std::size_t size) noexcept {
  const std::size_t c = class_of(size);
  if (c < block_classes.size()) {
    if (FreeBlocks* blocks = tl_blocks; blocks != nullptr && blocks->lists[c].count < blocks_kept) {
      FreeBlocks::List& list = blocks->lists[c];
      *static_cast<void**>(block) = list.head;
      list.head = block;
      ++list.count;
      return;
    }
  }
  ::operator delete(block);
}

// -- the waiting protocol -------------------------------------------------------------------------
//
// word_: pending -> ready when nobody waits. A waiter swaps pending for its context (tagged when
// the wait is timed) and suspends; complete() swaps that for busy, wakes the waiter, then sets
// ready. A timed waiter whose deadline passed withdraws by swapping its context back to
// pending; if complete() took it first, the waiter waits out `busy` (a few instructions) so its
// context is not touched after it returns. Timed waits use Boost's twstatus handshake (as its
// condition variables do) so that the timer and complete() never both make the fiber ready.

void FutureStateBase::complete() noexcept {
  std::uintptr_t word = pending_word;
  if (word_.compare_exchange_strong(word, ready_word, std::memory_order_acq_rel)) return;  // no waiter
  word = word_.exchange(busy_word, std::memory_order_acq_rel);
  if (word != pending_word) {  // pending: a timed waiter withdrew in between
    auto* waiter = reinterpret_cast<boost::fibers::context*>(word & ~timed_bit);
    bool wake = true;
    if ((word & timed_bit) != 0) {
      std::intptr_t expected = reinterpret_cast<std::intptr_t>(this);
      wake = waiter->twstatus.compare_exchange_strong(expected, -1, std::memory_order_acq_rel);
    }
    if (wake) boost::fibers::context::active()->schedule(waiter);
  }
  word_.store(ready_word, std::memory_order_release);
}

bool FutureStateBase::spin_until_ready(Clock::time_point end) const noexcept {
  return spin_until([this] { return is_ready(); }, end);
}

void FutureStateBase::await_not_busy() const noexcept {
  while (word_.load(std::memory_order_acquire) == busy_word) spin_pause();
}

void FutureStateBase::wait() noexcept {
  if (is_ready()) return;
  // A plain thread waiting for another thread's job: the result is often microseconds away,
  // far less than a sleep and wake-up of this thread costs.
  if (join_spin_ > std::chrono::nanoseconds::zero() && !fiber_detail::running_on_fiber() &&
      spin_until_ready(Clock::now() + join_spin_)) {
    return;
  }
  boost::fibers::context* self = boost::fibers::context::active();
  std::uintptr_t expected = pending_word;
  if (word_.compare_exchange_strong(expected, reinterpret_cast<std::uintptr_t>(self), std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
    self->suspend();  // until complete() makes it ready
  }
  await_not_busy();
}

bool FutureStateBase::wait_until(Clock::time_point deadline) noexcept {
  if (word_.load(std::memory_order_acquire) != pending_word) {  // ready, busy, or (never) waited on
    await_not_busy();
    return is_ready();
  }
  if (Clock::now() >= deadline) return false;
  if (join_spin_ > std::chrono::nanoseconds::zero() && !fiber_detail::running_on_fiber() &&
      spin_until_ready(std::min(deadline, Clock::now() + join_spin_))) {
    return true;
  }
  boost::fibers::context* self = boost::fibers::context::active();
  const std::uintptr_t tagged = reinterpret_cast<std::uintptr_t>(self) | timed_bit;
  self->twstatus.store(reinterpret_cast<std::intptr_t>(this), std::memory_order_release);
  std::uintptr_t expected = pending_word;
  if (!word_.compare_exchange_strong(expected, tagged, std::memory_order_acq_rel, std::memory_order_acquire)) {
    self->twstatus.store(0, std::memory_order_release);
    await_not_busy();
    return true;
  }
  (void)self->wait_until(deadline);  // until complete() or the deadline
  expected = tagged;
  const bool withdrew =
      word_.compare_exchange_strong(expected, pending_word, std::memory_order_acq_rel, std::memory_order_acquire);
  // Either way complete() can no longer wake this wait: it did, or its twstatus exchange fails.
  self->twstatus.store(0, std::memory_order_release);
  if (withdrew) return false;
  await_not_busy();
  return true;
}

}  // namespace propgraph::detail
