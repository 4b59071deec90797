// The map from file ids to dense numbers that every import resolves edges through: one lookup
// per id mention, so it is built for that (open addressing, hashes and short keys inline, so a
// lookup usually touches one cache line).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "prefetch.hpp"

namespace propgraph::io::detail {

/// 64-bit hash of a short string: 8-byte words folded by multiply-xorshift, then the
/// splitmix64 finaliser.
[[nodiscard]] inline std::uint64_t hash_text(std::string_view s) noexcept {
  std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ (s.size() * 0xBF58476D1CE4E5B9ULL);
  const char* p = s.data();
  std::size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0x94D049BB133111EBULL;
    h ^= h >> 31;
  }
  if (n > 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * 0x94D049BB133111EBULL;
    h ^= h >> 31;
  }
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
  return h ^ (h >> 31);
}

/// Maps strings (with their hash_text()) to 32-bit values other than kMissing. Keys longer than
/// 16 bytes are kept as views: their text must outlive the index.
class IdIndex {
 public:
  static constexpr std::uint32_t kMissing = 0xFFFFFFFF;

  /// The value of key, or kMissing.
  [[nodiscard]] std::uint32_t find(std::string_view key, std::uint64_t hash) const noexcept {
    if (slots_.empty()) return kMissing;
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.id == kMissing) return kMissing;
      if (s.hash == hash && s.size == key.size() && s.key() == key) return s.id;
    }
  }

  /// Starts loading the slot a lookup of `hash` reads first.
  void prefetch(std::uint64_t hash) const noexcept {
    if (!slots_.empty()) propgraph::detail::prefetch(&slots_[hash & mask_]);
  }

  /// Adds a key known to be absent.
  void insert(std::string_view key, std::uint64_t hash, std::uint32_t value) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    place(Slot::make(key, hash, value));
    ++count_;
  }

  void reserve(std::size_t keys) {
    while (keys * 2 > slots_.size()) grow();
  }

 private:
  static constexpr std::size_t kInline = 16;
  struct Slot {
    std::uint64_t hash;
    std::uint32_t id;
    std::uint32_t size;
    char text[kInline];  // the key when it is this short, else a pointer to it
    static Slot make(std::string_view key, std::uint64_t hash, std::uint32_t id) {
      Slot s{hash, id, static_cast<std::uint32_t>(key.size()), {}};
      if (key.size() <= kInline) {
        std::memcpy(s.text, key.data(), key.size());
      } else {
        const char* p = key.data();
        std::memcpy(s.text, &p, sizeof p);
      }
      return s;
    }
    [[nodiscard]] std::string_view key() const noexcept {
      if (size <= kInline) return {text, size};
      const char* p;
      std::memcpy(&p, text, sizeof p);
      return {p, size};
    }
  };

  void place(const Slot& slot) {
    std::size_t i = slot.hash & mask_;
    while (slots_[i].id != kMissing) i = (i + 1) & mask_;
    slots_[i] = slot;
  }

  void grow() {
    std::vector<Slot> old(slots_.empty() ? 0 : slots_.size());
    old.swap(slots_);
    const std::size_t capacity = old.empty() ? 1024 : old.size() * 2;
    slots_.assign(capacity, Slot{0, kMissing, 0, {}});
    mask_ = capacity - 1;
    for (const Slot& s : old) {
      if (s.id != kMissing) place(s);
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t count_ = 0;
};

}  // namespace propgraph::io::detail
