// MemoryGraph's reader/writer lock.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

namespace propgraph::detail {

/// A reader/writer lock whose readers do not share a cache line: each thread counts its reads in
/// a slot of its own (threads are spread over a few slots), so concurrent readers on different
/// cores do not bounce one lock word between them, and a read costs one uncontended atomic
/// increment and decrement. A writer raises a flag and waits for every slot to drain; readers
/// that see the flag step back and wait, so writers are never starved by a stream of readers.
/// Meets the Lockable and SharedLockable requirements (std::unique_lock, std::shared_lock).
///
/// Not recursive. A thread must release a shared lock on the thread that took it (MemoryGraph's
/// calls never suspend while they hold it). Waiting blocks the thread (C++20 atomic wait);
/// writers hold it only to apply a change, so readers wait microseconds.
class ReaderWriterLock {
 public:
  ReaderWriterLock()
      : count_(std::clamp<std::size_t>(2 * std::max(1u, std::thread::hardware_concurrency()), 4, 64)),
        slots_(std::make_unique<Slot[]>(count_)) {}

  void lock_shared() noexcept {
    Slot& slot = mine();
    for (;;) {
      slot.readers.fetch_add(1);
      if (!writer_.load()) return;
      // A writer wants in: step back until it is done.
      release(slot);
      writer_.wait(true);
    }
  }
  void unlock_shared() noexcept { release(mine()); }

  void lock() {
    writers_.lock();
    writer_.store(true);
    for (std::size_t i = 0; i < count_; ++i) {
      auto& readers = slots_[i].readers;
      for (auto n = readers.load(); n != 0; n = readers.load()) readers.wait(n);
    }
  }
  void unlock() noexcept {
    writer_.store(false);
    writer_.notify_all();
    writers_.unlock();
  }

 private:
  struct alignas(64) Slot {
    std::atomic<std::uint32_t> readers{0};
  };

  Slot& mine() const noexcept {
    static std::atomic<std::size_t> next{0};
    thread_local const std::size_t index = next.fetch_add(1, std::memory_order_relaxed);
    return slots_[index % count_];
  }
  void release(Slot& slot) noexcept {
    // seq_cst here and in lock(): either the writer sees this slot drained, or this reader sees
    // the writer's flag and wakes it.
    if (slot.readers.fetch_sub(1) == 1 && writer_.load()) slot.readers.notify_all();
  }

  const std::size_t count_;
  std::unique_ptr<Slot[]> slots_;
  alignas(64) std::atomic<bool> writer_{false};
  std::mutex writers_;
};

}  // namespace propgraph::detail
