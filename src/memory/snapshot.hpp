// When traversals get a compact copy of the adjacency (CsrAdjacency) instead of the live lists.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>

#include "memory/store.hpp"

namespace propgraph::detail {

/// Traversals run on the live per-vertex lists until the work they did since the last change
/// of the adjacency reaches the cost of a CsrAdjacency snapshot (about one pass over all
/// lists); then the snapshot is built and every traversal uses it until the next change. So
/// building is paid for by work already done (at most doubling it), write-heavy workloads
/// never build, and read-heavy ones traverse contiguous memory.
///
/// Readers (holding MemoryGraph's shared lock) call current() and note_work() concurrently;
/// writers (holding the exclusive lock) call invalidate().
class SnapshotCache {
 public:
  /// Graphs whose adjacency is smaller than this stay on the live lists (they fit in cache).
  static constexpr std::uint64_t kSmallGraph = 1u << 14;

  /// The cost of building a snapshot of `store`, in adjacency entries (one pass over all lists).
  [[nodiscard]] static std::uint64_t cost(const Store& store) noexcept {
    return 2 * static_cast<std::uint64_t>(store.live_edges) + store.vertices.size();
  }

  /// The snapshot if it exists or the work done live since the last change pays for building
  /// it (then it is built now); nullptr otherwise.
  std::shared_ptr<const CsrAdjacency> current(const Store& store) const {
    const std::uint64_t c = cost(store);
    if (c < kSmallGraph) return nullptr;
    if (!ready_.load(std::memory_order_acquire) && live_work_.load(std::memory_order_relaxed) < c) return nullptr;
    std::lock_guard guard(mutex_);
    if (!snapshot_) {
      snapshot_ = std::make_shared<const CsrAdjacency>(store);
      ready_.store(true, std::memory_order_release);
    }
    return snapshot_;
  }

  /// Adds adjacency entries scanned on the live lists.
  void note_work(std::uint64_t scanned) const noexcept { live_work_.fetch_add(scanned, std::memory_order_relaxed); }

  /// Every change of the adjacency makes the snapshot stale (caller holds the exclusive lock).
  void invalidate() noexcept {
    if (ready_.load(std::memory_order_relaxed)) {
      snapshot_.reset();
      ready_.store(false, std::memory_order_relaxed);
    }
    live_work_.store(0, std::memory_order_relaxed);
  }

 private:
  mutable std::mutex mutex_;  // guards snapshot_ while it is built
  mutable std::shared_ptr<const CsrAdjacency> snapshot_;
  mutable std::atomic<bool> ready_{false};
  mutable std::atomic<std::uint64_t> live_work_{0};  // entries scanned live since the change
};

}  // namespace propgraph::detail
