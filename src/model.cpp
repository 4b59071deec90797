#include "propgraph/model.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include <fmt/format.h>

#include "properties_rep.hpp"
#include "propgraph/errors.hpp"

namespace propgraph {

std::string_view to_string(ValueType type) noexcept {
  switch (type) {
    case ValueType::null: return "null";
    case ValueType::boolean: return "bool";
    case ValueType::integer: return "int";
    case ValueType::real: return "double";
    case ValueType::string: return "string";
    case ValueType::list: return "list";
  }
  return "unknown";
}

namespace {
[[noreturn]] void type_mismatch(ValueType wanted, ValueType held) {
  throw InvalidArgument(fmt::format("Value holds {}, not {}", to_string(held), to_string(wanted)));
}
}  // namespace

void Value::throw_int_overflow() { throw InvalidArgument("unsigned integer does not fit a Value (int64)"); }

bool Value::as_bool() const {
  if (auto* p = get_if<bool>()) return *p;
  type_mismatch(ValueType::boolean, type());
}
std::int64_t Value::as_int() const {
  if (auto* p = get_if<std::int64_t>()) return *p;
  type_mismatch(ValueType::integer, type());
}
double Value::as_double() const {
  if (auto* p = get_if<double>()) return *p;
  type_mismatch(ValueType::real, type());
}
const std::string& Value::as_string() const {
  if (auto* p = get_if<std::string>()) return *p;
  type_mismatch(ValueType::string, type());
}
const ValueList& Value::as_list() const {
  if (auto* p = get_if<ValueList>()) return *p;
  type_mismatch(ValueType::list, type());
}
double Value::as_number() const {
  if (auto* p = get_if<std::int64_t>()) return static_cast<double>(*p);
  if (auto* p = get_if<double>()) return *p;
  throw InvalidArgument(fmt::format("Value holds {}, not a number", to_string(type())));
}

// -- Properties ----------------------------------------------------------------------------

namespace {
const std::vector<Properties::Entry> kNoEntries;
const Value kNull;

struct KeyLess {
  bool operator()(const Properties::Entry& e, std::string_view key) const { return e.first < key; }
};
}  // namespace

Properties::Properties(std::initializer_list<Entry> entries) : Properties(std::vector<Entry>(entries)) {}

using detail::PropertiesAccess;

PropertiesAccess::Rep* PropertiesAccess::make_rep(std::vector<Properties::Entry> entries) {
  auto* rep = new Properties::Rep;
  rep->count = static_cast<std::uint32_t>(entries.size());
  rep->own = std::move(entries);
  rep->decoded.store(&rep->own, std::memory_order_relaxed);
  return rep;
}

void PropertiesAccess::release(const Rep* rep) noexcept {
  if (!rep || rep->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  const auto* decoded = rep->decoded.load(std::memory_order_acquire);
  if (decoded != &rep->own) delete decoded;
  if (rep->packed_size == 0) {
    delete rep;
  } else {
    rep->~Rep();
    ::operator delete(const_cast<Rep*>(rep));
  }
}

void PropertiesAccess::retain(const Rep* rep) noexcept {
  if (rep) rep->refs.fetch_add(1, std::memory_order_relaxed);
}

namespace {
constexpr auto make_rep = &PropertiesAccess::make_rep;
constexpr auto retain = &PropertiesAccess::retain;
constexpr auto release = &PropertiesAccess::release;
}  // namespace

Properties::Properties(std::vector<Entry> entries) {
  if (entries.empty()) return;
  // Loaders hand over maps that are already sorted and unique: adopt them without sorting.
  if (std::adjacent_find(entries.begin(), entries.end(),
                         [](const Entry& a, const Entry& b) { return !(a.first < b.first); }) == entries.end()) {
    set_rep(make_rep(std::move(entries)));
    return;
  }
  // Stable sort keeps input order among equal keys; keep the last of each run.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.first < b.first; });
  std::vector<Entry> unique;
  unique.reserve(entries.size());
  for (auto& e : entries) {
    if (!unique.empty() && unique.back().first == e.first) {
      unique.back().second = std::move(e.second);
    } else {
      unique.push_back(std::move(e));
    }
  }
  set_rep(make_rep(std::move(unique)));
}

const Properties::Rep* Properties::rep() const noexcept {
  const Rep* r;
  std::memcpy(&r, storage_, sizeof r);
  return r;
}

void Properties::set_rep(const Rep* r) noexcept {
  std::memcpy(storage_, &r, sizeof r);
  tag_ = kShared;
}

void Properties::reset() noexcept {
  if (tag_ == kShared) release(rep());
  // Callers have this object to themselves (destruction, assignment): no atomic exchange needed.
  if (const auto* decoded = decoded_.load(std::memory_order_relaxed)) {
    delete decoded;
    decoded_.store(nullptr, std::memory_order_relaxed);
  }
  tag_ = 0;
}

void Properties::copy_from(const Properties& other) noexcept {
  std::memcpy(storage_, other.storage_, sizeof storage_);
  if (tag_ == kShared) retain(rep());
}

void Properties::steal(Properties& other) noexcept {
  // A moved-from map belongs to the mover alone: plain loads and stores do.
  std::memcpy(storage_, other.storage_, sizeof storage_);
  decoded_.store(other.decoded_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  other.decoded_.store(nullptr, std::memory_order_relaxed);
  other.tag_ = 0;
}

Properties& Properties::operator=(const Properties& other) noexcept {
  if (this != &other) {
    if (other.tag_ == kShared) retain(other.rep());
    reset();
    std::memcpy(storage_, other.storage_, sizeof storage_);
    tag_ = other.tag_;
  }
  return *this;
}

Properties& Properties::operator=(Properties&& other) noexcept {
  if (this != &other) {
    reset();
    tag_ = other.tag_;
    if (tag_ != 0) steal(other);
  }
  return *this;
}

std::size_t Properties::size() const noexcept {
  if (tag_ == 0) return 0;
  if (tag_ == kShared) return rep()->count;
  return detail::packed_count(storage_);
}

namespace {
/// Decodes packed bytes into `slot` once; a racing reader's copy loses the exchange.
const std::vector<Properties::Entry>& decode_once(std::atomic<const std::vector<Properties::Entry>*>& slot,
                                                  const std::byte* packed) {
  const auto* decoded = slot.load(std::memory_order_acquire);
  if (decoded) return *decoded;
  auto fresh = std::make_unique<const std::vector<Properties::Entry>>(detail::decode_packed(packed));
  if (slot.compare_exchange_strong(decoded, fresh.get(), std::memory_order_acq_rel)) return *fresh.release();
  return *decoded;
}
}  // namespace

const std::vector<Properties::Entry>& Properties::entries() const {
  if (tag_ == 0) return kNoEntries;
  if (tag_ != kShared) return decode_once(decoded_, storage_);
  const Rep* r = rep();
  return r->packed_size == 0 ? r->own : decode_once(r->decoded, r->packed());
}

Properties::const_iterator Properties::begin() const { return entries().begin(); }
Properties::const_iterator Properties::end() const { return entries().end(); }

const Value* Properties::find(std::string_view key) const {
  if (tag_ == 0) return nullptr;
  const auto& e = entries();
  auto it = std::lower_bound(e.begin(), e.end(), key, KeyLess{});
  if (it == e.end() || it->first != key) return nullptr;
  return &it->second;
}

const Value& Properties::operator[](std::string_view key) const {
  const Value* v = find(key);
  return v ? *v : kNull;
}

const Value& Properties::at(std::string_view key) const {
  const Value* v = find(key);
  if (!v) throw NotFound(fmt::format("no property '{}'", key));
  return *v;
}

std::vector<Properties::Entry>& Properties::mutate() {
  if (tag_ != kShared || rep()->refs.load(std::memory_order_acquire) > 1 || rep()->packed_size != 0) {
    // Empty, inline, shared or packed: continue on a private copy of the entries.
    auto* copy = make_rep(entries());
    reset();
    set_rep(copy);
  }
  // Sole owner of an entries rep now: casting away const is safe.
  return const_cast<Rep*>(rep())->own;
}

void Properties::set(std::string key, Value value) {
  auto& entries = mutate();
  auto it = std::lower_bound(entries.begin(), entries.end(), key, KeyLess{});
  if (it != entries.end() && it->first == key) {
    it->second = std::move(value);
  } else {
    entries.emplace(it, std::move(key), std::move(value));
  }
  const_cast<Rep*>(rep())->count = static_cast<std::uint32_t>(entries.size());
}

bool Properties::erase(std::string_view key) {
  if (!contains(key)) return false;
  auto& entries = mutate();
  auto it = std::lower_bound(entries.begin(), entries.end(), key, KeyLess{});
  entries.erase(it);
  if (entries.empty()) {
    reset();
  } else {
    const_cast<Rep*>(rep())->count = static_cast<std::uint32_t>(entries.size());
  }
  return true;
}

void Properties::merge(const Properties& patch) {
  for (const auto& [key, value] : patch) {
    if (value.is_null()) {
      erase(key);
    } else {
      set(key, value);
    }
  }
}

bool Properties::matches(const Properties& filter) const {
  for (const auto& [key, wanted] : filter) {
    const Value* have = find(key);
    if (wanted.is_null()) {
      if (have && !have->is_null()) return false;
    } else if (!have || !(*have == wanted)) {
      return false;
    }
  }
  return true;
}

bool operator==(const Properties& a, const Properties& b) {
  if (a.tag_ == Properties::kShared && b.tag_ == Properties::kShared && a.rep() == b.rep()) return true;
  if (a.size() != b.size()) return false;
  return std::equal(a.begin(), a.end(), b.begin());
}

Properties detail::PropertiesAccess::from_packed(const std::byte* map, std::uint32_t size, std::uint32_t count) {
  Properties result;
  if (size <= Properties::kInlineCapacity) {
    std::memcpy(result.storage_, map, size);
    result.tag_ = static_cast<std::uint8_t>(size);
    return result;
  }
  void* memory = ::operator new(sizeof(Properties::Rep) + size);
  auto* rep = new (memory) Properties::Rep;
  rep->count = count;
  rep->packed_size = size;
  std::memcpy(const_cast<std::byte*>(rep->packed()), map, size);
  result.set_rep(rep);
  return result;
}

// -- validation ----------------------------------------------------------------------------

bool is_valid_label(std::string_view label) noexcept {
  if (label.empty() || label.size() > 63) return false;
  if (label[0] >= '0' && label[0] <= '9') return false;
  return std::all_of(label.begin(), label.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

void validate_label(std::string_view label, std::string_view what) {
  if (is_valid_label(label)) return;
  if (label.empty()) throw InvalidArgument(fmt::format("{} must not be blank", what));
  throw InvalidArgument(fmt::format(
      "{} '{}' is malformed: expected 1-63 characters of [A-Za-z0-9_], not starting with a digit", what, label));
}

namespace {

/// The one scanner behind the text rule: the first fault of `text`, or an empty string.
std::string text_fault(std::string_view text, bool key) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  std::size_t i = 0;
  while (i < n) {
    // Fast path: eight ASCII bytes, none below 0x20 and none 0x7F.
    if (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, s + i, 8);
      const std::uint64_t below_space = (w - kOnes * 0x20) & ~w & kHigh;
      const std::uint64_t del = w ^ (kOnes * 0x7F);
      if ((w & kHigh) == 0 && below_space == 0 && ((del - kOnes) & ~del & kHigh) == 0) {
        i += 8;
        continue;
      }
    }
    const unsigned char c = s[i];
    std::uint32_t cp = c;
    std::size_t length = 1;
    auto continuation = [&](std::size_t k, unsigned char low, unsigned char high) {
      return i + k < n && s[i + k] >= low && s[i + k] <= high;
    };
    bool ok = true;
    if (c < 0x80) {
    } else if (c >= 0xC2 && c <= 0xDF) {
      ok = continuation(1, 0x80, 0xBF);
      length = 2;
      cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
      ok = continuation(1, c == 0xE0 ? 0xA0 : 0x80, c == 0xED ? 0x9F : 0xBF) && continuation(2, 0x80, 0xBF);
      length = 3;
      cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
      ok = continuation(1, c == 0xF0 ? 0x90 : 0x80, c == 0xF4 ? 0x8F : 0xBF) && continuation(2, 0x80, 0xBF) &&
           continuation(3, 0x80, 0xBF);
      length = 4;
      cp = c & 0x07u;
    } else {
      ok = false;
    }
    if (!ok) return fmt::format("invalid UTF-8 at byte {}", i);
    for (std::size_t k = 1; k < length; ++k) cp = (cp << 6) | (s[i + k] & 0x3Fu);
    if (cp == 0) return fmt::format("a NUL character at byte {}", i);
    if (key && (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))) {
      return fmt::format("control character U+{:04X} at byte {}", cp, i);
    }
    if (key && (cp == 0xFFFE || cp == 0xFFFF)) return fmt::format("noncharacter U+{:04X} at byte {}", cp, i);
    i += length;
  }
  return {};
}

}  // namespace

std::string string_fault(std::string_view text) { return text_fault(text, false); }

std::string property_key_fault(std::string_view key) {
  if (key.empty()) return "must not be empty";
  return text_fault(key, true);
}

namespace {

std::string value_fault(const Value& value, int depth) {
  if (const auto* text = value.get_if<std::string>()) return string_fault(*text);
  if (const auto* list = value.get_if<ValueList>()) {
    if (depth == max_value_depth) return fmt::format("lists nested deeper than {}", max_value_depth);
    for (std::size_t i = 0; i < list->size(); ++i) {
      if (auto fault = value_fault((*list)[i], depth + 1); !fault.empty()) {
        return fmt::format("element {}: {}", i + 1, fault);
      }
    }
  }
  return {};
}

}  // namespace

std::string value_fault(const Value& value) { return value_fault(value, 0); }

void validate_properties(const Properties& properties) {
  for (const auto& [key, value] : properties) {
    if (value.is_null()) continue;  // removes the key, or is dropped: nothing is stored
    if (auto fault = property_key_fault(key); !fault.empty()) {
      throw InvalidArgument(fmt::format("property key is invalid: {}", fault));
    }
    if (auto fault = value_fault(value); !fault.empty()) {
      throw InvalidArgument(fmt::format("property '{}': {}", key, fault));
    }
  }
}

}  // namespace propgraph
