// Cypher's value semantics (value_ops.hpp): three-valued equality, comparability, the ORDER BY
// order, equivalence and hashing for grouping, and arithmetic.
#include "value_ops.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "propgraph/errors.hpp"

namespace propgraph::query {

namespace {

using Type = QueryValue::Type;

// -2^63 and 2^63 as doubles: a double d holds an int64 value iff kMin <= d < kMax.
constexpr double kInt64Min = -9223372036854775808.0;
constexpr double kInt64Max = 9223372036854775808.0;

// Exact comparison of an int64 with a non-NaN double (-1/0/1), without rounding the int.
int compare_int_double(std::int64_t i, double d) {
  if (d < kInt64Min) return 1;
  if (d >= kInt64Max) return -1;
  const double t = std::trunc(d);
  const auto ti = static_cast<std::int64_t>(t);
  if (i != ti) return i < ti ? -1 : 1;
  if (d > t) return -1;
  if (d < t) return 1;
  return 0;
}

template <typename T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Numbers by value; both non-NaN.
int compare_numbers(const QueryValue& a, const QueryValue& b) {
  if (a.is_int() && b.is_int()) return three_way(a.as_int(), b.as_int());
  if (a.is_int()) return compare_int_double(a.as_int(), b.as_double());
  if (b.is_int()) return -compare_int_double(b.as_int(), a.as_double());
  return three_way(a.as_double(), b.as_double());
}

bool is_nan(const QueryValue& v) { return v.is_double() && std::isnan(v.as_double()); }

Truth truth(bool b) { return b ? Truth::true_ : Truth::false_; }

// Combines element results: any false decides false, else any null gives null.
struct TruthAll {
  bool any_null = false;
  // Returns true when the outcome is decided (false).
  bool add(Truth t) {
    if (t == Truth::false_) return true;
    if (t == Truth::null) any_null = true;
    return false;
  }
  [[nodiscard]] Truth result() const { return any_null ? Truth::null : Truth::true_; }
};

bool same_path_ids(const Path& a, const Path& b) {
  if (a.vertices.size() != b.vertices.size() || a.edges.size() != b.edges.size()) return false;
  for (std::size_t i = 0; i < a.vertices.size(); ++i) {
    if (a.vertices[i].id != b.vertices[i].id) return false;
  }
  for (std::size_t i = 0; i < a.edges.size(); ++i) {
    if (a.edges[i].id != b.edges[i].id) return false;
  }
  return true;
}

// Outcome of comparing two values for `<`: ordered (-1/0/1), unordered because of NaN (every
// comparison false), or null (not comparable, or null involved).
enum class Cmp : std::uint8_t { less, equal, greater, nan, null };

Cmp to_cmp(int c) { return c < 0 ? Cmp::less : (c > 0 ? Cmp::greater : Cmp::equal); }

Cmp compare_cmp(const QueryValue& a, const QueryValue& b) {
  if (a.is_null() || b.is_null()) return Cmp::null;
  if (a.is_number() && b.is_number()) {
    if (is_nan(a) || is_nan(b)) return Cmp::nan;
    return to_cmp(compare_numbers(a, b));
  }
  if (a.type() != b.type()) return Cmp::null;
  switch (a.type()) {
    case Type::boolean: return to_cmp(three_way(a.as_bool(), b.as_bool()));
    case Type::string: return to_cmp(a.as_string().compare(b.as_string()));
    case Type::list: {
      // Lexicographic: the first pair that is not equal decides; then the shorter list is less.
      const auto& x = a.as_list();
      const auto& y = b.as_list();
      const std::size_t n = std::min(x.size(), y.size());
      for (std::size_t i = 0; i < n; ++i) {
        const Cmp c = compare_cmp(x[i], y[i]);
        if (c != Cmp::equal) return c;
      }
      return to_cmp(three_way(x.size(), y.size()));
    }
    default: return Cmp::null;
  }
}

// Rank of a value's kind in the ORDER BY order.
int order_rank(const QueryValue& v) {
  switch (v.type()) {
    case Type::map: return 0;
    case Type::vertex: return 1;
    case Type::edge: return 2;
    case Type::list: return 3;
    case Type::path: return 4;
    case Type::string: return 5;
    case Type::boolean: return 6;
    case Type::integer:
    case Type::real: return 7;
    case Type::null: return 8;
  }
  return 9;
}

int order_lists(const QueryValue::List& x, const QueryValue::List& y) {
  const std::size_t n = std::min(x.size(), y.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (int c = order(x[i], y[i]); c != 0) return c;
  }
  return three_way(x.size(), y.size());
}

int order_paths(const Path& a, const Path& b) {
  // Alternating vertex, edge, vertex, ... by id; a prefix first.
  const std::size_t n = std::min(a.vertices.size(), b.vertices.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (int c = three_way(a.vertices[i].id, b.vertices[i].id); c != 0) return c;
    if (i < a.edges.size() && i < b.edges.size()) {
      if (int c = three_way(a.edges[i].id, b.edges[i].id); c != 0) return c;
    }
  }
  return three_way(a.vertices.size(), b.vertices.size());
}

void hash_combine(std::size_t& seed, std::size_t h) { seed ^= h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2); }

std::string op_types(const QueryValue& a, const QueryValue& b) {
  return fmt::format("`{}` and `{}`", to_string(a.type()), to_string(b.type()));
}

[[noreturn]] void operand_error(std::string_view verb, const QueryValue& a, const QueryValue& b) {
  type_error("InvalidArgumentType", fmt::format("Cannot {} {}", verb, op_types(a, b)));
}

[[noreturn]] void overflow(std::string_view op, std::int64_t a, std::int64_t b) {
  throw QueryError(fmt::format("integer overflow: {} {} {} does not fit in a 64-bit integer", a, op, b),
                   "ArithmeticError: IntegerOverflow");
}

[[noreturn]] void division_by_zero() {
  throw QueryError("integer division by zero", "ArithmeticError: DivisionByZero");
}

}  // namespace

void type_error(const std::string& detail, const std::string& message) {
  throw QueryError(message, "TypeError: " + detail);
}

Truth equals(const QueryValue& a, const QueryValue& b) {
  if (a.is_null() || b.is_null()) return Truth::null;
  if (a.is_number() && b.is_number()) {
    if (is_nan(a) || is_nan(b)) return Truth::false_;
    return truth(compare_numbers(a, b) == 0);
  }
  if (a.type() != b.type()) return Truth::false_;
  switch (a.type()) {
    case Type::boolean: return truth(a.as_bool() == b.as_bool());
    case Type::string: return truth(a.as_string() == b.as_string());
    case Type::list: {
      const auto& x = a.as_list();
      const auto& y = b.as_list();
      if (x.size() != y.size()) return Truth::false_;
      TruthAll all;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (all.add(equals(x[i], y[i]))) return Truth::false_;
      }
      return all.result();
    }
    case Type::map: {
      const auto& x = a.as_map();
      const auto& y = b.as_map();
      if (x.size() != y.size()) return Truth::false_;
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
        if (i->first != j->first) return Truth::false_;
      }
      TruthAll all;
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
        if (all.add(equals(i->second, j->second))) return Truth::false_;
      }
      return all.result();
    }
    case Type::vertex: return truth(a.as_vertex().id == b.as_vertex().id);
    case Type::edge: return truth(a.as_edge().id == b.as_edge().id);
    case Type::path: return truth(same_path_ids(a.as_path(), b.as_path()));
    default: return Truth::false_;
  }
}

std::optional<int> compare(const QueryValue& a, const QueryValue& b) {
  switch (compare_cmp(a, b)) {
    case Cmp::less: return -1;
    case Cmp::equal: return 0;
    case Cmp::greater: return 1;
    default: return std::nullopt;
  }
}

Truth compare(Comparison op, const QueryValue& a, const QueryValue& b) {
  const Cmp c = compare_cmp(a, b);
  if (c == Cmp::null) return Truth::null;
  if (c == Cmp::nan) return Truth::false_;
  switch (op) {
    case Comparison::less: return truth(c == Cmp::less);
    case Comparison::less_equal: return truth(c != Cmp::greater);
    case Comparison::greater: return truth(c == Cmp::greater);
    case Comparison::greater_equal: return truth(c != Cmp::less);
  }
  return Truth::null;
}

int order(const QueryValue& a, const QueryValue& b) {
  const int ra = order_rank(a);
  const int rb = order_rank(b);
  if (ra != rb) return three_way(ra, rb);
  switch (a.type()) {
    case Type::null: return 0;
    case Type::integer:
    case Type::real: {
      const bool na = is_nan(a);
      const bool nb = is_nan(b);
      if (na || nb) return three_way(na, nb);  // NaN after every other number
      return compare_numbers(a, b);
    }
    case Type::boolean: return three_way(a.as_bool(), b.as_bool());
    case Type::string: {
      const int c = a.as_string().compare(b.as_string());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case Type::list: return order_lists(a.as_list(), b.as_list());
    case Type::map: {
      // Smaller maps first, then by the sorted keys, then by the values in key order.
      const auto& x = a.as_map();
      const auto& y = b.as_map();
      if (x.size() != y.size()) return three_way(x.size(), y.size());
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
        if (int c = i->first.compare(j->first); c != 0) return c < 0 ? -1 : 1;
      }
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
        if (int c = order(i->second, j->second); c != 0) return c;
      }
      return 0;
    }
    case Type::vertex: return three_way(a.as_vertex().id, b.as_vertex().id);
    case Type::edge: return three_way(a.as_edge().id, b.as_edge().id);
    case Type::path: return order_paths(a.as_path(), b.as_path());
  }
  return 0;
}

bool equivalent(const QueryValue& a, const QueryValue& b) {
  if (a.is_null() || b.is_null()) return a.is_null() && b.is_null();
  if (a.is_number() && b.is_number()) {
    const bool na = is_nan(a);
    const bool nb = is_nan(b);
    if (na || nb) return na && nb;
    return compare_numbers(a, b) == 0;
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Type::list: {
      const auto& x = a.as_list();
      const auto& y = b.as_list();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!equivalent(x[i], y[i])) return false;
      }
      return true;
    }
    case Type::map: {
      const auto& x = a.as_map();
      const auto& y = b.as_map();
      if (x.size() != y.size()) return false;
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
        if (i->first != j->first || !equivalent(i->second, j->second)) return false;
      }
      return true;
    }
    default: return equals(a, b) == Truth::true_;
  }
}

std::size_t hash(const QueryValue& value) {
  std::size_t seed = static_cast<std::size_t>(value.type() == Type::real ? Type::integer : value.type());
  switch (value.type()) {
    case Type::null: break;
    case Type::boolean: hash_combine(seed, value.as_bool() ? 1 : 2); break;
    case Type::integer: hash_combine(seed, std::hash<std::int64_t>{}(value.as_int())); break;
    case Type::real: {
      // Integral doubles in int64 range hash like the equal int; -0.0 like 0; every NaN alike.
      const double d = value.as_double();
      if (std::isnan(d)) {
        hash_combine(seed, 0x7ff8000000000000ULL);
      } else if (d >= kInt64Min && d < kInt64Max && std::trunc(d) == d) {
        hash_combine(seed, std::hash<std::int64_t>{}(static_cast<std::int64_t>(d)));
      } else {
        hash_combine(seed, std::hash<std::uint64_t>{}(std::bit_cast<std::uint64_t>(d)));
      }
      break;
    }
    case Type::string: hash_combine(seed, std::hash<std::string>{}(value.as_string())); break;
    case Type::list:
      for (const QueryValue& item : value.as_list()) hash_combine(seed, hash(item));
      break;
    case Type::map:
      for (const auto& [key, item] : value.as_map()) {
        hash_combine(seed, std::hash<std::string>{}(key));
        hash_combine(seed, hash(item));
      }
      break;
    case Type::vertex: hash_combine(seed, std::hash<ElementId>{}(value.as_vertex().id)); break;
    case Type::edge: hash_combine(seed, std::hash<ElementId>{}(value.as_edge().id)); break;
    case Type::path:
      for (const Vertex& v : value.as_path().vertices) hash_combine(seed, std::hash<ElementId>{}(v.id));
      for (const Edge& e : value.as_path().edges) hash_combine(seed, std::hash<ElementId>{}(e.id));
      break;
  }
  return seed;
}

QueryValue add(const QueryValue& a, const QueryValue& b) {
  if (a.is_null() || b.is_null()) return nullptr;
  if (a.is_int() && b.is_int()) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a.as_int(), b.as_int(), &r)) overflow("+", a.as_int(), b.as_int());
    return r;
  }
  if (a.is_number() && b.is_number()) return a.as_number() + b.as_number();
  if (a.is_string() && b.is_string()) return a.as_string() + b.as_string();
  if (a.is_list() || b.is_list()) {
    QueryValue::List out;
    if (a.is_list()) {
      out = a.as_list();
    } else {
      out.push_back(a);
    }
    if (b.is_list()) {
      out.insert(out.end(), b.as_list().begin(), b.as_list().end());
    } else {
      out.push_back(b);
    }
    return out;
  }
  operand_error("add", a, b);
}

QueryValue subtract(const QueryValue& a, const QueryValue& b) {
  if (a.is_null() || b.is_null()) return nullptr;
  if (a.is_int() && b.is_int()) {
    std::int64_t r = 0;
    if (__builtin_sub_overflow(a.as_int(), b.as_int(), &r)) overflow("-", a.as_int(), b.as_int());
    return r;
  }
  if (a.is_number() && b.is_number()) return a.as_number() - b.as_number();
  operand_error("subtract", a, b);
}

QueryValue multiply(const QueryValue& a, const QueryValue& b) {
  if (a.is_null() || b.is_null()) return nullptr;
  if (a.is_int() && b.is_int()) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a.as_int(), b.as_int(), &r)) overflow("*", a.as_int(), b.as_int());
    return r;
  }
  if (a.is_number() && b.is_number()) return a.as_number() * b.as_number();
  operand_error("multiply", a, b);
}

QueryValue divide(const QueryValue& a, const QueryValue& b) {
  if (a.is_null() || b.is_null()) return nullptr;
  if (a.is_int() && b.is_int()) {
    const std::int64_t x = a.as_int();
    const std::int64_t y = b.as_int();
    if (y == 0) division_by_zero();
    if (x == std::numeric_limits<std::int64_t>::min() && y == -1) overflow("/", x, y);
    return x / y;  // truncates toward zero
  }
  if (a.is_number() && b.is_number()) return a.as_number() / b.as_number();
  operand_error("divide", a, b);
}

QueryValue modulo(const QueryValue& a, const QueryValue& b) {
  if (a.is_null() || b.is_null()) return nullptr;
  if (a.is_int() && b.is_int()) {
    const std::int64_t x = a.as_int();
    const std::int64_t y = b.as_int();
    if (y == 0) division_by_zero();
    if (y == -1) return std::int64_t{0};  // also INT64_MIN % -1, undefined in C++
    return x % y;                         // sign of the dividend, as Java's %
  }
  if (a.is_number() && b.is_number()) return std::fmod(a.as_number(), b.as_number());
  operand_error("compute the modulus of", a, b);
}

QueryValue power(const QueryValue& a, const QueryValue& b) {
  if (a.is_null() || b.is_null()) return nullptr;
  if (a.is_number() && b.is_number()) return std::pow(a.as_number(), b.as_number());
  operand_error("raise", a, b);
}

QueryValue negate(const QueryValue& a) {
  if (a.is_null()) return nullptr;
  if (a.is_int()) {
    if (a.as_int() == std::numeric_limits<std::int64_t>::min()) {
      throw QueryError(fmt::format("integer overflow: -({}) does not fit in a 64-bit integer", a.as_int()),
                       "ArithmeticError: IntegerOverflow");
    }
    return -a.as_int();
  }
  if (a.is_double()) return -a.as_double();
  type_error("InvalidArgumentType", fmt::format("Cannot negate `{}`", to_string(a.type())));
}

}  // namespace propgraph::query
