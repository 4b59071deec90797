// MemoryGraph's adjacency lists: every vertex's out- and in-list, each one contiguous run of
// 10-byte entries in one big arena, in edge-id order.
//
// A list's header (AdjList, 8 bytes) says where its block starts, how many entries it holds and
// how many fit. Blocks are exact (as many entries as the list had when it was laid out in bulk)
// or a power of two; a list that outgrows its block moves to a block of twice the size, and
// freed blocks are kept by size for reuse. Laying all lists out in bulk (AdjacencyArena::build)
// puts them side by side in vertex order with no slack: the layout of a compressed-sparse-row
// graph, which traversals read as fast as Boost's compressed_sparse_row_graph.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <new>
#include <span>
#include <vector>

#include "memory/mapped_array.hpp"

namespace propgraph::detail {

using Slot = std::uint32_t;
using LabelId = std::uint32_t;

/// Stands in for a label id of 2^16 - 1 or more in an adjacency entry: the edge's own label
/// decides (see label_matches in view.hpp).
inline constexpr std::uint16_t kWideLabel = std::numeric_limits<std::uint16_t>::max();

/// A slot stored at any address: entries are 10 bytes, so every other one's slots are not
/// 4-byte aligned. Reads convert to Slot by value; no reference to a misaligned Slot can be made
/// (binding a `const Slot&`, as push_back or set::contains do, takes a copy).
struct [[gnu::packed]] UnalignedSlot {
  Slot value = 0;

  constexpr UnalignedSlot() noexcept = default;
  constexpr UnalignedSlot(Slot s) noexcept : value(s) {}  // NOLINT(google-explicit-constructor)
  constexpr operator Slot() const noexcept { return value; }  // NOLINT(google-explicit-constructor)
};
static_assert(alignof(UnalignedSlot) == 1 && sizeof(UnalignedSlot) == 4);

/// One adjacency entry: the edge, the vertex at its other end and the edge's label (when it
/// fits 16 bits; kWideLabel otherwise), so that label filters need not read the edge.
struct AdjEntry {
  UnalignedSlot edge;
  UnalignedSlot other;
  std::uint16_t label16 = 0;

  AdjEntry() noexcept = default;
  AdjEntry(Slot e, Slot o, LabelId label) noexcept
      : edge(e), other(o), label16(label < kWideLabel ? static_cast<std::uint16_t>(label) : kWideLabel) {}
};
static_assert(sizeof(AdjEntry) == 10);

/// Where a list lives in its arena.
struct AdjList {
  std::uint32_t offset = 0;
  std::uint32_t size_class = 0;  // size in the low 27 bits; block class in the top 5

  static constexpr std::uint32_t kSizeBits = 27;
  static constexpr std::uint32_t kMaxSize = (std::uint32_t{1} << kSizeBits) - 1;

  [[nodiscard]] std::uint32_t size() const noexcept { return size_class & kMaxSize; }
  /// 0: the block holds exactly size() entries; k > 0: it holds 2^(k-1).
  [[nodiscard]] std::uint32_t block_class() const noexcept { return size_class >> kSizeBits; }
  [[nodiscard]] std::uint32_t capacity() const noexcept {
    const std::uint32_t k = block_class();
    return k == 0 ? size() : std::uint32_t{1} << (k - 1);
  }
  void set(std::uint32_t at, std::uint32_t size, std::uint32_t block_class) noexcept {
    offset = at;
    size_class = size | (block_class << kSizeBits);
  }
};
static_assert(sizeof(AdjList) == 8);

class AdjacencyArena {
 public:
  [[nodiscard]] std::span<const AdjEntry> list(const AdjList& l) const noexcept {
    return {entries_.data() + l.offset, l.size()};
  }
  [[nodiscard]] const AdjEntry* data(const AdjList& l) const noexcept { return entries_.data() + l.offset; }

  /// Appends an entry whose edge id is larger than every one in the list. Amortised O(1): a
  /// full list moves to a block twice its size.
  void append(AdjList& l, const AdjEntry& entry);
  /// Removes the entry of `edge` (binary search, then the tail moves down). A list left at a
  /// quarter of a big block moves to a smaller one.
  void erase(AdjList& l, Slot edge);
  /// Frees the list's block; the list is empty afterwards.
  void release(AdjList& l);

  /// Lays every list out anew, exactly sized and side by side: list i gets sizes[i] entries
  /// (undefined until the caller writes them all through entries()) and its header is handed
  /// to assign(i, header). Every earlier block is gone. O(total).
  template <typename Assign>
  void build(const std::vector<std::uint32_t>& sizes, Assign&& assign);
  /// The entries of every block, for filling the lists build() laid out.
  [[nodiscard]] AdjEntry* entries() noexcept { return entries_.data(); }

  /// Entries held by blocks (used or not), for memory accounting.
  [[nodiscard]] std::size_t capacity_entries() const noexcept { return entries_.size(); }

 private:
  static constexpr int kClasses = 29;
  [[nodiscard]] static std::uint32_t class_for(std::uint32_t capacity) noexcept {
    return static_cast<std::uint32_t>(std::bit_width(std::bit_ceil(capacity)));
  }
  /// A free block of class k (capacity 2^(k-1)): a reused one or a new one at the end.
  std::uint32_t allocate(std::uint32_t k);
  void free_block(std::uint32_t offset, std::uint32_t capacity);
  void relocate(AdjList& l, std::uint32_t k);

  MappedArray<AdjEntry> entries_;
  std::array<std::vector<std::uint32_t>, kClasses + 1> free_;  // free block offsets by class
};

template <typename Assign>
void AdjacencyArena::build(const std::vector<std::uint32_t>& sizes, Assign&& assign) {
  std::uint64_t total = 0;
  for (std::uint32_t n : sizes) total += n;
  entries_.clear();
  for (auto& f : free_) f.clear();
  if (total > std::numeric_limits<std::uint32_t>::max()) throw std::bad_alloc();
  entries_.resize_for_overwrite(static_cast<std::size_t>(total));
  entries_.prefer_huge_pages();
  entries_.populate(0, entries_.size());  // filled in random order next: no fault per page
  std::uint32_t at = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    AdjList l;
    l.set(at, sizes[i], 0);
    assign(i, l);
    at += sizes[i];
  }
}

}  // namespace propgraph::detail
