// Where MemoryGraph keeps the packed properties of its elements: small maps inside the vertex
// slot itself (InlineProperties: no second cache miss for a lookup), the rest in one heap of
// 4-byte words (PropertyHeap) that a slot names by a 32-bit handle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <unordered_map>
#include <vector>

#include "memory/mapped_array.hpp"
#include "packed_properties.hpp"
#include "prefetch.hpp"

namespace propgraph::detail {

/// Names a map in a PropertyHeap; 0: no properties.
using PropertyHandle = std::uint32_t;

/// Packed maps in one array of 4-byte words. A map takes a length (one byte below 255, else
/// 255 and four bytes) and its bytes, rounded up to whole words. Freed space is kept by size and
/// reused by maps of that size (exact sizes up to 256 bytes, powers of two above), so that
/// replacing properties again and again does not grow the heap.
class PropertyHeap {
 public:
  PropertyHeap() { words_.push_back(0); }  // handle 0 stays unused

  /// Stores an encoding; 0 for an empty one. bad_alloc past 16 GiB.
  PropertyHandle store(std::span<const std::byte> encoding);
  /// Words store() takes for an encoding of `size` bytes from the end of the heap (0 for none).
  [[nodiscard]] static std::uint32_t words_for(std::size_t size) noexcept { return size == 0 ? 0 : class_words(size); }
  /// Writes a non-empty encoding at h, inside room from extend(): each map at the handle after
  /// the one before plus its words_for(), as store() would lay them out on a heap without free
  /// space. Threads may write disjoint maps at once.
  void write(PropertyHandle h, std::span<const std::byte> encoding) noexcept;
  /// store() for filling a heap in bulk: at the end, reusing no free space, and without
  /// bringing pages in ahead.
  PropertyHandle append(std::span<const std::byte> encoding);
  /// Appends `words` zero words without bringing them into memory and returns the handle of the
  /// first: room that threads fill with write(), each its own part. bad_alloc past 16 GiB.
  PropertyHandle extend(std::uint64_t words);
  /// See MappedArray::prefer_huge_pages.
  void prefer_huge_pages() noexcept { words_.prefer_huge_pages(); }
  /// Drops the words from `end` on (room extend() gave that nothing uses) and gives back their
  /// pages.
  void shrink(PropertyHandle end) noexcept {
    words_.release(end, words_.size());
    words_.resize_for_overwrite(end);
  }
  /// Frees a map (0: nothing).
  void free(PropertyHandle h);
  [[nodiscard]] PackedView view(PropertyHandle h) const noexcept {
    if (h == 0) return {};
    const auto* p = reinterpret_cast<const std::byte*>(words_.data() + h);
    std::uint32_t size = static_cast<std::uint8_t>(p[0]);
    if (size < 255) return {p + 1, size};
    std::memcpy(&size, p + 1, sizeof size);
    return {p + 5, size};
  }
  void prefetch(PropertyHandle h) const noexcept {
    if (h != 0) detail::prefetch(words_.data() + h);
  }
  /// Hints a map known to take `words` words: both lines when it straddles two.
  void prefetch(PropertyHandle h, std::uint32_t words) const noexcept {
    if (h == 0) return;
    detail::prefetch(words_.data() + h);
    if (words > 1) detail::prefetch(words_.data() + h + words - 1);
  }
  /// Words in use or free, for memory accounting.
  [[nodiscard]] std::size_t words() const noexcept { return words_.size(); }

 private:
  /// Words a map of `size` bytes occupies, rounded to its size class.
  [[nodiscard]] static std::uint32_t class_words(std::size_t size) noexcept;

  MappedArray<std::uint32_t> words_;
  std::unordered_map<std::uint32_t, std::vector<PropertyHandle>> free_;  // by class_words
};

/// A vertex's properties inside its slot: the encoding itself when it fits kCapacity bytes,
/// else a PropertyHeap handle. Zero bytes mean no properties.
struct InlineProperties {
  static constexpr std::size_t kCapacity = 27;
  static constexpr std::uint8_t kInHeap = 0xFF;

  std::uint8_t tag = 0;  // 0: none; 1..kCapacity: inline size; kInHeap: handle in bytes
  std::byte bytes[kCapacity] = {};

  [[nodiscard]] PropertyHandle handle() const noexcept {
    PropertyHandle h = 0;
    if (tag == kInHeap) std::memcpy(&h, bytes, sizeof h);
    return h;
  }
  [[nodiscard]] PackedView view(const PropertyHeap& heap) const noexcept {
    if (tag == kInHeap) return heap.view(handle());
    return {bytes, tag};
  }
  /// Sets the encoding, in the heap when it does not fit; the old map must be cleared first.
  void assign(std::span<const std::byte> encoding, PropertyHeap& heap) {
    if (encoding.size() <= kCapacity) {
      if (!encoding.empty()) std::memcpy(bytes, encoding.data(), encoding.size());
      tag = static_cast<std::uint8_t>(encoding.size());
      return;
    }
    const PropertyHandle h = heap.store(encoding);
    std::memcpy(bytes, &h, sizeof h);
    tag = kInHeap;
  }
  void clear(PropertyHeap& heap) noexcept {
    if (tag == kInHeap) heap.free(handle());
    *this = InlineProperties{};
  }
};
static_assert(sizeof(InlineProperties) == 28);

}  // namespace propgraph::detail
