// MemoryGraph's reader/writer lock.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

#include "fiber/spin.hpp"

namespace propgraph::detail {

/// A reader/writer lock whose readers do not share a cache line: each thread counts its reads in
/// a slot of its own (threads are spread over a few slots), so concurrent readers on different
/// cores do not bounce one lock word between them, and a read costs one uncontended atomic
/// increment and decrement. A writer raises a flag and waits for every slot to drain; readers
/// that see the flag step back and wait, so writers are never starved by a stream of readers.
/// Meets the Lockable and SharedLockable requirements (std::unique_lock, std::shared_lock).
///
/// Waits are short (a writer holds the lock only to apply a change, a reader for one call), so
/// both sides first spin for up to `spin_budget` and only then sleep (C++20 atomic wait); a
/// side wakes the other with a system call only when that one sleeps. On a virtual machine a
/// wake-up costs microseconds, more than a typical apply.
///
/// Not recursive. A thread must release a shared lock on the thread that took it (MemoryGraph's
/// calls never suspend while they hold it).
class ReaderWriterLock {
 public:
  /// How long a waiter spins before it sleeps.
  static constexpr std::chrono::microseconds spin_budget{20};

  ReaderWriterLock()
      : count_(std::bit_ceil(std::clamp<std::size_t>(2 * std::max(1u, std::thread::hardware_concurrency()), 4, 64))),
        slots_(std::make_unique<Slot[]>(count_)),
        max_spinners_(std::max(1u, std::thread::hardware_concurrency()) - 1) {}

  void lock_shared() noexcept {
    Slot& slot = mine();
    for (;;) {
      slot.readers.fetch_add(1);
      if (writer_.load() == 0) return;
      // A writer wants in: step back until it is done.
      release(slot);
      wait_for_writer();
    }
  }
  void unlock_shared() noexcept { release(mine()); }

  void lock() {
    writers_.lock();
    writer_.store(1);
    for (std::size_t i = 0; i < count_; ++i) drain(slots_[i].readers);
  }
  void unlock() noexcept {
    // seq_cst here and in wait_for_writer(): either this sees the sleeper, or it sees the flag down.
    writer_.store(0);
    if (sleeping_readers_.load() != 0) writer_.notify_all();
    writers_.unlock();
  }

 private:
  struct alignas(64) Slot {
    std::atomic<std::uint32_t> readers{0};
  };

  Slot& mine() const noexcept {
    static std::atomic<std::size_t> next{0};
    thread_local const std::size_t index = next.fetch_add(1, std::memory_order_relaxed);
    return slots_[index & (count_ - 1)];  // a power of two: no division on every call
  }
  void release(Slot& slot) noexcept {
    // seq_cst here and in drain(): either the writer sees this slot drained, or this reader sees
    // that the writer sleeps and wakes it.
    if (slot.readers.fetch_sub(1) == 1 && writer_sleeping_.load()) slot.readers.notify_all();
  }
  void wait_for_writer() noexcept {
    // At most one spinner per core but the writer's: more would keep the writer (or a reader it
    // waits for) off the CPU on a machine with more threads than cores.
    const bool spin = spinning_readers_.fetch_add(1, std::memory_order_relaxed) < max_spinners_;
    const bool done = spin && pause_until([this] { return writer_.load(std::memory_order_acquire) == 0; });
    spinning_readers_.fetch_sub(1, std::memory_order_relaxed);
    if (done) return;
    sleeping_readers_.fetch_add(1);
    while (writer_.load() != 0) writer_.wait(1);
    sleeping_readers_.fetch_sub(1);
  }
  void drain(std::atomic<std::uint32_t>& readers) noexcept {
    // Acquire: the readers' calls happen before what the writer does next.
    if (pause_until([&] { return readers.load(std::memory_order_acquire) == 0; })) return;
    writer_sleeping_.store(true);
    for (auto n = readers.load(); n != 0; n = readers.load()) readers.wait(n);
    writer_sleeping_.store(false);
  }
  /// Spins until done() or spin_budget has passed; whether done(). Unlike spin_until()
  /// (fiber/spin.hpp) it never yields between looks: a yield is a system call, the very cost
  /// this lock's waits avoid.
  ///
  /// It looks less often the longer it waits (1, 2, 4, ... up to kMaxPauses pauses between
  /// looks): each look pulls the other side's cache line over, so that side's next write to it
  /// (a reader leaving, the writer lowering its flag) becomes a miss; looking back to back
  /// made every call of a lone reader beside a committing writer pay two such misses.
  template <class Done>
  static bool pause_until(Done&& done) noexcept {
    std::chrono::steady_clock::time_point end{};
    unsigned pauses = 1;
    for (unsigned i = 1;; ++i) {
      if (done()) return true;
      for (unsigned k = 0; k < pauses; ++k) spin_pause();
      pauses = std::min(2 * pauses, kMaxPauses);
      if (i % 8 == 0) {
        const auto now = std::chrono::steady_clock::now();
        if (end == std::chrono::steady_clock::time_point{}) {
          end = now + spin_budget;
        } else if (now >= end) {
          return false;
        }
      }
    }
  }

  static constexpr unsigned kMaxPauses = 16;

  const std::size_t count_;
  std::unique_ptr<Slot[]> slots_;
  const std::uint32_t max_spinners_;
  alignas(64) std::atomic<std::uint32_t> writer_{0};  // 1 while a writer holds or wants the lock
  std::atomic<std::uint32_t> sleeping_readers_{0};
  std::atomic<std::uint32_t> spinning_readers_{0};
  std::atomic<bool> writer_sleeping_{false};
  std::mutex writers_;
};

}  // namespace propgraph::detail
