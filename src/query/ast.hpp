// The syntax tree of one openCypher statement, as the parser builds it (parser.hpp) and the
// analyser annotates it (analyzer.hpp: variable slots, aggregation). Plain data: the executors
// read it, nothing mutates it after Query::parse returns.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "propgraph/model.hpp"
#include "propgraph/query.hpp"

namespace propgraph::query {

/// A place in the statement text: 1-based line and column (bytes), and the byte offset.
struct Position {
  int line = 0;
  int column = 0;
  std::size_t offset = 0;
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

enum class ExprKind : std::uint8_t {
  literal,        // value: null, bool, int, double, string
  parameter,      // name: `$name` (or `$0`)
  variable,       // name; slot set by the analyser
  property,       // children[0].name
  list,           // children: the items
  map,            // keys[i] -> children[i]
  subscript,      // children[0][children[1]]
  slice,          // children[0][children[1] .. children[2]]; absent bounds are nullptr children
  unary,          // op (not, negate, plus), children[0]
  binary,         // op, children[0], children[1]
  is_null,        // children[0] IS NULL
  is_not_null,    // children[0] IS NOT NULL
  label_check,    // children[0]:Label1:Label2  (labels)
  function,       // name (as written), distinct, children: the arguments
  count_star,     // count(*)
  case_expr,      // children: [subject or nullptr], when1, then1, when2, then2, ..., [else or nullptr]
                  // (`has_subject` says whether children[0] is a subject; `has_else` the last)
  list_comprehension,     // [name IN children[0] WHERE children[1] | children[2]] (nullptr for absent parts)
  pattern_comprehension,  // [path_name = pattern WHERE children[0] | children[1]]
  quantifier,             // op (all, any, none, single): name IN children[0] WHERE children[1]
  reduce,                 // reduce(name = children[0], name2 IN children[1] | children[2]); name2 in keys[0]
  pattern_predicate,      // a relationship pattern used as an expression: `(a)-->(b)`; pattern
  exists_subquery,        // EXISTS { pattern [WHERE ...] } or EXISTS { MATCH ... }: subquery
  map_projection,         // name { .key, key: expr, .*, var }: keys + children (see MapProjectionItem)
};

enum class Op : std::uint8_t {
  // unary
  not_,
  negate,
  plus,
  // boolean
  or_,
  xor_,
  and_,
  // comparison (a chain `a < b <= c` is parsed as (a < b) AND (b <= c))
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
  // string and list predicates
  in,
  starts_with,
  ends_with,
  contains,
  regex_match,  // =~
  // arithmetic
  add,
  sub,
  mul,
  div,
  mod,
  pow,
  // quantifiers
  all,
  any,
  none,
  single,
};

struct PatternPart;
struct SingleQuery;

/// One entry of a map projection `n {.name, .*, age: n.age + 1, other}`.
struct MapProjectionItem {
  enum class Kind : std::uint8_t { property, all_properties, literal, variable } kind = Kind::property;
  std::string key;  // property / literal: the key; variable: the variable's name
  ExprPtr value;    // literal: the expression; variable: a variable Expr; else nullptr
};

struct Expr {
  ExprKind kind = ExprKind::literal;
  Op op = Op::not_;
  Position position;
  QueryValue value;               // literal
  std::string name;               // variable, parameter, property key, function name, iteration var
  std::vector<std::string> keys;  // map keys, label_check labels, reduce's second variable
  std::vector<ExprPtr> children;
  bool distinct = false;          // function(DISTINCT ...)
  bool has_subject = false;       // case_expr
  bool has_else = false;          // case_expr
  std::shared_ptr<PatternPart> pattern;       // pattern_predicate, pattern_comprehension
  std::shared_ptr<SingleQuery> subquery;      // exists_subquery (a MATCH ... [WHERE ...] query)
  std::vector<MapProjectionItem> projection;  // map_projection (name is the map's variable)
  // Set by the analyser:
  int slot = -1;                  // variable: its slot in the row; iteration variable's slot
  int slot2 = -1;                 // reduce: the second variable's slot
  bool aggregate = false;         // this function call is an aggregation
};

/// `(name:Label {properties})`. Labels as written (several = outside the model).
struct NodePattern {
  Position position;
  std::string variable;  // empty when anonymous
  std::vector<std::string> labels;
  ExprPtr properties;  // a map literal or a parameter, or nullptr
  int slot = -1;       // analyser: the row slot (anonymous nodes get a hidden one)
  bool bound = false;  // analyser: the variable was bound before this pattern
};

/// `-[name:T1|T2 *min..max {properties}]->`.
struct RelationshipPattern {
  Position position;
  std::string variable;
  std::vector<std::string> types;  // alternatives; empty: any type
  Direction direction = Direction::both;  // out: `-->`, in: `<--`, both: `--` (or `<-->`)
  ExprPtr properties;
  bool variable_length = false;
  std::optional<std::int64_t> min_hops;  // variable length: absent = 1
  std::optional<std::int64_t> max_hops;  // variable length: absent = unbounded
  int slot = -1;
  bool bound = false;  // analyser: the variable was bound before this pattern
};

/// One comma-separated part of a pattern: `p = (a)-[r]->(b)<-[s]-(c)` or
/// `shortestPath((a)-[*]-(b))`. nodes.size() == relationships.size() + 1.
struct PatternPart {
  Position position;
  std::string path_variable;  // empty when unnamed
  enum class Kind : std::uint8_t { plain, shortest, all_shortest } kind = Kind::plain;
  std::vector<NodePattern> nodes;
  std::vector<RelationshipPattern> relationships;
  int path_slot = -1;
};

struct Pattern {
  std::vector<PatternPart> parts;
};

struct ProjectionItem {
  ExprPtr expression;
  std::string alias;  // AS name; empty when none
  std::string text;   // the expression's source text, whitespace-trimmed (the column name)
  Position position;
  int slot = -1;      // analyser: the output slot
};

struct SortItem {
  ExprPtr expression;
  bool descending = false;
};

/// RETURN and WITH: `[DISTINCT] * , items [ORDER BY ...] [SKIP e] [LIMIT e] [WHERE e]`.
struct Projection {
  Position position;
  bool distinct = false;
  bool star = false;  // `*` (items holds the explicit ones after it)
  std::vector<ProjectionItem> items;
  std::vector<SortItem> order_by;
  ExprPtr skip;
  ExprPtr limit;
  ExprPtr where;  // WITH only
};

struct MatchClause {
  bool optional = false;
  Pattern pattern;
  ExprPtr where;
};

struct UnwindClause {
  ExprPtr expression;
  std::string variable;
  int slot = -1;
};

struct WithClause {
  Projection projection;
};

struct ReturnClause {
  Projection projection;
};

struct CreateClause {
  Pattern pattern;
};

/// One item of SET (and of MERGE's ON CREATE / ON MATCH):
/// - property: `target.key = value` (target is any expression: `n.k`, `(n).k`);
/// - replace_properties: `n = value`; merge_properties: `n += value`;
/// - labels: `n:Label`.
struct SetItem {
  enum class Kind : std::uint8_t { property, replace_properties, merge_properties, labels } kind = Kind::property;
  Position position;
  ExprPtr target;  // property: the `x.key` expression (kind property); others: the variable
  ExprPtr value;
  std::vector<std::string> labels;
};

struct MergeClause {
  PatternPart pattern;
  std::vector<SetItem> on_create;
  std::vector<SetItem> on_match;
};

struct SetClause {
  std::vector<SetItem> items;
};

/// REMOVE items: `n.key` (a property expression) or `n:Label`.
struct RemoveItem {
  Position position;
  ExprPtr target;  // property expression, or the variable for labels
  std::vector<std::string> labels;  // non-empty: remove labels
};

struct RemoveClause {
  std::vector<RemoveItem> items;
};

struct DeleteClause {
  bool detach = false;
  std::vector<ExprPtr> expressions;
};

/// `CALL name.space(args) YIELD a, b AS c [WHERE ...]` (procedures are outside the engine; the
/// parser accepts the form so the error names the procedure).
struct CallClause {
  std::string procedure;
  std::vector<ExprPtr> arguments;
  bool has_arguments = false;  // `CALL p` (implicit arguments) vs `CALL p()`
  std::vector<std::pair<std::string, std::string>> yield;  // (field, alias-or-empty)
  bool yield_all = false;  // `YIELD *` (standalone calls)
  ExprPtr where;
};

using Clause = std::variant<MatchClause, UnwindClause, WithClause, ReturnClause, CreateClause, MergeClause, SetClause,
                            RemoveClause, DeleteClause, CallClause>;

struct ClauseNode {
  Position position;
  Clause clause;
};

/// Clauses joined without UNION.
struct SingleQuery {
  std::vector<ClauseNode> clauses;
  int slot_count = 0;  // analyser: the row width this query needs
};

/// A whole statement: one or more single queries joined by UNION [ALL].
struct Statement {
  std::string text;
  std::vector<SingleQuery> queries;
  std::vector<bool> union_all;  // union_all[i] joins queries[i] and queries[i + 1]
  bool explain = false;         // EXPLAIN prefix
  bool profile = false;         // PROFILE prefix
  // Set by the analyser:
  std::vector<std::string> columns;
  bool writes = false;
};

}  // namespace propgraph::query
