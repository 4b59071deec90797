// QueryValue, Cypher's value semantics (value_ops.hpp) and its functions and aggregations
// (functions.hpp).
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "propgraph/errors.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/query.hpp"
#include "query/functions.hpp"
#include "query/graph_reader.hpp"
#include "query/value_ops.hpp"

namespace propgraph {
// Readable values in assertion failures.
void PrintTo(const QueryValue& v, std::ostream* os) {
  switch (v.type()) {
    case QueryValue::Type::null: *os << "null"; return;
    case QueryValue::Type::boolean: *os << (v.as_bool() ? "true" : "false"); return;
    case QueryValue::Type::integer: *os << v.as_int(); return;
    case QueryValue::Type::real: *os << query::format_double(v.as_double()); return;
    case QueryValue::Type::string: *os << "'" << v.as_string() << "'"; return;
    case QueryValue::Type::list: {
      *os << "[";
      const char* separator = "";
      for (const QueryValue& item : v.as_list()) {
        *os << separator;
        PrintTo(item, os);
        separator = ", ";
      }
      *os << "]";
      return;
    }
    case QueryValue::Type::map: {
      *os << "{";
      const char* separator = "";
      for (const auto& [key, item] : v.as_map()) {
        *os << separator << key << ": ";
        PrintTo(item, os);
        separator = ", ";
      }
      *os << "}";
      return;
    }
    case QueryValue::Type::vertex: *os << "(" << v.as_vertex().id.str() << ":" << v.as_vertex().label << ")"; return;
    case QueryValue::Type::edge: *os << "[" << v.as_edge().id.str() << ":" << v.as_edge().label << "]"; return;
    case QueryValue::Type::path: *os << "<path of " << v.as_path().length() << ">"; return;
  }
}
}  // namespace propgraph

namespace {

using propgraph::Edge;
using propgraph::ElementId;
using propgraph::InvalidArgument;
using propgraph::Parameters;
using propgraph::Path;
using propgraph::Properties;
using propgraph::QueryError;
using propgraph::QueryValue;
using propgraph::Value;
using propgraph::Vertex;
namespace q = propgraph::query;
using List = QueryValue::List;
using Map = QueryValue::Map;
using q::Truth;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Vertex vertex(const char* id, std::string label = "Person", Properties properties = {}) {
  return Vertex{ElementId(id), std::move(label), std::move(properties)};
}
Edge edge(const char* id, const char* from, const char* to, std::string label = "KNOWS", Properties properties = {}) {
  return Edge{ElementId(id), std::move(label), ElementId(from), ElementId(to), std::move(properties)};
}
Path path() { return Path{{vertex("v1"), vertex("v2")}, {edge("e1", "v1", "v2")}}; }

// The code of the QueryError `f` throws, or "" when it throws nothing.
std::string error_code(const std::function<void()>& f) {
  try {
    f();
  } catch (const QueryError& e) {
    return e.code();
  }
  return "";
}

QueryValue call(std::string_view name, std::vector<QueryValue> args, propgraph::GraphOperations* graph = nullptr) {
  const q::FunctionInfo* info = q::find_function(name);
  if (info == nullptr || info->aggregate) throw std::logic_error("no scalar function " + std::string(name));
  std::optional<q::OperationsReader> reader;
  if (graph != nullptr) reader.emplace(*graph);
  q::FunctionContext context{reader ? &*reader : nullptr};
  return info->call(args, context);
}

std::string call_error(std::string_view name, std::vector<QueryValue> args) {
  return error_code([&] { (void)call(name, std::move(args)); });
}

// Runs an aggregation over rows of one argument each (plus `extra` as later arguments).
QueryValue aggregate(std::string_view name, const List& rows, bool distinct = false,
                     std::vector<QueryValue> extra = {}) {
  auto aggregator = q::make_aggregator(name, distinct);
  for (const QueryValue& row : rows) {
    std::vector<QueryValue> args{row};
    args.insert(args.end(), extra.begin(), extra.end());
    aggregator->add(args);
  }
  return aggregator->result();
}

constexpr auto kTypeArg = "TypeError: InvalidArgumentValue";

// -- QueryValue ------------------------------------------------------------------------------

TEST(QueryValue, HoldsEachTypeAndNamesBothTypesOnMismatch) {
  EXPECT_TRUE(QueryValue().is_null());
  EXPECT_TRUE(QueryValue(nullptr).is_null());
  EXPECT_EQ(QueryValue(true).as_bool(), true);
  EXPECT_EQ(QueryValue(7).as_int(), 7);
  EXPECT_EQ(QueryValue(2.5).as_double(), 2.5);
  EXPECT_EQ(QueryValue(3).as_number(), 3.0);
  EXPECT_EQ(QueryValue("abc").as_string(), "abc");
  EXPECT_EQ(QueryValue(List{1, 2}).as_list().size(), 2U);
  EXPECT_EQ(QueryValue(Map{{"k", 1}}).as_map().at("k"), QueryValue(1));
  EXPECT_EQ(QueryValue(vertex("v1")).as_vertex().id, ElementId("v1"));
  EXPECT_EQ(QueryValue(edge("e1", "a", "b")).as_edge().label, "KNOWS");
  EXPECT_EQ(QueryValue(path()).as_path().length(), 1U);
  EXPECT_EQ(QueryValue(path()).type(), QueryValue::Type::path);
  try {
    (void)QueryValue("x").as_int();
    FAIL() << "as_int on a string";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("STRING"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("INTEGER"), std::string::npos);
  }
  EXPECT_THROW((void)QueryValue(1).as_list(), InvalidArgument);
  EXPECT_THROW((void)QueryValue().as_number(), InvalidArgument);
  EXPECT_THROW((void)QueryValue(1).as_double(), InvalidArgument);
}

TEST(QueryValue, ConvertsFromAndToPropertyValues) {
  const QueryValue from(Value::list({1, "two", 3.0, Value()}));
  EXPECT_EQ(from, QueryValue(List{1, "two", 3.0, nullptr}));
  EXPECT_EQ(from.to_value(), Value::list({1, "two", 3.0, Value()}));
  EXPECT_EQ(QueryValue(Value()).type(), QueryValue::Type::null);
  EXPECT_EQ(QueryValue(true).to_value(), Value(true));
  EXPECT_THROW((void)QueryValue(Map{}).to_value(), InvalidArgument);
  EXPECT_THROW((void)QueryValue(List{List{1}}).to_value(), InvalidArgument);
  EXPECT_THROW((void)QueryValue(vertex("v")).to_value(), InvalidArgument);
}

TEST(QueryValue, EqualityIsStructuralAndTyped) {
  EXPECT_NE(QueryValue(1), QueryValue(1.0));
  EXPECT_EQ(QueryValue(), QueryValue(nullptr));
  EXPECT_NE(QueryValue(), QueryValue(0));
  EXPECT_EQ(QueryValue(List{1, "a"}), QueryValue(List{1, "a"}));
  EXPECT_NE(QueryValue(List{1}), QueryValue(List{1.0}));
  EXPECT_EQ(QueryValue(Map{{"a", List{}}}), QueryValue(Map{{"a", List{}}}));
  EXPECT_EQ(QueryValue(vertex("v1", "A", {{"x", 1}})), QueryValue(vertex("v1", "A", {{"x", 1}})));
  EXPECT_NE(QueryValue(vertex("v1", "A", {{"x", 1}})), QueryValue(vertex("v1", "A", {{"x", 2}})));
  EXPECT_EQ(QueryValue(0.5), QueryValue(0.5));
}

TEST(QueryValue, TypeNamesAreCypherSpellings) {
  EXPECT_EQ(propgraph::to_string(QueryValue::Type::null), "NULL");
  EXPECT_EQ(propgraph::to_string(QueryValue::Type::real), "FLOAT");
  EXPECT_EQ(propgraph::to_string(QueryValue::Type::vertex), "NODE");
  EXPECT_EQ(propgraph::to_string(QueryValue::Type::edge), "RELATIONSHIP");
  EXPECT_EQ(propgraph::to_string(QueryValue::Type::map), "MAP");
}

TEST(Parameters, LaterEntriesReplaceAndFindByName) {
  Parameters p{{"a", 1}, {"b", "x"}, {"a", 2}};
  EXPECT_EQ(p.size(), 2U);
  ASSERT_NE(p.find("a"), nullptr);
  EXPECT_EQ(*p.find("a"), QueryValue(2));
  EXPECT_EQ(p.find("missing"), nullptr);
  p.set("c", List{1});
  p.set("b", nullptr);
  EXPECT_EQ(*p.find("c"), QueryValue(List{1}));
  EXPECT_TRUE(p.find("b")->is_null());
  EXPECT_EQ(p.begin()->first, "a");
  const Parameters from(Properties{{"n", 5}, {"s", "t"}});
  EXPECT_EQ(*from.find("n"), QueryValue(5));
  EXPECT_EQ(*from.find("s"), QueryValue("t"));
  EXPECT_TRUE(Parameters().empty());
}

// -- equality, comparison, order -------------------------------------------------------------

TEST(ValueOps, EqualityIsThreeValued) {
  EXPECT_EQ(q::equals(nullptr, 1), Truth::null);
  EXPECT_EQ(q::equals(nullptr, nullptr), Truth::null);
  EXPECT_EQ(q::equals(1, 1.0), Truth::true_);
  EXPECT_EQ(q::equals(1, 1.5), Truth::false_);
  EXPECT_EQ(q::equals("1", 1), Truth::false_);
  EXPECT_EQ(q::equals(kNaN, kNaN), Truth::false_);
  EXPECT_EQ(q::equals(kNaN, "a"), Truth::false_);
  EXPECT_EQ(q::equals(List{1, nullptr}, List{1, 2}), Truth::null);
  EXPECT_EQ(q::equals(List{1, nullptr}, List{2, nullptr}), Truth::false_);
  EXPECT_EQ(q::equals(List{1}, List{1, 2}), Truth::false_);
  EXPECT_EQ(q::equals(List{1, List{2.0}}, List{1.0, List{2}}), Truth::true_);
  EXPECT_EQ(q::equals(Map{{"k", 1}, {"l", nullptr}}, Map{{"k", nullptr}, {"l", 1}}), Truth::null);
  EXPECT_EQ(q::equals(Map{{"k", 1}, {"l", nullptr}}, Map{{"k", 2}, {"l", nullptr}}), Truth::false_);
  EXPECT_EQ(q::equals(Map{{"k", 1}}, Map{{"j", 1}}), Truth::false_);
  EXPECT_EQ(q::equals(vertex("v1", "A"), vertex("v1", "B")), Truth::true_);
  EXPECT_EQ(q::equals(vertex("v1"), vertex("v2")), Truth::false_);
  EXPECT_EQ(q::equals(edge("e1", "a", "b"), edge("e1", "a", "b")), Truth::true_);
  EXPECT_EQ(q::equals(vertex("x"), edge("x", "a", "b")), Truth::false_);
  EXPECT_EQ(q::equals(path(), path()), Truth::true_);
  // Exact across int and double: 2^53 + 1 is not the double 2^53.
  EXPECT_EQ(q::equals(std::int64_t{9007199254740993}, 9007199254740992.0), Truth::false_);
  EXPECT_EQ(q::equals(std::int64_t{9007199254740992}, 9007199254740992.0), Truth::true_);
}

TEST(ValueOps, ComparisonFollowsComparability) {
  EXPECT_EQ(q::compare(1, 2), -1);
  EXPECT_EQ(q::compare(2.5, 2), 1);
  EXPECT_EQ(q::compare(1, 1.0), 0);
  EXPECT_EQ(q::compare("a", "b"), -1);
  EXPECT_EQ(q::compare("B", "a"), -1);
  EXPECT_EQ(q::compare(false, true), -1);
  EXPECT_EQ(q::compare("1", 1), std::nullopt);
  EXPECT_EQ(q::compare(true, 1), std::nullopt);
  EXPECT_EQ(q::compare(nullptr, 1), std::nullopt);
  EXPECT_EQ(q::compare(Map{}, Map{}), std::nullopt);
  EXPECT_EQ(q::compare(vertex("a"), vertex("b")), std::nullopt);
  EXPECT_EQ(q::compare(kNaN, 1), std::nullopt);
  EXPECT_EQ(q::compare(std::int64_t{9007199254740993}, 9007199254740992.0), 1);
  EXPECT_EQ(q::compare(kMax, 9223372036854775808.0), -1);
  // The TCK's list comparisons (Comparison2 [4]), as `>=`.
  using q::Comparison;
  EXPECT_EQ(q::compare(Comparison::greater_equal, List{1, 0}, List{1}), Truth::true_);
  EXPECT_EQ(q::compare(Comparison::greater_equal, List{1, nullptr}, List{1}), Truth::true_);
  EXPECT_EQ(q::compare(Comparison::greater_equal, List{1, 2}, List{1, nullptr}), Truth::null);
  EXPECT_EQ(q::compare(Comparison::greater_equal, List{1, "a"}, List{1, nullptr}), Truth::null);
  EXPECT_EQ(q::compare(Comparison::greater_equal, List{1, 2}, List{3, nullptr}), Truth::false_);
  EXPECT_EQ(q::compare(Comparison::less, List{1, "a"}, List{1, 2}), Truth::null);
  // NaN with a number makes every operator false; with a string, null (Comparison2 [5]).
  for (Comparison op : {Comparison::less, Comparison::less_equal, Comparison::greater, Comparison::greater_equal}) {
    EXPECT_EQ(q::compare(op, kNaN, 1), Truth::false_);
    EXPECT_EQ(q::compare(op, kNaN, 1.0), Truth::false_);
    EXPECT_EQ(q::compare(op, kNaN, kNaN), Truth::false_);
    EXPECT_EQ(q::compare(op, kNaN, "a"), Truth::null);
  }
  EXPECT_EQ(q::compare(Comparison::less_equal, 1, 1.0), Truth::true_);
  EXPECT_EQ(q::compare(Comparison::less, 1, 1.0), Truth::false_);
  EXPECT_EQ(q::compare(Comparison::greater, "b", "a"), Truth::true_);
  EXPECT_EQ(q::compare(Comparison::greater, nullptr, "a"), Truth::null);
}

TEST(ValueOps, OrderByIsATotalOrderOverMixedTypes) {
  const Path p = path();
  List values{nullptr, 1, "a", true, List{1}, Map{}, 0.5, kNaN, vertex("v9"), edge("e1", "a", "b"), p, false, -kInf};
  std::stable_sort(values.begin(), values.end(),
                   [](const QueryValue& a, const QueryValue& b) { return q::order(a, b) < 0; });
  const List expected{Map{}, vertex("v9"), edge("e1", "a", "b"), List{1}, p, "a", false, true, -kInf, 0.5, 1,
                      kNaN,  nullptr};
  ASSERT_EQ(values.size(), expected.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (expected[i].is_double() && std::isnan(expected[i].as_double())) {
      EXPECT_TRUE(values[i].is_double() && std::isnan(values[i].as_double())) << i;
    } else {
      EXPECT_EQ(values[i], expected[i]) << i;
    }
  }
  // The TCK's list order (ReturnOrderBy1 [9]).
  List lists{List{nullptr, 2}, List{1, "a"}, List{"a"}, List{nullptr, 1},
             List{1, nullptr}, List{"a", 1}, List{},    List{1}};
  std::stable_sort(lists.begin(), lists.end(),
                   [](const QueryValue& a, const QueryValue& b) { return q::order(a, b) < 0; });
  EXPECT_EQ(QueryValue(lists), QueryValue(List{List{}, List{"a"}, List{"a", 1}, List{1}, List{1, "a"}, List{1, nullptr},
                                               List{nullptr, 1}, List{nullptr, 2}}));
  EXPECT_EQ(q::order(1, 1.0), 0);
  EXPECT_EQ(q::order(nullptr, nullptr), 0);
  EXPECT_EQ(q::order(kNaN, kNaN), 0);
  EXPECT_EQ(q::order(kNaN, kInf), 1);
  EXPECT_EQ(q::order(List{1}, List{1, 0}), -1);
  EXPECT_EQ(q::order(List{2}, List{1, 0}), 1);
  EXPECT_EQ(q::order(List{1, nullptr}, List{1, 2}), 1);  // null sorts last inside lists too
  EXPECT_EQ(q::order(Map{{"a", 1}}, Map{{"a", 1}, {"b", 1}}), -1);
  EXPECT_EQ(q::order(Map{{"a", 2}}, Map{{"b", 1}}), -1);
  EXPECT_EQ(q::order(Map{{"a", 2}}, Map{{"a", 1}}), 1);
  EXPECT_EQ(q::order(vertex("v2"), vertex("v10")), -1);  // ids in shortlex order
}

TEST(ValueOps, EquivalenceAndHashAgree) {
  const std::vector<std::pair<QueryValue, QueryValue>> same{
      {1, 1.0},
      {nullptr, nullptr},
      {kNaN, kNaN},
      {0.0, -0.0},
      {0, -0.0},
      {List{1, nullptr}, List{1.0, nullptr}},
      {Map{{"a", List{kNaN}}}, Map{{"a", List{kNaN}}}},
      {vertex("v1", "A"), vertex("v1", "B")},
      {"x", "x"},
      {std::int64_t{1} << 60, static_cast<double>(std::int64_t{1} << 60)},
  };
  for (const auto& [a, b] : same) {
    EXPECT_TRUE(q::equivalent(a, b));
    EXPECT_TRUE(q::equivalent(b, a));
    EXPECT_EQ(q::hash(a), q::hash(b));
  }
  const std::vector<std::pair<QueryValue, QueryValue>> different{
      {1, 1.5},
      {nullptr, 0},
      {kNaN, 1},
      {"1", 1},
      {List{1}, 1},
      {List{1}, List{}},
      {true, 1},
      {Map{{"a", 1}}, Map{{"b", 1}}},
      {kMax, 9223372036854775808.0},
      {vertex("a"), edge("a", "x", "y")},
  };
  for (const auto& [a, b] : different) {
    EXPECT_FALSE(q::equivalent(a, b));
    EXPECT_FALSE(q::equivalent(b, a));
  }
}

// -- arithmetic ------------------------------------------------------------------------------

TEST(ValueOps, IntegerArithmeticDetectsOverflow) {
  constexpr auto kOverflow = "ArithmeticError: IntegerOverflow";
  EXPECT_EQ(q::add(2, 3), QueryValue(5));
  EXPECT_EQ(q::subtract(2, 3), QueryValue(-1));
  EXPECT_EQ(q::multiply(kMax / 2, 2), QueryValue(kMax - 1));
  EXPECT_EQ(error_code([] { (void)q::add(kMax, 1); }), kOverflow);
  EXPECT_EQ(error_code([] { (void)q::subtract(kMin, 1); }), kOverflow);
  EXPECT_EQ(error_code([] { (void)q::multiply(kMax, 2); }), kOverflow);
  EXPECT_EQ(error_code([] { (void)q::divide(kMin, -1); }), kOverflow);
  EXPECT_EQ(error_code([] { (void)q::negate(kMin); }), kOverflow);
  EXPECT_EQ(q::negate(kMax), QueryValue(-kMax));
  EXPECT_EQ(q::modulo(kMin, -1), QueryValue(0));
}

TEST(ValueOps, DivisionAndModuloFollowJava) {
  EXPECT_EQ(q::divide(7, 2), QueryValue(3));
  EXPECT_EQ(q::divide(-7, 2), QueryValue(-3));
  EXPECT_EQ(q::divide(7, -2), QueryValue(-3));
  EXPECT_EQ(q::modulo(-7, 2), QueryValue(-1));
  EXPECT_EQ(q::modulo(7, -2), QueryValue(1));
  EXPECT_EQ(q::modulo(5.5, 2), QueryValue(1.5));
  EXPECT_EQ(q::modulo(-5.5, 2), QueryValue(-1.5));
  EXPECT_EQ(q::divide(7, 2.0), QueryValue(3.5));
  EXPECT_EQ(error_code([] { (void)q::divide(1, 0); }), "ArithmeticError: DivisionByZero");
  EXPECT_EQ(error_code([] { (void)q::modulo(1, 0); }), "ArithmeticError: DivisionByZero");
  EXPECT_EQ(q::divide(1.0, 0), QueryValue(kInf));
  EXPECT_EQ(q::divide(-1, 0.0), QueryValue(-kInf));
  EXPECT_TRUE(std::isnan(q::divide(0.0, 0).as_double()));
  EXPECT_TRUE(std::isnan(q::modulo(1.0, 0).as_double()));
}

TEST(ValueOps, MixedNumbersPowerNullAndConcatenation) {
  EXPECT_EQ(q::add(1, 0.5), QueryValue(1.5));
  EXPECT_EQ(q::multiply(2, 1.5), QueryValue(3.0));
  EXPECT_EQ(q::power(2, 3), QueryValue(8.0));
  EXPECT_EQ(q::power(4, 0.5), QueryValue(2.0));
  EXPECT_EQ(q::negate(2.5), QueryValue(-2.5));
  EXPECT_TRUE(q::add(nullptr, 1).is_null());
  EXPECT_TRUE(q::add(List{1}, nullptr).is_null());
  EXPECT_TRUE(q::divide(1, nullptr).is_null());
  EXPECT_TRUE(q::power(nullptr, 2).is_null());
  EXPECT_TRUE(q::negate(nullptr).is_null());
  EXPECT_EQ(q::add("ab", "cd"), QueryValue("abcd"));
  EXPECT_EQ(q::add(List{1}, List{2, 3}), QueryValue(List{1, 2, 3}));
  EXPECT_EQ(q::add(List{1}, 2), QueryValue(List{1, 2}));
  EXPECT_EQ(q::add(0, List{1}), QueryValue(List{0, 1}));
  EXPECT_EQ(q::add(List{1}, List{List{2}}), QueryValue(List{1, List{2}}));
  constexpr auto kType = "TypeError: InvalidArgumentType";
  EXPECT_EQ(error_code([] { (void)q::add("a", 1); }), kType);
  EXPECT_EQ(error_code([] { (void)q::add(true, 1); }), kType);
  EXPECT_EQ(error_code([] { (void)q::subtract("a", "b"); }), kType);
  EXPECT_EQ(error_code([] { (void)q::multiply(Map{}, 2); }), kType);
  EXPECT_EQ(error_code([] { (void)q::power("2", 2); }), kType);
  EXPECT_EQ(error_code([] { (void)q::negate("a"); }), kType);
  try {
    (void)q::subtract("a", 1);
  } catch (const QueryError& e) {
    EXPECT_NE(std::string(e.what()).find("STRING"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("INTEGER"), std::string::npos);
  }
}

// -- scalar functions ------------------------------------------------------------------------

TEST(Functions, LookupIsCaseInsensitive) {
  ASSERT_NE(q::find_function("toUpper"), nullptr);
  EXPECT_EQ(q::find_function("TOUPPER"), q::find_function("toupper"));
  EXPECT_EQ(q::find_function("toupper")->name, "toUpper");
  EXPECT_EQ(q::find_function("nosuchfunction"), nullptr);
  EXPECT_TRUE(q::find_function("COUNT")->aggregate);
  EXPECT_EQ(q::find_function("count")->call, nullptr);
  EXPECT_FALSE(q::find_function("size")->aggregate);
  EXPECT_EQ(q::find_function("coalesce")->max_arguments, -1);
  EXPECT_EQ(q::find_function("range")->min_arguments, 2);
  EXPECT_EQ(q::find_function("range")->max_arguments, 3);
  EXPECT_EQ(q::find_function("upper"), q::find_function("upper"));
  EXPECT_NE(q::find_function("lower"), nullptr);
}

TEST(Functions, ListAndScalarBasics) {
  EXPECT_EQ(call("coalesce", {nullptr, nullptr, 2, 3}), QueryValue(2));
  EXPECT_TRUE(call("coalesce", {nullptr}).is_null());
  EXPECT_EQ(call("head", {List{1, 2}}), QueryValue(1));
  EXPECT_TRUE(call("head", {List{}}).is_null());
  EXPECT_TRUE(call("head", {nullptr}).is_null());
  EXPECT_EQ(call_error("head", {1}), kTypeArg);
  EXPECT_EQ(call("last", {List{1, 2}}), QueryValue(2));
  EXPECT_TRUE(call("last", {List{}}).is_null());
  EXPECT_EQ(call_error("last", {"ab"}), kTypeArg);
  EXPECT_EQ(call("tail", {List{1, 2, 3}}), QueryValue(List{2, 3}));
  EXPECT_EQ(call("tail", {List{}}), QueryValue(List{}));
  EXPECT_TRUE(call("tail", {nullptr}).is_null());
  EXPECT_EQ(call("size", {List{1, nullptr}}), QueryValue(2));
  EXPECT_EQ(call("size", {"h\xC3\xA9llo"}), QueryValue(5));  // code points, not bytes
  EXPECT_TRUE(call("size", {nullptr}).is_null());
  EXPECT_EQ(call_error("size", {1}), kTypeArg);
  EXPECT_EQ(call("length", {path()}), QueryValue(1));
  EXPECT_EQ(call("length", {"abc"}), QueryValue(3));
  EXPECT_EQ(call_error("length", {List{1}}), kTypeArg);
  EXPECT_EQ(call("isEmpty", {List{}}), QueryValue(true));
  EXPECT_EQ(call("isEmpty", {"a"}), QueryValue(false));
  EXPECT_EQ(call("isEmpty", {Map{}}), QueryValue(true));
  EXPECT_TRUE(call("isEmpty", {nullptr}).is_null());
  EXPECT_EQ(call_error("isEmpty", {1}), kTypeArg);
  EXPECT_EQ(call("exists", {1}), QueryValue(true));
  EXPECT_EQ(call("exists", {nullptr}), QueryValue(false));
  EXPECT_EQ(call("reverse", {List{1, "a", 2.0}}), QueryValue(List{2.0, "a", 1}));
  EXPECT_EQ(call("reverse", {"raksO"}), QueryValue("Oskar"));
  EXPECT_EQ(call("reverse", {"a\xC3\xA9"}), QueryValue("\xC3\xA9"
                                                       "a"));
  EXPECT_TRUE(call("reverse", {nullptr}).is_null());
  EXPECT_EQ(call_error("reverse", {1}), kTypeArg);
}

TEST(Functions, RangeFollowsTheTck) {
  EXPECT_EQ(call("range", {0, 3}), QueryValue(List{0, 1, 2, 3}));
  EXPECT_EQ(call("range", {1381, -3412, -1298}), QueryValue(List{1381, 83, -1215, -2513}));
  EXPECT_EQ(call("range", {-10, 10, 3}), QueryValue(List{-10, -7, -4, -1, 2, 5, 8}));
  EXPECT_EQ(call("range", {0, -1}), QueryValue(List{}));
  EXPECT_EQ(call("range", {0, 1, -1}), QueryValue(List{}));
  EXPECT_EQ(call("range", {0, 0, -1}), QueryValue(List{0}));
  EXPECT_EQ(call("range", {kMax - 1, kMax}), QueryValue(List{kMax - 1, kMax}));
  EXPECT_EQ(call("range", {kMin, kMin + 2, kMax}), QueryValue(List{kMin}));
  EXPECT_EQ(call_error("range", {2, 8, 0}), "ArgumentError: NumberOutOfRange");
  EXPECT_EQ(call_error("range", {0, 0, 0}), "ArgumentError: NumberOutOfRange");
  EXPECT_EQ(call_error("range", {true, 1, 1}), "ArgumentError: InvalidArgumentType");
  EXPECT_EQ(call_error("range", {0.0, 1, 1}), "ArgumentError: InvalidArgumentType");
  EXPECT_EQ(call_error("range", {0, -1.1, 1}), "ArgumentError: InvalidArgumentType");
  EXPECT_EQ(call_error("range", {0, kMax}), "ArgumentError: NumberOutOfRange");  // bounded size
  EXPECT_TRUE(call("range", {nullptr, 1}).is_null());
}

TEST(Functions, GraphElements) {
  const Vertex v = vertex("v1", "Person", {{"name", "Ann"}, {"age", 30}});
  const Edge r = edge("e7", "v1", "v2", "KNOWS", {{"since", 2020}});
  EXPECT_EQ(call("type", {r}), QueryValue("KNOWS"));
  EXPECT_TRUE(call("type", {nullptr}).is_null());
  EXPECT_EQ(call_error("type", {v}), kTypeArg);
  EXPECT_EQ(call("id", {v}), QueryValue("v1"));
  EXPECT_EQ(call("ID", {r}), QueryValue("e7"));
  EXPECT_EQ(call("elementId", {r}), QueryValue("e7"));
  EXPECT_TRUE(call("id", {nullptr}).is_null());
  EXPECT_EQ(call_error("id", {1}), kTypeArg);
  EXPECT_EQ(call("labels", {v}), QueryValue(List{"Person"}));
  EXPECT_EQ(call("labels", {vertex("v3", std::string(propgraph::unlabeled_vertex_label))}), QueryValue(List{}));
  EXPECT_TRUE(call("labels", {nullptr}).is_null());
  EXPECT_EQ(call_error("labels", {r}), kTypeArg);
  EXPECT_EQ(call("keys", {v}), QueryValue(List{"age", "name"}));
  EXPECT_EQ(call("keys", {r}), QueryValue(List{"since"}));
  EXPECT_EQ(call("keys", {Map{{"b", nullptr}, {"a", 1}}}), QueryValue(List{"a", "b"}));
  EXPECT_TRUE(call("keys", {nullptr}).is_null());
  EXPECT_EQ(call_error("keys", {"x"}), kTypeArg);
  EXPECT_EQ(call("properties", {v}), QueryValue(Map{{"age", 30}, {"name", "Ann"}}));
  EXPECT_EQ(call("properties", {r}), QueryValue(Map{{"since", 2020}}));
  EXPECT_EQ(call("properties", {Map{{"a", 1}}}), QueryValue(Map{{"a", 1}}));
  EXPECT_TRUE(call("properties", {nullptr}).is_null());
  EXPECT_EQ(call_error("properties", {List{}}), kTypeArg);
  const Path p = path();
  EXPECT_EQ(call("nodes", {p}), QueryValue(List{p.vertices[0], p.vertices[1]}));
  EXPECT_EQ(call("relationships", {p}), QueryValue(List{p.edges[0]}));
  EXPECT_TRUE(call("nodes", {nullptr}).is_null());
  EXPECT_EQ(call_error("nodes", {v}), kTypeArg);
  EXPECT_EQ(call_error("relationships", {r}), kTypeArg);
}

TEST(Functions, StartAndEndNodeReadTheGraph) {
  propgraph::MemoryGraph graph;
  const Vertex a = graph.create_vertex("Person", {{"name", "a"}});
  const Vertex b = graph.create_vertex("Person", {{"name", "b"}});
  const Edge r = graph.create_edge(a.id, b.id, "KNOWS");
  EXPECT_EQ(call("startNode", {r}, &graph), QueryValue(a));
  EXPECT_EQ(call("endNode", {r}, &graph), QueryValue(b));
  EXPECT_TRUE(call("startNode", {nullptr}, &graph).is_null());
  EXPECT_EQ(error_code([&] { (void)call("endNode", {a}, &graph); }), kTypeArg);
}

TEST(Functions, ConversionsFollowTheTck) {
  EXPECT_EQ(call("toInteger", {82.9}), QueryValue(82));
  EXPECT_EQ(call("toInteger", {-2.9}), QueryValue(-2));
  EXPECT_EQ(call("toInteger", {"1.9"}), QueryValue(1));
  EXPECT_EQ(call("toInteger", {" 42 "}), QueryValue(42));
  EXPECT_EQ(call("toInteger", {"9223372036854775807"}), QueryValue(kMax));
  EXPECT_EQ(call("toInteger", {"1e3"}), QueryValue(1000));
  EXPECT_EQ(call("toInteger", {7}), QueryValue(7));
  EXPECT_TRUE(call("toInteger", {"x"}).is_null());
  EXPECT_TRUE(call("toInteger", {""}).is_null());
  EXPECT_TRUE(call("toInteger", {nullptr}).is_null());
  EXPECT_EQ(call_error("toInteger", {List{}}), kTypeArg);
  EXPECT_EQ(call_error("toInteger", {vertex("v")}), kTypeArg);
  EXPECT_EQ(call_error("toInteger", {1e300}), "ArithmeticError: IntegerOverflow");
  EXPECT_TRUE(call("toIntegerOrNull", {1e300}).is_null());
  EXPECT_TRUE(call("toIntegerOrNull", {List{}}).is_null());
  EXPECT_EQ(call("toIntegerOrNull", {"5"}), QueryValue(5));

  EXPECT_EQ(call("toFloat", {3}), QueryValue(3.0));
  EXPECT_EQ(call("toFloat", {"5"}), QueryValue(5.0));
  EXPECT_EQ(call("toFloat", {"-1.5e2"}), QueryValue(-150.0));
  EXPECT_EQ(call("toFloat", {"Infinity"}), QueryValue(kInf));
  EXPECT_TRUE(call("toFloat", {"inf"}).is_null());
  EXPECT_TRUE(call("toFloat", {"foo"}).is_null());
  EXPECT_TRUE(call("toFloat", {""}).is_null());
  EXPECT_EQ(call_error("toFloat", {true}), kTypeArg);
  EXPECT_EQ(call_error("toFloat", {Map{}}), kTypeArg);
  EXPECT_TRUE(call("toFloatOrNull", {true}).is_null());

  EXPECT_EQ(call("toBoolean", {"TRUE"}), QueryValue(true));
  EXPECT_EQ(call("toBoolean", {"false"}), QueryValue(false));
  EXPECT_EQ(call("toBoolean", {true}), QueryValue(true));
  EXPECT_EQ(call("toBoolean", {0}), QueryValue(false));
  EXPECT_TRUE(call("toBoolean", {" tru "}).is_null());
  EXPECT_TRUE(call("toBoolean", {"f alse"}).is_null());
  EXPECT_TRUE(call("toBoolean", {nullptr}).is_null());
  EXPECT_EQ(call_error("toBoolean", {1.0}), kTypeArg);
  EXPECT_EQ(call_error("toBoolean", {List{}}), kTypeArg);
  EXPECT_TRUE(call("toBooleanOrNull", {1.0}).is_null());

  EXPECT_EQ(call("toString", {42}), QueryValue("42"));
  EXPECT_EQ(call("toString", {1.0}), QueryValue("1.0"));
  EXPECT_EQ(call("toString", {2.3}), QueryValue("2.3"));
  EXPECT_EQ(call("toString", {true}), QueryValue("true"));
  EXPECT_EQ(call("toString", {"apa"}), QueryValue("apa"));
  EXPECT_TRUE(call("toString", {nullptr}).is_null());
  EXPECT_EQ(call_error("toString", {List{}}), kTypeArg);
  EXPECT_EQ(call_error("toString", {edge("e", "a", "b")}), kTypeArg);
  EXPECT_TRUE(call("toStringOrNull", {List{}}).is_null());
}

TEST(Functions, DoublesPrintAsJavaDoes) {
  EXPECT_EQ(q::format_double(1.0), "1.0");
  EXPECT_EQ(q::format_double(0.1), "0.1");
  EXPECT_EQ(q::format_double(-2.5), "-2.5");
  EXPECT_EQ(q::format_double(1e20), "1.0E20");
  EXPECT_EQ(q::format_double(1.5e-7), "1.5E-7");
  EXPECT_EQ(q::format_double(1e7), "1.0E7");
  EXPECT_EQ(q::format_double(1234567.0), "1234567.0");
  EXPECT_EQ(q::format_double(0.001), "0.001");
  EXPECT_EQ(q::format_double(0.0001), "1.0E-4");
  EXPECT_EQ(q::format_double(123.456), "123.456");
  EXPECT_EQ(q::format_double(0.0), "0.0");
  EXPECT_EQ(q::format_double(-0.0), "-0.0");
  EXPECT_EQ(q::format_double(kNaN), "NaN");
  EXPECT_EQ(q::format_double(-kInf), "-Infinity");
  EXPECT_EQ(q::format_double(1.7976931348623157e308), "1.7976931348623157E308");
}

TEST(Functions, Strings) {
  EXPECT_EQ(call("toUpper", {"abc"}), QueryValue("ABC"));
  EXPECT_EQ(call("upper", {"aB"}), QueryValue("AB"));
  EXPECT_EQ(call("toLower", {"ABC"}), QueryValue("abc"));
  EXPECT_EQ(call("lower", {"aB"}), QueryValue("ab"));
  EXPECT_EQ(call("toUpper", {"stra\xC3\x9F"
                             "e \xC3\xA9t\xC3\xA9"}),
            QueryValue("STRA\xC3\x9F"
                       "E \xC3\x89T\xC3\x89"));
  EXPECT_EQ(call("toLower", {"\xC3\x89T\xC3\x89 \xCE\xA3"}), QueryValue("\xC3\xA9t\xC3\xA9 \xCF\x83"));
  EXPECT_TRUE(call("toUpper", {nullptr}).is_null());
  EXPECT_EQ(call_error("toLower", {1}), kTypeArg);
  EXPECT_EQ(call("trim", {"  a b \t\n"}), QueryValue("a b"));
  EXPECT_EQ(call("lTrim", {"  a "}), QueryValue("a "));
  EXPECT_EQ(call("rTrim", {"  a "}), QueryValue("  a"));
  EXPECT_TRUE(call("trim", {nullptr}).is_null());
  EXPECT_EQ(call_error("trim", {List{}}), kTypeArg);
  EXPECT_EQ(call("replace", {"hello", "l", "x"}), QueryValue("hexxo"));
  EXPECT_EQ(call("replace", {"aaa", "aa", "b"}), QueryValue("ba"));
  EXPECT_EQ(call("replace", {"ab", "", "-"}), QueryValue("-a-b-"));
  EXPECT_TRUE(call("replace", {"a", nullptr, "b"}).is_null());
  EXPECT_EQ(call_error("replace", {"a", 1, "b"}), kTypeArg);
  EXPECT_EQ(call("substring", {"0123456789", 1}), QueryValue("123456789"));
  EXPECT_EQ(call("substring", {"0123456789", 1, 3}), QueryValue("123"));
  EXPECT_EQ(call("substring", {"abc", 5}), QueryValue(""));
  EXPECT_EQ(call("substring", {"\xC3\xA9t\xC3\xA9", 1, 2}), QueryValue("t\xC3\xA9"));
  EXPECT_TRUE(call("substring", {nullptr, 1}).is_null());
  EXPECT_EQ(call_error("substring", {"abc", -1}), "ArgumentError: NumberOutOfRange");
  EXPECT_EQ(call_error("substring", {"abc", "1"}), kTypeArg);
  EXPECT_EQ(call_error("substring", {1, 1}), kTypeArg);
  EXPECT_EQ(call("left", {"hello", 3}), QueryValue("hel"));
  EXPECT_EQ(call("left", {"hi", 10}), QueryValue("hi"));
  EXPECT_EQ(call("right", {"hello", 3}), QueryValue("llo"));
  EXPECT_EQ(call("right", {"hi", 10}), QueryValue("hi"));
  EXPECT_TRUE(call("left", {nullptr, 3}).is_null());
  EXPECT_TRUE(call("right", {nullptr, nullptr}).is_null());
  EXPECT_EQ(call_error("left", {"abc", nullptr}), kTypeArg);
  EXPECT_EQ(call_error("substring", {"abc", nullptr}), kTypeArg);
  EXPECT_EQ(call_error("substring", {"abc", 0, nullptr}), kTypeArg);
  EXPECT_EQ(call_error("right", {"abc", -1}), "ArgumentError: NumberOutOfRange");
  EXPECT_EQ(call_error("left", {1, 1}), kTypeArg);
  EXPECT_EQ(call("split", {"one1two", "1"}), QueryValue(List{"one", "two"}));
  EXPECT_EQ(call("split", {"a,b,", ","}), QueryValue(List{"a", "b", ""}));
  EXPECT_EQ(call("split", {"abc", ""}), QueryValue(List{"a", "b", "c"}));
  EXPECT_EQ(call("split", {"a-b_c", List{"-", "_"}}), QueryValue(List{"a", "b", "c"}));
  EXPECT_TRUE(call("split", {nullptr, ","}).is_null());
  EXPECT_EQ(call_error("split", {"a", 1}), kTypeArg);
}

TEST(Functions, Math) {
  EXPECT_EQ(call("abs", {-1}), QueryValue(1));
  EXPECT_EQ(call("abs", {-1.5}), QueryValue(1.5));
  EXPECT_TRUE(call("abs", {nullptr}).is_null());
  EXPECT_EQ(call_error("abs", {"1"}), kTypeArg);
  EXPECT_EQ(call_error("abs", {kMin}), "ArithmeticError: IntegerOverflow");
  EXPECT_EQ(call("ceil", {1.2}), QueryValue(2.0));
  EXPECT_EQ(call("ceil", {1}), QueryValue(1.0));
  EXPECT_EQ(call("floor", {-1.2}), QueryValue(-2.0));
  // Neo4j's round: ties toward positive infinity without a precision (or with precision 0),
  // away from zero (HALF_UP) with one.
  EXPECT_EQ(call("round", {2.5}), QueryValue(3.0));
  EXPECT_EQ(call("round", {-2.5}), QueryValue(-2.0));
  EXPECT_EQ(call("round", {-1.5, 0}), QueryValue(-1.0));
  EXPECT_EQ(call("round", {-2.6}), QueryValue(-3.0));
  EXPECT_EQ(call("round", {-0.4}), QueryValue(0.0));
  EXPECT_EQ(call("round", {0.49999999999999994}), QueryValue(0.0));
  EXPECT_EQ(call("round", {3}), QueryValue(3.0));
  EXPECT_EQ(call("round", {1e300}), QueryValue(1e300));
  EXPECT_EQ(call("round", {3.141592}), QueryValue(3.0));
  EXPECT_EQ(call("round", {-1.55, 1}), QueryValue(-1.6));
  EXPECT_EQ(call("round", {3.141592, 3}), QueryValue(3.142));
  EXPECT_EQ(call("round", {2.675, 2}), QueryValue(2.68));  // the decimal 2.675, as BigDecimal.valueOf
  EXPECT_EQ(call("round", {-1.25, 1}), QueryValue(-1.3));
  EXPECT_EQ(call("round", {1.25, 1, "HALF_EVEN"}), QueryValue(1.2));
  EXPECT_EQ(call("round", {1.35, 1, "half_even"}), QueryValue(1.4));
  EXPECT_EQ(call("round", {1.25, 1, "HALF_DOWN"}), QueryValue(1.2));
  EXPECT_EQ(call("round", {1.21, 1, "UP"}), QueryValue(1.3));
  EXPECT_EQ(call("round", {-1.29, 1, "DOWN"}), QueryValue(-1.2));
  EXPECT_EQ(call("round", {-1.21, 1, "CEILING"}), QueryValue(-1.2));
  EXPECT_EQ(call("round", {-1.21, 1, "FLOOR"}), QueryValue(-1.3));
  // The Neo4j manual's table: 1.249, -1.251, 1.25 and -1.35 at precision 1 in each mode.
  const std::vector<std::pair<const char*, std::vector<double>>> modes{
      {"UP", {1.3, -1.3, 1.3, -1.4}},        {"DOWN", {1.2, -1.2, 1.2, -1.3}},    {"CEILING", {1.3, -1.2, 1.3, -1.3}},
      {"FLOOR", {1.2, -1.3, 1.2, -1.4}},     {"HALF_UP", {1.2, -1.3, 1.3, -1.4}}, {"HALF_DOWN", {1.2, -1.3, 1.2, -1.3}},
      {"HALF_EVEN", {1.2, -1.3, 1.2, -1.4}},
  };
  for (const auto& [mode, expected] : modes) {
    const double inputs[] = {1.249, -1.251, 1.25, -1.35};
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(call("round", {inputs[i], 1, mode}), QueryValue(expected[i])) << mode << " " << inputs[i];
    }
  }
  EXPECT_EQ(call("round", {-1.5, 0, "HALF_UP"}), QueryValue(-2.0));
  EXPECT_EQ(call("round", {1234.5, -2}), QueryValue(1200.0));
  EXPECT_EQ(call("round", {9.99, 1}), QueryValue(10.0));
  EXPECT_EQ(call("round", {0.004, 2}), QueryValue(0.0));
  EXPECT_EQ(call("round", {0.005, 2}), QueryValue(0.01));
  EXPECT_TRUE(call("round", {nullptr}).is_null());
  EXPECT_EQ(call_error("round", {"1"}), kTypeArg);
  EXPECT_EQ(call_error("round", {1.5, 0, "SIDEWAYS"}), "ArgumentError: InvalidArgumentValue");
  EXPECT_EQ(call("sign", {-3}), QueryValue(-1));
  EXPECT_EQ(call("sign", {0.0}), QueryValue(0));
  EXPECT_EQ(call("sign", {2.5}), QueryValue(1));
  EXPECT_EQ(call_error("sign", {true}), kTypeArg);
  EXPECT_EQ(call("isNaN", {kNaN}), QueryValue(true));
  EXPECT_EQ(call("isNaN", {1}), QueryValue(false));
  EXPECT_TRUE(call("isNaN", {nullptr}).is_null());
  EXPECT_EQ(call_error("isNaN", {"NaN"}), kTypeArg);
  EXPECT_EQ(call("sqrt", {16}), QueryValue(4.0));
  EXPECT_TRUE(std::isnan(call("sqrt", {-1}).as_double()));
  EXPECT_DOUBLE_EQ(call("exp", {1}).as_double(), std::numbers::e);
  EXPECT_DOUBLE_EQ(call("log", {std::numbers::e}).as_double(), 1.0);
  EXPECT_EQ(call("log", {0}), QueryValue(-kInf));
  EXPECT_EQ(call("log10", {100}), QueryValue(2.0));
  EXPECT_EQ(call("e", {}), QueryValue(std::numbers::e));
  EXPECT_EQ(call("pi", {}), QueryValue(std::numbers::pi));
  EXPECT_EQ(call("sin", {0}), QueryValue(0.0));
  EXPECT_EQ(call("cos", {0}), QueryValue(1.0));
  EXPECT_DOUBLE_EQ(call("tan", {std::numbers::pi / 4}).as_double(), 1.0);
  EXPECT_DOUBLE_EQ(call("cot", {std::numbers::pi / 4}).as_double(), 1.0);
  EXPECT_DOUBLE_EQ(call("asin", {1}).as_double(), std::numbers::pi / 2);
  EXPECT_DOUBLE_EQ(call("acos", {1}).as_double(), 0.0);
  EXPECT_DOUBLE_EQ(call("atan", {1}).as_double(), std::numbers::pi / 4);
  EXPECT_DOUBLE_EQ(call("atan2", {1, 1}).as_double(), std::numbers::pi / 4);
  EXPECT_TRUE(call("atan2", {nullptr, 1}).is_null());
  EXPECT_EQ(call("degrees", {std::numbers::pi}), QueryValue(180.0));
  EXPECT_EQ(call("radians", {180}), QueryValue(std::numbers::pi));
  EXPECT_DOUBLE_EQ(call("haversin", {std::numbers::pi}).as_double(), 1.0);
  for (const char* name : {"sqrt", "exp", "log", "log10", "sin", "cos", "tan", "cot", "asin", "acos", "atan", "degrees",
                           "radians", "haversin", "ceil", "floor"}) {
    EXPECT_TRUE(call(name, {nullptr}).is_null()) << name;
    EXPECT_EQ(call_error(name, {"1"}), kTypeArg) << name;
  }
}

TEST(Functions, NondeterministicOnesHaveTheirShapes) {
  const double r = call("rand", {}).as_double();
  EXPECT_GE(r, 0.0);
  EXPECT_LT(r, 1.0);
  const std::string uuid = call("randomUUID", {}).as_string();
  ASSERT_EQ(uuid.size(), 36U);
  EXPECT_EQ(uuid[8], '-');
  EXPECT_EQ(uuid[14], '4');
  EXPECT_NE(uuid, call("randomUUID", {}).as_string());
  EXPECT_GT(call("timestamp", {}).as_int(), std::int64_t{1'600'000'000'000});
}

// -- aggregations ----------------------------------------------------------------------------

TEST(Aggregations, Count) {
  EXPECT_EQ(aggregate("count", {1, nullptr, 1, "a"}), QueryValue(3));
  EXPECT_EQ(aggregate("count", {1, nullptr, 1.0, "a"}, true), QueryValue(2));
  EXPECT_EQ(aggregate("count", {}), QueryValue(0));
  auto star = q::make_aggregator("COUNT", false);
  star->add({});
  star->add({});
  EXPECT_EQ(star->result(), QueryValue(2));
}

TEST(Aggregations, Sum) {
  EXPECT_EQ(aggregate("sum", {1, 2, nullptr, 3}), QueryValue(6));
  EXPECT_EQ(aggregate("sum", {1, 2.5}), QueryValue(3.5));
  EXPECT_EQ(aggregate("sum", {1, 1, 2}, true), QueryValue(3));
  EXPECT_EQ(aggregate("sum", {}), QueryValue(0));
  EXPECT_EQ(aggregate("sum", {nullptr}), QueryValue(0));
  EXPECT_EQ(error_code([] { (void)aggregate("sum", {kMax, 1}); }), "ArithmeticError: IntegerOverflow");
  EXPECT_EQ(error_code([] { (void)aggregate("sum", {1, "a"}); }), kTypeArg);
}

TEST(Aggregations, Avg) {
  EXPECT_EQ(aggregate("avg", {1, 2, nullptr}), QueryValue(1.5));
  EXPECT_EQ(aggregate("avg", {2, 2, 5}, true), QueryValue(3.5));
  EXPECT_TRUE(aggregate("avg", {}).is_null());
  EXPECT_TRUE(aggregate("avg", {nullptr}).is_null());
  EXPECT_EQ(aggregate("avg", {kMax, kMax}), QueryValue(static_cast<double>(kMax)));  // past the int sum
  EXPECT_EQ(aggregate("avg", {1, 2.5, 3}), QueryValue(6.5 / 3));
  EXPECT_EQ(aggregate("avg", {0.1, 0.2, 0.3}), QueryValue((0.1 + 0.2 + 0.3) / 3));
  EXPECT_EQ(error_code([] { (void)aggregate("avg", {"a"}); }), kTypeArg);
}

TEST(Aggregations, MinAndMaxUseTheOrderByOrder) {
  EXPECT_EQ(aggregate("max", {1, 2, 0, nullptr, -1}), QueryValue(2));
  EXPECT_EQ(aggregate("min", {1, 2, 0, nullptr, -1}), QueryValue(-1));
  EXPECT_EQ(aggregate("max", {1, 2.0, 5, nullptr, 3.2, 0.1}), QueryValue(5));
  EXPECT_EQ(aggregate("min", {1, 2.0, 5, nullptr, 3.2, 0.1}), QueryValue(0.1));
  EXPECT_EQ(aggregate("max", {"a", "b", "B", nullptr, "abc", "abc1"}), QueryValue("b"));
  EXPECT_EQ(aggregate("min", {"a", "b", "B", nullptr, "abc", "abc1"}), QueryValue("B"));
  EXPECT_EQ(aggregate("max", {List{1}, List{2}, List{2, 1}}), QueryValue(List{2, 1}));
  EXPECT_EQ(aggregate("min", {List{1}, List{2}, List{2, 1}}), QueryValue(List{1}));
  EXPECT_EQ(aggregate("max", {1, "a", nullptr, List{1, 2}, 0.2, "b"}), QueryValue(1));
  EXPECT_EQ(aggregate("min", {1, "a", nullptr, List{1, 2}, 0.2, "b"}), QueryValue(List{1, 2}));
  EXPECT_EQ(aggregate("max", {1, 1}, true), QueryValue(1));
  EXPECT_TRUE(aggregate("min", {}).is_null());
  EXPECT_TRUE(aggregate("max", {nullptr}).is_null());
}

TEST(Aggregations, Collect) {
  EXPECT_EQ(aggregate("collect", {1, nullptr, "a", 1}), QueryValue(List{1, "a", 1}));
  EXPECT_EQ(aggregate("collect", {1, nullptr, "a", 1.0, List{1}, List{1}}, true), QueryValue(List{1, "a", List{1}}));
  EXPECT_EQ(aggregate("collect", {}), QueryValue(List{}));
}

TEST(Aggregations, StandardDeviation) {
  const List values{2, 4, 4, 4, 5, 5, 7, 9, nullptr};
  EXPECT_DOUBLE_EQ(aggregate("stDevP", values).as_double(), 2.0);
  EXPECT_DOUBLE_EQ(aggregate("stDev", values).as_double(), std::sqrt(32.0 / 7.0));
  EXPECT_DOUBLE_EQ(aggregate("stDevP", values, true).as_double(), std::sqrt(5.84));  // {2, 4, 5, 7, 9}: mean 5.4
  EXPECT_EQ(aggregate("stDev", {}), QueryValue(0.0));
  EXPECT_EQ(aggregate("stDev", {3}), QueryValue(0.0));
  EXPECT_EQ(aggregate("stDevP", {3}), QueryValue(0.0));
  EXPECT_EQ(error_code([] { (void)aggregate("stDev", {"a"}); }), kTypeArg);
}

TEST(Aggregations, Percentiles) {
  const List prices{10.0, 20.0, 30.0};
  for (const auto& [p, expected] : std::vector<std::pair<double, double>>{{0.0, 10.0}, {0.5, 20.0}, {1.0, 30.0}}) {
    EXPECT_EQ(aggregate("percentileDisc", prices, false, {p}), QueryValue(expected));
    EXPECT_EQ(aggregate("percentileCont", prices, false, {p}), QueryValue(expected));
  }
  EXPECT_EQ(aggregate("percentileCont", {1, 2, 3, 4}, false, {0.5}), QueryValue(2.5));
  EXPECT_EQ(aggregate("percentileDisc", {1, 2, 3, 4}, false, {0.5}), QueryValue(2));  // keeps the int
  EXPECT_EQ(aggregate("percentileDisc", {4, 3, 2, 1}, false, {0.9}), QueryValue(4));
  EXPECT_EQ(aggregate("percentileCont", {1, 1, 1, 5}, true, {0.5}), QueryValue(3.0));
  EXPECT_TRUE(aggregate("percentileCont", {}, false, {0.5}).is_null());
  EXPECT_TRUE(aggregate("percentileDisc", {nullptr}, false, {0.5}).is_null());
  for (double bad : {1000.0, -1.0, 1.1}) {
    EXPECT_EQ(error_code([&] { (void)aggregate("percentileCont", {10.0}, false, {bad}); }),
              "ArgumentError: NumberOutOfRange");
    EXPECT_EQ(error_code([&] { (void)aggregate("percentileDisc", {10.0}, false, {bad}); }),
              "ArgumentError: NumberOutOfRange");
  }
  EXPECT_EQ(error_code([] { (void)aggregate("percentileDisc", {"a"}, false, {0.5}); }), kTypeArg);
}

TEST(Aggregations, TheNeo4jManualExamples) {
  const List ages{58, 70, 55, 55, 71};
  EXPECT_EQ(aggregate("sum", ages), QueryValue(309));
  EXPECT_DOUBLE_EQ(aggregate("avg", ages).as_double(), 61.8);
  EXPECT_DOUBLE_EQ(aggregate("percentileCont", ages, false, {0.4}).as_double(), 56.8);
  EXPECT_EQ(aggregate("percentileDisc", ages, false, {0.5}), QueryValue(58));
  EXPECT_EQ(aggregate("max", ages), QueryValue(71));
  EXPECT_DOUBLE_EQ(aggregate("stDev", {58, 70, 55}).as_double(), 7.937253933193772);
  EXPECT_DOUBLE_EQ(aggregate("stDevP", {58, 70, 55}).as_double(), 6.48074069840786);
  const List mixed{1, "a", nullptr, 0.2, "b", "1", "99"};
  EXPECT_EQ(aggregate("max", mixed), QueryValue(1));
  EXPECT_EQ(aggregate("min", mixed), QueryValue("1"));
  EXPECT_EQ(aggregate("max", {List{1, "a", 89}, List{1, 2}}), QueryValue(List{1, 2}));
  EXPECT_EQ(aggregate("min", {"d", List{1, 2}, List{"a", "c", 23}}), QueryValue(List{"a", "c", 23}));
}

TEST(Aggregations, UnknownNamesAreRefused) {
  EXPECT_THROW((void)q::make_aggregator("size", false), InvalidArgument);
  EXPECT_THROW((void)q::make_aggregator("nope", false), InvalidArgument);
  EXPECT_NE(q::make_aggregator("PercentileCont", false), nullptr);
}

}  // namespace
