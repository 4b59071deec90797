// Properties' shared representation, for model.cpp and the packed codec.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "propgraph/model.hpp"

namespace propgraph {

/// Reference-counted map entries. Either `own` holds the entries (maps built from entries), or
/// the packed encoding of the map follows this object in the same allocation and the entries
/// are decoded into a separate vector on first read.
struct Properties::Rep {
  mutable std::atomic<std::uint32_t> refs{1};
  std::uint32_t count = 0;        // entries, > 0
  std::uint32_t packed_size = 0;  // bytes of packed encoding after this object; 0: not packed
  std::vector<Entry> own;
  mutable std::atomic<const std::vector<Entry>*> decoded{nullptr};

  [[nodiscard]] const std::byte* packed() const noexcept { return reinterpret_cast<const std::byte*>(this + 1); }
};

namespace detail {

/// Decodes a packed map encoding (see packed_properties.hpp) into sorted entries.
std::vector<Properties::Entry> decode_packed(const std::byte* map);
/// The entry count of a packed map encoding.
std::size_t packed_count(const std::byte* map) noexcept;

/// Builds Properties from representations; the codec's door into Properties.
struct PropertiesAccess {
  using Rep = Properties::Rep;
  /// A rep owning the entries (sorted, unique), with one reference.
  static Rep* make_rep(std::vector<Properties::Entry> entries);
  static void retain(const Rep* rep) noexcept;
  static void release(const Rep* rep) noexcept;
  /// A map holding a copy of the given packed encoding (inline when small, else in one
  /// allocation) and decoding it on first read. `count` entries, > 0.
  static Properties from_packed(const std::byte* map, std::uint32_t size, std::uint32_t count);
};

}  // namespace detail
}  // namespace propgraph
