#include "postgres/ids.hpp"

#include <charconv>
#include <limits>

namespace propgraph::postgres_detail {

namespace {
constexpr std::int64_t kMaxRow = std::numeric_limits<std::int64_t>::max();
}

ElementId IdCodec::make(IdKind kind, std::string_view row_digits) const {
  char buf[64];
  if (prefix_.size() + 1 + row_digits.size() <= sizeof buf) {
    std::size_t n = prefix_.copy(buf, prefix_.size());
    buf[n++] = kind;
    n += row_digits.copy(buf + n, row_digits.size());
    return ElementId(buf, n);
  }
  std::string s = prefix_;
  s.push_back(kind);
  s += row_digits;
  return ElementId(s);
}

ElementId IdCodec::make(IdKind kind, std::int64_t row) const {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, row);
  return make(kind, std::string_view(buf, static_cast<std::size_t>(end - buf)));
}

std::optional<std::string> IdCodec::row(const ElementId& id, IdKind kind) const {
  std::string_view s = id.str();
  if (!s.starts_with(prefix_)) return std::nullopt;
  s.remove_prefix(prefix_.size());
  if (s.size() < 2 || s.size() > 20 || s[0] != kind || s[1] == '0') return std::nullopt;
  s.remove_prefix(1);
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size() || value <= 0) return std::nullopt;
  return std::string(s);
}

std::optional<std::int64_t> IdCodec::rows_after(const ElementId& after, IdKind kind) const {
  // The usual case: an id of this graph and kind.
  if (auto own = row(after, kind)) {
    std::int64_t r = 0;
    std::from_chars(own->data(), own->data() + own->size(), r);
    if (r == kMaxRow) return std::nullopt;
    return r;
  }
  // Anything else: binary search for the last row whose id does not sort after `after`.
  const auto at_or_before = [&](std::int64_t r) { return !(after < make(kind, r)); };
  if (!at_or_before(1)) return 0;
  if (at_or_before(kMaxRow)) return std::nullopt;
  std::int64_t lo = 1;        // at_or_before(lo)
  std::int64_t hi = kMaxRow;  // !at_or_before(hi)
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (at_or_before(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace propgraph::postgres_detail
