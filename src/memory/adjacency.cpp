#include "memory/adjacency.hpp"

#include <algorithm>
#include <cstring>

namespace propgraph::detail {

std::uint32_t AdjacencyArena::allocate(std::uint32_t k) {
  auto& free = free_[k];
  if (!free.empty()) {
    const std::uint32_t at = free.back();
    free.pop_back();
    return at;
  }
  const std::size_t capacity = std::size_t{1} << (k - 1);
  if (entries_.size() + capacity > std::numeric_limits<std::uint32_t>::max()) throw std::bad_alloc();
  const auto at = static_cast<std::uint32_t>(entries_.size());
  entries_.append_zeroed(capacity);
  return at;
}

void AdjacencyArena::free_block(std::uint32_t offset, std::uint32_t capacity) {
  if (capacity == 0) return;
  // Exact blocks serve requests of the largest power of two they hold.
  const auto k = static_cast<std::uint32_t>(std::bit_width(capacity));
  free_[k].push_back(offset);
}

void AdjacencyArena::relocate(AdjList& l, std::uint32_t k) {
  const std::uint32_t at = allocate(k);
  const std::uint32_t n = l.size();
  if (n != 0) std::memmove(entries_.data() + at, entries_.data() + l.offset, n * sizeof(AdjEntry));
  free_block(l.offset, l.capacity());
  l.set(at, n, k);
}

void AdjacencyArena::append(AdjList& l, const AdjEntry& entry) {
  const std::uint32_t n = l.size();
  if (n == AdjList::kMaxSize) throw std::bad_alloc();
  if (n == l.capacity()) relocate(l, class_for(n + 1));
  entries_[l.offset + n] = entry;
  l.set(l.offset, n + 1, l.block_class());
}

void AdjacencyArena::erase(AdjList& l, Slot edge) {
  AdjEntry* first = entries_.data() + l.offset;
  AdjEntry* last = first + l.size();
  AdjEntry* it = std::lower_bound(first, last, edge, [](const AdjEntry& a, Slot e) { return a.edge < e; });
  if (it == last || it->edge != edge) return;
  std::memmove(static_cast<void*>(it), it + 1, static_cast<std::size_t>(last - it - 1) * sizeof(AdjEntry));
  const std::uint32_t n = l.size() - 1;
  l.set(l.offset, n, l.block_class());
  const std::uint32_t capacity = l.capacity();
  if (n == 0) {
    release(l);
  } else if (l.block_class() != 0 && capacity >= 16 && n <= capacity / 4) {
    relocate(l, l.block_class() - 1);  // half the block: still twice the entries
  }
}

void AdjacencyArena::release(AdjList& l) {
  free_block(l.offset, l.capacity());
  l = AdjList{};
}

}  // namespace propgraph::detail
