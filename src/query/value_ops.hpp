// Cypher's value semantics over QueryValue: equality and comparison with three-valued logic,
// the total order of ORDER BY, grouping keys, arithmetic and the type names errors use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "propgraph/query.hpp"

namespace propgraph::query {

/// Three-valued truth: true, false or null (unknown).
enum class Truth : std::uint8_t { false_, true_, null };

/// Cypher `a = b`: null when either side is null (also inside lists/maps where it decides the
/// outcome); numbers compare by value across int and double (1 = 1.0 is true); NaN = NaN is
/// false; values of different kinds are false; vertices/edges by id; paths element-wise.
[[nodiscard]] Truth equals(const QueryValue& a, const QueryValue& b);

/// Cypher `a < b` and friends: the ordering of two comparable values (numbers with numbers,
/// strings with strings, booleans with booleans (false < true), lists lexicographically by
/// the same rule), as -1/0/1; nullopt (null) when either is null, NaN is involved, or the
/// kinds are not comparable. Operators should use the overload below, which is exact for NaN.
[[nodiscard]] std::optional<int> compare(const QueryValue& a, const QueryValue& b);

/// The comparison operators `<`, `<=`, `>`, `>=`.
enum class Comparison : std::uint8_t { less, less_equal, greater, greater_equal };

/// Cypher `a <op> b` exactly: like compare(), except that a NaN compared with a number makes
/// every operator false (not null), as the TCK requires (NaN compared with a string is null).
[[nodiscard]] Truth compare(Comparison op, const QueryValue& a, const QueryValue& b);

/// The total order ORDER BY uses (ascending): map < node < relationship < list < path <
/// string < boolean < number < null, each kind ordered within itself (numbers by value, NaN
/// after every other number; ints and doubles of equal value equal). Returns -1/0/1.
[[nodiscard]] int order(const QueryValue& a, const QueryValue& b);

/// Equivalence for DISTINCT, grouping keys and `IN` de-duplication: like equals(), but null is
/// equivalent to null and NaN to NaN. hash() agrees with it (1 and 1.0 hash alike).
[[nodiscard]] bool equivalent(const QueryValue& a, const QueryValue& b);
[[nodiscard]] std::size_t hash(const QueryValue& value);

/// Arithmetic with Cypher's rules: int op int stays int (overflow throws QueryError
/// "ArithmeticError: IntegerOverflow"; integer division or modulo by zero throws
/// "ArithmeticError: DivisionByZero"); a double makes the result double; null in gives null;
/// `+` also concatenates strings (string + number or bool is a TypeError: use toString) and
/// lists (list + list, list + element, element + list; list + null is null). Integer division
/// truncates toward zero and `%` takes the sign of the dividend (Java's); a double divided by
/// zero gives an infinity or NaN. `^` always gives a double. Any other type
/// combination throws QueryError with code "TypeError: InvalidArgumentType" naming the
/// operator and the types.
[[nodiscard]] QueryValue add(const QueryValue& a, const QueryValue& b);
[[nodiscard]] QueryValue subtract(const QueryValue& a, const QueryValue& b);
[[nodiscard]] QueryValue multiply(const QueryValue& a, const QueryValue& b);
[[nodiscard]] QueryValue divide(const QueryValue& a, const QueryValue& b);
[[nodiscard]] QueryValue modulo(const QueryValue& a, const QueryValue& b);
[[nodiscard]] QueryValue power(const QueryValue& a, const QueryValue& b);
[[nodiscard]] QueryValue negate(const QueryValue& a);

/// Throws QueryError(code "TypeError: <detail>") with `message`.
[[noreturn]] void type_error(const std::string& detail, const std::string& message);

}  // namespace propgraph::query
