// The slots of one label's elements, ascending, with runs of consecutive slots stored as two
// words: a bulk load of one label costs nothing per element, and interleaved labels cost no
// more than a plain list of slots (4 bytes each).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace propgraph::detail {

class SlotRuns {
 public:
  using Slot = std::uint32_t;
  /// Marks the first word of a run; the second word is the run's last slot. Slots are below it.
  static constexpr std::uint32_t kRun = 0x80000000u;

  [[nodiscard]] bool empty() const noexcept { return words_.empty(); }
  [[nodiscard]] std::size_t words() const noexcept { return words_.size(); }

  /// Adds a slot larger than every slot held. O(1) amortised.
  void push_back(Slot s) {
    const std::size_t n = words_.size();
    if (n >= 2 && (words_[n - 2] & kRun) != 0) {  // the last element is a run
      if (s == words_[n - 1] + 1) {
        words_[n - 1] = s;
        return;
      }
    } else if (n >= 1 && s == words_[n - 1] + 1) {  // a single slot becomes a run
      words_[n - 1] |= kRun;
      words_.push_back(s);
      return;
    }
    words_.push_back(s);
  }

  /// fn(slot) for each slot >= first in ascending order, until fn returns false. O(log n) to
  /// find the start, then O(1) per slot.
  template <typename Fn>
  void for_each_from(Slot first, Fn&& fn) const {
    const std::size_t n = words_.size();
    for (std::size_t i = find(first); i < n;) {
      Slot lo = words_[i];
      Slot hi = lo;
      if ((lo & kRun) != 0) {
        lo &= ~kRun;
        hi = words_[i + 1];
        i += 2;
      } else {
        ++i;
      }
      for (Slot s = lo < first ? first : lo; s <= hi; ++s) {
        if (!fn(s)) return;
      }
    }
  }
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for_each_from(0, [&](Slot s) {
      fn(s);
      return true;
    });
  }

  /// Drops the slots `gone(slot)` names. O(slots).
  template <typename Gone>
  void erase_if(Gone&& gone) {
    SlotRuns kept;
    kept.words_.reserve(words_.size());
    for_each([&](Slot s) {
      if (!gone(s)) kept.push_back(s);
    });
    words_ = std::move(kept.words_);
  }

 private:
  /// The word where the first element with a slot >= first starts (words_.size(): none).
  [[nodiscard]] std::size_t find(Slot first) const noexcept {
    std::size_t lo = 0;  // always the start of an element
    std::size_t hi = words_.size();
    while (lo < hi) {
      std::size_t at = lo + (hi - lo) / 2;
      if (at > lo && (words_[at - 1] & kRun) != 0) --at;  // the second word of a run
      const bool run = (words_[at] & kRun) != 0;
      const Slot last = run ? words_[at + 1] : words_[at];
      if (last < first) {
        lo = at + (run ? 2 : 1);
      } else {
        hi = at;
      }
    }
    return lo;
  }

  std::vector<std::uint32_t> words_;
};

}  // namespace propgraph::detail
