// Stack allocation for the fibers the facade and FiberPool start.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include <boost/context/stack_context.hpp>

namespace propgraph {

/// A copyable handle to a fiber stack allocator, usable wherever Boost.Fiber expects a
/// StackAllocator (`allocate()` / `deallocate(stack_context&)`).
///
/// Every fiber keeps a copy of the handle and gives its stack back through it when it ends,
/// possibly on another thread than the one that allocated it (FiberPool moves fibers between
/// its threads), so every kind below is safe to use from any thread.
///
/// Kinds:
/// - cached (the default): stacks are mmap'd with a PROT_NONE guard page below them (an overflow
///   faults instead of corrupting memory) and recycled through a per-thread free list of up to
///   `cache_depth` stacks per size, so after warm-up starting a fiber costs no system call and
///   no page fault. Stacks freed while a list is full, or after the thread's list is gone, are
///   unmapped. Memory held: at most cache_depth stacks per size and thread (address space;
///   resident only where a fiber has touched it).
/// - pooled: for many concurrent fibers (thousands waiting at once). Each pooled() call makes a
///   pool of its own, shared by the handle's copies: page-aligned stacks carved from slabs of at
///   least 2 MiB (one memory mapping per slab, not one or two per stack, so vm.max_map_count is
///   no limit), no guard page, recycled through one locked free list (most recently freed
///   first) and unmapped when the last copy of the handle is gone (the FiberPool and all its
///   fibers). A pool that once held N fibers keeps N stacks, and the pages its fibers touched,
///   for the next ones: starting a fiber then costs no system call and no page fault, and a
///   waiting fiber's resident memory is only the pages it touched (its stack top is
///   page-aligned and no allocator header shares it).
/// - fixedsize: Boost's fixedsize_stack, std::malloc / std::free per fiber, no guard page.
/// - protected_fixedsize: Boost's protected_fixedsize_stack, mmap + guard page + munmap per fiber.
/// - wrap(alloc): any Boost.Context stack allocator you supply (it must tolerate deallocate()
///   from a thread other than the one that called allocate()).
///
/// Default: cached, 128 KiB (`default_stack_size`, also Boost's default size). Measured with
/// propgraph-bench `launch/fresh/dispatch/*` (a fresh fiber per call, so the stack is allocated
/// and freed every time; CPU-time medians, 2-core machine):
///
///     cached 16 KiB 0.449 µs, 64 KiB 0.455, 128 KiB 0.453, 256 KiB 0.462, 1024 KiB 0.475
///     fixedsize (malloc) 128 KiB 0.522 µs          protected_fixedsize 128 KiB 8.9 µs
///
/// The cached kind is the fastest and keeps the guard page that protected_fixedsize pays
/// mmap/mprotect/munmap for on every fiber. Its cost does not depend on the size, so the size
/// is chosen for headroom: the eight reference operations peak at 6.1-6.3 KiB of fiber stack on
/// MemoryGraph, fiber control block included (propgraph-bench prints the high-water marks),
/// while a network backend (libpq, TLS, name resolution) can need tens of KiB. 128 KiB leaves
/// that room at no per-call cost; untouched pages are never made resident.
class StackAllocator {
 public:
  /// Boost's default fiber stack size; see the class comment for why it is kept.
  static constexpr std::size_t default_stack_size = 128 * 1024;
  /// Stacks kept per thread and size by the cached kind.
  static constexpr std::size_t cache_depth = 32;

  /// The cached kind with the default size.
  StackAllocator() noexcept : StackAllocator(Kind::cached, default_stack_size) {}

  /// Guarded, per-thread recycled stacks of `size` bytes (rounded up to whole pages; at least
  /// 8 KiB). The default.
  [[nodiscard]] static StackAllocator cached(std::size_t size = default_stack_size) noexcept {
    return {Kind::cached, size};
  }
  /// A new pool of page-aligned stacks of `size` bytes (rounded up to whole pages; at least
  /// 8 KiB), no guard page; see the class comment. Throws std::bad_alloc.
  [[nodiscard]] static StackAllocator pooled(std::size_t size = default_stack_size);
  /// boost::context::fixedsize_stack: malloc/free per fiber, no guard page.
  [[nodiscard]] static StackAllocator fixedsize(std::size_t size = default_stack_size) noexcept {
    return {Kind::fixedsize, size};
  }
  /// boost::context::protected_fixedsize_stack: mmap/munmap and a guard page per fiber.
  [[nodiscard]] static StackAllocator protected_fixedsize(std::size_t size = default_stack_size) noexcept {
    return {Kind::protected_fixedsize, size};
  }
  /// Any Boost.Context stack allocator: a type with `stack_context allocate()` and
  /// `void deallocate(stack_context&)`. It is shared by every fiber started with this handle
  /// (and its copies), so both members must be thread-safe.
  template <class SAlloc>
    requires(!std::is_same_v<std::decay_t<SAlloc>, StackAllocator>)
  [[nodiscard]] static StackAllocator wrap(SAlloc alloc) {
    struct Model final : Custom {
      explicit Model(SAlloc a) : alloc(std::move(a)) {}
      boost::context::stack_context allocate() override { return alloc.allocate(); }
      void deallocate(boost::context::stack_context& sctx) noexcept override { alloc.deallocate(sctx); }
      SAlloc alloc;
    };
    StackAllocator out{Kind::custom, 0};
    out.custom_ = std::make_shared<Model>(std::move(alloc));
    return out;
  }

  /// Allocates one stack; throws std::bad_alloc when memory or address space runs out.
  [[nodiscard]] boost::context::stack_context allocate();
  /// Returns a stack obtained from allocate() of this handle or a copy of it.
  void deallocate(boost::context::stack_context& sctx) noexcept;

  /// The requested stack size in bytes (0 for wrap()ped allocators, whose size is their own).
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  /// Same kind and size (wrap()ped: the same wrapped instance, shared by copies).
  friend bool operator==(const StackAllocator& a, const StackAllocator& b) noexcept {
    return a.kind_ == b.kind_ && a.size_ == b.size_ && a.custom_ == b.custom_;
  }

 private:
  enum class Kind : unsigned char { cached, fixedsize, protected_fixedsize, custom };
  class Pooled;
  struct Custom {
    virtual ~Custom() = default;
    virtual boost::context::stack_context allocate() = 0;
    virtual void deallocate(boost::context::stack_context& sctx) noexcept = 0;
  };

  StackAllocator(Kind kind, std::size_t size) noexcept : kind_(kind), size_(size) {}

  Kind kind_;
  std::size_t size_;
  std::shared_ptr<Custom> custom_;  // only for Kind::custom: built-in kinds copy without atomics
};

}  // namespace propgraph
