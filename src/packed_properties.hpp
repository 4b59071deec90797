// Stored properties in one compact allocation. A Properties map costs about 200 bytes for two
// small entries (a shared vector of 72-byte pairs); the packed form of the same map is about
// 30. MemoryGraph keeps every element's properties packed; a returned element gets a
// Properties holding a copy of the bytes, decoded only if the caller reads it.
//
// Encoding (host byte order; never leaves the process):
//   map   := varint(count) entry*          entries in ascending key order, no nulls
//   entry := varint(key size) key-bytes value
//   value := type-byte payload             type-byte is the ValueType
//   payload: null none | bool 1 byte | int, double 8 bytes | string varint(size) bytes
//          | list varint(count) value*
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "propgraph/model.hpp"

namespace propgraph::detail {

class PackedProperties {
 public:
  PackedProperties() noexcept = default;
  /// Packs a map (entries in key order, as Properties iterates them). O(size of the map).
  explicit PackedProperties(const Properties& properties);

  [[nodiscard]] bool empty() const noexcept { return !bytes_; }
  /// Hints the CPU to fetch the bytes (for loops that will unpack them shortly).
  void prefetch() const noexcept { __builtin_prefetch(bytes_.get()); }
  /// Heap bytes held (the encoding plus its length prefix).
  [[nodiscard]] std::size_t heap_bytes() const noexcept;

  /// The map, sharing a copy of the packed bytes (one allocation); entries are decoded when
  /// first read. O(bytes).
  [[nodiscard]] Properties unpack() const;
  /// The value under key decoded, or a null Value when absent.
  [[nodiscard]] Value get(std::string_view key) const;
  /// True when the key is present (stored values are never null).
  [[nodiscard]] bool contains(std::string_view key) const noexcept;
  /// Properties::matches on the packed form, without decoding: typed equality, a null filter
  /// value matches an absent key.
  [[nodiscard]] bool matches(const Properties& filter) const noexcept;
  /// The canonical encoding of the value under key (the index key; -0.0 is encoded as 0.0 so
  /// that values equal under Value's == share it), or an empty string when absent.
  [[nodiscard]] std::string index_key(std::string_view key) const;

  /// Canonical encoding of one value, as index_key() gives it for a stored key.
  [[nodiscard]] static std::string value_key(const Value& value);

 private:
  struct Free {
    void operator()(std::byte* p) const noexcept { ::operator delete(p); }
  };
  /// Start of the map encoding (after the length prefix), or nullptr when empty.
  [[nodiscard]] const std::byte* data() const noexcept;

  std::unique_ptr<std::byte, Free> bytes_;  // u32 length, then the map encoding
};

}  // namespace propgraph::detail
