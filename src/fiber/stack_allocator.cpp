// StackAllocator: the cached kind keeps guarded mmap stacks on a per-thread free list; the pooled
// kind carves page-aligned stacks from slabs it owns and recycles them.
#include "propgraph/fiber/stack_allocator.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include <boost/context/fixedsize_stack.hpp>

#include "propgraph/fiber/spawn.hpp"  // PROPGRAPH_FIBER_ASAN
#ifdef PROPGRAPH_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#endif
#include <boost/context/protected_fixedsize_stack.hpp>

namespace propgraph {
namespace {

constexpr std::size_t kMinStack = 8 * 1024;

std::size_t page_size() noexcept {
  static const std::size_t size = [] {
    long p = ::sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<std::size_t>(p) : std::size_t{4096};
  }();
  return size;
}

/// Usable size rounded up to whole pages, plus one guard page.
std::size_t mapping_size(std::size_t requested) noexcept {
  const std::size_t page = page_size();
  const std::size_t usable = (std::max(requested, kMinStack) + page - 1) / page * page;
  return usable + page;
}

void* map_stack(std::size_t total) {
  void* base = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) throw std::bad_alloc();
  // Guard page at the low end: stacks grow down, so an overflow faults here.
  if (::mprotect(base, page_size(), PROT_NONE) != 0) {
    ::munmap(base, total);
    throw std::bad_alloc();
  }
  return base;
}

void unmap_stack(void* base, std::size_t total) noexcept { ::munmap(base, total); }

/// Free stacks of one mapping size.
struct FreeList {
  std::size_t total = 0;  // mapping size; 0 = slot unused
  std::size_t count = 0;
  std::array<void*, StackAllocator::cache_depth> bases{};
};

/// Per-thread cache: a few sizes (one is the common case), each with a bounded free list.
struct ThreadCache {
  std::array<FreeList, 8> lists{};

  ThreadCache() noexcept;
  ~ThreadCache();
  ThreadCache(const ThreadCache&) = delete;
  ThreadCache& operator=(const ThreadCache&) = delete;

  /// The list for `total`; an unused or empty slot is taken over for a new size. nullptr when
  /// every slot holds stacks of other sizes (such stacks are then simply not cached).
  FreeList* find(std::size_t total) noexcept {
    FreeList* spare = nullptr;
    for (auto& list : lists) {
      if (list.total == total) return &list;
      if (spare == nullptr && list.count == 0) spare = &list;
    }
    if (spare != nullptr) spare->total = total;
    return spare;
  }
};

// Trivially destructible, so both stay readable while the thread's other thread_locals (Boost's
// scheduler among them, which frees the last fibers' stacks) are destroyed, in any order.
constinit thread_local ThreadCache* tl_cache = nullptr;
constinit thread_local bool tl_cache_gone = false;

ThreadCache::ThreadCache() noexcept { tl_cache = this; }

ThreadCache::~ThreadCache() {
  tl_cache = nullptr;
  tl_cache_gone = true;
  for (auto& list : lists) {
    for (std::size_t i = 0; i < list.count; ++i) unmap_stack(list.bases[i], list.total);
    list.count = 0;
  }
}

/// This thread's cache, created on first allocation; nullptr once the thread is exiting.
ThreadCache* cache_for_allocate() noexcept {
  if (tl_cache != nullptr || tl_cache_gone) return tl_cache;
  thread_local ThreadCache cache;  // registers its destructor for this thread's exit
  return &cache;
}

boost::context::stack_context cached_allocate(std::size_t requested) {
  const std::size_t total = mapping_size(requested);
  void* base = nullptr;
  if (ThreadCache* cache = cache_for_allocate()) {
    if (FreeList* list = cache->find(total); list != nullptr && list->count > 0) {
      base = list->bases[--list->count];
    }
  }
  if (base == nullptr) base = map_stack(total);
#ifdef PROPGRAPH_FIBER_ASAN
  // A reused stack may carry shadow poison from frames ASan never saw unwind (fiber switches).
  ASAN_UNPOISON_MEMORY_REGION(static_cast<char*>(base) + page_size(), total - page_size());
#endif
  boost::context::stack_context sctx;
  sctx.size = total;
  sctx.sp = static_cast<char*>(base) + total;
  return sctx;
}

void cached_deallocate(boost::context::stack_context& sctx) noexcept {
  void* base = static_cast<char*>(sctx.sp) - sctx.size;
  // Never create a cache here: this may run during thread exit, and a thread that only frees
  // (a pool thread finishing fibers another thread started) gets its cache on first allocate.
  if (ThreadCache* cache = tl_cache) {
    if (FreeList* list = cache->find(sctx.size); list != nullptr && list->count < list->bases.size()) {
      list->bases[list->count++] = base;
      return;
    }
  }
  unmap_stack(base, sctx.size);
}

}  // namespace

// -- pooled: page-aligned stacks carved from slabs, recycled, unmapped with the last handle -----

class StackAllocator::Pooled final : public StackAllocator::Custom {
 public:
  explicit Pooled(std::size_t requested) noexcept
      : size_((std::max(requested, kMinStack) + page_size() - 1) / page_size() * page_size()) {}
  Pooled(const Pooled&) = delete;
  Pooled& operator=(const Pooled&) = delete;
  ~Pooled() override {
    for (const auto& [base, bytes] : slabs_) ::munmap(base, bytes);
  }

  boost::context::stack_context allocate() override {
    void* base = nullptr;
    {
      std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        base = free_.back();
        free_.pop_back();
      } else {
        if (next_ == end_) add_slab();
        base = next_;
        next_ += size_;
      }
    }
#ifdef PROPGRAPH_FIBER_ASAN
    ASAN_UNPOISON_MEMORY_REGION(base, size_);
#endif
    boost::context::stack_context sctx;
    sctx.size = size_;
    sctx.sp = static_cast<char*>(base) + size_;
    return sctx;
  }

  void deallocate(boost::context::stack_context& sctx) noexcept override {
    std::lock_guard lock(mutex_);
    // Cannot fail: free_ never needs more room than the stacks carved so far (reserved below).
    free_.push_back(static_cast<char*>(sctx.sp) - sctx.size);
  }

 private:
  // Called with mutex_ held.
  void add_slab() {
    const std::size_t bytes = std::max<std::size_t>(2 * 1024 * 1024, 16 * size_) / size_ * size_;
    // Room to give back every stack of every slab without allocating in deallocate().
    free_.reserve(carved_ + bytes / size_);
    slabs_.reserve(slabs_.size() + 1);
    void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    // A fiber touches a page or two of its stack: huge pages would make whole slabs resident.
    ::madvise(base, bytes, MADV_NOHUGEPAGE);
    slabs_.emplace_back(base, bytes);
    carved_ += bytes / size_;
    next_ = static_cast<char*>(base);
    end_ = next_ + bytes;
  }

  const std::size_t size_;
  std::mutex mutex_;
  std::vector<void*> free_;                             // stacks given back, reused first (LIFO)
  std::vector<std::pair<void*, std::size_t>> slabs_;    // every mapping, unmapped at the end
  std::size_t carved_ = 0;                              // stacks the slabs hold in all
  char* next_ = nullptr;                                // carving position in the newest slab
  char* end_ = nullptr;
};

StackAllocator StackAllocator::pooled(std::size_t size) {
  StackAllocator out{Kind::custom, size};
  out.custom_ = std::make_shared<Pooled>(size);
  return out;
}

boost::context::stack_context StackAllocator::allocate() {
  switch (kind_) {
    case Kind::cached: return cached_allocate(size_);

    case Kind::fixedsize: return boost::context::fixedsize_stack(std::max(size_, kMinStack)).allocate();
    case Kind::protected_fixedsize:
      return boost::context::protected_fixedsize_stack(std::max(size_, kMinStack)).allocate();
    case Kind::custom: return custom_->allocate();
  }
  throw std::bad_alloc();  // unreachable
}

void StackAllocator::deallocate(boost::context::stack_context& sctx) noexcept {
  switch (kind_) {
    case Kind::cached: cached_deallocate(sctx); return;

    case Kind::fixedsize:
      // fixedsize_stack::deallocate frees by sctx alone; the size argument is irrelevant.
      boost::context::fixedsize_stack(sctx.size).deallocate(sctx);
      return;
    case Kind::protected_fixedsize: boost::context::protected_fixedsize_stack(sctx.size).deallocate(sctx); return;
    case Kind::custom: custom_->deallocate(sctx); return;
  }
}

}  // namespace propgraph
