// An allocator for MemoryGraph's big arrays (records, adjacency snapshot, traversal scratch).
// Random access into arrays of hundreds of megabytes misses the TLB on nearly every access with
// 4 KiB pages; blocks of 2 MiB and more are aligned to 2 MiB and marked MADV_HUGEPAGE, so where
// transparent huge pages are enabled ("always" or "madvise") the kernel backs them with huge
// pages. Smaller blocks come from the standard allocator.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace propgraph::detail {

template <typename T>
struct LargeBlockAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  LargeBlockAllocator() noexcept = default;
  template <typename U>
  LargeBlockAllocator(const LargeBlockAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return std::allocator<T>{}.allocate(n);
    const std::size_t rounded = (bytes + kHugePage - 1) & ~(kHugePage - 1);
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p == nullptr) throw std::bad_alloc();
    (void)madvise(p, rounded, MADV_HUGEPAGE);  // a hint: without THP it is plain memory
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePage) {
      std::allocator<T>{}.deallocate(p, n);
    } else {
      std::free(p);
    }
  }
  template <typename U>
  friend bool operator==(const LargeBlockAllocator&, const LargeBlockAllocator<U>&) noexcept {
    return true;
  }
};

/// Marks the whole 2 MiB pages inside a large, not yet touched result buffer (reserved, not
/// filled) MADV_HUGEPAGE: a million-element result then faults in hundreds of huge pages
/// instead of tens of thousands of small ones. A hint only; small buffers are left alone.
inline void advise_huge_pages(const void* data, std::size_t bytes) noexcept {
  constexpr std::size_t huge = LargeBlockAllocator<char>::kHugePage;
  if (bytes < 2 * huge) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + huge - 1) & ~(huge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(huge - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

/// A std::vector on LargeBlockAllocator.
template <typename T>
using LargeVector = std::vector<T, LargeBlockAllocator<T>>;

}  // namespace propgraph::detail
