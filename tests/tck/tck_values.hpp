// Values as the openCypher TCK writes them in result tables and parameters: null, booleans,
// integers, floats (NaN, Inf, -Inf), 'strings', [lists], {maps}, (:nodes {..}), [:relationships
// {..}] and <paths>. Expected cells are parsed into TckValue, actual QueryValues are converted
// to TckValue, and both are compared through one canonical rendering.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "propgraph/model.hpp"
#include "propgraph/query.hpp"

namespace propgraph::tck {

/// A cell that is not a TCK value; what() says where and why.
class ValueSyntaxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TckValue {
  enum class Kind { null, boolean, integer, real, string, list, map, node, relationship, path };
  Kind kind = Kind::null;
  bool boolean = false;
  std::int64_t integer = 0;
  double real = 0;
  std::string string;
  /// list elements; a path's nodes and relationships alternate: n0, r1, n1, r2, n2, ...
  std::vector<TckValue> items;
  /// map entries, a node's or relationship's properties (any order; keys distinct)
  std::vector<std::pair<std::string, TckValue>> entries;
  /// a node's labels (any order) or a relationship's type (one)
  std::vector<std::string> labels;
  /// a path's relationship directions, one per relationship: true for -[..]->
  std::vector<bool> forward;

  static TckValue null() { return {}; }
  static TckValue of_bool(bool b);
  static TckValue of_int(std::int64_t i);
  static TckValue of_real(double d);
  static TckValue of_string(std::string s);
  static TckValue of_list(std::vector<TckValue> items);
  static TckValue of_map(std::vector<std::pair<std::string, TckValue>> entries);
};

/// Parses one TCK value (a whole cell); throws ValueSyntaxError.
[[nodiscard]] TckValue parse_tck_value(std::string_view text);

/// The canonical text of a value: map keys and properties sorted, a node's labels sorted,
/// floats in shortest round-trip form (always with a '.', an exponent, NaN or Inf; -0.0 is
/// 0.0, so floats compare by value, NaN equal to NaN). With
/// `unordered_lists`, list elements are sorted too (lists compared as multisets, at any depth).
/// Two values are equal in the TCK's sense exactly when their canonical texts are.
[[nodiscard]] std::string canonical(const TckValue& value, bool unordered_lists = false);

/// A float as the canonical text writes it.
[[nodiscard]] std::string format_real(double d);

/// A query's value in TCK terms. A vertex labelled unlabeled_vertex_label has no label.
[[nodiscard]] TckValue from_query_value(const QueryValue& value);
/// A stored property value in TCK terms.
[[nodiscard]] TckValue from_value(const Value& value);
/// A parameter value: null, booleans, numbers, strings, lists and maps; graph elements throw
/// ValueSyntaxError.
[[nodiscard]] QueryValue to_query_value(const TckValue& value);

}  // namespace propgraph::tck
