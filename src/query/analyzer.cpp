#include "query/analyzer.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "propgraph/errors.hpp"
#include "query/functions.hpp"

namespace propgraph::query {
namespace {

enum class VarKind : std::uint8_t { node, relationship, path, value, scalar };  // value: unknown kind

struct Variable {
  int slot = -1;
  VarKind kind = VarKind::value;
  std::optional<QueryValue::Type> type;  // known before running (literals), else unknown
};

[[noreturn]] void fail(const Position& at, const std::string& code, const std::string& message) {
  throw QueryError(fmt::format("{} (line {}, column {})", message, at.line, at.column), code, at.line, at.column);
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool is_temporal_function(const std::string& name) {
  static const std::unordered_set<std::string> temporal = {"date", "datetime",  "localdatetime",
                                                           "time", "localtime", "duration"};
  const auto dot = name.find('.');
  return temporal.contains(dot == std::string::npos ? name : name.substr(0, dot));
}

class Analyzer {
 public:
  explicit Analyzer(Statement& statement) : statement_(statement) {}

  void run() {
    for (std::size_t i = 1; i < statement_.union_all.size(); ++i) {
      if (statement_.union_all[i] != statement_.union_all[0]) {
        const Position at =
            statement_.queries[i + 1].clauses.empty() ? Position{} : statement_.queries[i + 1].clauses.front().position;
        fail(at, "SyntaxError: InvalidClauseComposition", "UNION and UNION ALL cannot be mixed in one statement");
      }
    }
    std::vector<std::string> columns;
    for (std::size_t i = 0; i < statement_.queries.size(); ++i) {
      SingleQuery& q = statement_.queries[i];
      slots_ = 0;
      scope_.clear();
      std::vector<std::string> these = single_query(q, true);
      q.slot_count = slots_;
      if (i == 0) {
        columns = these;
      } else if (these != columns) {
        const Position at = q.clauses.empty() ? Position{} : q.clauses.front().position;
        fail(at, "SyntaxError: DifferentColumnsInUnion", "all sub queries of a UNION must return the same columns");
      }
    }
    statement_.columns = std::move(columns);
  }

 private:
  // Returns the columns of its RETURN (empty when none).
  std::vector<std::string> single_query(SingleQuery& q, bool top_level) {
    std::vector<std::string> columns;
    const std::size_t n = q.clauses.size();
    for (std::size_t i = 0; i < n; ++i) {
      ClauseNode& node = q.clauses[i];
      const bool last = i + 1 == n;
      std::visit([&](auto& clause) { this->clause(clause, node.position, last, columns); }, node.clause);
    }
    if (top_level && n > 0) {
      const Clause& end = q.clauses.back().clause;
      const bool ends_well =
          std::holds_alternative<ReturnClause>(end) || is_update(end) || std::holds_alternative<CallClause>(end);
      if (!ends_well) {
        fail(q.clauses.back().position, "SyntaxError: InvalidClauseComposition",
             "a query cannot end with MATCH, UNWIND or WITH: add RETURN or an updating clause");
      }
    }
    return columns;
  }

  static bool is_update(const Clause& c) {
    return std::holds_alternative<CreateClause>(c) || std::holds_alternative<MergeClause>(c) ||
           std::holds_alternative<SetClause>(c) || std::holds_alternative<RemoveClause>(c) ||
           std::holds_alternative<DeleteClause>(c);
  }

  // -- scope ---------------------------------------------------------------------------------
  int new_slot() { return slots_++; }

  Variable* lookup(const std::string& name) {
    auto it = scope_.find(name);
    return it == scope_.end() ? nullptr : &it->second;
  }

  int declare(const std::string& name, VarKind kind) {
    const int slot = new_slot();
    scope_[name] = Variable{slot, kind};
    return slot;
  }

  static const char* kind_name(VarKind k) {
    switch (k) {
      case VarKind::node: return "a node";
      case VarKind::relationship: return "a relationship";
      case VarKind::path: return "a path";
      case VarKind::value: return "a value";
      case VarKind::scalar: return "a value";
    }
    return "a value";
  }

  // -- clauses -------------------------------------------------------------------------------
  void clause(MatchClause& m, const Position&, bool, std::vector<std::string>&) {
    std::unordered_set<std::string> rel_names;
    for (PatternPart& part : m.pattern.parts) pattern_part(part, PatternUse::match, rel_names);
    for (PatternPart& part : m.pattern.parts) pattern_properties(part, true);
    if (m.where) predicate(*m.where);
  }

  void clause(UnwindClause& u, const Position& at, bool, std::vector<std::string>&) {
    expression(*u.expression, ExprUse::plain);
    if (lookup(u.variable))
      fail(at, "SyntaxError: VariableAlreadyBound", fmt::format("variable `{}` already declared", u.variable));
    u.slot = declare(u.variable, VarKind::value);
  }

  void clause(WithClause& w, const Position&, bool, std::vector<std::string>&) { projection(w.projection, false); }

  void clause(ReturnClause& r, const Position& at, bool last, std::vector<std::string>& columns) {
    if (!last) fail(at, "SyntaxError: InvalidClauseComposition", "RETURN can only be used at the end of the query");
    columns = projection(r.projection, true);
  }

  void clause(CreateClause& c, const Position&, bool, std::vector<std::string>&) {
    statement_.writes = true;
    std::unordered_set<std::string> rel_names;
    for (PatternPart& part : c.pattern.parts) pattern_part(part, PatternUse::create, rel_names);
    for (PatternPart& part : c.pattern.parts) pattern_properties(part);
  }

  void clause(MergeClause& m, const Position&, bool, std::vector<std::string>&) {
    statement_.writes = true;
    std::unordered_set<std::string> rel_names;
    pattern_part(m.pattern, PatternUse::merge, rel_names);
    pattern_properties(m.pattern, true);
    for (SetItem& item : m.on_create) set_item(item);
    for (SetItem& item : m.on_match) set_item(item);
  }

  void clause(SetClause& s, const Position&, bool, std::vector<std::string>&) {
    statement_.writes = true;
    for (SetItem& item : s.items) set_item(item);
  }

  void clause(RemoveClause& r, const Position&, bool, std::vector<std::string>&) {
    statement_.writes = true;
    for (RemoveItem& item : r.items) {
      expression(*item.target, ExprUse::plain);
      check_labels(item.labels, item.position);
    }
  }

  void clause(DeleteClause& d, const Position&, bool, std::vector<std::string>&) {
    statement_.writes = true;
    for (ExprPtr& e : d.expressions) {
      expression(*e, ExprUse::plain);
      if (e->kind == ExprKind::label_check) {
        fail(e->position, "SyntaxError: InvalidDelete", "DELETE takes nodes, relationships or paths, not labels");
      }
      if (e->kind == ExprKind::literal || e->kind == ExprKind::binary || e->kind == ExprKind::unary) {
        fail(e->position, "SyntaxError: InvalidArgumentType", "DELETE takes nodes, relationships or paths");
      }
    }
  }

  void clause(CallClause& c, const Position& at, bool, std::vector<std::string>&) {
    fail(at, "ProcedureError: ProcedureNotFound", fmt::format("there is no procedure `{}`", c.procedure));
  }

  void set_item(SetItem& item) {
    expression(*item.target, ExprUse::plain);
    if (item.value) expression(*item.value, ExprUse::plain);
    check_labels(item.labels, item.position);
  }

  void check_labels(const std::vector<std::string>& labels, const Position& at) {
    for (const std::string& l : labels) {
      if (l == unlabeled_vertex_label) {
        fail(at, "SemanticError: ReservedLabel", fmt::format("the label {} is reserved for unlabeled nodes", l));
      }
    }
  }

  // -- projections ---------------------------------------------------------------------------
  std::vector<std::string> projection(Projection& p, bool is_return) {
    // Items are read in the incoming scope.
    bool aggregating = false;
    for (ProjectionItem& item : p.items) {
      expression(*item.expression, ExprUse::projection);
      aggregating = aggregating || contains_aggregate(*item.expression);
      if (item.alias.empty() && !is_return && item.expression->kind != ExprKind::variable) {
        fail(item.position, "SyntaxError: NoExpressionAlias", "expressions in WITH must be aliased (use AS)");
      }
    }
    std::vector<std::pair<std::string, Variable>> outputs;
    std::vector<std::string> columns;
    if (p.star) {
      std::vector<std::pair<std::string, Variable>> visible;
      for (const auto& [name, var] : scope_) {
        if (!name.empty() && name[0] != ' ') visible.emplace_back(name, var);
      }
      if (visible.empty() && p.items.empty() && is_return) {
        fail(p.position, "SyntaxError: NoVariablesInScope", "RETURN * / WITH * needs variables in scope");
      }
      std::sort(visible.begin(), visible.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      // `*` becomes explicit items, first in name order.
      std::vector<ProjectionItem> star_items;
      for (const auto& [name, var] : visible) {
        ProjectionItem item;
        item.expression = std::make_unique<Expr>();
        item.expression->kind = ExprKind::variable;
        item.expression->name = name;
        item.expression->slot = var.slot;
        item.expression->position = p.position;
        item.text = name;
        item.position = p.position;
        star_items.push_back(std::move(item));
      }
      for (ProjectionItem& item : p.items) star_items.push_back(std::move(item));
      p.items = std::move(star_items);
      p.star = false;
    }
    std::unordered_set<std::string> seen;
    for (ProjectionItem& item : p.items) {
      const std::string name = item.alias.empty() ? item.text : item.alias;
      if (!seen.insert(name).second) {
        fail(item.position, "SyntaxError: ColumnNameConflict", fmt::format("multiple result columns named `{}`", name));
      }
      VarKind kind = static_kind(*item.expression);
      if (item.expression->kind == ExprKind::variable) {
        if (Variable* v = lookup(item.expression->name)) kind = v->kind;
      }
      item.slot = new_slot();
      Variable out{item.slot, kind, static_type(*item.expression)};
      outputs.emplace_back(name, out);
      columns.push_back(name);
    }
    // ORDER BY sees the projected names and, unless the projection aggregates or is DISTINCT,
    // the incoming variables too. Expressions equal to a projected one read its column.
    auto incoming = scope_;
    for (SortItem& s : p.order_by) {
      if (!aggregating && contains_aggregate_call(*s.expression)) {
        fail(s.expression->position, "SyntaxError: InvalidAggregation",
             "ORDER BY can use an aggregation only when the projection aggregates");
      }
      replace_projected(s.expression, p, aggregating);
      if (aggregating || p.distinct) {
        scope_.clear();
        for (const auto& [name, var] : outputs) scope_[name] = var;
        order_scope_incoming_ = &incoming;
        expression(*s.expression, ExprUse::order);
        order_scope_incoming_ = nullptr;
      } else {
        scope_ = incoming;
        for (const auto& [name, var] : outputs) scope_[name] = var;
        expression(*s.expression, ExprUse::order);
      }
    }
    if (aggregating) {
      for (ProjectionItem& item : p.items) {
        if (contains_aggregate(*item.expression)) check_unambiguous(*item.expression, p);
      }
    }
    for (ExprPtr* e : {&p.skip, &p.limit}) {
      if (*e) {
        constant_expression(**e);
        expression(**e, ExprUse::plain);
      }
    }
    // WITH ... WHERE sees the projected names and the incoming variables (as Neo4j does).
    scope_ = incoming;
    for (const auto& [name, var] : outputs) scope_[name] = var;
    if (p.where) predicate(*p.where);
    scope_.clear();
    for (const auto& [name, var] : outputs) scope_[name] = var;
    return columns;
  }

  // An aggregation call directly in `e` (not in a nested scope).
  static bool contains_aggregate_call(const Expr& e) {
    if (e.kind == ExprKind::count_star) return true;
    if (e.kind == ExprKind::function) {
      if (const FunctionInfo* f = find_function(e.name); f && f->aggregate) return true;
    }
    for (const ExprPtr& c : e.children) {
      if (c && contains_aggregate_call(*c)) return true;
    }
    return false;
  }

  // Replaces every sub-expression of `e` equal to a projected item (an aggregation, or a
  // variable or property read) by a read of that item's column.
  void replace_projected(ExprPtr& e, const Projection& p, bool aggregating) {
    if (!e) return;
    for (const ProjectionItem& item : p.items) {
      const Expr& x = *item.expression;
      const bool simple = x.kind == ExprKind::variable || x.kind == ExprKind::property || x.aggregate ||
                          x.kind == ExprKind::count_star || (aggregating && contains_aggregate_call(x)) || p.distinct;
      if (simple && same(*e, x) && (e->kind != ExprKind::variable || !item.alias.empty())) {
        auto ref = std::make_unique<Expr>();
        ref->kind = ExprKind::variable;
        ref->name = item.alias.empty() ? item.text : item.alias;
        ref->position = e->position;
        e = std::move(ref);
        return;
      }
    }
    for (ExprPtr& c : e->children) replace_projected(c, p, aggregating);
  }

  // Structural equality of two expressions (as written).
  static bool same(const Expr& a, const Expr& b) {
    if (a.kind != b.kind || a.op != b.op || a.name != b.name || a.keys != b.keys || a.distinct != b.distinct ||
        a.children.size() != b.children.size() || a.pattern || b.pattern || a.subquery || b.subquery ||
        !a.projection.empty() || !b.projection.empty()) {
      return false;
    }
    if (a.kind == ExprKind::literal && !(a.value == b.value)) return false;
    if (a.kind == ExprKind::function && lower(a.name) != lower(b.name)) return false;
    for (std::size_t i = 0; i < a.children.size(); ++i) {
      if (!a.children[i] != !b.children[i]) return false;
      if (a.children[i] && !same(*a.children[i], *b.children[i])) return false;
    }
    return true;
  }

  // Outside its aggregations, an aggregating item may read only grouping keys that are
  // variables or property reads (openCypher's AmbiguousAggregationExpression).
  void check_unambiguous(const Expr& e, const Projection& p, std::vector<std::string> locals = {}) {
    if (e.aggregate || e.kind == ExprKind::count_star) return;
    if (e.kind == ExprKind::literal || e.kind == ExprKind::parameter) return;
    for (const ProjectionItem& item : p.items) {
      const Expr& key = *item.expression;
      if (contains_aggregate(key)) continue;
      if ((key.kind == ExprKind::variable || key.kind == ExprKind::property) && same(e, key)) return;
    }
    if (e.kind == ExprKind::variable) {
      if (std::find(locals.begin(), locals.end(), e.name) != locals.end()) return;
      fail(e.position, "SyntaxError: AmbiguousAggregationExpression",
           fmt::format("`{}` is used beside an aggregation but is not a grouping key", e.name));
    }
    if (e.kind == ExprKind::list_comprehension || e.kind == ExprKind::quantifier || e.kind == ExprKind::reduce) {
      locals.push_back(e.name);
      if (!e.keys.empty()) locals.push_back(e.keys[0]);
    }
    if (e.kind == ExprKind::pattern_comprehension || e.kind == ExprKind::exists_subquery ||
        e.kind == ExprKind::pattern_predicate) {
      return;
    }
    for (const ExprPtr& c : e.children) {
      if (c) check_unambiguous(*c, p, locals);
    }
  }

  static std::optional<QueryValue::Type> static_type(const Expr& e) {
    switch (e.kind) {
      case ExprKind::literal: return e.value.is_null() ? std::nullopt : std::optional<QueryValue::Type>(e.value.type());
      case ExprKind::list:
      case ExprKind::list_comprehension: return QueryValue::Type::list;
      case ExprKind::map:
      case ExprKind::map_projection: return QueryValue::Type::map;
      default: return std::nullopt;
    }
  }

  // What an expression is known to evaluate to before running (scalar: not a graph element).
  VarKind static_kind(const Expr& e) {
    switch (e.kind) {
      case ExprKind::literal: return e.value.is_null() ? VarKind::value : VarKind::scalar;
      case ExprKind::list:
      case ExprKind::map:
      case ExprKind::list_comprehension:
      case ExprKind::is_null:
      case ExprKind::is_not_null:
      case ExprKind::label_check:
      case ExprKind::quantifier:
      case ExprKind::pattern_comprehension:
      case ExprKind::count_star:
      case ExprKind::map_projection: return VarKind::scalar;
      case ExprKind::binary:
      case ExprKind::unary: return VarKind::scalar;
      case ExprKind::variable: {
        Variable* v = lookup(e.name);
        return v ? v->kind : VarKind::value;
      }
      default: return VarKind::value;
    }
  }

  // A WHERE predicate: known non-boolean operands fail before running.
  void predicate(Expr& e) {
    expression(e, ExprUse::predicate);
    check_boolean_operand(e);
  }

  void check_boolean_operand(const Expr& e) {
    const bool literal_non_bool = (e.kind == ExprKind::literal && !e.value.is_null() && !e.value.is_bool()) ||
                                  e.kind == ExprKind::list || e.kind == ExprKind::map;
    VarKind k = VarKind::value;
    if (e.kind == ExprKind::variable) {
      if (Variable* v = lookup(e.name)) k = v->kind;
    }
    if (literal_non_bool || k == VarKind::node || k == VarKind::relationship || k == VarKind::path) {
      fail(e.position, "SyntaxError: InvalidArgumentType", "a boolean was expected here");
    }
  }

  static void constant_expression(const Expr& e) {
    auto walk = [](const Expr& x, auto& self) -> void {
      if (x.kind == ExprKind::variable || x.kind == ExprKind::property || x.kind == ExprKind::pattern_predicate) {
        fail(x.position, "SyntaxError: NonConstantExpression", "SKIP and LIMIT take a constant expression");
      }
      for (const ExprPtr& c : x.children) {
        if (c) self(*c, self);
      }
    };
    walk(e, walk);
    if (e.kind == ExprKind::literal) {
      if (e.value.is_int() && e.value.as_int() < 0) {
        fail(e.position, "SyntaxError: NegativeIntegerArgument", "SKIP and LIMIT take a non-negative integer");
      }
      if (!e.value.is_int() && !e.value.is_null()) {
        fail(e.position, "SyntaxError: InvalidArgumentType", "SKIP and LIMIT take an integer");
      }
    }
  }

  static bool contains_aggregate(const Expr& e) {
    if (e.aggregate || e.kind == ExprKind::count_star) return true;
    for (const ExprPtr& c : e.children) {
      if (c && contains_aggregate(*c)) return true;
    }
    return false;
  }

  // -- patterns ------------------------------------------------------------------------------
  enum class PatternUse : std::uint8_t { match, create, merge, predicate };

  void pattern_part(PatternPart& part, PatternUse use, std::unordered_set<std::string>& rel_names) {
    const bool creating = use == PatternUse::create || use == PatternUse::merge;
    for (NodePattern& node : part.nodes) {
      check_labels(node.labels, node.position);
      if (node.labels.size() > 1) {
        fail(node.position, "OutsideModel: MultipleLabels",
             "a node has one label in propgraph's model: a pattern with several labels on one node is outside it");
      }
      if (node.variable.empty()) {
        node.slot = new_slot();
        continue;
      }
      if (Variable* v = lookup(node.variable)) {
        if (v->kind != VarKind::node && v->kind != VarKind::value) {
          fail(node.position, "SyntaxError: VariableTypeConflict",
               fmt::format("`{}` is {}, not a node", node.variable, kind_name(v->kind)));
        }
        if (creating && (!node.labels.empty() || node.properties) && !declared_here_.contains(node.variable)) {
          fail(node.position, "SyntaxError: VariableAlreadyBound",
               fmt::format("variable `{}` is already bound: CREATE cannot add labels or properties to it",
                           node.variable));
        }
        if (creating && use == PatternUse::merge && part.nodes.size() == 1) {
          fail(node.position, "SyntaxError: VariableAlreadyBound",
               fmt::format("variable `{}` is already bound", node.variable));
        }
        if (declared_here_.contains(node.variable) && creating && (!node.labels.empty() || node.properties)) {
          fail(node.position, "SyntaxError: VariableAlreadyBound",
               fmt::format("variable `{}` is already declared in this pattern", node.variable));
        }
        node.slot = v->slot;
        node.bound = true;  // earlier in this pattern or before it: the row holds it
        v->kind = VarKind::node;
      } else {
        node.slot = declare(node.variable, VarKind::node);
        declared_here_.insert(node.variable);
      }
    }
    if (creating && part.relationships.empty() && part.nodes.size() == 1 && part.nodes[0].bound) {
      fail(part.nodes[0].position, "SyntaxError: VariableAlreadyBound",
           fmt::format("variable `{}` is already bound: it cannot be created", part.nodes[0].variable));
    }
    for (RelationshipPattern& rel : part.relationships) {
      if (creating && !rel.variable.empty() && lookup(rel.variable)) {
        fail(rel.position, "SyntaxError: VariableAlreadyBound",
             fmt::format("variable `{}` is already bound: it cannot be created", rel.variable));
      }
      if (creating) {
        if (rel.types.size() != 1) {
          fail(rel.position, "SyntaxError: NoSingleRelationshipType",
               "a relationship to create needs exactly one type");
        }
        if (rel.direction == Direction::both && use == PatternUse::create) {
          fail(rel.position, "SyntaxError: RequiresDirectedRelationship", "a relationship to create needs a direction");
        }
        if (rel.variable_length) {
          fail(rel.position, "SyntaxError: CreatingVarLength", "variable length relationships cannot be created");
        }
      }
      if (rel.variable_length && rel.min_hops && rel.max_hops && *rel.min_hops > *rel.max_hops) {
        // An empty range matches nothing (as in Neo4j); nothing to check.
      }
      if (rel.variable.empty()) {
        rel.slot = new_slot();
        continue;
      }
      if (!rel_names.insert(rel.variable).second && use != PatternUse::predicate) {
        fail(rel.position, "SyntaxError: RelationshipUniquenessViolation",
             fmt::format("relationship `{}` appears twice in one pattern", rel.variable));
      }
      if (Variable* v = lookup(rel.variable)) {
        if (v->kind != VarKind::relationship && v->kind != VarKind::value &&
            !(rel.variable_length && v->kind == VarKind::scalar)) {
          fail(rel.position, "SyntaxError: VariableTypeConflict",
               fmt::format("`{}` is {}, not a relationship", rel.variable, kind_name(v->kind)));
        }
        if (creating || (rel.variable_length && v->kind == VarKind::relationship)) {
          fail(rel.position, "SyntaxError: VariableAlreadyBound",
               fmt::format("variable `{}` is already bound", rel.variable));
        }
        rel.slot = v->slot;
        rel.bound = true;
      } else {
        rel.slot = declare(rel.variable, VarKind::relationship);
      }
    }
    if (!part.path_variable.empty()) {
      if (lookup(part.path_variable)) {
        fail(part.position, "SyntaxError: VariableAlreadyBound",
             fmt::format("variable `{}` is already bound", part.path_variable));
      }
      part.path_slot = declare(part.path_variable, VarKind::path);
    } else {
      part.path_slot = new_slot();
    }
  }

  void pattern_properties(PatternPart& part, bool matching = false) {
    auto check = [&](ExprPtr& properties) {
      if (!properties) return;
      if (matching && properties->kind == ExprKind::parameter) {
        fail(properties->position, "SyntaxError: InvalidParameterUse",
             "a parameter cannot stand for a pattern's properties in MATCH or MERGE: use WHERE");
      }
      expression(*properties, ExprUse::plain);
    };
    for (NodePattern& node : part.nodes) check(node.properties);
    for (RelationshipPattern& rel : part.relationships) check(rel.properties);
    declared_here_.clear();
  }

  // -- expressions ---------------------------------------------------------------------------
  enum class ExprUse : std::uint8_t { plain, predicate, projection, order };

  void expression(Expr& e, ExprUse use, bool inside_aggregate = false) {
    if (++depth_ > 512) fail(e.position, "SyntaxError", "expression nested too deeply");
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{depth_};
    switch (e.kind) {
      case ExprKind::variable: {
        Variable* v = lookup(e.name);
        if (!v) fail(e.position, "SyntaxError: UndefinedVariable", fmt::format("variable `{}` not defined", e.name));
        e.slot = v->slot;
        return;
      }
      case ExprKind::function: {
        const std::string name = lower(e.name);
        if (is_temporal_function(name)) {
          fail(e.position, "OutsideModel: TemporalTypes",
               fmt::format("{}(): temporal values are outside propgraph's model", e.name));
        }
        if (name == "point" || name == "distance" || name.starts_with("point.")) {
          fail(e.position, "OutsideModel: SpatialTypes",
               fmt::format("{}(): spatial values are outside propgraph's model", e.name));
        }
        const FunctionInfo* f = find_function(e.name);
        if (!f) fail(e.position, "SyntaxError: UnknownFunction", fmt::format("unknown function `{}`", e.name));
        const int n = static_cast<int>(e.children.size());
        if (n < f->min_arguments || (f->max_arguments >= 0 && n > f->max_arguments)) {
          fail(e.position, "SyntaxError: InvalidNumberOfArguments",
               fmt::format(
                   "{}() takes {} arguments, not {}", f->name,
                   f->min_arguments == f->max_arguments
                       ? std::to_string(f->min_arguments)
                       : fmt::format("{} to {}", f->min_arguments,
                                     f->max_arguments < 0 ? std::string("any") : std::to_string(f->max_arguments)),
                   n));
        }
        if (f->aggregate) {
          if (inside_aggregate) {
            fail(e.position, "SyntaxError: NestedAggregation", "an aggregation cannot contain another aggregation");
          }
          if (use != ExprUse::projection && use != ExprUse::order) {
            fail(e.position, "SyntaxError: InvalidAggregation",
                 fmt::format("aggregation {}() is only allowed in RETURN and WITH", f->name));
          }
          e.aggregate = true;
        } else if (e.distinct) {
          fail(e.position, "SyntaxError: InvalidArgumentPassingMode",
               fmt::format("DISTINCT is only allowed in aggregations, not in {}()", f->name));
        }
        const bool exists = name == "exists";
        const bool saved_exists = in_exists_;
        in_exists_ = exists;
        for (ExprPtr& c : e.children) {
          if (c) expression(*c, exists ? ExprUse::predicate : use, inside_aggregate || f->aggregate);
        }
        in_exists_ = saved_exists;
        if (e.children.size() == 1) {
          const Expr& arg = *e.children[0];
          const VarKind k = static_kind(arg);
          const std::optional<QueryValue::Type> t = static_type(arg);
          const bool bad = (name == "size" && k == VarKind::path) ||
                           (name == "length" && (k == VarKind::node || k == VarKind::relationship)) ||
                           (name == "type" && (k == VarKind::node || k == VarKind::path)) ||
                           (name == "properties" && t && *t != QueryValue::Type::map);
          if (bad) {
            fail(e.position, "SyntaxError: InvalidArgumentType",
                 fmt::format("{}() cannot take {} here", f->name, t ? to_string(*t) : std::string_view(kind_name(k))));
          }
        }
        return;
      }
      case ExprKind::count_star:
        if (inside_aggregate) fail(e.position, "SyntaxError: NestedAggregation", "count(*) inside an aggregation");
        if (use != ExprUse::projection && use != ExprUse::order) {
          fail(e.position, "SyntaxError: InvalidAggregation", "count(*) is only allowed in RETURN and WITH");
        }
        e.aggregate = true;
        return;
      case ExprKind::list_comprehension:
      case ExprKind::quantifier: {
        if (e.children.size() > 0 && e.children[0]) {
          const Expr& list = *e.children[0];
          if ((list.kind == ExprKind::literal && !list.value.is_null()) || list.kind == ExprKind::map) {
            fail(list.position, "SyntaxError: InvalidArgumentType", "a list was expected here");
          }
          expression(*e.children[0], use, inside_aggregate);
        }
        auto saved = scope_;
        e.slot = declare(e.name, VarKind::value);
        // Over a list literal of one literal type, the variable has that type.
        if (!e.children.empty() && e.children[0] && e.children[0]->kind == ExprKind::list &&
            !e.children[0]->children.empty()) {
          std::optional<QueryValue::Type> common = static_type(*e.children[0]->children[0]);
          for (const ExprPtr& item : e.children[0]->children) {
            if (static_type(*item) != common) common.reset();
          }
          scope_[e.name].type = common;
        }
        for (std::size_t i = 1; i < e.children.size(); ++i) {
          if (e.children[i]) expression(*e.children[i], ExprUse::plain, inside_aggregate);
        }
        scope_ = std::move(saved);
        return;
      }
      case ExprKind::reduce: {
        // children: init, list, body; name = accumulator, keys[0] = element variable
        if (e.children[0]) expression(*e.children[0], use, inside_aggregate);
        if (e.children[1]) expression(*e.children[1], use, inside_aggregate);
        auto saved = scope_;
        e.slot = declare(e.name, VarKind::value);
        e.slot2 = declare(e.keys.empty() ? std::string() : e.keys[0], VarKind::value);
        if (e.children[2]) expression(*e.children[2], ExprUse::plain, inside_aggregate);
        scope_ = std::move(saved);
        return;
      }
      case ExprKind::pattern_predicate:
      case ExprKind::pattern_comprehension: {
        auto saved = scope_;
        std::unordered_set<std::string> rel_names;
        if (e.kind == ExprKind::pattern_predicate) {
          if (use != ExprUse::predicate && !in_exists_) {
            fail(e.position, "SyntaxError: UnexpectedSyntax",
                 "a pattern can be used as an expression only in WHERE or exists(): use a pattern comprehension");
          }
          // A pattern predicate may not introduce variables (openCypher).
          for (const NodePattern& n : e.pattern->nodes) {
            if (!n.variable.empty() && !lookup(n.variable)) {
              fail(n.position, "SyntaxError: UndefinedVariable",
                   fmt::format("variable `{}` not defined (patterns in expressions cannot introduce variables)",
                               n.variable));
            }
          }
          for (const RelationshipPattern& r : e.pattern->relationships) {
            if (!r.variable.empty() && !lookup(r.variable)) {
              fail(r.position, "SyntaxError: UndefinedVariable",
                   fmt::format("variable `{}` not defined (patterns in expressions cannot introduce variables)",
                               r.variable));
            }
          }
        }
        pattern_part(*e.pattern, PatternUse::predicate, rel_names);
        pattern_properties(*e.pattern);
        for (ExprPtr& c : e.children) {
          if (c) expression(*c, ExprUse::plain, inside_aggregate);
        }
        scope_ = std::move(saved);
        return;
      }
      case ExprKind::exists_subquery: {
        for (const ClauseNode& node : e.subquery->clauses) {
          if (is_update(node.clause)) {
            fail(node.position, "SyntaxError: InvalidClauseComposition", "an EXISTS subquery cannot update the graph");
          }
        }
        auto saved = scope_;
        const int saved_slots = slots_;
        (void)saved_slots;
        for (ClauseNode& node : e.subquery->clauses) {
          std::vector<std::string> ignored;
          std::visit([&](auto& clause) { this->clause(clause, node.position, true, ignored); }, node.clause);
        }
        scope_ = std::move(saved);
        return;
      }
      case ExprKind::map_projection: {
        Variable* v = lookup(e.name);
        if (!v) fail(e.position, "SyntaxError: UndefinedVariable", fmt::format("variable `{}` not defined", e.name));
        e.slot = v->slot;
        for (MapProjectionItem& item : e.projection) {
          if (item.value) expression(*item.value, use, inside_aggregate);
        }
        return;
      }
      case ExprKind::label_check: check_labels(e.keys, e.position); break;
      case ExprKind::property: {
        expression(*e.children[0], use, inside_aggregate);
        const Expr& subject = *e.children[0];
        std::optional<QueryValue::Type> t = static_type(subject);
        VarKind k = VarKind::value;
        if (subject.kind == ExprKind::variable) {
          if (Variable* v = lookup(subject.name)) {
            t = v->type;
            k = v->kind;
          }
        }
        if (k == VarKind::path) {
          fail(e.position, "SyntaxError: InvalidArgumentType", "a path has no properties");
        }
        if (t && *t != QueryValue::Type::map) {
          fail(e.position, "TypeError: InvalidArgumentType",
               fmt::format("cannot read property `{}` of {}", e.name, to_string(*t)));
        }
        return;
      }
      case ExprKind::unary:
        if (e.op == Op::not_) {
          expression(*e.children[0], use == ExprUse::predicate ? ExprUse::predicate : use, inside_aggregate);
          check_boolean_operand(*e.children[0]);
          return;
        }
        break;
      case ExprKind::binary:
        if (e.op == Op::and_ || e.op == Op::or_ || e.op == Op::xor_) {
          for (ExprPtr& c : e.children) {
            expression(*c, use, inside_aggregate);
            check_boolean_operand(*c);
          }
          return;
        }
        if (e.op == Op::sub || e.op == Op::mul || e.op == Op::div || e.op == Op::mod || e.op == Op::pow) {
          for (ExprPtr& c : e.children) {
            expression(*c, use, inside_aggregate);
            std::optional<QueryValue::Type> t = static_type(*c);
            if (c->kind == ExprKind::variable) {
              if (Variable* v = lookup(c->name)) t = v->type;
            }
            if (t && *t != QueryValue::Type::integer && *t != QueryValue::Type::real) {
              fail(c->position, "SyntaxError: InvalidArgumentType",
                   fmt::format("arithmetic needs numbers, not {}", to_string(*t)));
            }
          }
          return;
        }
        if (e.op == Op::in) {
          const Expr& list = *e.children[1];
          if ((list.kind == ExprKind::literal && !list.value.is_null()) || list.kind == ExprKind::map) {
            fail(list.position, "SyntaxError: InvalidArgumentType", "IN needs a list on its right");
          }
        }
        break;
      default: break;
    }
    for (ExprPtr& c : e.children) {
      if (c) expression(*c, use, inside_aggregate);
    }
  }

  Statement& statement_;
  std::unordered_map<std::string, Variable> scope_;
  std::unordered_set<std::string> declared_here_;  // variables the current pattern declared
  int slots_ = 0;
  int depth_ = 0;
  const std::unordered_map<std::string, Variable>* order_scope_incoming_ = nullptr;  // ORDER BY aggregations
  bool in_exists_ = false;  // inside exists(...): a pattern is allowed there
};

}  // namespace

void analyze(Statement& statement) { Analyzer(statement).run(); }

}  // namespace propgraph::query
