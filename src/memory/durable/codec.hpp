// Byte-level encoding shared by the write-ahead log and the snapshot: little-endian fixed-width
// integers, LEB128 varints, length-prefixed bytes, and XXH3-64 checksums.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace propgraph::detail::durable {

/// XXH3-64 of the bytes (xxHash, Debian's libxxhash).
[[nodiscard]] std::uint64_t checksum(const void* data, std::size_t size) noexcept;

/// Appends encoded values to a string.
class ByteWriter {
 public:
  explicit ByteWriter(std::string& out) noexcept : out_(out) {}
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) { fixed(v); }
  void u64(std::uint64_t v) { fixed(v); }
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  /// varint length, then the bytes.
  void bytes(std::string_view s) {
    varint(s.size());
    out_.append(s);
  }
  void bytes(std::span<const std::byte> s) {
    bytes(std::string_view(reinterpret_cast<const char*>(s.data()), s.size()));
  }
  [[nodiscard]] std::size_t size() const noexcept { return out_.size(); }
  [[nodiscard]] std::string& buffer() noexcept { return out_; }

 private:
  template <typename T>
  void fixed(T v) {  // little-endian hosts only (x86-64, arm64): the bytes as they are
    char buf[sizeof(T)];
    std::memcpy(buf, &v, sizeof(T));
    out_.append(buf, sizeof(T));
  }
  std::string& out_;
};

/// Thrown by ByteReader when the bytes end early or hold an impossible value; `offset` is
/// relative to the start of the reader's bytes.
struct DecodeError {
  std::size_t offset;
  const char* what;
};

/// Reads what ByteWriter wrote, checking every bound.
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> data) noexcept : data_(data) {}
  [[nodiscard]] std::size_t offset() const noexcept { return pos_; }
  [[nodiscard]] bool done() const noexcept { return pos_ == data_.size(); }
  [[nodiscard]] std::size_t remaining() const noexcept { return data_.size() - pos_; }

  std::uint8_t u8() { return fixed<std::uint8_t>(); }
  std::uint32_t u32() { return fixed<std::uint32_t>(); }
  std::uint64_t u64() { return fixed<std::uint64_t>(); }
  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      need(1);
      const auto b = static_cast<std::uint8_t>(data_[pos_++]);
      v |= std::uint64_t{b & 0x7Fu} << shift;
      if (b < 0x80) return v;
    }
    throw DecodeError{pos_, "varint longer than 10 bytes"};
  }
  /// A varint that must be at most `limit`.
  std::uint64_t varint(std::uint64_t limit, const char* what) {
    const std::size_t at = pos_;
    const std::uint64_t v = varint();
    if (v > limit) throw DecodeError{at, what};
    return v;
  }
  std::span<const std::byte> bytes() {
    const std::uint64_t n = varint();
    need(n);
    auto s = data_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  std::string_view text() {
    auto s = bytes();
    return {reinterpret_cast<const char*>(s.data()), s.size()};
  }

 private:
  void need(std::uint64_t n) const {
    if (n > data_.size() - pos_) throw DecodeError{pos_, "data ends early"};
  }
  template <typename T>
  T fixed() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }

  std::span<const std::byte> data_;
  std::size_t pos_ = 0;
};

}  // namespace propgraph::detail::durable
