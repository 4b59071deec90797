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

void Value::throw_int_overflow() {
  throw InvalidArgument("unsigned integer does not fit a Value (int64)");
}

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

Properties::Properties(std::initializer_list<Entry> entries)
    : Properties(std::vector<Entry>(entries)) {}

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
  if (std::adjacent_find(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return !(a.first < b.first);
      }) == entries.end()) {
    rep_ = make_rep(std::move(entries));
    return;
  }
  // Stable sort keeps input order among equal keys; keep the last of each run.
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.first < b.first; });
  std::vector<Entry> unique;
  unique.reserve(entries.size());
  for (auto& e : entries) {
    if (!unique.empty() && unique.back().first == e.first) {
      unique.back().second = std::move(e.second);
    } else {
      unique.push_back(std::move(e));
    }
  }
  rep_ = make_rep(std::move(unique));
}

Properties::Properties(const Properties& other) noexcept : rep_(other.rep_) { retain(rep_); }

Properties& Properties::operator=(const Properties& other) noexcept {
  retain(other.rep_);
  release(rep_);
  rep_ = other.rep_;
  return *this;
}

Properties& Properties::operator=(Properties&& other) noexcept {
  if (this != &other) {
    release(rep_);
    rep_ = std::exchange(other.rep_, nullptr);
  }
  return *this;
}

Properties::~Properties() { release(rep_); }

std::size_t Properties::size() const noexcept { return rep_ ? rep_->count : 0; }

const std::vector<Properties::Entry>& Properties::entries() const {
  if (!rep_) return kNoEntries;
  const auto* decoded = rep_->decoded.load(std::memory_order_acquire);
  if (decoded) return *decoded;
  // Packed: decode once; a racing reader's copy loses the exchange and is dropped.
  auto fresh = std::make_unique<const std::vector<Entry>>(detail::decode_packed(rep_->packed()));
  if (rep_->decoded.compare_exchange_strong(decoded, fresh.get(), std::memory_order_acq_rel)) {
    return *fresh.release();
  }
  return *decoded;
}

Properties::const_iterator Properties::begin() const { return entries().begin(); }
Properties::const_iterator Properties::end() const { return entries().end(); }

const Value* Properties::find(std::string_view key) const {
  if (!rep_) return nullptr;
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
  if (!rep_) {
    rep_ = make_rep({});
  } else if (rep_->refs.load(std::memory_order_acquire) > 1 || rep_->packed_size != 0) {
    // Shared or packed: continue on a private copy of the entries.
    auto* copy = make_rep(entries());
    release(rep_);
    rep_ = copy;
  }
  // Sole owner of an entries rep now: casting away const is safe.
  return const_cast<Rep*>(rep_)->own;
}

void Properties::set(std::string key, Value value) {
  auto& entries = mutate();
  auto it = std::lower_bound(entries.begin(), entries.end(), key, KeyLess{});
  if (it != entries.end() && it->first == key) {
    it->second = std::move(value);
  } else {
    entries.emplace(it, std::move(key), std::move(value));
  }
  const_cast<Rep*>(rep_)->count = static_cast<std::uint32_t>(entries.size());
}

bool Properties::erase(std::string_view key) {
  if (!contains(key)) return false;
  auto& entries = mutate();
  auto it = std::lower_bound(entries.begin(), entries.end(), key, KeyLess{});
  entries.erase(it);
  if (entries.empty()) {
    release(rep_);
    rep_ = nullptr;
  } else {
    const_cast<Rep*>(rep_)->count = static_cast<std::uint32_t>(entries.size());
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
  if (a.rep_ == b.rep_) return true;
  if (a.size() != b.size()) return false;
  return std::equal(a.begin(), a.end(), b.begin());
}

Properties detail::PropertiesAccess::from_packed(const std::byte* map, std::uint32_t size, std::uint32_t count) {
  void* memory = ::operator new(sizeof(Properties::Rep) + size);
  auto* rep = new (memory) Properties::Rep;
  rep->count = count;
  rep->packed_size = size;
  std::memcpy(const_cast<std::byte*>(rep->packed()), map, size);
  return Properties(rep);
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
      "{} '{}' is malformed: expected 1-63 characters of [A-Za-z0-9_], not starting with a digit",
      what, label));
}

void validate_properties(const Properties& properties) {
  for (const auto& [key, value] : properties) {
    if (key.empty()) throw InvalidArgument("property key must not be empty");
  }
}

}  // namespace propgraph
