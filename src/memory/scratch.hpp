// Per-thread scratch space for MemoryGraph's traversals.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "memory/mapped_array.hpp"
#include "memory/store.hpp"

namespace propgraph::detail {

/// Gives the whole pages of a scratch array back to the system between uses; they read as zero
/// bytes afterwards, and are brought back by the next writes.
template <typename T, typename Alloc>
void forget_pages(std::vector<T, Alloc>& v) noexcept {
  give_back_pages(v.data(), v.data() + v.size());
}

/// Per-thread scratch indexed by slot grows with the slots ever issued (ids are never reused),
/// but a graph with churn has its live vertices in ever newer slots: the pages of dead slots
/// would stay in memory for good. Every kEvery uses, scratch of kFrom bytes or more is given back
/// whole (forget_pages); what the next calls touch comes back. Amortised, the few page faults
/// that follow cost far less than one use.
struct ScratchTrim {
  static constexpr std::uint32_t kEvery = 1u << 16;
  static constexpr std::size_t kFrom = std::size_t{1} << 20;
  std::uint32_t uses = 0;

  /// Counts a use; true when a scratch of `bytes` is due to be given back.
  bool due(std::size_t bytes) noexcept {
    if (++uses < kEvery) return false;
    uses = 0;
    return bytes >= kFrom;
  }
};

/// Visit marks with O(1) reset (epoch stamping), plus per-vertex scratch that is meaningful only
/// for marked vertices. One per thread (scratch(), scratch2()): MemoryGraph calls never suspend,
/// so a fiber cannot interleave two users of one thread's scratch. The slot-indexed arrays are
/// mappings that grow without touching their pages: a traversal brings in the pages of the
/// slots it visits, not the whole slot range.
struct Marks {
  MappedArray<std::uint32_t> stamp;
  MappedArray<Slot> parent;       // parent vertex
  MappedArray<Slot> parent_edge;  // edge used to reach the vertex
  MappedArray<Slot> order;        // breadth_first: the vertex's position in the queue
  std::vector<std::uint64_t> level_bits;  // breadth_first: a bit per vertex of one level; zero between uses
  std::vector<Slot> queue;         // traversal order, reused across calls
  std::vector<Slot> queue_parent;  // breadth_first: parent of queue[i], read in order
  std::vector<int> queue_depth;    // breadth_first: depth of queue[i]
  std::uint32_t epoch = 0;
  ScratchTrim trim;

  void reset(std::size_t n) {
    if (stamp.size() < n) {
      stamp.resize(n);
      parent.resize(n);
      parent_edge.resize(n);
      order.resize(n);
      level_bits.resize(n / 64 + 1, 0);
    }
    if (trim.due(stamp.size() * sizeof(std::uint32_t))) {
      // Unmarked (stamp 0) and level_bits zero is the state between uses already.
      for (auto* a : {&stamp, &parent, &parent_edge, &order}) a->release(0, a->size());
      forget_pages(level_bits);
    }
    if (++epoch == 0) {
      std::fill(stamp.begin(), stamp.end(), 0);
      epoch = 1;
    }
  }
  bool mark(Slot v) {
    if (stamp[v] == epoch) return false;
    stamp[v] = epoch;
    return true;
  }
  void unmark(Slot v) { stamp[v] = 0; }
  [[nodiscard]] bool marked(Slot v) const { return stamp[v] == epoch; }
};

/// The calling thread's traversal scratch.
inline Marks& scratch() {
  thread_local Marks marks;
  return marks;
}
/// A second set, for algorithms that run a traversal inside another.
inline Marks& scratch2() {
  thread_local Marks marks;
  return marks;
}

}  // namespace propgraph::detail
