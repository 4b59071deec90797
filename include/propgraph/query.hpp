// openCypher queries: a parsed statement (Query), its parameters, and what running it returns.
// GraphOperations::query (operations.hpp) runs a Query on any backend or inside a transaction.
// docs/cypher.md lists the supported language and where it follows Neo4j.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "propgraph/model.hpp"

namespace propgraph {

/// The label stored for a node a query creates without one (the model keeps one label per
/// element). Queries see such a node as unlabeled: labels(n) is [], it prints as `()`, and a
/// pattern `(n)` without a label matches it like any other node. A query that names this
/// label itself is refused.
inline constexpr std::string_view unlabeled_vertex_label = "_unlabeled";

/// A value a query computes: null, bool, int64, double, string, list, map (string keys,
/// iterated in ascending key order), Vertex, Edge or Path. Lists, maps and graph elements are
/// shared immutable data: copying a QueryValue never copies them.
///
/// operator== is structural and typed (int 1 != double 1.0, null == null): it compares results,
/// it is not Cypher's `=` (which is three-valued; see docs/cypher.md).
class QueryValue {
 public:
  using List = std::vector<QueryValue>;
  using Map = std::map<std::string, QueryValue, std::less<>>;
  enum class Type : std::uint8_t { null, boolean, integer, real, string, list, map, vertex, edge, path };

  QueryValue() noexcept = default;
  QueryValue(std::nullptr_t) noexcept {}       // NOLINT(google-explicit-constructor)
  QueryValue(bool b) noexcept : storage_(b) {}  // NOLINT
  template <std::integral I>
    requires(!std::same_as<I, bool> && !std::same_as<I, char>)
  QueryValue(I i) : QueryValue(Value(i)) {}  // NOLINT: Value's range check (unsigned > INT64_MAX throws)
  template <std::floating_point F>
  QueryValue(F f) noexcept : storage_(static_cast<double>(f)) {}  // NOLINT
  QueryValue(const char* s) : storage_(std::string(s)) {}         // NOLINT
  QueryValue(std::string s) noexcept : storage_(std::move(s)) {}  // NOLINT
  QueryValue(std::string_view s) : storage_(std::string(s)) {}    // NOLINT
  QueryValue(List list);                                          // NOLINT
  QueryValue(Map map);                                            // NOLINT
  QueryValue(Vertex vertex);                                      // NOLINT
  QueryValue(Edge edge);                                          // NOLINT
  QueryValue(Path path);                                          // NOLINT
  /// A property value as a query value (lists element by element).
  QueryValue(const Value& value);  // NOLINT

  [[nodiscard]] Type type() const noexcept { return static_cast<Type>(storage_.index()); }
  [[nodiscard]] bool is_null() const noexcept { return type() == Type::null; }
  [[nodiscard]] bool is_bool() const noexcept { return type() == Type::boolean; }
  [[nodiscard]] bool is_int() const noexcept { return type() == Type::integer; }
  [[nodiscard]] bool is_double() const noexcept { return type() == Type::real; }
  [[nodiscard]] bool is_number() const noexcept { return is_int() || is_double(); }
  [[nodiscard]] bool is_string() const noexcept { return type() == Type::string; }
  [[nodiscard]] bool is_list() const noexcept { return type() == Type::list; }
  [[nodiscard]] bool is_map() const noexcept { return type() == Type::map; }
  [[nodiscard]] bool is_vertex() const noexcept { return type() == Type::vertex; }
  [[nodiscard]] bool is_edge() const noexcept { return type() == Type::edge; }
  [[nodiscard]] bool is_path() const noexcept { return type() == Type::path; }

  /// Typed accessors; each throws InvalidArgument naming both types on a mismatch.
  [[nodiscard]] bool as_bool() const;
  [[nodiscard]] std::int64_t as_int() const;
  [[nodiscard]] double as_double() const;
  /// int or double as double.
  [[nodiscard]] double as_number() const;
  [[nodiscard]] const std::string& as_string() const;
  [[nodiscard]] const List& as_list() const;
  [[nodiscard]] const Map& as_map() const;
  [[nodiscard]] const Vertex& as_vertex() const;
  [[nodiscard]] const Edge& as_edge() const;
  [[nodiscard]] const Path& as_path() const;

  /// The property value this holds (null, bool, int, double, string, or a list of those);
  /// InvalidArgument for maps, elements, paths and lists holding them.
  [[nodiscard]] Value to_value() const;

  friend bool operator==(const QueryValue& a, const QueryValue& b) noexcept;

 private:
  using Storage = std::variant<std::monostate, bool, std::int64_t, double, std::string, std::shared_ptr<const List>,
                               std::shared_ptr<const Map>, std::shared_ptr<const Vertex>, std::shared_ptr<const Edge>,
                               std::shared_ptr<const Path>>;
  Storage storage_;
};

/// Name of a QueryValue::Type as Cypher spells it ("NULL", "BOOLEAN", "INTEGER", "FLOAT",
/// "STRING", "LIST", "MAP", "NODE", "RELATIONSHIP", "PATH").
[[nodiscard]] std::string_view to_string(QueryValue::Type type) noexcept;

/// Values of a statement's `$name` parameters: name -> QueryValue, kept sorted by name. Built
/// like Properties (`Parameters{{"id", 7}, {"names", QueryValue::List{"a", "b"}}}`) or from one.
class Parameters {
 public:
  using Entry = std::pair<const std::string, QueryValue>;
  using const_iterator = std::map<std::string, QueryValue, std::less<>>::const_iterator;

  Parameters() = default;
  /// Later entries with the same name replace earlier ones.
  Parameters(std::initializer_list<std::pair<std::string, QueryValue>> entries);
  /// Every property as a parameter of the same name.
  explicit Parameters(const Properties& properties);

  /// Inserts or replaces.
  void set(std::string name, QueryValue value);
  /// The value of `name`, or nullptr.
  [[nodiscard]] const QueryValue* find(std::string_view name) const;
  [[nodiscard]] std::size_t size() const noexcept { return values_.size(); }
  [[nodiscard]] bool empty() const noexcept { return values_.empty(); }
  [[nodiscard]] const_iterator begin() const noexcept { return values_.begin(); }
  [[nodiscard]] const_iterator end() const noexcept { return values_.end(); }

 private:
  std::map<std::string, QueryValue, std::less<>> values_;
};

/// What a query changed. statements_sent counts the round trips a network backend made
/// (0 for in-memory backends).
struct QueryStats {
  std::int64_t vertices_created = 0;
  std::int64_t vertices_deleted = 0;
  std::int64_t edges_created = 0;
  std::int64_t edges_deleted = 0;
  std::int64_t properties_set = 0;
  std::int64_t statements_sent = 0;
  /// True when any count above but statements_sent is non-zero.
  [[nodiscard]] bool contains_updates() const noexcept {
    return vertices_created != 0 || vertices_deleted != 0 || edges_created != 0 || edges_deleted != 0 ||
           properties_set != 0;
  }
  friend bool operator==(const QueryStats&, const QueryStats&) = default;
};

/// A query's answer: column names in RETURN order, the rows (each one QueryValue per column, in
/// column order), and what it changed. A query without RETURN has no columns and no rows.
struct QueryResult {
  std::vector<std::string> columns;
  std::vector<std::vector<QueryValue>> rows;
  QueryStats stats;
};

namespace query {
struct Statement;  // the analysed statement (src/query), opaque to users
}  // namespace query

/// One parsed and checked openCypher statement. Immutable and cheap to copy (copies share the
/// parsed form); not tied to a graph: the same Query runs on any backend, in any transaction,
/// from many threads at once.
class Query {
 public:
  /// Parses and checks `text`. Throws QueryError (errors.hpp) with line, column and code for a
  /// syntax error (`SyntaxError`, e.g. "expected ')'") and for semantic errors found before
  /// running (`SemanticError: UndefinedVariable`, `SyntaxError: UnknownFunction`, ...). A
  /// construct outside the property-graph model (two labels on one node, temporal values)
  /// throws QueryError with code `OutsideModel: <reason>`. Never crashes or hangs, whatever
  /// the input; O(text size) apart from pathological nesting, which is bounded.
  [[nodiscard]] static Query parse(std::string_view text);

  /// The statement text as given to parse().
  [[nodiscard]] const std::string& text() const noexcept;
  /// True when the statement can change the graph (CREATE, MERGE, SET, REMOVE, DELETE).
  [[nodiscard]] bool is_write() const noexcept;
  /// The analysed form, for executors (src/query).
  [[nodiscard]] const query::Statement& statement() const noexcept { return *statement_; }

 private:
  explicit Query(std::shared_ptr<const query::Statement> statement) : statement_(std::move(statement)) {}
  std::shared_ptr<const query::Statement> statement_;
};

}  // namespace propgraph
