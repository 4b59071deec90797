#include "memory/property_index.hpp"

#include <algorithm>
#include <functional>
#include <utility>

namespace propgraph::detail {
namespace {

std::uint64_t hash_of(std::string_view value) noexcept { return std::hash<std::string_view>{}(value); }

}  // namespace

std::size_t PropertyIndex::position(std::string_view value, std::uint64_t hash) const noexcept {
  const std::size_t mask = table_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Entry& e = table_[i];
    if (e.value.empty() || (e.hash == hash && e.value == value)) return i;
  }
}

std::span<const Slot> PropertyIndex::find(std::string_view value) const noexcept {
  if (value.empty() || used_ == 0) return {};
  const Entry& e = table_[position(value, hash_of(value))];
  if (e.value.empty()) return {};
  if (e.shared == kAlone) return {&e.alone, 1};
  return shared_[e.shared];
}

void PropertyIndex::grow() {
  decltype(table_) old(table_.empty() ? 16 : table_.size() * 2);
  old.swap(table_);
  const std::size_t mask = table_.size() - 1;
  for (Entry& e : old) {
    if (e.value.empty()) continue;
    std::size_t i = e.hash & mask;
    while (!table_[i].value.empty()) i = (i + 1) & mask;
    table_[i] = std::move(e);
  }
}

void PropertyIndex::add(std::string_view value, Slot slot) {
  if (value.empty()) return;
  if ((used_ + 1) * 4 > table_.size() * 3) grow();
  const std::uint64_t hash = hash_of(value);
  Entry& e = table_[position(value, hash)];
  if (e.value.empty()) {
    e.hash = hash;
    e.value = value;
    e.alone = slot;
    e.shared = kAlone;
    ++used_;
    return;
  }
  if (e.shared == kAlone) {
    if (e.alone == slot) return;
    std::uint32_t at;
    if (free_shared_.empty()) {
      at = static_cast<std::uint32_t>(shared_.size());
      shared_.emplace_back();
    } else {
      at = free_shared_.back();
      free_shared_.pop_back();
    }
    shared_[at] = e.alone < slot ? std::vector<Slot>{e.alone, slot} : std::vector<Slot>{slot, e.alone};
    e.shared = at;
    return;
  }
  auto& bucket = shared_[e.shared];
  if (bucket.back() < slot) {
    bucket.push_back(slot);
    return;
  }
  const auto pos = std::lower_bound(bucket.begin(), bucket.end(), slot);
  if (*pos != slot) bucket.insert(pos, slot);
}

void PropertyIndex::remove(std::string_view value, Slot slot) {
  if (value.empty() || used_ == 0) return;
  const std::size_t i = position(value, hash_of(value));
  Entry& e = table_[i];
  if (e.value.empty()) return;
  if (e.shared == kAlone) {
    if (e.alone == slot) erase_at(i);
    return;
  }
  auto& bucket = shared_[e.shared];
  const auto pos = std::lower_bound(bucket.begin(), bucket.end(), slot);
  if (pos == bucket.end() || *pos != slot) return;
  bucket.erase(pos);
  if (bucket.size() == 1) {  // back to an inline bucket; the vector's memory is freed
    e.alone = bucket.front();
    std::vector<Slot>().swap(bucket);
    free_shared_.push_back(e.shared);
    e.shared = kAlone;
  }
}

// Backward-shift deletion: entries after i in its probe run move up so that every entry stays
// reachable from its home position without tombstones.
void PropertyIndex::erase_at(std::size_t i) {
  const std::size_t mask = table_.size() - 1;
  for (std::size_t j = (i + 1) & mask; !table_[j].value.empty(); j = (j + 1) & mask) {
    const std::size_t home = table_[j].hash & mask;
    // Entry j may fill hole i unless its home lies cyclically in (i, j].
    const bool home_after_hole = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (!home_after_hole) {
      table_[i] = std::move(table_[j]);
      i = j;
    }
  }
  table_[i] = Entry{};
  --used_;
}

}  // namespace propgraph::detail
