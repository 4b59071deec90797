#include "memory/property_heap.hpp"

#include <bit>
#include <limits>
#include <new>

namespace propgraph::detail {

std::uint32_t PropertyHeap::class_words(std::size_t size) noexcept {
  const std::size_t header = size < 255 ? 1 : 5;
  const auto words = static_cast<std::uint32_t>((header + size + 3) / 4);
  return words <= 64 ? words : std::bit_ceil(words);
}

PropertyHandle PropertyHeap::store(std::span<const std::byte> encoding) {
  if (encoding.empty()) return 0;
  if (encoding.size() > std::numeric_limits<std::uint32_t>::max() / 2) throw std::bad_alloc();
  const std::uint32_t words = class_words(encoding.size());
  PropertyHandle h;
  auto it = free_.empty() ? free_.end() : free_.find(words);
  if (it != free_.end() && !it->second.empty()) {
    h = it->second.back();
    it->second.pop_back();
  } else {
    if (words_.size() + words > std::numeric_limits<std::uint32_t>::max()) throw std::bad_alloc();
    h = static_cast<PropertyHandle>(words_.size());
    words_.append_zeroed(words);
  }
  write(h, encoding);
  return h;
}

PropertyHandle PropertyHeap::append(std::span<const std::byte> encoding) {
  if (encoding.empty()) return 0;
  if (encoding.size() > std::numeric_limits<std::uint32_t>::max() / 2) throw std::bad_alloc();
  const PropertyHandle h = extend(class_words(encoding.size()));
  write(h, encoding);
  return h;
}

PropertyHandle PropertyHeap::extend(std::uint64_t words) {
  if (words_.size() + words > std::numeric_limits<std::uint32_t>::max()) throw std::bad_alloc();
  const auto h = static_cast<PropertyHandle>(words_.size());
  words_.resize(words_.size() + static_cast<std::size_t>(words));
  return h;
}

void PropertyHeap::write(PropertyHandle h, std::span<const std::byte> encoding) noexcept {
  auto* p = reinterpret_cast<std::byte*>(words_.data() + h);
  const auto size = static_cast<std::uint32_t>(encoding.size());
  if (size < 255) {
    p[0] = static_cast<std::byte>(size);
    std::memcpy(p + 1, encoding.data(), size);
  } else {
    p[0] = std::byte{255};
    std::memcpy(p + 1, &size, sizeof size);
    std::memcpy(p + 5, encoding.data(), size);
  }
}

void PropertyHeap::free(PropertyHandle h) {
  if (h == 0) return;
  free_[class_words(view(h).bytes().size())].push_back(h);
}

}  // namespace propgraph::detail
