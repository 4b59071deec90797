#include "postgres/index_catalog.hpp"

#include <cstdint>

#include <fmt/format.h>

namespace propgraph::postgres_detail {

namespace {

std::string readable(std::string_view text, std::size_t max) {
  std::string out;
  for (char c : text) {
    if (out.size() == max) break;
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out.push_back(plain ? c : '_');
  }
  return out;
}

std::uint64_t fnv1a(std::uint64_t h, std::string_view text) {
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

std::string index_name(char kind, std::string_view label, std::string_view key) {
  std::uint64_t h = fnv1a(0xcbf29ce484222325ULL, label);
  h = fnv1a(h ^ 0xff, key);  // separates ("ab", "c") from ("a", "bc")
  // 3 + 24 + 1 + 20 + 1 + 12 = 61 bytes at most.
  return fmt::format("pg{}_{}_{}_{:012x}", kind, readable(label, 24), readable(key, 20), h & 0xffffffffffffULL);
}

void IndexCatalog::replace(std::vector<IndexEntry> entries) {
  std::unique_lock lock(mutex_);
  entries_ = std::move(entries);
  loaded_ = Clock::now();
  loaded_once_ = true;
  reloading_ = false;
}

bool IndexCatalog::claim_reload() {
  {
    std::shared_lock lock(mutex_);
    if (reloading_ || (loaded_once_ && Clock::now() - loaded_ < kReloadAfter)) return false;
  }
  std::unique_lock lock(mutex_);
  if (reloading_ || (loaded_once_ && Clock::now() - loaded_ < kReloadAfter)) return false;
  reloading_ = true;
  return true;
}

void IndexCatalog::abandon_reload() {
  std::unique_lock lock(mutex_);
  reloading_ = false;
}

std::optional<IndexEntry> IndexCatalog::find(std::string_view label, std::string_view key) const {
  std::shared_lock lock(mutex_);
  for (const auto& e : entries_) {
    if (e.indexed.label == label && e.indexed.key == key) return e;
  }
  return std::nullopt;
}

std::optional<IndexedKey> IndexCatalog::usable_for(std::string_view label, const Properties& filter) const {
  std::shared_lock lock(mutex_);
  if (entries_.empty()) return std::nullopt;
  for (const auto& [key, value] : filter) {
    if (value.is_null()) continue;
    for (const auto& e : entries_) {
      if (e.indexed.label == label && e.indexed.key == key) return e.indexed;
    }
  }
  return std::nullopt;
}

std::optional<IndexEntry> IndexCatalog::by_index_name(std::string_view name, bool* is_edge) const {
  std::shared_lock lock(mutex_);
  for (const auto& e : entries_) {
    if (e.vertex_index == name || e.edge_index == name) {
      if (is_edge) *is_edge = e.edge_index == name;
      return e;
    }
  }
  return std::nullopt;
}

std::vector<IndexInfo> IndexCatalog::infos() const {
  std::shared_lock lock(mutex_);
  std::vector<IndexInfo> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(IndexInfo{e.indexed.label, e.indexed.key, e.unique});
  return out;
}

}  // namespace propgraph::postgres_detail
