// Cypher's functions: the scalar, list, string, math and graph functions, and the aggregations.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "propgraph/operations.hpp"
#include "propgraph/query.hpp"

namespace propgraph::query {

class GraphReader;

/// What a function may consult while it runs: the graph (startNode, endNode, ... read
/// elements through it) — may be null when a function needs no graph.
struct FunctionContext {
  GraphReader* reader = nullptr;
};

/// A scalar function over arguments whose count the caller has checked against FunctionInfo.
/// A null argument gives null wherever Cypher says so. An argument of a type the function does
/// not take throws QueryError "TypeError: InvalidArgumentValue" naming the function and the
/// type (the TCK's runtime code); range() throws "ArgumentError: InvalidArgumentType" for a
/// non-integer and "ArgumentError: NumberOutOfRange" for step 0; integer overflow throws
/// "ArithmeticError: IntegerOverflow". startNode/endNode give null without a graph.
using ScalarFunction = QueryValue (*)(std::span<const QueryValue> arguments, FunctionContext& context);

/// A known function: name as Cypher documents it (case-insensitive lookup), arity bounds
/// (max -1 = variadic), and either a scalar implementation or `aggregate` = true.
struct FunctionInfo {
  std::string_view name;
  int min_arguments = 0;
  int max_arguments = 0;
  bool aggregate = false;
  ScalarFunction call = nullptr;  // null for aggregations
};

/// A double as Cypher's toString prints it (Java's Double.toString): "1.0", "0.1", "1.0E20",
/// "1.0E-4", "NaN", "Infinity".
[[nodiscard]] std::string format_double(double value);

/// The function called `name` (case-insensitive), or nullptr when there is none.
[[nodiscard]] const FunctionInfo* find_function(std::string_view name);

/// Accumulates one aggregation (count, sum, avg, min, max, collect, stDev, stDevP,
/// percentileCont, percentileDisc) over the rows of one group. Nulls are skipped (count(x)
/// counts non-null values). With distinct, equivalent values (value_ops.hpp) count once.
class Aggregator {
 public:
  virtual ~Aggregator() = default;
  /// Adds one row's arguments (arguments[0] the aggregated value; percentiles also pass the
  /// percentile as arguments[1]; count(*) passes none). Throws QueryError for a type error
  /// (sum of strings: "TypeError: InvalidArgumentValue"), "ArithmeticError: IntegerOverflow"
  /// for an int sum, "ArgumentError: NumberOutOfRange" for a percentile outside [0, 1].
  virtual void add(std::span<const QueryValue> arguments) = 0;
  /// The aggregate over what was added (count of nothing 0, sum 0, avg/min/max null,
  /// collect [], stDev/stDevP 0.0, percentiles null).
  [[nodiscard]] virtual QueryValue result() const = 0;
};

/// A fresh aggregator for the aggregation `name` (find_function(name)->aggregate is true).
[[nodiscard]] std::unique_ptr<Aggregator> make_aggregator(std::string_view name, bool distinct);

}  // namespace propgraph::query
