// The value model: Value, Properties, ElementId, labels and the {fmt} formatters.
#include "propgraph/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "propgraph/errors.hpp"
#include "propgraph/fmt.hpp"
#include "propgraph/operations.hpp"

namespace propgraph {
// Readable failure messages.
void PrintTo(const Value& v, std::ostream* os) { *os << fmt::format("{}", v); }
void PrintTo(const Properties& v, std::ostream* os) { *os << fmt::format("{}", v); }
void PrintTo(const ElementId& v, std::ostream* os) { *os << fmt::format("{}", v); }
}  // namespace propgraph

namespace {

using propgraph::Component;
using propgraph::Cycle;
using propgraph::Degree;
using propgraph::Direction;
using propgraph::Edge;
using propgraph::ElementId;
using propgraph::InvalidArgument;
using propgraph::NotFound;
using propgraph::PageRankScore;
using propgraph::Path;
using propgraph::Properties;
using propgraph::Value;
using propgraph::ValueList;
using propgraph::ValueType;
using propgraph::Vertex;
using propgraph::Visit;

/// The message of the InvalidArgument that `f` throws, or nullopt when it throws nothing.
template <typename F>
std::optional<std::string> invalid_argument_message(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return std::nullopt;
}

// -- Value ------------------------------------------------------------------------------------

TEST(Value, DefaultAndNullptrAreNull) {
  EXPECT_TRUE(Value().is_null());
  EXPECT_TRUE(Value(nullptr).is_null());
  EXPECT_EQ(Value(), Value(nullptr));
  EXPECT_EQ(Value().type(), ValueType::null);
}

TEST(Value, ConstructorsPickTheType) {
  EXPECT_EQ(Value(true).type(), ValueType::boolean);
  EXPECT_EQ(Value(30).type(), ValueType::integer);
  EXPECT_EQ(Value(std::int16_t{30}).type(), ValueType::integer);
  EXPECT_EQ(Value(30U).type(), ValueType::integer);
  EXPECT_EQ(Value(30LL).type(), ValueType::integer);
  EXPECT_EQ(Value(30.0).type(), ValueType::real);
  EXPECT_EQ(Value(30.0F).type(), ValueType::real);
  EXPECT_EQ(Value("30").type(), ValueType::string);
  EXPECT_EQ(Value(std::string("30")).type(), ValueType::string);
  EXPECT_EQ(Value(std::string_view("30")).type(), ValueType::string);
  EXPECT_EQ(Value::list({1, "two"}).type(), ValueType::list);
  EXPECT_EQ(Value(ValueList{}).type(), ValueType::list);
  EXPECT_TRUE(Value(30).is_number());
  EXPECT_TRUE(Value(30.0).is_number());
  EXPECT_FALSE(Value("30").is_number());
  EXPECT_FALSE(Value(true).is_number());
}

TEST(Value, EqualityIsTyped) {
  EXPECT_NE(Value(30), Value(30.0));
  EXPECT_NE(Value("30"), Value(30));
  EXPECT_NE(Value("30"), Value(30.0));
  EXPECT_NE(Value(true), Value(1));
  EXPECT_NE(Value(false), Value(0));
  EXPECT_NE(Value(), Value(0));
  EXPECT_NE(Value(), Value(""));
  EXPECT_NE(Value(), Value(ValueList{}));
  EXPECT_EQ(Value(30), Value(30));
  EXPECT_EQ(Value(30), Value(std::uint8_t{30}));  // every integral width is int64
  EXPECT_EQ(Value(0.5F), Value(0.5));
  EXPECT_EQ(Value("a"), Value(std::string("a")));
  EXPECT_EQ(Value::list({1, "two", Value::list({3.0})}), Value::list({1, "two", Value::list({3.0})}));
  EXPECT_NE(Value::list({1, 2}), Value::list({1.0, 2.0}));
  EXPECT_NE(Value::list({1, 2}), Value::list({2, 1}));
}

TEST(Value, UnsignedAboveInt64MaxThrows) {
  constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(Value(max).as_int(), std::numeric_limits<std::int64_t>::max());
  EXPECT_THROW(Value(max + 1), InvalidArgument);
  EXPECT_THROW(Value(std::numeric_limits<std::uint64_t>::max()), InvalidArgument);
  EXPECT_EQ(Value(std::numeric_limits<std::int64_t>::min()).as_int(), std::numeric_limits<std::int64_t>::min());
}

// Characters are not values (they used to become the bool true): a Value, a Properties entry and
// a property of create_vertex refuse every character type at compile time. Each concept holds
// for strings and integers, so the negative checks are not vacuous. (tests/CMakeLists.txt also
// compiles model/char_value_compile_fail.cpp and expects the compiler to refuse it.)
template <class C>
concept value_from = requires(C c) {
  { Value(c) } -> std::same_as<Value>;
};
template <class C>
concept properties_entry_from = requires(C c) {
  Properties{{"initial", c}};
};
template <class C>
concept vertex_property_from = requires(propgraph::GraphOperations& g, C c) {
  g.create_vertex("Person", {{"grade", c}});
};

static_assert(!value_from<char> && !value_from<wchar_t> && !value_from<char8_t> && !value_from<char16_t> &&
              !value_from<char32_t> && !value_from<const char&>);
static_assert(!std::is_convertible_v<char, Value>);
static_assert(!properties_entry_from<char>);
static_assert(!vertex_property_from<char>);
static_assert(value_from<const char*> && value_from<int> && value_from<bool> && value_from<double>);
static_assert(properties_entry_from<const char*> && properties_entry_from<int>);
static_assert(vertex_property_from<const char*> && vertex_property_from<std::int64_t>);
// signed char and unsigned char are small integers, not characters.
static_assert(value_from<signed char> && value_from<unsigned char> && properties_entry_from<unsigned char>);

TEST(Value, SignedAndUnsignedCharAreIntegers) {
  EXPECT_EQ(Value(static_cast<signed char>(65)), Value(65));
  EXPECT_EQ(Value(static_cast<signed char>(-1)), Value(-1));
  EXPECT_EQ(Value(static_cast<unsigned char>(200)), Value(200));
  EXPECT_EQ(Value(static_cast<unsigned char>(200)).type(), ValueType::integer);
}

TEST(Value, AccessorsReturnTheHeldValue) {
  EXPECT_TRUE(Value(true).as_bool());
  EXPECT_EQ(Value(-7).as_int(), -7);
  EXPECT_EQ(Value(2.5).as_double(), 2.5);
  EXPECT_EQ(Value("x").as_string(), "x");
  EXPECT_EQ(Value::list({1, "two"}).as_list(), (ValueList{1, "two"}));
  EXPECT_EQ(Value(30).as_number(), 30.0);
  EXPECT_EQ(Value(2.5).as_number(), 2.5);
  ASSERT_NE(Value(30).get_if<std::int64_t>(), nullptr);
  EXPECT_EQ(*Value(30).get_if<std::int64_t>(), 30);
  EXPECT_EQ(Value(30).get_if<double>(), nullptr);
  EXPECT_EQ(Value(30).get_if<std::string>(), nullptr);
}

TEST(Value, AccessorsThrowInvalidArgumentNamingBothTypes) {
  EXPECT_THROW((void)Value(30).as_double(), InvalidArgument);
  EXPECT_THROW((void)Value(30.0).as_int(), InvalidArgument);
  EXPECT_THROW((void)Value(1).as_bool(), InvalidArgument);
  EXPECT_THROW((void)Value().as_string(), InvalidArgument);
  EXPECT_THROW((void)Value("x").as_list(), InvalidArgument);
  EXPECT_THROW((void)Value("30").as_number(), InvalidArgument);
  EXPECT_THROW((void)Value(true).as_number(), InvalidArgument);
  EXPECT_THROW((void)Value().as_number(), InvalidArgument);

  const auto message = invalid_argument_message([] { (void)Value(30).as_string(); });
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("string"), std::string::npos) << *message;
  EXPECT_NE(message->find("int"), std::string::npos) << *message;
  const auto list_message = invalid_argument_message([] { (void)Value(2.5).as_list(); });
  ASSERT_TRUE(list_message);
  EXPECT_NE(list_message->find("list"), std::string::npos) << *list_message;
  EXPECT_NE(list_message->find("double"), std::string::npos) << *list_message;
}

TEST(Value, InvalidArgumentIsAPropgraphError) {
  try {
    (void)Value(30).as_string();
    FAIL() << "no exception";
  } catch (const propgraph::Error& e) {
    EXPECT_NE(dynamic_cast<const InvalidArgument*>(&e), nullptr);
  }
}

TEST(Value, TypeNames) {
  EXPECT_EQ(propgraph::to_string(ValueType::null), "null");
  EXPECT_EQ(propgraph::to_string(ValueType::boolean), "bool");
  EXPECT_EQ(propgraph::to_string(ValueType::integer), "int");
  EXPECT_EQ(propgraph::to_string(ValueType::real), "double");
  EXPECT_EQ(propgraph::to_string(ValueType::string), "string");
  EXPECT_EQ(propgraph::to_string(ValueType::list), "list");
}

// -- Properties -------------------------------------------------------------------------------

std::vector<std::string> keys(const Properties& p) {
  std::vector<std::string> out;
  for (const auto& [key, value] : p) out.push_back(key);
  return out;
}

TEST(Properties, KeptSortedByKeyWithLaterDuplicatesWinning) {
  const Properties p{{"name", "Alice"}, {"age", 30}, {"name", "Alicia"}};
  EXPECT_EQ(p.size(), 2u);
  EXPECT_EQ(keys(p), (std::vector<std::string>{"age", "name"}));
  EXPECT_EQ(p["name"], Value("Alicia"));
  const Properties from_vector(std::vector<Properties::Entry>{{"b", 1}, {"a", 2}, {"b", 3}});
  EXPECT_EQ(keys(from_vector), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(from_vector["b"], Value(3));
}

TEST(Properties, Lookup) {
  const Properties p{{"age", 30}};
  ASSERT_NE(p.find("age"), nullptr);
  EXPECT_EQ(*p.find("age"), Value(30));
  EXPECT_EQ(p.find("name"), nullptr);
  EXPECT_TRUE(p.contains("age"));
  EXPECT_FALSE(p.contains("name"));
  EXPECT_TRUE(p["name"].is_null());
  EXPECT_EQ(p.at("age"), Value(30));
  EXPECT_THROW((void)p.at("name"), NotFound);
  EXPECT_TRUE(Properties().empty());
  EXPECT_TRUE(Properties()["x"].is_null());
  EXPECT_EQ(Properties().begin(), Properties().end());
}

TEST(Properties, SetAndErase) {
  Properties p;
  p.set("b", 2);
  p.set("a", 1);
  p.set("b", "two");
  EXPECT_EQ(keys(p), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p["b"], Value("two"));
  p.set("n", nullptr);  // set stores a null as null
  EXPECT_TRUE(p.contains("n"));
  EXPECT_TRUE(p["n"].is_null());
  EXPECT_TRUE(p.erase("n"));
  EXPECT_FALSE(p.erase("n"));
  EXPECT_EQ(p, (Properties{{"a", 1}, {"b", "two"}}));
}

TEST(Properties, CopiesAreIndependent) {
  const Properties original{{"name", "Alice"}, {"age", 30}};
  Properties copy = original;
  copy.set("age", 31);
  EXPECT_EQ(original["age"], Value(30));
  EXPECT_EQ(copy["age"], Value(31));

  Properties erased = original;
  EXPECT_TRUE(erased.erase("name"));
  EXPECT_TRUE(original.contains("name"));

  Properties merged = original;
  merged.merge({{"name", nullptr}, {"city", "Paris"}});
  EXPECT_EQ(original, (Properties{{"name", "Alice"}, {"age", 30}}));

  // Mutating the source after copying leaves the copy alone too.
  Properties source{{"k", 1}};
  const Properties snapshot = source;
  source.set("k", 2);
  source.set("extra", true);
  EXPECT_EQ(snapshot, (Properties{{"k", 1}}));

  // Copies of copies.
  Properties first = original;
  Properties second = first;
  second.set("age", 99);
  EXPECT_EQ(first["age"], Value(30));
  EXPECT_EQ(original["age"], Value(30));
}

TEST(Properties, MergeSetsValuesAndNullRemoves) {
  Properties p{{"a", 1}, {"b", 2}, {"c", 3}};
  p.merge({{"b", 20}, {"c", nullptr}, {"d", 4}, {"e", nullptr}});
  EXPECT_EQ(p, (Properties{{"a", 1}, {"b", 20}, {"d", 4}}));
  EXPECT_FALSE(p.contains("c"));
  EXPECT_FALSE(p.contains("e"));  // a null for an absent key adds nothing
  Properties empty;
  empty.merge({{"x", 1.5}, {"y", nullptr}});
  EXPECT_EQ(empty, (Properties{{"x", 1.5}}));
  p.merge({});
  EXPECT_EQ(p, (Properties{{"a", 1}, {"b", 20}, {"d", 4}}));
}

TEST(Properties, MatchesWithTypedEquality) {
  const Properties p{{"name", "Alice"}, {"age", 30}};
  EXPECT_TRUE(p.matches({}));
  EXPECT_TRUE(Properties().matches({}));
  EXPECT_TRUE(p.matches({{"age", 30}}));
  EXPECT_TRUE(p.matches({{"age", 30}, {"name", "Alice"}}));
  EXPECT_FALSE(p.matches({{"age", 30.0}}));
  EXPECT_FALSE(p.matches({{"age", "30"}}));
  EXPECT_FALSE(p.matches({{"age", 30}, {"name", "Bob"}}));
  EXPECT_FALSE(p.matches({{"city", "Paris"}}));
  // A null filter value means "key absent".
  EXPECT_TRUE(p.matches({{"city", nullptr}}));
  EXPECT_TRUE(p.matches({{"city", nullptr}, {"age", 30}}));
  EXPECT_FALSE(p.matches({{"age", nullptr}}));
  EXPECT_TRUE(Properties().matches({{"city", nullptr}}));
  EXPECT_FALSE(Properties().matches({{"city", "Paris"}}));
}

TEST(Properties, EqualityIgnoresHowTheMapWasBuilt) {
  EXPECT_EQ((Properties{{"a", 1}, {"b", 2}}), (Properties{{"b", 2}, {"a", 1}}));
  EXPECT_NE((Properties{{"a", 1}}), (Properties{{"a", 1.0}}));
  EXPECT_NE((Properties{{"a", 1}}), (Properties{{"a", 1}, {"b", 2}}));
  Properties emptied{{"a", 1}};
  emptied.erase("a");
  EXPECT_EQ(emptied, Properties());
  EXPECT_EQ(Properties(), Properties{});
  EXPECT_EQ(Properties(std::vector<Properties::Entry>{}), Properties());
}

TEST(Properties, ValidatePropertiesRejectsEmptyKeys) {
  EXPECT_NO_THROW(propgraph::validate_properties({{"a", 1}, {"b", nullptr}}));
  EXPECT_NO_THROW(propgraph::validate_properties({}));
  EXPECT_THROW(propgraph::validate_properties({{"", 1}}), InvalidArgument);
}

// -- ElementId --------------------------------------------------------------------------------

TEST(ElementId, OrderingIsShortlex) {
  EXPECT_LT(ElementId("b"), ElementId("aa"));  // shorter first
  EXPECT_LT(ElementId("g1:v9"), ElementId("g1:v10"));
  EXPECT_LT(ElementId("abc"), ElementId("abd"));  // then bytewise
  EXPECT_LT(ElementId(""), ElementId("a"));
  EXPECT_FALSE(ElementId("aa") < ElementId("b"));
  EXPECT_EQ(ElementId("x") <=> ElementId("x"), std::strong_ordering::equal);
  EXPECT_EQ(ElementId("zz") <=> ElementId("aaa"), std::strong_ordering::less);
  std::vector<ElementId> ids{ElementId("v10"), ElementId("v2"), ElementId("v1"), ElementId("v100"), ElementId("w1")};
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<ElementId>{ElementId("v1"), ElementId("v2"), ElementId("w1"), ElementId("v10"),
                                         ElementId("v100")}));
}

TEST(ElementId, EqualityAndStringRoundTrip) {
  const ElementId id("g3:v17");
  EXPECT_EQ(id.str(), "g3:v17");
  EXPECT_EQ(ElementId(id.str()), id);
  EXPECT_EQ(ElementId(std::string_view("g3:v17")), id);
  EXPECT_EQ(ElementId(std::string("g3:v17")), id);
  EXPECT_NE(ElementId("g3:v17"), ElementId("g3:v18"));
  EXPECT_TRUE(ElementId().empty());
  EXPECT_TRUE(ElementId("").empty());
  EXPECT_FALSE(id.empty());
}

TEST(ElementId, LongIdsBehaveLikeShortOnes) {
  // Lengths around any small-string boundary: equality, copies, ordering and hash by content.
  std::vector<ElementId> ids;
  for (std::size_t n : {0U, 1U, 15U, 16U, 22U, 23U, 24U, 25U, 31U, 32U, 64U, 200U}) {
    const std::string text(n, 'x');
    const ElementId id(text);
    EXPECT_EQ(id.str(), text);
    EXPECT_EQ(id.str().size(), n);
    const ElementId copy = id;
    EXPECT_EQ(copy, id);
    EXPECT_EQ(ElementId(std::string(id.str())), id);
    EXPECT_EQ(std::hash<ElementId>{}(copy), std::hash<std::string>{}(text));
    ElementId assigned("short");
    assigned = id;
    EXPECT_EQ(assigned.str(), text);
    ElementId moved_from = id;
    const ElementId moved = std::move(moved_from);
    EXPECT_EQ(moved, id);
    ids.push_back(id);
  }
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  EXPECT_NE(ElementId(std::string(24, 'x')), ElementId(std::string(24, 'y')));
  EXPECT_LT(ElementId(std::string(24, 'x')), ElementId(std::string(24, 'y')));
  EXPECT_LT(ElementId(std::string(23, 'z')), ElementId(std::string(24, 'a')));
  // Embedded NULs are part of the id.
  EXPECT_NE(ElementId(std::string_view("a\0b", 3)), ElementId(std::string_view("a\0c", 3)));
  EXPECT_EQ(ElementId(std::string_view("a\0b", 3)).str().size(), 3u);
}

TEST(ElementId, HashIsTheStringHash) {
  const ElementId id("g3:v17");
  EXPECT_EQ(std::hash<ElementId>{}(id), std::hash<std::string>{}("g3:v17"));
  EXPECT_EQ(std::hash<ElementId>{}(id), std::hash<ElementId>{}(ElementId("g3:v17")));
  std::unordered_set<ElementId> set{ElementId("a"), ElementId("b"), ElementId("a")};
  EXPECT_EQ(set.size(), 2u);
  EXPECT_TRUE(set.contains(ElementId("b")));
  EXPECT_FALSE(set.contains(ElementId("c")));
}

// -- labels -----------------------------------------------------------------------------------

TEST(Labels, ValidLabels) {
  for (std::string_view label : {"Person", "KNOWS", "a", "_", "_x9", "A1_b2"}) {
    EXPECT_TRUE(propgraph::is_valid_label(label)) << label;
    EXPECT_NO_THROW(propgraph::validate_label(label)) << label;
  }
  const std::string longest(63, 'a');
  EXPECT_TRUE(propgraph::is_valid_label(longest));
}

TEST(Labels, InvalidLabels) {
  const std::vector<std::string> invalid{"",
                                         "1a",
                                         "9",
                                         "a b",
                                         " a",
                                         "a ",
                                         "a-b",
                                         "a.b",
                                         "Pérson",
                                         "a\n",
                                         "a\tb",
                                         std::string(64, 'a'),
                                         std::string("a\0b", 3)};
  for (const auto& label : invalid) {
    EXPECT_FALSE(propgraph::is_valid_label(label)) << '"' << label << '"';
    EXPECT_THROW(propgraph::validate_label(label), InvalidArgument) << '"' << label << '"';
  }
}

TEST(Labels, ValidateLabelNamesTheArgument) {
  const auto message = invalid_argument_message([] { propgraph::validate_label("bad label", "edge label"); });
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("edge label"), std::string::npos) << *message;
}

// -- records ----------------------------------------------------------------------------------

TEST(Records, PathLengthAndDegreeTotal) {
  EXPECT_EQ(Path{}.length(), 0u);
  Path p;
  p.vertices = {Vertex{ElementId("v1"), "N", {}}, Vertex{ElementId("v2"), "N", {}}};
  p.edges = {Edge{ElementId("e1"), "L", ElementId("v1"), ElementId("v2"), {}}};
  EXPECT_EQ(p.length(), 1u);
  EXPECT_EQ((Degree{ElementId("v1"), 2, 3}).total(), 5);
  const Visit start{Vertex{ElementId("v1"), "N", {}}};
  EXPECT_EQ(start.depth, 0);
  EXPECT_FALSE(start.parent);
}

// -- {fmt} ------------------------------------------------------------------------------------

TEST(Format, Scalars) {
  EXPECT_EQ(fmt::format("{}", Value()), "null");
  EXPECT_EQ(fmt::format("{}", Value(true)), "true");
  EXPECT_EQ(fmt::format("{}", Value(false)), "false");
  EXPECT_EQ(fmt::format("{}", Value(30)), "30");
  EXPECT_EQ(fmt::format("{}", Value(-7)), "-7");
  EXPECT_EQ(fmt::format("{}", Value(30.0)), "30.0");
  EXPECT_EQ(fmt::format("{}", Value(2.5)), "2.5");
  EXPECT_EQ(fmt::format("{}", Value(0.1)), "0.1");
  EXPECT_EQ(fmt::format("{}", Value(-3.0)), "-3.0");
  EXPECT_EQ(fmt::format("{}", Value(1e20)), "1e+20");
  EXPECT_EQ(fmt::format("{}", Value(std::numeric_limits<double>::infinity())), "inf");
}

TEST(Format, StringsAreQuotedAndEscaped) {
  EXPECT_EQ(fmt::format("{}", Value("Alice")), "\"Alice\"");
  EXPECT_EQ(fmt::format("{}", Value("")), "\"\"");
  EXPECT_EQ(fmt::format("{}", Value("a\"b")), "\"a\\\"b\"");
  EXPECT_EQ(fmt::format("{}", Value("a\\b")), "\"a\\\\b\"");
  EXPECT_EQ(fmt::format("{}", Value("line\nnext\ttab\r")), "\"line\\nnext\\ttab\\r\"");
  EXPECT_EQ(fmt::format("{}", Value(std::string("\x01x\x1f", 3))), "\"\\x01x\\x1f\"");
  EXPECT_EQ(fmt::format("{}", Value("30")), "\"30\"");
}

TEST(Format, Lists) {
  EXPECT_EQ(fmt::format("{}", Value(ValueList{})), "[]");
  EXPECT_EQ(fmt::format("{}", Value::list({1, "two", 3.0, nullptr, Value::list({true})})),
            "[1, \"two\", 3.0, null, [true]]");
}

TEST(Format, ValueRejectsFormatSpecs) {
  EXPECT_THROW((void)fmt::format(fmt::runtime("{:x}"), Value(1)), fmt::format_error);
  EXPECT_THROW((void)fmt::format(fmt::runtime("{:>5}"), Properties()), fmt::format_error);
}

TEST(Format, PropertiesSortedByKey) {
  EXPECT_EQ(fmt::format("{}", Properties()), "{}");
  EXPECT_EQ(fmt::format("{}", Properties{{"name", "Alice"}, {"age", 30}}), "{age: 30, name: \"Alice\"}");
  EXPECT_EQ(fmt::format("{}", Properties{{"w", 1.0}, {"tags", Value::list({"x"})}}), "{tags: [\"x\"], w: 1.0}");
}

TEST(Format, IdsDirectionsAndTypes) {
  EXPECT_EQ(fmt::format("{}", ElementId("g1:v1")), "g1:v1");
  EXPECT_EQ(fmt::format("[{:>4}]", ElementId("v1")), "[  v1]");  // string specs apply
  EXPECT_EQ(fmt::format("{}", Direction::out), "out");
  EXPECT_EQ(fmt::format("{}", Direction::in), "in");
  EXPECT_EQ(fmt::format("{}", Direction::both), "both");
  EXPECT_EQ(fmt::format("{}", ValueType::integer), "int");
  EXPECT_EQ(fmt::format("{}", ValueType::real), "double");
}

TEST(Format, VertexAndEdge) {
  const Vertex alice{ElementId("v1"), "Person", {{"name", "Alice"}, {"age", 30}}};
  EXPECT_EQ(fmt::format("{}", alice), "(v1:Person {age: 30, name: \"Alice\"})");
  EXPECT_EQ(fmt::format("{}", Vertex{ElementId("v2"), "Thing", {}}), "(v2:Thing {})");
  const Edge knows{ElementId("e1"), "KNOWS", ElementId("v1"), ElementId("v2"), {{"since", 2020}}};
  EXPECT_EQ(fmt::format("{}", knows), "[e1:KNOWS v1->v2 {since: 2020}]");
}

Path sample_path() {
  Path p;
  p.vertices = {Vertex{ElementId("v1"), "P", {}}, Vertex{ElementId("v2"), "P", {}}, Vertex{ElementId("v3"), "P", {}}};
  p.edges = {Edge{ElementId("e1"), "KNOWS", ElementId("v1"), ElementId("v2"), {}},
             Edge{ElementId("e2"), "FOLLOWS", ElementId("v3"), ElementId("v2"), {}}};
  return p;
}

TEST(Format, Paths) {
  EXPECT_EQ(fmt::format("{}", sample_path()), "v1 -KNOWS-> v2 <-FOLLOWS- v3 (2 edges)");
  Path one = sample_path();
  one.vertices.pop_back();
  one.edges.pop_back();
  EXPECT_EQ(fmt::format("{}", one), "v1 -KNOWS-> v2 (1 edge)");
  Path single;
  single.vertices = {Vertex{ElementId("v1"), "P", {}}};
  EXPECT_EQ(fmt::format("{}", single), "v1 (0 edges)");
  EXPECT_EQ(fmt::format("{}", Path{}), "(empty path)");
}

TEST(Format, AlgorithmResults) {
  const Vertex v1{ElementId("v1"), "P", {}};
  const Vertex v2{ElementId("v2"), "P", {}};
  const Vertex v3{ElementId("v3"), "P", {}};
  EXPECT_EQ(fmt::format("{}", PageRankScore{v1, 0.4321}), "v1 0.432100");
  EXPECT_EQ(fmt::format("{}", Degree{ElementId("v1"), 1, 2}), "v1 in=1 out=2 total=3");
  EXPECT_EQ(fmt::format("{}", Component{0, {v1, v2, v3}}), "component 0: [v1, v2, v3]");
  EXPECT_EQ(fmt::format("{}", Component{2, {}}), "component 2: []");
  EXPECT_EQ(fmt::format("{}", Visit{v1, 0, std::nullopt}), "depth 0: v1");
  EXPECT_EQ(fmt::format("{}", Visit{v2, 1, ElementId("v1")}), "depth 1: v2 (from v1)");
  Path loop;
  loop.vertices = {v1, v2, v1};
  loop.edges = {Edge{ElementId("e1"), "KNOWS", ElementId("v1"), ElementId("v2"), {}},
                Edge{ElementId("e2"), "KNOWS", ElementId("v2"), ElementId("v1"), {}}};
  EXPECT_EQ(fmt::format("{}", Cycle{loop}), "cycle v1 -KNOWS-> v2 -KNOWS-> v1 (2 edges)");
}

}  // namespace
