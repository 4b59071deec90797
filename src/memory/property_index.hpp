// An equality index over one property: value key -> ascending slots, as a flat open-addressing
// table. A point lookup touches one table entry (the value's bytes inline up to 15 bytes, and
// the slot itself when one element holds the value, the common case of ids, names and emails)
// instead of a node-based map's chain of bucket, node and vector.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memory/adjacency.hpp"
#include "memory/large_block_allocator.hpp"

namespace propgraph::detail {

/// Equality index over one property of the elements of one label: the canonical encoding of
/// each value present (PackedView::index_key) to the ascending slots holding it.
/// Elements without the property (empty value key) are not in it. Not thread-safe.
class PropertyIndex {
 public:
  explicit PropertyIndex(std::string key, bool unique = false) : key_(std::move(key)), unique_(unique) {}

  [[nodiscard]] const std::string& key() const noexcept { return key_; }
  /// Unique: MemoryGraph refuses writes that would put two slots in one bucket (equal values;
  /// values containing NaN equal nothing and are exempt).
  [[nodiscard]] bool unique() const noexcept { return unique_; }

  /// Adds slot under value (a no-op when it is there); expected O(1) plus O(b) for a bucket of
  /// b > 1 slots unless slot is the largest so far (inserts of new elements).
  void add(std::string_view value, Slot slot);
  /// Removes slot from value's bucket, dropping an emptied bucket; expected O(1) plus O(b).
  void remove(std::string_view value, Slot slot);
  /// The ascending slots holding value; empty when none. Valid until the next add or remove.
  [[nodiscard]] std::span<const Slot> find(std::string_view value) const noexcept;

  /// fn(slots) for each bucket holding more than one slot (for unique checks), in no order.
  template <typename Fn>
  void for_each_shared_bucket(Fn&& fn) const {
    for (const auto& bucket : shared_) {
      if (bucket.size() > 1) fn(std::span<const Slot>(bucket));
    }
  }
  /// Distinct values held.
  [[nodiscard]] std::size_t values() const noexcept { return used_; }

 private:
  static constexpr std::uint32_t kAlone = 0xFFFFFFFF;
  struct Entry {
    std::uint64_t hash = 0;
    std::string value;             // empty: a free entry (values present are never empty)
    Slot alone = 0;                // the bucket when it holds one slot
    std::uint32_t shared = kAlone; // else its index in shared_
  };

  [[nodiscard]] std::size_t position(std::string_view value, std::uint64_t hash) const noexcept;
  void grow();
  void erase_at(std::size_t i);

  std::string key_;
  bool unique_ = false;
  // Size 0 or a power of two; linear probing, at most 3/4 used; huge pages when large.
  std::vector<Entry, LargeBlockAllocator<Entry>> table_;
  std::size_t used_ = 0;
  std::vector<std::vector<Slot>> shared_;  // buckets of two or more slots (emptied ones are free)
  std::vector<std::uint32_t> free_shared_;
};

}  // namespace propgraph::detail
