#include <algorithm>
#include <functional>
#include <regex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "propgraph/backend/query_executor.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/errors.hpp"
#include "query/ast.hpp"
#include "query/functions.hpp"
#include "query/graph_reader.hpp"
#include "query/value_ops.hpp"

namespace propgraph::query {
namespace {

using Row = std::vector<QueryValue>;
using Table = std::vector<Row>;

[[noreturn]] void runtime_error(const std::string& code, const std::string& message) {
  throw QueryError(message, code);
}

QueryValue truth_value(Truth t) {
  switch (t) {
    case Truth::true_: return QueryValue(true);
    case Truth::false_: return QueryValue(false);
    case Truth::null: return QueryValue();
  }
  return QueryValue();
}

Truth to_truth(const QueryValue& v, const char* where) {
  if (v.is_null()) return Truth::null;
  if (v.is_bool()) return v.as_bool() ? Truth::true_ : Truth::false_;
  type_error("InvalidArgumentType", fmt::format("{} expects a boolean, got {}", where, to_string(v.type())));
}

bool is_true(const QueryValue& v, const char* where) { return to_truth(v, where) == Truth::true_; }

struct RowHash {
  std::size_t operator()(const std::vector<QueryValue>& key) const {
    std::size_t h = key.size();
    for (const QueryValue& v : key) h = h * 1000003u ^ hash(v);
    return h;
  }
};
struct RowEquivalent {
  bool operator()(const std::vector<QueryValue>& a, const std::vector<QueryValue>& b) const {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!equivalent(a[i], b[i])) return false;
    }
    return true;
  }
};

bool contains_aggregate(const Expr& e) {
  if (e.aggregate) return true;
  for (const ExprPtr& c : e.children) {
    if (c && contains_aggregate(*c)) return true;
  }
  return false;
}

void collect_aggregates(const Expr& e, std::vector<const Expr*>& out) {
  if (e.aggregate) {
    out.push_back(&e);
    return;
  }
  for (const ExprPtr& c : e.children) {
    if (c) collect_aggregates(*c, out);
  }
}

const Vertex* vertex_of(const QueryValue& v) { return v.is_vertex() ? &v.as_vertex() : nullptr; }

}  // namespace

/// Runs one statement's clauses over a table of rows (see execute_query).
class Executor {
 public:
  /// `graph` takes the statement's writes (null for a read-only statement); `reader` its reads.
  Executor(GraphOperations* graph, GraphReader& reader, const Parameters& parameters)
      : graph_(graph), reader_(reader), parameters_(parameters) {
    functions_.reader = &reader;
  }

  QueryResult run(const Statement& statement) {
    QueryResult result;
    result.columns = statement.columns;
    std::unordered_set<std::vector<QueryValue>, RowHash, RowEquivalent> seen;
    bool distinct = false;
    for (std::size_t i = 0; i < statement.queries.size(); ++i) {
      if (i > 0 && !statement.union_all[i - 1]) distinct = true;
    }
    for (const SingleQuery& q : statement.queries) {
      std::vector<std::vector<QueryValue>> rows = single_query(q);
      for (auto& r : rows) {
        if (distinct && !seen.insert(r).second) continue;
        result.rows.push_back(std::move(r));
      }
    }
    result.stats = stats_;
    return result;
  }

 private:
  // -- clauses -------------------------------------------------------------------------------
  std::vector<std::vector<QueryValue>> single_query(const SingleQuery& q) {
    width_ = q.slot_count;
    Table table;
    table.emplace_back(static_cast<std::size_t>(width_));
    std::vector<std::vector<QueryValue>> out;
    for (const ClauseNode& node : q.clauses) {
      if (const auto* r = std::get_if<ReturnClause>(&node.clause)) {
        table = project(r->projection, std::move(table));
        out.reserve(table.size());
        for (Row& row : table) {
          std::vector<QueryValue> values;
          values.reserve(r->projection.items.size());
          for (const ProjectionItem& item : r->projection.items) values.push_back(std::move(row[item.slot]));
          out.push_back(std::move(values));
        }
        return out;
      }
      table = std::visit([&](const auto& clause) { return this->clause(clause, std::move(table)); }, node.clause);
    }
    return out;
  }

  Table clause(const MatchClause& m, Table in) {
    Table out;
    for (Row& row : in) {
      check_deadline("query");
      std::size_t before = out.size();
      std::vector<ElementId> used;
      match_parts(m.pattern.parts, 0, row, used, [&](Row& r) {
        if (m.where && !is_true(eval(*m.where, r), "WHERE")) return;
        out.push_back(r);
      });
      if (m.optional && out.size() == before) out.push_back(row);  // new variables stay null
    }
    return out;
  }

  Table clause(const UnwindClause& u, Table in) {
    Table out;
    for (Row& row : in) {
      QueryValue list = eval(*u.expression, row);
      if (list.is_null()) continue;
      if (!list.is_list()) {
        row[u.slot] = std::move(list);
        out.push_back(row);
        continue;
      }
      for (const QueryValue& item : list.as_list()) {
        row[u.slot] = item;
        out.push_back(row);
      }
    }
    return out;
  }

  Table clause(const WithClause& w, Table in) { return project(w.projection, std::move(in)); }
  Table clause(const ReturnClause& r, Table in) { return project(r.projection, std::move(in)); }

  Table clause(const CreateClause& c, Table in) {
    for (Row& row : in) {
      for (const PatternPart& part : c.pattern.parts) create_part(part, row);
    }
    return in;
  }

  Table clause(const MergeClause& m, Table in) {
    Table out;
    for (Row& row : in) {
      check_deadline("query");
      std::vector<ElementId> used;
      Table matches;
      match_part(m.pattern, row, used, [&](Row& r) { matches.push_back(r); });
      if (matches.empty()) {
        reject_null_properties(m.pattern, row);
        for (const PatternPart* part : {&m.pattern}) {
          for (const NodePattern& node : part->nodes) {
            if (node.bound && row[node.slot].is_null()) {
              runtime_error("SemanticError: MergeReadOwnWrites", "MERGE cannot use a null node");
            }
          }
        }
        create_part(m.pattern, row);
        for (const SetItem& item : m.on_create) set_item(item, row);
        out.push_back(std::move(row));
      } else {
        for (Row& r : matches) {
          for (const SetItem& item : m.on_match) set_item(item, r);
          out.push_back(std::move(r));
        }
      }
    }
    if (!m.on_create.empty() || !m.on_match.empty()) refresh(out);
    return out;
  }

  // MERGE cannot create what it could never match again: a null property value.
  void reject_null_properties(const PatternPart& part, Row& row) {
    auto check = [&](const Expr* properties) {
      if (!properties) return;
      QueryValue map = eval(*properties, row);
      if (!map.is_map()) return;
      for (const auto& [key, value] : map.as_map()) {
        if (value.is_null()) {
          runtime_error("SemanticError: MergeReadOwnWrites",
                        fmt::format("MERGE cannot create a pattern with a null property `{}`", key));
        }
      }
    };
    for (const NodePattern& n : part.nodes) check(n.properties.get());
    for (const RelationshipPattern& r : part.relationships) check(r.properties.get());
  }

  Table clause(const SetClause& s, Table in) {
    for (Row& row : in) {
      for (const SetItem& item : s.items) set_item(item, row);
    }
    refresh(in);
    return in;
  }

  Table clause(const RemoveClause& r, Table in) {
    for (Row& row : in) {
      for (const RemoveItem& item : r.items) {
        if (!item.labels.empty()) {
          QueryValue target = eval(*item.target, row);
          if (target.is_null()) continue;
          const Vertex* v = vertex_of(target);
          if (!v) type_error("InvalidArgumentType", "REMOVE of labels needs a node");
          for (const std::string& l : item.labels) {
            if (v->label == l) {
              runtime_error("OutsideModel: LabelChange",
                            "a node keeps the label it was created with in propgraph's model: REMOVE n:Label is "
                            "outside it");
            }
          }
          continue;
        }
        const Expr& prop = *item.target;
        if (prop.kind != ExprKind::property) type_error("InvalidArgumentType", "REMOVE needs a property or labels");
        QueryValue target = eval(*prop.children[0], row);
        set_property(target, prop.name, QueryValue(), row, prop.children[0].get());
      }
    }
    refresh(in);
    return in;
  }

  Table clause(const DeleteClause& d, Table in) {
    std::vector<Vertex> vertices;
    std::vector<Edge> edges;
    std::unordered_set<ElementId> seen;
    auto add = [&](const QueryValue& v, auto& self) -> void {
      if (v.is_null()) return;
      if (v.is_vertex()) {
        if (seen.insert(v.as_vertex().id).second) vertices.push_back(v.as_vertex());
      } else if (v.is_edge()) {
        if (seen.insert(v.as_edge().id).second) edges.push_back(v.as_edge());
      } else if (v.is_path()) {
        for (const Edge& e : v.as_path().edges) self(QueryValue(e), self);
        for (const Vertex& x : v.as_path().vertices) self(QueryValue(x), self);
      } else if (v.is_list()) {
        for (const QueryValue& x : v.as_list()) self(x, self);
      } else {
        type_error("InvalidArgumentType",
                   fmt::format("DELETE takes nodes, relationships or paths, not {}", to_string(v.type())));
      }
    };
    for (Row& row : in) {
      for (const ExprPtr& e : d.expressions) add(eval(*e, row), add);
    }
    std::unordered_set<ElementId> deleted_edges;
    for (const Edge& e : edges) {
      if (writer().delete_edge(e.label, e.id)) {
        ++stats_.edges_deleted;
        deleted_edges.insert(e.id);
      }
      deleted_.insert(e.id);
    }
    for (const Vertex& v : vertices) {
      std::vector<Edge> incident = reader_.incident_edges(v.id, EdgeQuery{});
      if (!incident.empty() && !d.detach) {
        runtime_error("ConstraintVerificationFailed: DeleteConnectedNode",
                      "cannot delete a node that still has relationships: use DETACH DELETE");
      }
      if (writer().delete_vertex(v.label, v.id)) {
        ++stats_.vertices_deleted;
        stats_.edges_deleted += static_cast<std::int64_t>(incident.size());
      }
      deleted_.insert(v.id);
      for (const Edge& e : incident) deleted_.insert(e.id);
    }
    return in;
  }

  Table clause(const CallClause& c, Table) {
    runtime_error("ProcedureError: ProcedureNotFound", fmt::format("there is no procedure `{}`", c.procedure));
  }

  // -- projections ---------------------------------------------------------------------------
  Table project(const Projection& p, Table in) {
    bool aggregating = false;
    for (const ProjectionItem& item : p.items) aggregating = aggregating || contains_aggregate(*item.expression);
    Table out;
    if (aggregating) {
      out = aggregate(p, in);
    } else {
      out.reserve(in.size());
      std::vector<QueryValue> values(p.items.size());
      for (Row& row : in) {
        for (std::size_t i = 0; i < p.items.size(); ++i) values[i] = eval(*p.items[i].expression, row);
        for (std::size_t i = 0; i < p.items.size(); ++i) row[p.items[i].slot] = std::move(values[i]);
        out.push_back(std::move(row));
      }
    }
    if (p.distinct) {
      std::unordered_set<std::vector<QueryValue>, RowHash, RowEquivalent> seen;
      Table unique;
      for (Row& row : out) {
        std::vector<QueryValue> key;
        key.reserve(p.items.size());
        for (const ProjectionItem& item : p.items) key.push_back(row[item.slot]);
        if (seen.insert(std::move(key)).second) unique.push_back(std::move(row));
      }
      if (unique.size() != out.size()) sort_keys_.clear();  // keys were per row of `out`
      out = std::move(unique);
    }
    if (!p.order_by.empty()) sort(p, out);
    if (p.skip || p.limit) {
      const std::size_t skip = p.skip ? count_argument(*p.skip, "SKIP") : 0;
      const std::size_t limit = p.limit ? count_argument(*p.limit, "LIMIT") : out.size();
      if (skip >= out.size()) {
        out.clear();
      } else {
        out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(skip));
        if (limit < out.size()) out.resize(limit);
      }
    }
    if (p.where) {
      Table kept;
      for (Row& row : out) {
        if (is_true(eval(*p.where, row), "WHERE")) kept.push_back(std::move(row));
      }
      out = std::move(kept);
    }
    return out;
  }

  std::size_t count_argument(const Expr& e, const char* clause) {
    Row empty(static_cast<std::size_t>(width_));
    QueryValue v = eval(e, empty);
    if (v.is_double() && v.as_double() == static_cast<double>(static_cast<std::int64_t>(v.as_double()))) {
      v = QueryValue(static_cast<std::int64_t>(v.as_double()));
    }
    if (!v.is_int()) {
      runtime_error("SyntaxError: InvalidArgumentType",
                    fmt::format("{} takes an integer, got {}", clause, to_string(v.type())));
    }
    if (v.as_int() < 0)
      runtime_error("SyntaxError: NegativeIntegerArgument", fmt::format("{} takes a non-negative integer", clause));
    return static_cast<std::size_t>(v.as_int());
  }

  Table aggregate(const Projection& p, Table& in) {
    std::vector<std::size_t> keys;
    std::vector<std::size_t> aggregated;
    for (std::size_t i = 0; i < p.items.size(); ++i) {
      (contains_aggregate(*p.items[i].expression) ? aggregated : keys).push_back(i);
    }
    std::vector<const Expr*> calls;
    for (std::size_t i : aggregated) collect_aggregates(*p.items[i].expression, calls);
    for (const SortItem& s : p.order_by) collect_aggregates(*s.expression, calls);

    struct Group {
      Row representative;
      std::vector<std::unique_ptr<Aggregator>> aggregators;
      std::int64_t count = 0;
    };
    std::unordered_map<std::vector<QueryValue>, std::size_t, RowHash, RowEquivalent> index;
    std::vector<Group> groups;
    auto new_group = [&](Row row) {
      Group g;
      g.representative = std::move(row);
      for (const Expr* call : calls) {
        g.aggregators.push_back(call->kind == ExprKind::count_star ? nullptr
                                                                   : make_aggregator(call->name, call->distinct));
      }
      groups.push_back(std::move(g));
      return groups.size() - 1;
    };
    std::vector<QueryValue> arguments;
    for (Row& row : in) {
      std::vector<QueryValue> key;
      key.reserve(keys.size());
      for (std::size_t i : keys) key.push_back(eval(*p.items[i].expression, row));
      auto it = index.find(key);
      std::size_t g = 0;
      if (it == index.end()) {
        Row rep = row;
        for (std::size_t k = 0; k < keys.size(); ++k) rep[p.items[keys[k]].slot] = key[k];
        g = new_group(std::move(rep));
        index.emplace(std::move(key), g);
      } else {
        g = it->second;
      }
      Group& group = groups[g];
      ++group.count;
      for (std::size_t c = 0; c < calls.size(); ++c) {
        if (!group.aggregators[c]) continue;
        arguments.clear();
        for (const ExprPtr& a : calls[c]->children) arguments.push_back(eval(*a, row));
        group.aggregators[c]->add(arguments);
      }
    }
    if (groups.empty() && keys.empty()) new_group(Row(static_cast<std::size_t>(width_)));
    Table out;
    out.reserve(groups.size());
    for (Group& group : groups) {
      std::unordered_map<const Expr*, QueryValue> results;
      for (std::size_t c = 0; c < calls.size(); ++c) {
        results[calls[c]] = group.aggregators[c] ? group.aggregators[c]->result() : QueryValue(group.count);
      }
      aggregates_ = &results;
      Row row = std::move(group.representative);
      for (std::size_t i : aggregated) row[p.items[i].slot] = eval(*p.items[i].expression, row);
      // ORDER BY may use aggregations: evaluate its keys now, while the group's results are at hand.
      if (!p.order_by.empty()) {
        std::vector<QueryValue> sort_keys;
        for (const SortItem& s : p.order_by) sort_keys.push_back(eval(*s.expression, row));
        sort_keys_.emplace(out.size(), std::move(sort_keys));
      }
      aggregates_ = nullptr;
      out.push_back(std::move(row));
    }
    return out;
  }

  void sort(const Projection& p, Table& rows) {
    std::vector<std::pair<std::vector<QueryValue>, std::size_t>> keyed;
    keyed.reserve(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      auto pre = sort_keys_.find(i);
      if (pre != sort_keys_.end() && pre->second.size() == p.order_by.size()) {
        keyed.emplace_back(std::move(pre->second), i);
        continue;
      }
      std::vector<QueryValue> keys;
      keys.reserve(p.order_by.size());
      for (const SortItem& s : p.order_by) keys.push_back(eval(*s.expression, rows[i]));
      keyed.emplace_back(std::move(keys), i);
    }
    sort_keys_.clear();
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
      for (std::size_t k = 0; k < p.order_by.size(); ++k) {
        int c = order(a.first[k], b.first[k]);
        if (p.order_by[k].descending) c = -c;
        if (c != 0) return c < 0;
      }
      return false;
    });
    Table sorted;
    sorted.reserve(rows.size());
    for (auto& [keys, i] : keyed) sorted.push_back(std::move(rows[i]));
    rows = std::move(sorted);
  }

  // -- matching ------------------------------------------------------------------------------
  using Emit = std::function<void(Row&)>;

  void match_parts(const std::vector<PatternPart>& parts, std::size_t index, Row& row, std::vector<ElementId>& used,
                   const Emit& emit) {
    if (index == parts.size()) {
      emit(row);
      return;
    }
    match_part(parts[index], row, used, [&](Row& r) { match_parts(parts, index + 1, r, used, emit); });
  }

  void match_part(const PatternPart& part, Row& row, std::vector<ElementId>& used, const Emit& emit) {
    if (part.kind != PatternPart::Kind::plain) {
      match_shortest(part, row, used, emit);
      return;
    }
    const NodePattern& first = part.nodes[0];
    std::vector<QueryValue> path;  // alternating vertex, edge (or edge list), vertex ...
    for_each_node(first, row, [&](const QueryValue& start) {
      QueryValue saved = row[first.slot];
      row[first.slot] = start;
      path.assign(1, start);
      expand(part, 0, row, used, path, emit);
      row[first.slot] = std::move(saved);
    });
  }

  // Calls fn(vertex value) for each vertex the node pattern may bind to, in id order.
  template <class Fn>
  void for_each_node(const NodePattern& node, Row& row, Fn&& fn) {
    if (node.bound) {
      const QueryValue& v = row[node.slot];
      if (!v.is_vertex()) return;  // null (optional match) or not a node: no match
      if (node_matches(node, v.as_vertex(), row)) fn(v);
      return;
    }
    Properties filter;
    if (!pushable_filter(node.properties.get(), row, filter)) return;
    auto scan = [&](const std::string& label) {
      for (Vertex& v : reader_.find_vertices_by_label(label, filter)) {
        check_deadline("query");
        if (node_matches(node, v, row)) fn(QueryValue(std::move(v)));
      }
    };
    if (!node.labels.empty()) {
      scan(node.labels[0]);
      return;
    }
    // Unlabeled pattern: every label, merged into id order.
    std::vector<Vertex> all;
    for (const std::string& label : reader_.vertex_labels()) {
      std::vector<Vertex> some = reader_.find_vertices_by_label(label, filter);
      all.insert(all.end(), std::make_move_iterator(some.begin()), std::make_move_iterator(some.end()));
    }
    std::sort(all.begin(), all.end(), [](const Vertex& a, const Vertex& b) { return a.id < b.id; });
    for (Vertex& v : all) {
      check_deadline("query");
      if (node_matches(node, v, row)) fn(QueryValue(std::move(v)));
    }
  }

  // The part of a pattern's property map the backend can filter on exactly (strings and
  // booleans compare alike in Cypher and in the typed filter). False when the map can match
  // nothing (a null value).
  bool pushable_filter(const Expr* properties, Row& row, Properties& filter) {
    if (!properties) return true;
    QueryValue map = eval(*properties, row);
    if (map.is_null()) return true;
    if (!map.is_map()) type_error("InvalidArgumentType", "a pattern's properties must be a map");
    for (const auto& [key, value] : map.as_map()) {
      if (value.is_null()) return false;
      if (value.is_string() || value.is_bool()) filter.set(key, value.to_value());
    }
    return true;
  }

  bool properties_match(const Expr* properties, const Properties& props, Row& row) {
    if (!properties) return true;
    QueryValue map = eval(*properties, row);
    if (map.is_null()) return true;
    if (!map.is_map()) type_error("InvalidArgumentType", "a pattern's properties must be a map");
    for (const auto& [key, value] : map.as_map()) {
      const Value* have = props.find(key);
      if (!have || equals(QueryValue(*have), value) != Truth::true_) return false;
    }
    return true;
  }

  bool node_matches(const NodePattern& node, const Vertex& v, Row& row) {
    if (!node.labels.empty() && v.label != node.labels[0]) return false;
    return properties_match(node.properties.get(), v.properties, row);
  }

  bool edge_matches(const RelationshipPattern& rel, const Edge& e, Row& row) {
    if (!rel.types.empty() && std::find(rel.types.begin(), rel.types.end(), e.label) == rel.types.end()) return false;
    return properties_match(rel.properties.get(), e.properties, row);
  }

  std::vector<Edge> edges_of(const ElementId& vertex, const RelationshipPattern& rel) {
    EdgeQuery q;
    q.direction = rel.direction;
    if (rel.types.size() == 1) q.edge_label = rel.types[0];
    return reader_.incident_edges(vertex, q);
  }

  static const ElementId& other_end(const Edge& e, const ElementId& from) { return e.from == from ? e.to : e.from; }

  // Matches relationship `index` onwards; path holds the walk so far.
  void expand(const PatternPart& part, std::size_t index, Row& row, std::vector<ElementId>& used,
              std::vector<QueryValue>& path, const Emit& emit) {
    if (index == part.relationships.size()) {
      if (part.path_slot >= 0) {
        QueryValue saved = row[part.path_slot];
        row[part.path_slot] = make_path(path);
        emit(row);
        row[part.path_slot] = std::move(saved);
      } else {
        emit(row);
      }
      return;
    }
    const RelationshipPattern& rel = part.relationships[index];
    const NodePattern& next = part.nodes[index + 1];
    const Vertex& here = path.back().as_vertex();
    if (!rel.variable_length) {
      for (Edge& e : edges_of(here.id, rel)) {
        check_deadline("query");
        if (std::find(used.begin(), used.end(), e.id) != used.end()) continue;
        if (!edge_matches(rel, e, row)) continue;
        if (rel.bound) {
          const QueryValue& b = row[rel.slot];
          if (!b.is_edge() || b.as_edge().id != e.id) continue;
        }
        const ElementId& other = other_end(e, here.id);
        // Direction::both sees a self-loop once; out/in see it once too.
        QueryValue next_vertex;
        if (!bind_next(next, other, row, next_vertex)) continue;
        QueryValue saved_rel = row[rel.slot];
        QueryValue saved_next = row[next.slot];
        QueryValue edge(std::move(e));
        row[rel.slot] = edge;
        row[next.slot] = next_vertex;
        used.push_back(edge.as_edge().id);
        path.push_back(edge);
        path.push_back(next_vertex);
        expand(part, index + 1, row, used, path, emit);
        path.resize(path.size() - 2);
        used.pop_back();
        row[rel.slot] = std::move(saved_rel);
        row[next.slot] = std::move(saved_next);
      }
      return;
    }
    // Variable length: depth-first over edges not used yet, emitting at every depth in range.
    const std::int64_t min_hops = rel.min_hops.value_or(1);
    const std::int64_t max_hops = rel.max_hops.value_or(std::numeric_limits<std::int64_t>::max());
    std::vector<QueryValue> edges;
    std::vector<QueryValue> walk;  // vertices after `here`
    auto step = [&](const ElementId& at, std::int64_t depth, auto& self) -> void {
      check_deadline("query");
      if (depth >= min_hops && (!rel.bound || same_edges(row[rel.slot], edges))) {
        QueryValue next_vertex;
        if (bind_next(next, at, row, next_vertex)) {
          QueryValue saved_rel = row[rel.slot];
          QueryValue saved_next = row[next.slot];
          row[rel.slot] = QueryValue(QueryValue::List(edges.begin(), edges.end()));
          row[next.slot] = next_vertex;
          const std::size_t mark = path.size();
          for (std::size_t i = 0; i < edges.size(); ++i) {
            path.push_back(edges[i]);
            path.push_back(i + 1 == edges.size() ? next_vertex : walk[i]);
          }
          expand(part, index + 1, row, used, path, emit);
          path.resize(mark);
          row[rel.slot] = std::move(saved_rel);
          row[next.slot] = std::move(saved_next);
        }
      }
      if (depth >= max_hops) return;
      for (Edge& e : edges_of(at, rel)) {
        if (std::find(used.begin(), used.end(), e.id) != used.end()) continue;
        if (!edge_matches(rel, e, row)) continue;
        const ElementId other = other_end(e, at);
        std::optional<Vertex> v = reader_.find_vertex(other);
        if (!v) continue;
        used.push_back(e.id);
        edges.emplace_back(std::move(e));
        walk.emplace_back(std::move(*v));
        self(other, depth + 1, self);
        walk.pop_back();
        edges.pop_back();
        used.pop_back();
      }
    };
    step(here.id, 0, step);
  }

  // A variable-length relationship bound to a list matches exactly that walk.
  static bool same_edges(const QueryValue& bound, const std::vector<QueryValue>& walked) {
    if (!bound.is_list() || bound.as_list().size() != walked.size()) return false;
    for (std::size_t i = 0; i < walked.size(); ++i) {
      const QueryValue& b = bound.as_list()[i];
      if (!b.is_edge() || b.as_edge().id != walked[i].as_edge().id) return false;
    }
    return true;
  }

  // Binds (or checks) the node pattern `next` to the vertex `id`.
  bool bind_next(const NodePattern& next, const ElementId& id, Row& row, QueryValue& out) {
    if (next.bound) {
      const QueryValue& b = row[next.slot];
      if (!b.is_vertex() || b.as_vertex().id != id) return false;
      if (!node_matches(next, b.as_vertex(), row)) return false;
      out = b;
      return true;
    }
    std::optional<Vertex> v = reader_.find_vertex(id);
    if (!v || !node_matches(next, *v, row)) return false;
    out = QueryValue(std::move(*v));
    return true;
  }

  static QueryValue make_path(const std::vector<QueryValue>& walk) {
    Path p;
    for (std::size_t i = 0; i < walk.size(); ++i) {
      if (i % 2 == 0) {
        p.vertices.push_back(walk[i].as_vertex());
      } else {
        p.edges.push_back(walk[i].as_edge());
      }
    }
    return QueryValue(std::move(p));
  }

  // shortestPath / allShortestPaths: breadth-first between the bound (or scanned) ends.
  void match_shortest(const PatternPart& part, Row& row, std::vector<ElementId>& used, const Emit& emit) {
    const NodePattern& a = part.nodes.front();
    const NodePattern& b = part.nodes.back();
    const RelationshipPattern& rel = part.relationships.front();
    const std::int64_t min_hops = rel.variable_length ? rel.min_hops.value_or(1) : 1;
    const std::int64_t max_hops =
        rel.variable_length ? rel.max_hops.value_or(std::numeric_limits<std::int64_t>::max()) : 1;
    for_each_node(a, row, [&](const QueryValue& start) {
      QueryValue saved_a = row[a.slot];
      row[a.slot] = start;
      for_each_node(b, row, [&](const QueryValue& end) {
        QueryValue saved_b = row[b.slot];
        row[b.slot] = end;
        for (const Path& p : shortest_paths(start.as_vertex(), end.as_vertex(), rel, row, used, min_hops, max_hops,
                                            part.kind == PatternPart::Kind::all_shortest)) {
          QueryValue saved_rel = row[rel.slot];
          QueryValue::List rels;
          for (const Edge& e : p.edges) rels.emplace_back(e);
          row[rel.slot] = rel.variable_length ? QueryValue(std::move(rels)) : QueryValue(p.edges.front());
          QueryValue saved_path;
          if (part.path_slot >= 0) {
            saved_path = row[part.path_slot];
            row[part.path_slot] = QueryValue(p);
          }
          emit(row);
          if (part.path_slot >= 0) row[part.path_slot] = std::move(saved_path);
          row[rel.slot] = std::move(saved_rel);
        }
        row[b.slot] = std::move(saved_b);
      });
      row[a.slot] = std::move(saved_a);
    });
  }

  std::vector<Path> shortest_paths(const Vertex& from, const Vertex& to, const RelationshipPattern& rel, Row& row,
                                   const std::vector<ElementId>& used, std::int64_t min_hops, std::int64_t max_hops,
                                   bool all) {
    std::vector<Path> found;
    if (from.id == to.id && min_hops == 0) {
      found.push_back(Path{{from}, {}});
      return found;
    }
    // Paths level by level (simple paths only), stopping at the first level that reaches `to`.
    std::vector<Path> frontier{Path{{from}, {}}};
    for (std::int64_t depth = 1; depth <= max_hops && !frontier.empty(); ++depth) {
      std::vector<Path> next;
      for (const Path& p : frontier) {
        check_deadline("query");
        const ElementId& at = p.vertices.back().id;
        for (Edge& e : edges_of(at, rel)) {
          if (std::find(used.begin(), used.end(), e.id) != used.end()) continue;
          if (!edge_matches(rel, e, row)) continue;
          bool repeated = false;
          for (const Edge& x : p.edges) repeated = repeated || x.id == e.id;
          if (repeated) continue;
          const ElementId other = other_end(e, at);
          bool revisits = false;
          for (const Vertex& x : p.vertices) revisits = revisits || x.id == other;
          if (revisits && other != to.id) continue;
          std::optional<Vertex> v = reader_.find_vertex(other);
          if (!v) continue;
          Path longer = p;
          longer.edges.push_back(std::move(e));
          longer.vertices.push_back(std::move(*v));
          if (other == to.id) {
            if (depth >= min_hops) found.push_back(std::move(longer));
          } else {
            next.push_back(std::move(longer));
          }
        }
      }
      if (!found.empty()) break;
      frontier = std::move(next);
    }
    if (!all && found.size() > 1) found.resize(1);
    return found;
  }

  // -- writes --------------------------------------------------------------------------------
  Properties to_properties(const QueryValue& map, bool drop_nulls = true) {
    Properties props;
    if (map.is_null()) return props;
    if (!map.is_map()) type_error("InvalidArgumentType", "properties must be a map");
    for (const auto& [key, value] : map.as_map()) {
      if (value.is_null()) {
        if (!drop_nulls) props.set(key, Value());
        continue;
      }
      props.set(key, storable(value, key));
    }
    return props;
  }

  static Value storable(const QueryValue& value, const std::string& key) {
    try {
      return value.to_value();
    } catch (const InvalidArgument&) {
      type_error("InvalidPropertyType",
                 fmt::format("property `{}`: a {} cannot be stored as a property value", key, to_string(value.type())));
    }
  }

  void create_part(const PatternPart& part, Row& row) {
    std::vector<QueryValue> walk;
    for (std::size_t i = 0; i < part.nodes.size(); ++i) {
      const NodePattern& node = part.nodes[i];
      if (node.bound) {
        if (!row[node.slot].is_vertex()) {
          runtime_error("SemanticError: MergeReadOwnWrites", "cannot create a relationship from or to a null node");
        }
      } else {
        Properties props = node.properties ? to_properties(eval(*node.properties, row)) : Properties();
        const std::string_view label = node.labels.empty() ? unlabeled_vertex_label : std::string_view(node.labels[0]);
        stats_.properties_set += static_cast<std::int64_t>(props.size());
        row[node.slot] = QueryValue(writer().create_vertex(label, props));
        ++stats_.vertices_created;
      }
      walk.push_back(row[node.slot]);
      if (i == 0) continue;
      const RelationshipPattern& rel = part.relationships[i - 1];
      const Vertex& left = row[part.nodes[i - 1].slot].as_vertex();
      const Vertex& right = row[node.slot].as_vertex();
      const bool reversed = rel.direction == Direction::in;
      Properties props = rel.properties ? to_properties(eval(*rel.properties, row)) : Properties();
      stats_.properties_set += static_cast<std::int64_t>(props.size());
      Edge e =
          writer().create_edge(reversed ? right.id : left.id, reversed ? left.id : right.id, rel.types.at(0), props);
      ++stats_.edges_created;
      row[rel.slot] = QueryValue(std::move(e));
      walk.insert(walk.end() - 1, row[rel.slot]);
    }
    if (part.path_slot >= 0) row[part.path_slot] = make_path(walk);
  }

  void set_item(const SetItem& item, Row& row) {
    switch (item.kind) {
      case SetItem::Kind::property: {
        const Expr& prop = *item.target;
        if (prop.kind != ExprKind::property) type_error("InvalidArgumentType", "SET needs a property");
        QueryValue target = eval(*prop.children[0], row);
        QueryValue value = eval(*item.value, row);
        set_property(target, prop.name, value, row, prop.children[0].get());
        return;
      }
      case SetItem::Kind::replace_properties:
      case SetItem::Kind::merge_properties: {
        QueryValue target = eval(*item.target, row);
        if (target.is_null()) return;
        QueryValue value = eval(*item.value, row);
        QueryValue::Map map;
        if (value.is_vertex()) {
          for (const auto& [k, v] : value.as_vertex().properties) map.emplace(k, QueryValue(v));
        } else if (value.is_edge()) {
          for (const auto& [k, v] : value.as_edge().properties) map.emplace(k, QueryValue(v));
        } else if (value.is_map()) {
          map = value.as_map();
        } else if (!value.is_null()) {
          type_error("InvalidArgumentType", "SET n = / += needs a map, a node or a relationship");
        }
        Properties patch = to_properties(QueryValue(map), false);
        const Properties& current = target.is_vertex() ? target.as_vertex().properties
                                    : target.is_edge()
                                        ? target.as_edge().properties
                                        : (type_error("InvalidArgumentType", "SET needs a node or a relationship"),
                                           target.as_vertex().properties);
        if (item.kind == SetItem::Kind::replace_properties) {
          for (const auto& [k, v] : current) {
            if (!patch.contains(k)) patch.set(k, Value());
          }
        }
        apply_patch(target, patch, row, item.target.get());
        return;
      }
      case SetItem::Kind::labels: {
        QueryValue target = eval(*item.target, row);
        if (target.is_null()) return;
        const Vertex* v = vertex_of(target);
        if (!v) type_error("InvalidArgumentType", "SET of labels needs a node");
        for (const std::string& l : item.labels) {
          if (v->label != l) {
            runtime_error("OutsideModel: LabelChange",
                          "a node keeps the label it was created with in propgraph's model: SET n:Label is outside it");
          }
        }
        return;
      }
    }
  }

  void set_property(const QueryValue& target, const std::string& key, const QueryValue& value, Row& row,
                    const Expr* target_expr) {
    if (target.is_null()) return;
    Properties patch;
    patch.set(key, value.is_null() ? Value() : storable(value, key));
    apply_patch(target, patch, row, target_expr);
  }

  void apply_patch(const QueryValue& target, const Properties& patch, Row& row, const Expr* target_expr) {
    QueryValue updated;
    if (target.is_vertex()) {
      const Vertex& v = target.as_vertex();
      count_changes(v.properties, patch);
      auto after = writer().update_vertex(v.label, v.id, patch);
      if (!after) runtime_error("EntityNotFound: DeletedEntityAccess", "the node was deleted");
      updated = QueryValue(std::move(*after));
    } else if (target.is_edge()) {
      const Edge& e = target.as_edge();
      count_changes(e.properties, patch);
      auto after = writer().update_edge(e.label, e.id, patch);
      if (!after) runtime_error("EntityNotFound: DeletedEntityAccess", "the relationship was deleted");
      updated = QueryValue(std::move(*after));
    } else {
      type_error("InvalidArgumentType",
                 fmt::format("properties can be set on nodes and relationships, not on {}", to_string(target.type())));
    }
    // The row's variable sees the update at once.
    if (target_expr && target_expr->kind == ExprKind::variable && target_expr->slot >= 0)
      row[target_expr->slot] = updated;
    replace_in_row(row, updated);
  }

  void count_changes(const Properties& before, const Properties& patch) {
    for (const auto& [k, v] : patch) {
      if (!v.is_null() || before.contains(k)) ++stats_.properties_set;
    }
  }

  static void replace_in_row(Row& row, const QueryValue& updated) {
    for (QueryValue& v : row) {
      if (updated.is_vertex() && v.is_vertex() && v.as_vertex().id == updated.as_vertex().id) v = updated;
      if (updated.is_edge() && v.is_edge() && v.as_edge().id == updated.as_edge().id) v = updated;
    }
  }

  // After a write clause: every element in every row shows its stored state.
  void refresh(Table& rows) {
    if (rows.size() < 2) return;
    std::unordered_map<ElementId, QueryValue> cache;
    for (Row& row : rows) {
      for (QueryValue& v : row) {
        if (!v.is_vertex() && !v.is_edge()) continue;
        const ElementId id = v.is_vertex() ? v.as_vertex().id : v.as_edge().id;
        auto it = cache.find(id);
        if (it == cache.end()) {
          QueryValue fresh = v;
          if (v.is_vertex()) {
            if (auto x = reader_.find_vertex(id)) fresh = QueryValue(std::move(*x));
          } else if (auto x = reader_.find_edge(id)) {
            fresh = QueryValue(std::move(*x));
          }
          it = cache.emplace(id, std::move(fresh)).first;
        }
        v = it->second;
      }
    }
  }

  // -- expressions ---------------------------------------------------------------------------
  QueryValue eval(const Expr& e, Row& row) {
    if (e.aggregate && aggregates_) {
      auto it = aggregates_->find(&e);
      if (it != aggregates_->end()) return it->second;
    }
    switch (e.kind) {
      case ExprKind::literal: return e.value;
      case ExprKind::parameter: {
        const QueryValue* v = parameters_.find(e.name);
        if (!v) runtime_error("ParameterMissing: MissingParameter", fmt::format("parameter ${} is missing", e.name));
        return *v;
      }
      case ExprKind::variable: return row[e.slot];
      case ExprKind::property: return property(eval(*e.children[0], row), e.name);
      case ExprKind::list: {
        QueryValue::List items;
        items.reserve(e.children.size());
        for (const ExprPtr& c : e.children) items.push_back(eval(*c, row));
        return QueryValue(std::move(items));
      }
      case ExprKind::map: {
        QueryValue::Map map;
        for (std::size_t i = 0; i < e.children.size(); ++i) map[e.keys[i]] = eval(*e.children[i], row);
        return QueryValue(std::move(map));
      }
      case ExprKind::subscript: return subscript(eval(*e.children[0], row), eval(*e.children[1], row));
      case ExprKind::slice: {
        QueryValue list = eval(*e.children[0], row);
        QueryValue from = e.children[1] ? eval(*e.children[1], row) : QueryValue();
        QueryValue to = e.children[2] ? eval(*e.children[2], row) : QueryValue();
        return slice(list, from, to, e.children[1] != nullptr, e.children[2] != nullptr);
      }
      case ExprKind::unary: {
        QueryValue v = eval(*e.children[0], row);
        switch (e.op) {
          case Op::not_: {
            Truth t = to_truth(v, "NOT");
            return t == Truth::null ? QueryValue() : QueryValue(t == Truth::false_);
          }
          case Op::negate: return negate(v);
          default:
            if (!v.is_null() && !v.is_number()) type_error("InvalidArgumentType", "unary + expects a number");
            return v;
        }
      }
      case ExprKind::binary: return binary(e, row);
      case ExprKind::is_null: return QueryValue(eval(*e.children[0], row).is_null());
      case ExprKind::is_not_null: return QueryValue(!eval(*e.children[0], row).is_null());
      case ExprKind::label_check: {
        QueryValue v = eval(*e.children[0], row);
        if (v.is_null()) return QueryValue();
        std::string_view label;
        if (v.is_vertex()) {
          label = v.as_vertex().label;
        } else if (v.is_edge()) {
          label = v.as_edge().label;
        } else {
          type_error("InvalidArgumentType", "a label check needs a node or a relationship");
        }
        for (const std::string& l : e.keys) {
          if (label != l) return QueryValue(false);
        }
        return QueryValue(true);
      }
      case ExprKind::function: {
        const FunctionInfo* f = find_function(e.name);
        std::vector<QueryValue> args;
        args.reserve(e.children.size());
        for (const ExprPtr& c : e.children) args.push_back(eval(*c, row));
        if (!f || !f->call)
          runtime_error("SyntaxError: InvalidAggregation", fmt::format("{}() cannot be used here", e.name));
        for (const QueryValue& a : args) {
          if ((a.is_vertex() && deleted_.contains(a.as_vertex().id)) ||
              (a.is_edge() && deleted_.contains(a.as_edge().id))) {
            const std::string_view n = f->name;
            if (n == "labels" || n == "keys" || n == "properties") {
              runtime_error("EntityNotFound: DeletedEntityAccess", fmt::format("{}() of a deleted element", n));
            }
          }
        }
        return f->call(args, functions_);
      }
      case ExprKind::count_star: runtime_error("SyntaxError: InvalidAggregation", "count(*) cannot be used here");
      case ExprKind::case_expr: return case_expression(e, row);
      case ExprKind::list_comprehension: {
        QueryValue list = eval(*e.children[0], row);
        if (list.is_null()) return QueryValue();
        if (!list.is_list()) type_error("InvalidArgumentType", "list comprehension needs a list");
        QueryValue::List out;
        QueryValue saved = row[e.slot];
        for (const QueryValue& item : list.as_list()) {
          row[e.slot] = item;
          if (e.children.size() > 1 && e.children[1] && !is_true(eval(*e.children[1], row), "WHERE")) continue;
          out.push_back(e.children.size() > 2 && e.children[2] ? eval(*e.children[2], row) : item);
        }
        row[e.slot] = std::move(saved);
        return QueryValue(std::move(out));
      }
      case ExprKind::quantifier: return quantifier(e, row);
      case ExprKind::reduce: {
        QueryValue acc = eval(*e.children[0], row);
        QueryValue list = eval(*e.children[1], row);
        if (list.is_null()) return QueryValue();
        if (!list.is_list()) type_error("InvalidArgumentType", "reduce needs a list");
        QueryValue saved_acc = row[e.slot];
        QueryValue saved_item = row[e.slot2];
        for (const QueryValue& item : list.as_list()) {
          row[e.slot] = acc;
          row[e.slot2] = item;
          acc = eval(*e.children[2], row);
        }
        row[e.slot] = std::move(saved_acc);
        row[e.slot2] = std::move(saved_item);
        return acc;
      }
      case ExprKind::pattern_predicate: {
        bool found = false;
        std::vector<ElementId> used;
        Row copy = row;
        try {
          match_part(*e.pattern, copy, used, [&](Row&) {
            found = true;
            throw StopMatching{};
          });
        } catch (const StopMatching&) {
        }
        return QueryValue(found);
      }
      case ExprKind::pattern_comprehension: {
        QueryValue::List out;
        std::vector<ElementId> used;
        Row copy = row;
        match_part(*e.pattern, copy, used, [&](Row& r) {
          if (!e.children.empty() && e.children[0] && !is_true(eval(*e.children[0], r), "WHERE")) return;
          out.push_back(eval(*e.children[1], r));
        });
        return QueryValue(std::move(out));
      }
      case ExprKind::exists_subquery: {
        Table table{row};
        const int saved_width = width_;
        for (const ClauseNode& node : e.subquery->clauses) {
          if (const auto* r = std::get_if<ReturnClause>(&node.clause)) {
            table = project(r->projection, std::move(table));
            break;
          }
          table = std::visit([&](const auto& clause) { return this->clause(clause, std::move(table)); }, node.clause);
          if (table.empty()) break;
        }
        width_ = saved_width;
        return QueryValue(!table.empty());
      }
      case ExprKind::map_projection: {
        const QueryValue& subject = row[e.slot];
        if (subject.is_null()) return QueryValue();
        QueryValue::Map map;
        for (const MapProjectionItem& item : e.projection) {
          switch (item.kind) {
            case MapProjectionItem::Kind::property: map[item.key] = property(subject, item.key); break;
            case MapProjectionItem::Kind::all_properties: {
              QueryValue all = all_properties(subject);
              for (const auto& [k, v] : all.as_map()) map[k] = v;
              break;
            }
            case MapProjectionItem::Kind::literal: map[item.key] = eval(*item.value, row); break;
            case MapProjectionItem::Kind::variable: map[item.key] = eval(*item.value, row); break;
          }
        }
        return QueryValue(std::move(map));
      }
    }
    return QueryValue();
  }

  struct StopMatching {};

  static QueryValue all_properties(const QueryValue& v) {
    QueryValue::Map map;
    if (v.is_vertex()) {
      for (const auto& [k, x] : v.as_vertex().properties) map.emplace(k, QueryValue(x));
    } else if (v.is_edge()) {
      for (const auto& [k, x] : v.as_edge().properties) map.emplace(k, QueryValue(x));
    } else if (v.is_map()) {
      return v;
    } else {
      type_error("InvalidArgumentType", "map projection needs a node, a relationship or a map");
    }
    return QueryValue(std::move(map));
  }

  QueryValue property(const QueryValue& v, const std::string& key) {
    if (v.is_null()) return QueryValue();
    if ((v.is_vertex() && deleted_.contains(v.as_vertex().id)) || (v.is_edge() && deleted_.contains(v.as_edge().id))) {
      runtime_error("EntityNotFound: DeletedEntityAccess", fmt::format("cannot read property `{}` of a deleted {}", key,
                                                                       v.is_vertex() ? "node" : "relationship"));
    }
    if (v.is_vertex()) {
      const Value* x = v.as_vertex().properties.find(key);
      return x ? QueryValue(*x) : QueryValue();
    }
    if (v.is_edge()) {
      const Value* x = v.as_edge().properties.find(key);
      return x ? QueryValue(*x) : QueryValue();
    }
    if (v.is_map()) {
      auto it = v.as_map().find(key);
      return it == v.as_map().end() ? QueryValue() : it->second;
    }
    type_error("InvalidArgumentType", fmt::format("cannot read property `{}` of {}", key, to_string(v.type())));
  }

  QueryValue subscript(const QueryValue& v, const QueryValue& index) {
    if (v.is_null() || index.is_null()) return QueryValue();
    if (v.is_list()) {
      if (!index.is_int())
        type_error("InvalidArgumentType",
                   fmt::format("a list index must be an integer, not {}", to_string(index.type())));
      const auto& list = v.as_list();
      std::int64_t i = index.as_int();
      const auto n = static_cast<std::int64_t>(list.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) return QueryValue();
      return list[static_cast<std::size_t>(i)];
    }
    if (v.is_map() || v.is_vertex() || v.is_edge()) {
      if (!index.is_string()) {
        type_error("MapElementAccessByNonString",
                   fmt::format("a map key must be a string, not {}", to_string(index.type())));
      }
      return property(v, index.as_string());
    }
    type_error("InvalidArgumentType", fmt::format("cannot index into {}", to_string(v.type())));
  }

  static QueryValue slice(const QueryValue& v, const QueryValue& from, const QueryValue& to, bool has_from,
                          bool has_to) {
    if (v.is_null()) return QueryValue();
    if ((has_from && from.is_null()) || (has_to && to.is_null())) return QueryValue();
    if (!v.is_list()) type_error("InvalidArgumentType", "only lists can be sliced");
    if ((has_from && !from.is_int()) || (has_to && !to.is_int()))
      type_error("InvalidArgumentType", "slice bounds must be integers");
    const auto& list = v.as_list();
    const auto n = static_cast<std::int64_t>(list.size());
    std::int64_t a = has_from ? from.as_int() : 0;
    std::int64_t b = has_to ? to.as_int() : n;
    if (a < 0) a += n;
    if (b < 0) b += n;
    a = std::clamp<std::int64_t>(a, 0, n);
    b = std::clamp<std::int64_t>(b, 0, n);
    if (b <= a) return QueryValue(QueryValue::List{});
    return QueryValue(QueryValue::List(list.begin() + a, list.begin() + b));
  }

  // children: subject (or nullptr), when/then pairs, else (or nullptr).
  QueryValue case_expression(const Expr& e, Row& row) {
    QueryValue subject;
    if (e.has_subject) subject = eval(*e.children[0], row);
    const std::size_t end = e.children.size() - 1;
    for (std::size_t i = 1; i + 1 < end; i += 2) {
      QueryValue when = eval(*e.children[i], row);
      bool hit = false;
      if (e.has_subject) {
        hit = equals(subject, when) == Truth::true_;
      } else {
        hit = to_truth(when, "CASE WHEN") == Truth::true_;
      }
      if (hit) return eval(*e.children[i + 1], row);
    }
    if (e.children.back()) return eval(*e.children.back(), row);
    return QueryValue();
  }

  QueryValue quantifier(const Expr& e, Row& row) {
    QueryValue list = eval(*e.children[0], row);
    if (list.is_null()) return QueryValue();
    if (!list.is_list()) type_error("InvalidArgumentType", "a quantifier needs a list");
    std::size_t trues = 0;
    std::size_t nulls = 0;
    const std::size_t n = list.as_list().size();
    QueryValue saved = row[e.slot];
    for (const QueryValue& item : list.as_list()) {
      row[e.slot] = item;
      Truth t = e.children.size() > 1 && e.children[1] ? to_truth(eval(*e.children[1], row), "WHERE") : Truth::true_;
      if (t == Truth::true_) ++trues;
      if (t == Truth::null) ++nulls;
    }
    row[e.slot] = std::move(saved);
    const std::size_t falses = n - trues - nulls;
    switch (e.op) {
      case Op::all: return falses > 0 ? QueryValue(false) : nulls > 0 ? QueryValue() : QueryValue(true);
      case Op::any: return trues > 0 ? QueryValue(true) : nulls > 0 ? QueryValue() : QueryValue(false);
      case Op::none: return trues > 0 ? QueryValue(false) : nulls > 0 ? QueryValue() : QueryValue(true);
      default:  // single
        if (trues > 1) return QueryValue(false);
        if (nulls > 0) return QueryValue();
        return QueryValue(trues == 1);
    }
  }

  QueryValue binary(const Expr& e, Row& row) {
    switch (e.op) {
      case Op::and_: {
        Truth a = to_truth(eval(*e.children[0], row), "AND");
        if (a == Truth::false_) {
          (void)to_truth(eval(*e.children[1], row), "AND");  // type errors still count
          return QueryValue(false);
        }
        Truth b = to_truth(eval(*e.children[1], row), "AND");
        if (b == Truth::false_) return QueryValue(false);
        if (a == Truth::null || b == Truth::null) return QueryValue();
        return QueryValue(true);
      }
      case Op::or_: {
        Truth a = to_truth(eval(*e.children[0], row), "OR");
        Truth b = to_truth(eval(*e.children[1], row), "OR");
        if (a == Truth::true_ || b == Truth::true_) return QueryValue(true);
        if (a == Truth::null || b == Truth::null) return QueryValue();
        return QueryValue(false);
      }
      case Op::xor_: {
        Truth a = to_truth(eval(*e.children[0], row), "XOR");
        Truth b = to_truth(eval(*e.children[1], row), "XOR");
        if (a == Truth::null || b == Truth::null) return QueryValue();
        return QueryValue(a != b);
      }
      default: break;
    }
    QueryValue a = eval(*e.children[0], row);
    QueryValue b = eval(*e.children[1], row);
    switch (e.op) {
      case Op::eq: return truth_value(equals(a, b));
      case Op::ne: {
        Truth t = equals(a, b);
        return t == Truth::null ? QueryValue() : QueryValue(t == Truth::false_);
      }
      case Op::lt:
      case Op::le:
      case Op::gt:
      case Op::ge: {
        const Comparison op = e.op == Op::lt   ? Comparison::less
                              : e.op == Op::le ? Comparison::less_equal
                              : e.op == Op::gt ? Comparison::greater
                                               : Comparison::greater_equal;
        return truth_value(compare(op, a, b));
      }
      case Op::in: {
        if (b.is_null()) return QueryValue();
        if (!b.is_list())
          type_error("InvalidArgumentType", fmt::format("IN expects a list, got {}", to_string(b.type())));
        bool unknown = false;
        for (const QueryValue& x : b.as_list()) {
          Truth t = equals(a, x);
          if (t == Truth::true_) return QueryValue(true);
          if (t == Truth::null) unknown = true;
        }
        return unknown ? QueryValue() : QueryValue(false);
      }
      case Op::starts_with:
      case Op::ends_with:
      case Op::contains: {
        if (!a.is_string() || !b.is_string()) return QueryValue();
        const std::string& s = a.as_string();
        const std::string& t = b.as_string();
        if (e.op == Op::starts_with) return QueryValue(s.starts_with(t));
        if (e.op == Op::ends_with) return QueryValue(s.ends_with(t));
        return QueryValue(s.find(t) != std::string::npos);
      }
      case Op::regex_match: {
        if (!a.is_string() || !b.is_string()) return QueryValue();
        try {
          return QueryValue(std::regex_match(a.as_string(), std::regex(b.as_string(), std::regex::ECMAScript)));
        } catch (const std::regex_error&) {
          runtime_error("ArgumentError: InvalidArgumentValue",
                        fmt::format("invalid regular expression '{}'", b.as_string()));
        }
      }
      case Op::add: return add(a, b);
      case Op::sub: return subtract(a, b);
      case Op::mul: return multiply(a, b);
      case Op::div: return divide(a, b);
      case Op::mod: return modulo(a, b);
      case Op::pow: return power(a, b);
      default: break;
    }
    runtime_error("SyntaxError", "unknown operator");
  }

  GraphOperations& writer() {
    if (graph_ == nullptr) runtime_error("SemanticError", "a read-only statement cannot write");
    return *graph_;
  }

  GraphOperations* graph_;
  GraphReader& reader_;
  const Parameters& parameters_;
  FunctionContext functions_;
  QueryStats stats_;
  int width_ = 0;
  std::unordered_set<ElementId> deleted_;  // elements this statement deleted
  const std::unordered_map<const Expr*, QueryValue>* aggregates_ = nullptr;
  std::unordered_map<std::size_t, std::vector<QueryValue>> sort_keys_;  // row index -> ORDER BY keys (aggregations)
};

QueryResult execute_read(GraphReader& reader, const Query& statement, const Parameters& parameters) {
  const Statement& s = statement.statement();
  if (s.writes) throw InvalidArgument("execute_read: the statement writes");
  return Executor(nullptr, reader, parameters).run(s);
}

}  // namespace propgraph::query

namespace propgraph::backend {

QueryResult execute_query(GraphOperations& graph, const Query& statement, const Parameters& parameters) {
  using query::Executor;
  const query::Statement& s = statement.statement();
  if (dynamic_cast<Transaction*>(&graph) != nullptr || !s.writes) {
    query::OperationsReader reader(graph);
    return Executor(&graph, reader, parameters).run(s);
  }
  return transact(graph, [&](Transaction& tx) {
    query::OperationsReader reader(tx);
    return Executor(&tx, reader, parameters).run(s);
  });
}

}  // namespace propgraph::backend
