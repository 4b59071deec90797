// TimerQueue: the sleeping fibers of one thread, by deadline.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace boost::fibers {
class context;
}

namespace propgraph::detail {

/// Deadlines of the sleeping fibers of one thread (one thread only; no locking).
///
/// A deadline no earlier than the last one that went to the in-order ring (the usual case: equal
/// waits queued one after the other) is appended to that ring: O(1) to add and to take. Any
/// other goes to a 4-ary min-heap: O(log n). Ties wake in the order they were queued. Storage
/// grows geometrically and is kept, so a thread that has seen n sleepers at once allocates
/// nothing more for up to n.
class TimerQueue {
 public:
  using Clock = std::chrono::steady_clock;
  struct Timer {
    Clock::time_point deadline;
    std::uint64_t seq;  // queue order, for ties
    boost::fibers::context* ctx;
  };

  [[nodiscard]] bool empty() const noexcept { return ring_size_ == 0 && heap_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return ring_size_ + heap_.size(); }

  /// The earliest deadline, or time_point::max() when empty.
  [[nodiscard]] Clock::time_point next() const noexcept {
    Clock::time_point t = Clock::time_point::max();
    if (ring_size_ != 0) t = ring_[ring_head_].deadline;
    if (!heap_.empty()) t = std::min(t, heap_.front().deadline);
    return t;
  }

  void push(Clock::time_point deadline, boost::fibers::context* ctx) {
    const Timer timer{deadline, seq_++, ctx};
    if (ring_size_ == 0 || deadline >= ring_back().deadline) {
      ring_push(timer);
    } else {
      heap_push(timer);
    }
  }

  /// Removes and returns the earliest timer. Not empty.
  Timer pop() noexcept {
    const bool from_ring = ring_size_ != 0 && (heap_.empty() || !earlier(heap_.front(), ring_[ring_head_]));
    return from_ring ? ring_pop() : heap_pop();
  }

 private:
  static bool earlier(const Timer& a, const Timer& b) noexcept {
    return a.deadline < b.deadline || (a.deadline == b.deadline && a.seq < b.seq);
  }

  // -- ring: a power-of-two circular buffer ------------------------------------------------
  Timer& ring_back() noexcept { return ring_[(ring_head_ + ring_size_ - 1) & (ring_.size() - 1)]; }
  void ring_push(const Timer& timer) {
    if (ring_size_ == ring_.size()) {
      std::vector<Timer> grown(std::max<std::size_t>(64, ring_.size() * 2));
      for (std::size_t i = 0; i < ring_size_; ++i) grown[i] = ring_[(ring_head_ + i) & (ring_.size() - 1)];
      ring_ = std::move(grown);
      ring_head_ = 0;
    }
    ring_[(ring_head_ + ring_size_) & (ring_.size() - 1)] = timer;
    ++ring_size_;
  }
  Timer ring_pop() noexcept {
    const Timer timer = ring_[ring_head_];
    ring_head_ = (ring_head_ + 1) & (ring_.size() - 1);
    --ring_size_;
    return timer;
  }

  // -- heap: 4-ary, children of i at 4i+1 .. 4i+4 ------------------------------------------
  void heap_push(const Timer& timer) {
    heap_.push_back(timer);
    std::size_t i = heap_.size() - 1;
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!earlier(timer, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = timer;
  }
  Timer heap_pop() noexcept {
    const Timer top = heap_.front();
    const Timer last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return top;
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t end = std::min(first + 4, n);
      for (std::size_t c = first + 1; c < end; ++c) {
        if (earlier(heap_[c], heap_[best])) best = c;
      }
      if (!earlier(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
    return top;
  }

  std::vector<Timer> ring_;
  std::size_t ring_head_ = 0;
  std::size_t ring_size_ = 0;
  std::vector<Timer> heap_;
  std::uint64_t seq_ = 0;
};

}  // namespace propgraph::detail
