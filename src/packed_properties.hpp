// Stored properties, packed. A Properties map costs about 200 bytes for two small entries (a
// shared vector of 72-byte pairs); the packed form of the same map is about 20 and is kept
// inside the element's record when it fits in 31 bytes (no allocation, no extra cache miss),
// else in one heap block. MemoryGraph keeps every element's properties packed; a returned
// element gets a Properties holding a copy of the bytes, decoded only if the caller reads it.
//
// Encoding (host byte order; durable graphs keep it in their files, see docs/durability.md):
//   map   := varint(count) entry*          entries in ascending key order, no nulls
//   entry := varint(key size) key-bytes value
//   value := type-byte payload             type-byte is the ValueType, or 6 for a double
//                                          that a float holds exactly (the same bits back)
//   payload: null none | bool 1 byte | int zigzag varint | double 8 bytes (6: the float's 4)
//          | string varint(size) bytes | list varint(count) value*
// A double takes the 4-byte form whenever a normal float (or 0, inf, NaN) holds it exactly
// (0.5, 2.0, 1e10: most weights and scores), as CBOR's preferred serialization does; both forms
// read back as the same double.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "prefetch.hpp"
#include "propgraph/model.hpp"

namespace propgraph::detail {

/// A packed map encoding held elsewhere (a record of the store, a PackedProperties): the read
/// side of the codec. Valid while the bytes it points at are.
class PackedView {
 public:
  PackedView() noexcept = default;
  PackedView(const std::byte* data, std::uint32_t size) noexcept : data_(size == 0 ? nullptr : data), size_(size) {}

  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  /// Hints the CPU to fetch the bytes (for loops that will read them shortly).
  void prefetch() const noexcept {
    if (data_ != nullptr) detail::prefetch(data_);
  }
  /// The map, holding a copy of the bytes (inline when small, else one allocation); entries
  /// are decoded when first read. O(bytes).
  [[nodiscard]] Properties unpack() const;
  /// The value under key decoded, or a null Value when absent.
  [[nodiscard]] Value get(std::string_view key) const;
  /// Properties::matches on the packed form, without decoding: typed equality, a null filter
  /// value matches an absent key.
  [[nodiscard]] bool matches(const Properties& filter) const noexcept;
  /// The canonical encoding of the value under key (the index key; -0.0 is encoded as 0.0 so
  /// that values equal under Value's == share it), or an empty string when absent.
  [[nodiscard]] std::string index_key(std::string_view key) const;
  /// The map encoding (see the top of this file); empty when there are no properties.
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }

 private:
  const std::byte* data_ = nullptr;
  std::uint32_t size_ = 0;
};

class PackedProperties {
 public:
  /// Encodings up to this many bytes are stored inline.
  static constexpr std::size_t inline_capacity = 31;

  PackedProperties() noexcept = default;
  /// Packs a map (entries in key order, as Properties iterates them). O(size of the map).
  explicit PackedProperties(const Properties& properties);
  PackedProperties(PackedProperties&& other) noexcept { steal(other); }
  PackedProperties& operator=(PackedProperties&& other) noexcept {
    if (this != &other) {
      release();
      steal(other);
    }
    return *this;
  }
  PackedProperties(const PackedProperties&) = delete;
  PackedProperties& operator=(const PackedProperties&) = delete;
  ~PackedProperties() { release(); }

  [[nodiscard]] bool empty() const noexcept { return tag_ == 0; }
  /// Hints the CPU to fetch heap-held bytes (for loops that will unpack them shortly).
  void prefetch() const noexcept {
    if (tag_ == kHeap) detail::prefetch(heap());
  }

  [[nodiscard]] PackedView view() const noexcept { return {data(), size()}; }
  // The read calls of PackedView, on this map.
  [[nodiscard]] Properties unpack() const { return view().unpack(); }
  [[nodiscard]] Value get(std::string_view key) const { return view().get(key); }
  [[nodiscard]] bool matches(const Properties& filter) const noexcept { return view().matches(filter); }
  [[nodiscard]] std::string index_key(std::string_view key) const { return view().index_key(key); }

  /// Canonical encoding of one value, as index_key() gives it for a stored key.
  [[nodiscard]] static std::string value_key(const Value& value);

  /// The map encoding (see the top of this file); empty when there are no properties.
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data(), size()}; }
  /// Adopts an encoding read back from storage, once it is checked to be well formed: every
  /// varint and length in bounds, known non-null value types, keys non-empty and strictly
  /// ascending, nothing left over. nullopt when it is not. O(bytes), no recursion.
  [[nodiscard]] static std::optional<PackedProperties> from_bytes(std::span<const std::byte> encoding);
  /// from_bytes()'s check alone: whether `encoding` is a well-formed map (empty is).
  [[nodiscard]] static bool well_formed(std::span<const std::byte> encoding);

 private:
  static constexpr std::uint8_t kHeap = 0xFF;  // tag_: 0 empty, 1..31 inline size, kHeap

  [[nodiscard]] std::byte* heap() const noexcept {
    std::byte* p;
    std::memcpy(&p, buf_, sizeof p);
    return p;
  }
  /// Size of the map encoding.
  [[nodiscard]] std::uint32_t size() const noexcept {
    if (tag_ != kHeap) return tag_;
    std::uint32_t n;
    std::memcpy(&n, heap(), sizeof n);
    return n;
  }
  /// Start of the map encoding, or nullptr when empty.
  [[nodiscard]] const std::byte* data() const noexcept {
    if (tag_ == 0) return nullptr;
    return tag_ == kHeap ? heap() + sizeof(std::uint32_t) : buf_;
  }
  void release() noexcept {
    if (tag_ == kHeap) ::operator delete(heap());
    tag_ = 0;
  }
  void steal(PackedProperties& other) noexcept {
    std::memcpy(buf_, other.buf_, sizeof buf_);
    tag_ = std::exchange(other.tag_, 0);
  }

  std::byte buf_[inline_capacity];  // the encoding, or a pointer to a block: u32 size, encoding
  std::uint8_t tag_ = 0;
};

static_assert(sizeof(PackedProperties) == 32);

}  // namespace propgraph::detail
