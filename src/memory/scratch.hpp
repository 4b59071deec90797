// Per-thread scratch space for MemoryGraph's traversals.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "memory/large_block_allocator.hpp"
#include "memory/store.hpp"

namespace propgraph::detail {

/// Visit marks with O(1) reset (epoch stamping), plus per-vertex scratch that is meaningful only
/// for marked vertices. One per thread (scratch(), scratch2()): MemoryGraph calls never suspend,
/// so a fiber cannot interleave two users of one thread's scratch.
struct Marks {
  LargeVector<std::uint32_t> stamp;
  LargeVector<Slot> parent;       // parent vertex
  LargeVector<Slot> parent_edge;  // edge used to reach the vertex
  LargeVector<Slot> order;        // breadth_first: the vertex's position in the queue
  std::vector<std::uint64_t> level_bits;  // breadth_first: a bit per vertex of one level; zero between uses
  std::vector<Slot> queue;         // traversal order, reused across calls
  std::vector<Slot> queue_parent;  // breadth_first: parent of queue[i], read in order
  std::vector<int> queue_depth;    // breadth_first: depth of queue[i]
  std::uint32_t epoch = 0;

  void reset(std::size_t n) {
    if (stamp.size() < n) {
      stamp.resize(n, 0);
      parent.resize(n);
      parent_edge.resize(n);
      order.resize(n);
      level_bits.resize(n / 64 + 1, 0);
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
