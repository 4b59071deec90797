// A growable array of trivially copyable elements for MemoryGraph's big tables (slots, adjacency,
// property bytes). Small arrays live on the heap; from kMapAt bytes on the array is an anonymous
// mapping that grows with mremap, which moves page tables instead of copying bytes: growing a
// 500 MiB table needs neither a second copy of it (no peak of twice its size) nor the time to
// copy it. Whole pages of a range the caller no longer uses can be given back to the system
// (release), after which they read as zeros. Huge pages only on request (prefer_huge_pages): a
// table filled in bulk at once (recovery, adjacency laid out anew) then takes a fault per 2 MiB
// instead of per 4 KiB; for tables that grow by appends the default stays, since where the
// kernel compacts memory for huge pages on demand their first touch could cost more than their
// reads gain.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace propgraph::detail {

/// Gives the whole pages inside the bytes [first, last) back to the system (MADV_DONTNEED):
/// private anonymous memory there reads as zero bytes until it is written again.
inline void give_back_pages(const void* first, const void* last) noexcept {
  constexpr std::uintptr_t page = 4096;
  const auto begin = (reinterpret_cast<std::uintptr_t>(first) + page - 1) & ~(page - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(last) & ~(page - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

/// Brings the pages holding the bytes [first, last) into memory, zeroed where they were not
/// there yet, in one call instead of a fault per page (MADV_POPULATE_WRITE; never changes a page
/// already present; a kernel without it leaves them to the faults).
inline void populate_pages(const void* first, const void* last) noexcept {
#ifdef MADV_POPULATE_WRITE
  constexpr std::uintptr_t page = 4096;
  const auto begin = reinterpret_cast<std::uintptr_t>(first) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(last) + page - 1) & ~(page - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)first;
  (void)last;
#endif
}

template <typename T>
class MappedArray {
  static_assert(std::is_trivially_copyable_v<T>, "MappedArray moves elements as bytes");

 public:
  /// Arrays of at least this many bytes are mappings.
  static constexpr std::size_t kMapAt = std::size_t{1} << 20;
  /// Mappings grow in steps of this many bytes.
  static constexpr std::size_t kStep = std::size_t{2} << 20;

  MappedArray() noexcept = default;
  MappedArray(MappedArray&& other) noexcept { steal(other); }
  MappedArray& operator=(MappedArray&& other) noexcept {
    if (this != &other) {
      free_storage();
      steal(other);
    }
    return *this;
  }
  MappedArray(const MappedArray&) = delete;
  MappedArray& operator=(const MappedArray&) = delete;
  ~MappedArray() { free_storage(); }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T& back() noexcept { return data_[size_ - 1]; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }

  /// Room for n elements without moving; grows geometrically. bad_alloc when the system
  /// refuses.
  void reserve(std::size_t n) {
    if (n > capacity_) grow_to(n);
  }
  /// Size n; new elements are zero bytes. O(new elements) below the largest size the array
  /// has had; a mapping's elements past it were never written and read as zero already, so
  /// growing into them touches no page (a slot-indexed scratch array can follow a huge slot
  /// count while only the pages it uses come into memory).
  void resize(std::size_t n) {
    if (n > size_) {
      reserve(std::max(n, size_ + size_ / 2));
      const std::size_t dirty = mapped() ? std::min(n, high_water_) : n;
      if (dirty > size_) std::memset(static_cast<void*>(data_ + size_), 0, (dirty - size_) * sizeof(T));
    }
    size_ = n;
    high_water_ = std::max(high_water_, n);
  }
  /// Size n; new elements hold whatever bytes were there (zero in a fresh mapping): for
  /// callers that write every one of them.
  void resize_for_overwrite(std::size_t n) {
    if (n > size_) reserve(std::max(n, size_ + size_ / 2));
    size_ = n;
    high_water_ = std::max(high_water_, n);
  }
  /// Appends. A mapping brings the pages ahead of its end into memory kStep bytes at a time
  /// (one call instead of a fault per page), so appending never holds more than kStep bytes
  /// past the end.
  void push_back(const T& value) {
    if (size_ == capacity_) grow_to(size_ + 1);
    if (size_ >= populated_) populate_ahead(size_, size_ + 1);
    data_[size_++] = value;
    high_water_ = std::max(high_water_, size_);
  }
  /// Appends n zero elements and returns the first; pages come in as push_back's do.
  T* append_zeroed(std::size_t n) {
    const std::size_t at = size_;
    resize(size_ + n);
    if (size_ > populated_) populate_ahead(at, size_);
    return data_ + at;
  }
  void clear() noexcept {
    free_storage();
    data_ = nullptr;
    size_ = capacity_ = storage_bytes_ = high_water_ = populated_ = 0;
  }

  /// Gives the whole pages inside elements [first, last) back to the system; they read as zero
  /// bytes afterwards. Only for mappings (heap arrays are left alone). The caller must not
  /// need the elements' values any more.
  void release(std::size_t first, std::size_t last) noexcept {
    if (mapped()) give_back_pages(data_ + first, data_ + last);
  }

  /// Brings the whole pages of elements [first, last) into memory, zeroed, in one call instead of
  /// one fault per page: for a range about to be written out of order. Only for mappings; a
  /// kernel without MADV_POPULATE_WRITE leaves it to the faults.
  void populate(std::size_t first, std::size_t last) noexcept {
    if (mapped() && last > first) populate_pages(data_ + first, data_ + last);
  }
  /// Asks for huge pages (MADV_HUGEPAGE) for the whole mapping, now and as it grows: for a
  /// table filled in bulk, whose first touch then costs a fault per 2 MiB instead of per 4 KiB.
  /// A hint; a heap array takes it once it becomes a mapping. (Marking only part of a mapping
  /// would split it, and a split mapping cannot grow with mremap.)
  void prefer_huge_pages() noexcept {
    huge_ = true;
    if (mapped()) (void)madvise(static_cast<void*>(data_), storage_bytes_, MADV_HUGEPAGE);
  }
  /// Bytes of the array's pages that are in memory (mincore); a heap array counts whole.
  [[nodiscard]] std::size_t resident_bytes() const {
    if (!mapped()) return storage_bytes_;
    constexpr std::size_t page = 4096;
    std::vector<unsigned char> in_core(storage_bytes_ / page);
    if (mincore(static_cast<void*>(data_), storage_bytes_, in_core.data()) != 0) return storage_bytes_;
    std::size_t pages = 0;
    for (unsigned char c : in_core) pages += c & 1;
    return pages * page;
  }

 private:
  [[nodiscard]] bool mapped() const noexcept { return storage_bytes_ >= kMapAt; }

  void grow_to(std::size_t n) {
    std::size_t wanted = std::max({n, capacity_ * 2, std::size_t{16}});
    std::size_t wanted_bytes = wanted * sizeof(T);
    if (wanted_bytes < kMapAt) {
      void* p = std::realloc(static_cast<void*>(data_), wanted_bytes);
      if (p == nullptr) throw std::bad_alloc();
      data_ = static_cast<T*>(p);
      capacity_ = wanted;
      storage_bytes_ = wanted_bytes;
      return;
    }
    wanted_bytes = (wanted_bytes + kStep - 1) & ~(kStep - 1);
    void* p;
    if (mapped()) {
      p = mremap(static_cast<void*>(data_), storage_bytes_, wanted_bytes, MREMAP_MAYMOVE);
      if (p == MAP_FAILED) throw std::bad_alloc();
    } else {
      p = mmap(nullptr, wanted_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      if (huge_) (void)madvise(p, wanted_bytes, MADV_HUGEPAGE);
      if (size_ != 0) std::memcpy(p, static_cast<const void*>(data_), size_ * sizeof(T));
      std::free(static_cast<void*>(data_));
      high_water_ = size_;  // the fresh mapping is zero past the copied elements
      populated_ = size_;
    }
    data_ = static_cast<T*>(p);
    capacity_ = wanted_bytes / sizeof(T);
    storage_bytes_ = wanted_bytes;
  }

  /// Populates from element `first` to at least `last`, and kStep bytes ahead where it fits.
  void populate_ahead(std::size_t first, std::size_t last) noexcept {
    if (!mapped()) {
      populated_ = capacity_;
      return;
    }
    const std::size_t end = std::min(capacity_, std::max(last, first + kStep / sizeof(T)));
    populate(first, end);
    populated_ = end;
  }

  void free_storage() noexcept {
    if (data_ == nullptr) return;
    if (mapped()) {
      munmap(static_cast<void*>(data_), storage_bytes_);
    } else {
      std::free(static_cast<void*>(data_));
    }
  }
  void steal(MappedArray& other) noexcept {
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    storage_bytes_ = std::exchange(other.storage_bytes_, 0);
    high_water_ = std::exchange(other.high_water_, 0);
    populated_ = std::exchange(other.populated_, 0);
    huge_ = std::exchange(other.huge_, false);
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  std::size_t storage_bytes_ = 0;  // of the heap block or the mapping
  std::size_t high_water_ = 0;     // the largest size so far: a mapping is zero from there on
  std::size_t populated_ = 0;      // appends below this need no populate_ahead()
  bool huge_ = false;              // prefer_huge_pages()
};

}  // namespace propgraph::detail
