#include "packed_properties.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <utility>
#include <vector>

#include "properties_rep.hpp"

namespace propgraph::detail {

namespace {

/// The type byte of a double kept as the float that holds it exactly (see the top of
/// packed_properties.hpp); it reads back as ValueType::real.
constexpr std::uint8_t kRealAsFloat = 6;

/// The float that holds d exactly (the same bits back), if there is one. Not a subnormal one:
/// a thread that treats subnormals as zero (DAZ, as -ffast-math code sets) would read it back
/// as 0.
std::optional<float> exact_float(double d) noexcept {
  if (!std::isnan(d) && !std::isinf(d) && !(std::fabs(d) <= std::numeric_limits<float>::max())) return std::nullopt;
  if (d != 0.0 && std::fabs(d) < std::numeric_limits<float>::min()) return std::nullopt;
  const auto f = static_cast<float>(d);
  const auto back = static_cast<double>(f);
  if (std::memcmp(&back, &d, sizeof d) != 0) return std::nullopt;
  return f;
}

// -- writing --------------------------------------------------------------------------------

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

template <typename T>
void put_raw(std::string& out, T v) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  out.append(buf, sizeof(T));
}

void put_value(std::string& out, const Value& value, bool canonical) {
  if (value.type() == ValueType::real) {
    double d = value.as_double();
    if (canonical && d == 0.0) d = 0.0;  // -0.0 == 0.0 under Value's ==
    if (const auto f = exact_float(d)) {
      out.push_back(static_cast<char>(kRealAsFloat));
      put_raw(out, *f);
    } else {
      out.push_back(static_cast<char>(ValueType::real));
      put_raw(out, d);
    }
    return;
  }
  out.push_back(static_cast<char>(value.type()));
  switch (value.type()) {
    case ValueType::null: break;
    case ValueType::boolean: out.push_back(value.as_bool() ? 1 : 0); break;
    case ValueType::integer: {
      const auto i = value.as_int();
      put_varint(out, (static_cast<std::uint64_t>(i) << 1) ^ static_cast<std::uint64_t>(i >> 63));  // zigzag
      break;
    }
    case ValueType::real:  // above
      break;
    case ValueType::string:
      put_varint(out, value.as_string().size());
      out += value.as_string();
      break;
    case ValueType::list:
      put_varint(out, value.as_list().size());
      for (const auto& item : value.as_list()) put_value(out, item, canonical);
      break;
  }
}

// -- reading --------------------------------------------------------------------------------

struct Reader {
  const std::byte* p;

  std::uint64_t varint() noexcept {
    std::uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const auto b = static_cast<std::uint8_t>(*p++);
      v |= std::uint64_t{b & 0x7Fu} << shift;
      if (b < 0x80) return v;
    }
  }
  std::int64_t zigzag() noexcept {
    const std::uint64_t v = varint();
    return static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  template <typename T>
  T raw() noexcept {
    T v;
    std::memcpy(&v, p, sizeof(T));
    p += sizeof(T);
    return v;
  }
  std::string_view bytes(std::size_t n) noexcept {
    std::string_view s(reinterpret_cast<const char*>(p), n);
    p += n;
    return s;
  }
  std::string_view key() noexcept { return bytes(varint()); }

  void skip_value() noexcept {
    const auto type = static_cast<std::uint8_t>(*p++);
    if (type == kRealAsFloat) {
      p += sizeof(float);
      return;
    }
    switch (static_cast<ValueType>(type)) {
      case ValueType::null: break;
      case ValueType::boolean: p += 1; break;
      case ValueType::integer: (void)varint(); break;
      case ValueType::real: p += 8; break;
      case ValueType::string: p += varint(); break;
      case ValueType::list:
        for (auto n = varint(); n > 0; --n) skip_value();
        break;
    }
  }

  Value value() {
    const auto type = static_cast<std::uint8_t>(*p++);
    if (type == kRealAsFloat) return Value(static_cast<double>(raw<float>()));
    switch (static_cast<ValueType>(type)) {
      case ValueType::null: return Value();
      case ValueType::boolean: return Value(static_cast<std::uint8_t>(*p++) != 0);
      case ValueType::integer: return Value(zigzag());
      case ValueType::real: return Value(raw<double>());
      case ValueType::string: return Value(std::string(bytes(varint())));
      case ValueType::list: {
        ValueList items(varint());
        for (auto& item : items) item = value();
        return Value(std::move(items));
      }
    }
    return Value();
  }

  /// Typed equality of the encoded value at p with `want` (doubles compare with ==, so NaN
  /// equals nothing); advances past the encoded value either way.
  bool equals(const Value& want) noexcept {
    if (static_cast<std::uint8_t>(*p) == kRealAsFloat) {
      ++p;
      const auto d = static_cast<double>(raw<float>());
      return want.type() == ValueType::real && d == *want.get_if<double>();
    }
    const auto type = static_cast<ValueType>(*p);
    if (type != want.type()) {
      skip_value();
      return false;
    }
    ++p;
    switch (type) {
      case ValueType::null: return true;
      case ValueType::boolean: return (static_cast<std::uint8_t>(*p++) != 0) == *want.get_if<bool>();
      case ValueType::integer: return zigzag() == *want.get_if<std::int64_t>();
      case ValueType::real: return raw<double>() == *want.get_if<double>();
      case ValueType::string: return bytes(varint()) == *want.get_if<std::string>();
      case ValueType::list: {
        const auto& items = *want.get_if<ValueList>();
        auto n = varint();
        bool same = n == items.size();
        for (std::size_t i = 0; i < n; ++i) {
          if (same) {
            same = equals(items[i]);
          } else {
            skip_value();
          }
        }
        return same;
      }
    }
    return false;
  }

  /// Positions p at the value under key and returns true, or returns false (p undefined).
  bool seek(std::string_view wanted) noexcept {
    for (auto n = varint(); n > 0; --n) {
      const std::string_view k = key();
      if (k == wanted) return true;
      if (k > wanted) return false;  // entries are in key order
      skip_value();
    }
    return false;
  }
};

}  // namespace

PackedProperties::PackedProperties(const Properties& properties) {
  if (properties.empty()) return;
  std::string out;
  out.reserve(16 * properties.size());
  put_varint(out, properties.size());
  for (const auto& [key, value] : properties) {
    put_varint(out, key.size());
    out += key;
    put_value(out, value, false);
  }
  if (out.size() <= inline_capacity) {
    std::memcpy(buf_, out.data(), out.size());
    tag_ = static_cast<std::uint8_t>(out.size());
    return;
  }
  const auto size = static_cast<std::uint32_t>(out.size());
  auto* block = static_cast<std::byte*>(::operator new(sizeof size + out.size()));
  std::memcpy(block, &size, sizeof size);
  std::memcpy(block + sizeof size, out.data(), out.size());
  std::memcpy(buf_, &block, sizeof block);
  tag_ = kHeap;
}

Properties PackedView::unpack() const {
  if (empty()) return {};
  Reader r{data_};
  const auto count = static_cast<std::uint32_t>(r.varint());
  return PropertiesAccess::from_packed(data_, size_, count);
}

std::size_t packed_count(const std::byte* map) noexcept {
  Reader r{map};
  return r.varint();
}

std::vector<Properties::Entry> decode_packed(const std::byte* map) {
  Reader r{map};
  std::vector<Properties::Entry> entries(r.varint());
  for (auto& [key, value] : entries) {
    key = r.key();
    value = r.value();
  }
  return entries;
}

Value PackedView::get(std::string_view key) const {
  if (empty()) return {};
  Reader r{data_};
  return r.seek(key) ? r.value() : Value();
}

bool PackedView::matches(const Properties& filter) const noexcept {
  if (filter.empty()) return true;
  Reader r{data_};
  std::uint64_t left = empty() ? 0 : r.varint();
  // Both sides are in key order: one merge pass.
  std::string_view key;
  bool have_key = false;
  for (const auto& [want_key, want] : filter) {
    while (left > 0 && (!have_key || key < want_key)) {
      if (have_key) r.skip_value();
      key = r.key();
      have_key = true;
      --left;
      if (key >= want_key) break;
    }
    const bool present = have_key && key == want_key;
    if (want.is_null()) {
      if (present) return false;
      continue;
    }
    if (!present || !r.equals(want)) return false;
    have_key = false;  // value consumed
  }
  return true;
}

std::string PackedView::index_key(std::string_view key) const {
  if (empty()) return {};
  Reader r{data_};
  if (!r.seek(key)) return {};
  return PackedProperties::value_key(r.value());
}

std::string PackedProperties::value_key(const Value& value) {
  std::string out;
  put_value(out, value, true);
  return out;
}

namespace {

/// Walks an encoding with every bound checked (from_bytes' check).
class Validator {
 public:
  explicit Validator(std::span<const std::byte> b) noexcept : p_(b.data()), end_(b.data() + b.size()) {}

  bool map() {
    std::uint64_t count;
    if (!varint(count) || count == 0) return false;
    std::string_view previous;
    for (std::uint64_t i = 0; i < count; ++i) {
      std::string_view key;
      if (!text(key) || key.empty() || (i > 0 && key <= previous)) return false;
      previous = key;
      if (!value(/*top_level=*/true)) return false;
    }
    return p_ == end_;
  }

 private:
  bool varint(std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return false;
      const auto b = static_cast<std::uint8_t>(*p_++);
      v |= std::uint64_t{b & 0x7Fu} << shift;
      if (b < 0x80) return true;
    }
    return false;
  }
  bool skip(std::uint64_t n) {
    if (n > static_cast<std::uint64_t>(end_ - p_)) return false;
    p_ += n;
    return true;
  }
  bool text(std::string_view& s) {
    std::uint64_t n;
    if (!varint(n)) return false;
    const std::byte* start = p_;
    if (!skip(n)) return false;
    s = std::string_view(reinterpret_cast<const char*>(start), n);
    return true;
  }
  /// One value; nested lists are walked with an explicit count of the items still to come.
  bool value(bool top_level) {
    std::vector<std::uint64_t> pending;  // items left in each open list
    bool first = true;
    while (first || !pending.empty()) {
      if (!first) {
        if (pending.back() == 0) {
          pending.pop_back();
          continue;
        }
        --pending.back();
      }
      const bool nested = !first;
      first = false;
      if (p_ == end_) return false;
      const auto type = static_cast<std::uint8_t>(*p_++);
      if (type == kRealAsFloat) {
        if (!skip(sizeof(float))) return false;
        continue;
      }
      std::uint64_t n;
      switch (static_cast<ValueType>(type)) {
        case ValueType::null:
          if (top_level && !nested) return false;  // stored maps hold no nulls
          break;
        case ValueType::boolean:
          if (p_ == end_ || static_cast<std::uint8_t>(*p_) > 1) return false;
          ++p_;
          break;
        case ValueType::integer:
          if (!varint(n)) return false;
          break;
        case ValueType::real:
          if (!skip(8)) return false;
          break;
        case ValueType::string: {
          std::string_view s;
          if (!text(s)) return false;
          break;
        }
        case ValueType::list:
          if (!varint(n)) return false;
          if (pending.size() == static_cast<std::size_t>(max_value_depth)) return false;  // deeper than writes allow
          pending.push_back(n);
          break;
        default: return false;
      }
    }
    return true;
  }

  const std::byte* p_;
  const std::byte* end_;
};

}  // namespace

bool PackedProperties::well_formed(std::span<const std::byte> encoding) {
  return encoding.empty() || (encoding.size() <= UINT32_MAX && Validator(encoding).map());
}

std::optional<PackedProperties> PackedProperties::from_bytes(std::span<const std::byte> encoding) {
  PackedProperties result;
  if (encoding.empty()) return result;
  if (!well_formed(encoding)) return std::nullopt;
  if (encoding.size() <= inline_capacity) {
    std::memcpy(result.buf_, encoding.data(), encoding.size());
    result.tag_ = static_cast<std::uint8_t>(encoding.size());
    return result;
  }
  const auto size = static_cast<std::uint32_t>(encoding.size());
  auto* block = static_cast<std::byte*>(::operator new(sizeof size + encoding.size()));
  std::memcpy(block, &size, sizeof size);
  std::memcpy(block + sizeof size, encoding.data(), encoding.size());
  std::memcpy(result.buf_, &block, sizeof block);
  result.tag_ = kHeap;
  return result;
}

}  // namespace propgraph::detail
