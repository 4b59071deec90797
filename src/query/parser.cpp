// The openCypher parser: a PEGTL grammar (namespace grammar) builds a parse tree of the rules
// the converter (class TreeBuilder) needs, which then turns it into the syntax tree of ast.hpp.
//
// Robustness: every recursion of the grammar passes through a rule marked `nesting` (expression,
// parenthesised pattern element), whose depth the control bounds; a budget on how often those
// rules start bounds the backtracking too, so no input exhausts the stack or the clock.
#include "query/parser.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <tao/pegtl.hpp>
#include <tao/pegtl/contrib/parse_tree.hpp>

#include "propgraph/errors.hpp"

namespace propgraph::query {
namespace {

namespace pegtl = tao::pegtl;

constexpr int kMaxNesting = 256;

/// A syntax error the grammar decides itself (a malformed literal), thrown out of the parse.
struct LiteralError {
  std::string code;
  std::string message;
  std::size_t offset;
};

/// What the parse of one statement tracks beside the tree: the farthest position where a named
/// rule failed and the names expected there, the nesting depth and the work done.
struct ParseContext {
  const char* begin = nullptr;  // the statement text
  std::size_t farthest = 0;
  std::vector<std::string_view> expected;
  int depth = 0;
  std::size_t work = 0;
  std::size_t work_limit = 0;

  [[nodiscard]] std::size_t offset(const char* at) const { return static_cast<std::size_t>(at - begin); }
};

thread_local ParseContext* current_context = nullptr;

[[noreturn]] void throw_literal_error(std::string code, std::string message, const char* at) {
  throw LiteralError{std::move(code), std::move(message), current_context->offset(at)};
}

// ---------------------------------------------------------------------------------------------
// The grammar. Tokens consume the whitespace (and comments) after them; rules with an
// `expected` name are reported in syntax errors.
namespace grammar {
using namespace pegtl;  // NOLINT(google-build-using-namespace)

// --- Lexical ---------------------------------------------------------------------------------

struct line_comment : seq<two<'/'>, until<eolf>> {};
struct block_comment : seq<string<'/', '*'>, until<string<'*', '/'>>> {};
struct ws : star<sor<plus<space>, line_comment, block_comment>> {};

struct identifier_start : ranges<'a', 'z', 'A', 'Z', '_'> {};
struct identifier_char : ranges<'a', 'z', 'A', 'Z', '0', '9', '_'> {};
struct plain_name : seq<identifier_start, star<identifier_char>> {};
struct quoted_name : seq<one<'`'>, star<sor<two<'`'>, not_one<'`'>>>, one<'`'>> {};
struct symbolic_name : sor<quoted_name, plain_name> {
  static constexpr std::string_view expected = "an identifier";
};
struct name : seq<symbolic_name, ws> {};

template <typename Text>
struct keyword : seq<Text, not_at<identifier_char>, ws> {};

#define PROPGRAPH_KEYWORD(id, text)                    \
  struct kw_##id : keyword<TAO_PEGTL_ISTRING(text)> {  \
    static constexpr std::string_view expected = text; \
  }

PROPGRAPH_KEYWORD(all, "ALL");
PROPGRAPH_KEYWORD(and_, "AND");
PROPGRAPH_KEYWORD(any, "ANY");
PROPGRAPH_KEYWORD(as, "AS");
PROPGRAPH_KEYWORD(asc, "ASC");
PROPGRAPH_KEYWORD(ascending, "ASCENDING");
PROPGRAPH_KEYWORD(by, "BY");
PROPGRAPH_KEYWORD(call, "CALL");
PROPGRAPH_KEYWORD(case_, "CASE");
PROPGRAPH_KEYWORD(contains, "CONTAINS");
PROPGRAPH_KEYWORD(count, "COUNT");
PROPGRAPH_KEYWORD(create, "CREATE");
PROPGRAPH_KEYWORD(delete_, "DELETE");
PROPGRAPH_KEYWORD(desc, "DESC");
PROPGRAPH_KEYWORD(descending, "DESCENDING");
PROPGRAPH_KEYWORD(detach, "DETACH");
PROPGRAPH_KEYWORD(distinct, "DISTINCT");
PROPGRAPH_KEYWORD(else_, "ELSE");
PROPGRAPH_KEYWORD(end, "END");
PROPGRAPH_KEYWORD(ends, "ENDS");
PROPGRAPH_KEYWORD(exists, "EXISTS");
PROPGRAPH_KEYWORD(explain, "EXPLAIN");
PROPGRAPH_KEYWORD(false_, "FALSE");
PROPGRAPH_KEYWORD(in, "IN");
PROPGRAPH_KEYWORD(is, "IS");
PROPGRAPH_KEYWORD(limit, "LIMIT");
PROPGRAPH_KEYWORD(match, "MATCH");
PROPGRAPH_KEYWORD(merge, "MERGE");
PROPGRAPH_KEYWORD(none, "NONE");
PROPGRAPH_KEYWORD(not_, "NOT");
PROPGRAPH_KEYWORD(null, "NULL");
PROPGRAPH_KEYWORD(on, "ON");
PROPGRAPH_KEYWORD(optional, "OPTIONAL");
PROPGRAPH_KEYWORD(or_, "OR");
PROPGRAPH_KEYWORD(order, "ORDER");
PROPGRAPH_KEYWORD(profile, "PROFILE");
PROPGRAPH_KEYWORD(reduce, "REDUCE");
PROPGRAPH_KEYWORD(remove, "REMOVE");
PROPGRAPH_KEYWORD(return_, "RETURN");
PROPGRAPH_KEYWORD(set, "SET");
PROPGRAPH_KEYWORD(single, "SINGLE");
PROPGRAPH_KEYWORD(skip, "SKIP");
PROPGRAPH_KEYWORD(starts, "STARTS");
PROPGRAPH_KEYWORD(then, "THEN");
PROPGRAPH_KEYWORD(true_, "TRUE");
PROPGRAPH_KEYWORD(union_, "UNION");
PROPGRAPH_KEYWORD(unwind, "UNWIND");
PROPGRAPH_KEYWORD(when, "WHEN");
PROPGRAPH_KEYWORD(where, "WHERE");
PROPGRAPH_KEYWORD(with, "WITH");
PROPGRAPH_KEYWORD(xor_, "XOR");
PROPGRAPH_KEYWORD(yield, "YIELD");
PROPGRAPH_KEYWORD(shortest_path, "shortestPath");
PROPGRAPH_KEYWORD(all_shortest_paths, "allShortestPaths");
#undef PROPGRAPH_KEYWORD

/// A punctuation token; `Not` lists the characters that must not follow it (`<` is not `<=`).
template <typename Text, char... Not>
struct punct_rule : seq<Text, not_at<one<Not...>>, ws> {};
template <typename Text>
struct punct_rule<Text> : seq<Text, ws> {};

#define PROPGRAPH_PUNCT(id, text, ...)                                        \
  struct id : punct_rule<TAO_PEGTL_STRING(text) __VA_OPT__(, ) __VA_ARGS__> { \
    static constexpr std::string_view expected = "'" text "'";                \
  }

PROPGRAPH_PUNCT(lparen, "(");
PROPGRAPH_PUNCT(rparen, ")");
PROPGRAPH_PUNCT(lbracket, "[");
PROPGRAPH_PUNCT(rbracket, "]");
PROPGRAPH_PUNCT(lbrace, "{");
PROPGRAPH_PUNCT(rbrace, "}");
PROPGRAPH_PUNCT(comma, ",");
PROPGRAPH_PUNCT(colon, ":");
PROPGRAPH_PUNCT(pipe, "|");
PROPGRAPH_PUNCT(dot, ".", '.');
PROPGRAPH_PUNCT(range_dots, "..");
PROPGRAPH_PUNCT(semicolon, ";");
PROPGRAPH_PUNCT(dollar, "$");
PROPGRAPH_PUNCT(op_eq, "=", '~');
PROPGRAPH_PUNCT(op_ne, "<>");
PROPGRAPH_PUNCT(op_le, "<=");
PROPGRAPH_PUNCT(op_ge, ">=");
PROPGRAPH_PUNCT(op_lt, "<");
PROPGRAPH_PUNCT(op_gt, ">");
PROPGRAPH_PUNCT(op_regex, "=~");
PROPGRAPH_PUNCT(op_plus_eq, "+=");
PROPGRAPH_PUNCT(op_add, "+", '=');
PROPGRAPH_PUNCT(op_sub, "-");
PROPGRAPH_PUNCT(op_mul, "*");
PROPGRAPH_PUNCT(op_div, "/");
PROPGRAPH_PUNCT(op_mod, "%");
PROPGRAPH_PUNCT(op_pow, "^");
PROPGRAPH_PUNCT(star_token, "*");
PROPGRAPH_PUNCT(left_arrow_head, "<");
PROPGRAPH_PUNCT(right_arrow_head, ">");
PROPGRAPH_PUNCT(dash, "-");
#undef PROPGRAPH_PUNCT

template <typename Item>
struct list_of : seq<Item, star<comma, Item>> {};

// --- Literals --------------------------------------------------------------------------------

/// After a number: a letter, digit or `_` makes the literal malformed (`0x`, `1e`, `0o8`, `12a`).
struct number_boundary {
  using rule_t = number_boundary;
  using subs_t = empty_list;
  template <apply_mode, rewind_mode, template <typename...> class, template <typename...> class, typename ParseInput,
            typename... States>
  static bool match(ParseInput& in, States&&... /*unused*/) {
    if (!in.empty()) {
      const char c = in.peek_char();
      if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_') {
        throw_literal_error("SyntaxError: InvalidNumberLiteral", "Invalid number literal", in.current());
      }
    }
    return true;
  }
};

/// After a backslash in a string: anything but the known escapes is an error.
struct bad_escape {
  using rule_t = bad_escape;
  using subs_t = empty_list;
  template <apply_mode, rewind_mode, template <typename...> class, template <typename...> class, typename ParseInput,
            typename... States>
  static bool match(ParseInput& in, States&&... /*unused*/) {
    if (!in.empty() && (in.peek_char() == 'u' || in.peek_char() == 'U')) {
      throw_literal_error("SyntaxError: InvalidUnicodeLiteral", "Invalid unicode escape", in.current() - 1);
    }
    throw_literal_error("SyntaxError", "Invalid escape sequence", in.current() - 1);
  }
};

struct exponent : seq<one<'e', 'E'>, opt<one<'+', '-'>>, plus<digit>> {};
struct hex_integer : seq<one<'0'>, one<'x'>, plus<xdigit>> {};
struct octal_integer : seq<one<'0'>, one<'o'>, plus<range<'0', '7'>>> {};
struct decimal_integer : sor<seq<range<'1', '9'>, star<digit>>, one<'0'>> {};
struct float_literal : sor<seq<star<digit>, one<'.'>, plus<digit>, opt<exponent>>, seq<plus<digit>, exponent>> {};
struct number_token : seq<sor<float_literal, hex_integer, octal_integer, decimal_integer>, number_boundary> {};
struct number_literal : seq<number_token, ws> {
  static constexpr std::string_view expected = "a number";
};

struct escape : seq<one<'\\'>, sor<one<'\\', '\'', '"', 'b', 'f', 'n', 'r', 't'>, seq<one<'u'>, rep<4, xdigit>>,
                                   seq<one<'U'>, rep<8, xdigit>>, bad_escape>> {};
struct single_quoted : seq<one<'\''>, star<sor<escape, not_one<'\'', '\\'>>>, one<'\''>> {};
struct double_quoted : seq<one<'"'>, star<sor<escape, not_one<'"', '\\'>>>, one<'"'>> {};
struct string_token : sor<single_quoted, double_quoted> {};
struct string_literal : seq<string_token, ws> {
  static constexpr std::string_view expected = "a string";
};

struct true_literal : kw_true_ {};
struct false_literal : kw_false_ {};
struct null_literal : kw_null {};

struct parameter_name : sor<symbolic_name, plus<digit>> {};
struct parameter : seq<one<'$'>, parameter_name, ws> {
  static constexpr std::string_view expected = "a parameter";
};

// --- Expressions -----------------------------------------------------------------------------

struct expression;
struct pattern_element;
struct relationships_pattern;
struct single_query;

struct variable : name {};
struct property_key : name {};
struct label_name : name {};

struct list_literal : seq<lbracket, opt<list_of<expression>>, rbracket> {};
struct map_entry : seq<property_key, colon, expression> {};
struct map_literal : seq<lbrace, opt<list_of<map_entry>>, rbrace> {};

struct count_star : seq<kw_count, lparen, star_token, rparen> {};

struct case_subject : seq<not_at<kw_when>, expression> {};
struct case_when : seq<kw_when, expression, kw_then, expression> {};
struct case_else : seq<kw_else_, expression> {};
struct case_expression : seq<kw_case_, opt<case_subject>, plus<case_when>, opt<case_else>, kw_end> {};

struct filter_where : seq<kw_where, expression> {};
struct filter_expression : seq<variable, kw_in, expression, opt<filter_where>> {};
struct comprehension_result : seq<pipe, expression> {};
struct list_comprehension : seq<lbracket, filter_expression, opt<comprehension_result>, rbracket> {};

struct path_binding : seq<variable, op_eq> {};
struct pattern_comprehension
    : seq<lbracket, opt<path_binding>, relationships_pattern, opt<filter_where>, comprehension_result, rbracket> {};

struct quantifier_all : kw_all {};
struct quantifier_any : kw_any {};
struct quantifier_none : kw_none {};
struct quantifier_single : kw_single {};
struct quantifier
    : seq<sor<quantifier_all, quantifier_any, quantifier_none, quantifier_single>, lparen, filter_expression, rparen> {
};

struct reduce_expression : seq<kw_reduce, lparen, variable, op_eq, expression, comma, variable, kw_in, expression,
                               comprehension_result, rparen> {};

struct where_clause;
struct pattern;
struct exists_pattern : seq<pattern, opt<where_clause>> {};
struct exists_subquery : seq<kw_exists, lbrace, sor<single_query, exists_pattern>, rbrace> {};

struct pattern_predicate : seq<relationships_pattern> {};

struct function_name : seq<symbolic_name, star<one<'.'>, symbolic_name>, ws> {};
struct distinct_marker : kw_distinct {};
struct function_call : seq<function_name, lparen, opt<distinct_marker>, opt<list_of<expression>>, rparen> {};

struct projection_all_properties : seq<dot, star_token> {};
struct projection_property : seq<dot, property_key> {};
struct projection_literal : seq<property_key, colon, expression> {};
struct projection_variable : variable {};
struct map_projection_item
    : sor<projection_all_properties, projection_property, projection_literal, projection_variable> {};
struct map_projection : seq<variable, lbrace, opt<list_of<map_projection_item>>, rbrace> {};

struct parenthesized : seq<lparen, expression, rparen> {};
struct shortest_path;
struct all_shortest_paths;

struct atom : sor<number_literal, string_literal, true_literal, false_literal, null_literal, parameter, count_star,
                  case_expression, list_comprehension, pattern_comprehension, list_literal, quantifier,
                  reduce_expression, exists_subquery, pattern_predicate, parenthesized, shortest_path,
                  all_shortest_paths, function_call, map_literal, map_projection, variable> {
  static constexpr std::string_view expected = "an expression";
};

struct node_labels : plus<colon, label_name> {};
struct property_lookup : seq<dot, property_key> {};
struct slice_or_index
    : seq<lbracket, sor<seq<range_dots, opt<expression>>, seq<expression, opt<range_dots, opt<expression>>>>,
          rbracket> {};
struct label_check : node_labels {};
struct postfix_expression : seq<atom, star<sor<property_lookup, slice_or_index, label_check>>> {};

struct unary_expression : seq<star<sor<op_add, op_sub>>, postfix_expression> {};
struct power_expression : seq<unary_expression, star<op_pow, unary_expression>> {};
struct multiplicative_expression : seq<power_expression, star<sor<op_mul, op_div, op_mod>, power_expression>> {};
struct additive_expression : seq<multiplicative_expression, star<sor<op_add, op_sub>, multiplicative_expression>> {};

struct is_null_suffix : seq<kw_is, kw_null> {};
struct is_not_null_suffix : seq<kw_is, kw_not_, kw_null> {};
struct in_operator : kw_in {};
struct starts_with_operator : seq<kw_starts, kw_with> {};
struct ends_with_operator : seq<kw_ends, kw_with> {};
struct contains_operator : kw_contains {};
struct predicate_suffix
    : sor<is_null_suffix, is_not_null_suffix,
          seq<sor<in_operator, starts_with_operator, ends_with_operator, contains_operator, op_regex>,
              additive_expression>> {};
struct predicate_expression : seq<additive_expression, star<predicate_suffix>> {};

struct comparison_expression
    : seq<predicate_expression, star<sor<op_eq, op_ne, op_le, op_ge, op_lt, op_gt>, predicate_expression>> {};
struct not_operator : kw_not_ {};
struct not_expression : seq<star<not_operator>, comparison_expression> {};
struct and_operator : kw_and_ {};
struct and_expression : seq<not_expression, star<and_operator, not_expression>> {};
struct xor_operator : kw_xor_ {};
struct xor_expression : seq<and_expression, star<xor_operator, and_expression>> {};
struct or_operator : kw_or_ {};
struct or_expression : seq<xor_expression, star<or_operator, xor_expression>> {};
struct expression : or_expression {
  static constexpr bool nesting = true;
};

// --- Patterns --------------------------------------------------------------------------------

struct properties : sor<map_literal, parameter> {};
struct node_pattern : seq<lparen, opt<variable>, opt<node_labels>, opt<properties>, rparen> {};

struct range_min : plus<digit> {};
struct range_max : plus<digit> {};
struct range_literal : seq<star_token, opt<range_min, ws>, opt<range_dots, opt<range_max, ws>>> {};
struct type_name : name {};
struct relationship_types : seq<colon, type_name, star<pipe, opt<colon>, type_name>> {};
struct relationship_detail
    : seq<lbracket, opt<variable>, opt<relationship_types>, opt<range_literal>, opt<properties>, rbracket> {};
struct incoming : left_arrow_head {};
struct outgoing : right_arrow_head {};
struct relationship_pattern : seq<opt<incoming>, dash, opt<relationship_detail>, dash, opt<outgoing>> {
  static constexpr std::string_view expected = "a relationship pattern";
};
struct pattern_chain : seq<relationship_pattern, node_pattern> {};

struct parenthesized_element;
struct pattern_element : sor<seq<node_pattern, star<pattern_chain>>, parenthesized_element> {
  static constexpr bool nesting = true;
};
struct parenthesized_element : seq<lparen, pattern_element, rparen> {};
struct relationships_pattern : seq<node_pattern, plus<pattern_chain>> {};

struct shortest_path : seq<kw_shortest_path, lparen, pattern_element, rparen> {};
struct all_shortest_paths : seq<kw_all_shortest_paths, lparen, pattern_element, rparen> {};
struct pattern_part : seq<opt<path_binding>, sor<shortest_path, all_shortest_paths, pattern_element>> {};
struct pattern : list_of<pattern_part> {};

// --- Clauses ---------------------------------------------------------------------------------

struct where_clause : seq<kw_where, expression> {};

struct optional_marker : kw_optional {};
struct match_clause : seq<opt<optional_marker>, kw_match, pattern, opt<where_clause>> {};

struct unwind_clause : seq<kw_unwind, expression, kw_as, variable> {};

struct projection_item : seq<expression, opt<kw_as, variable>> {};
struct projection_star : star_token {};
struct projection_items : sor<seq<projection_star, star<comma, projection_item>>, list_of<projection_item>> {};
struct descending : sor<kw_descending, kw_desc> {};
struct sort_item : seq<expression, opt<sor<descending, kw_ascending, kw_asc>>> {};
struct order_by : seq<kw_order, kw_by, list_of<sort_item>> {};
struct skip : seq<kw_skip, expression> {};
struct limit : seq<kw_limit, expression> {};
struct projection_body : seq<opt<distinct_marker>, projection_items, opt<order_by>, opt<skip>, opt<limit>> {};

struct with_clause : seq<kw_with, projection_body, opt<where_clause>> {};
struct return_clause : seq<kw_return_, projection_body> {};

struct create_clause : seq<kw_create, pattern> {};

struct set_labels : seq<variable, node_labels> {};
struct set_assignment : seq<postfix_expression, sor<op_plus_eq, op_eq>, expression> {};
struct set_item : sor<set_labels, set_assignment> {};
struct on_create : seq<kw_on, kw_create, kw_set, list_of<set_item>> {};
struct on_match : seq<kw_on, kw_match, kw_set, list_of<set_item>> {};
struct merge_clause : seq<kw_merge, pattern_part, star<sor<on_create, on_match>>> {};
struct set_clause : seq<kw_set, list_of<set_item>> {};

struct remove_labels : seq<variable, node_labels> {};
struct remove_property : postfix_expression {};
struct remove_clause : seq<kw_remove, list_of<sor<remove_labels, remove_property>>> {};

struct detach_marker : kw_detach {};
struct delete_clause : seq<opt<detach_marker>, kw_delete_, list_of<expression>> {};

struct procedure_arguments : seq<lparen, opt<list_of<expression>>, rparen> {};
struct yield_field : name {};
struct yield_alias : name {};
struct yield_item : seq<yield_field, opt<kw_as, yield_alias>> {};
struct yield_all : star_token {};
struct yield_part : seq<kw_yield, sor<yield_all, list_of<yield_item>>, opt<where_clause>> {};
struct call_clause : seq<kw_call, function_name, opt<procedure_arguments>, opt<yield_part>> {};

struct clause : sor<match_clause, unwind_clause, with_clause, return_clause, create_clause, merge_clause, set_clause,
                    remove_clause, delete_clause, call_clause> {
  static constexpr std::string_view expected = "a clause";
};

struct single_query : plus<clause> {};
struct union_all_marker : kw_all {};
struct union_part : seq<kw_union_, opt<union_all_marker>, single_query> {};
struct explain_marker : kw_explain {};
struct profile_marker : kw_profile {};
struct end_of_input : eof {
  static constexpr std::string_view expected = "end of input";
};
struct statement
    : seq<ws, opt<sor<explain_marker, profile_marker>>, single_query, star<union_part>, opt<semicolon>, end_of_input> {
};

}  // namespace grammar

// ---------------------------------------------------------------------------------------------
// Control: bounds nesting and work, and records the names expected at the farthest failure.

template <typename Rule>
concept NamedRule = requires { Rule::expected; };
template <typename Rule>
concept NestingRule = requires { Rule::nesting; };

template <typename Rule>
struct tracking_control : pegtl::normal<Rule> {
  template <pegtl::apply_mode A, pegtl::rewind_mode M, template <typename...> class Action,
            template <typename...> class Control, typename ParseInput, typename... States>
  static bool match(ParseInput& in, States&&... st) {
    ParseContext& ctx = *current_context;
    if constexpr (NestingRule<Rule>) {
      if (ctx.depth >= kMaxNesting + 1) {
        throw_literal_error("SyntaxError", "Nesting too deep (more than 256 levels)", in.current());
      }
      if (++ctx.work > ctx.work_limit) {
        throw_literal_error("SyntaxError", "Statement too complex to parse", in.current());
      }
      ++ctx.depth;
      struct Leave {
        int& depth;
        ~Leave() { --depth; }
      } leave{ctx.depth};
      return pegtl::normal<Rule>::template match<A, M, Action, Control>(in, st...);
    } else if constexpr (NamedRule<Rule>) {
      const std::size_t start = ctx.offset(in.current());
      const std::size_t farthest_before = ctx.farthest;
      const std::size_t expected_before = ctx.expected.size();
      const bool ok = pegtl::normal<Rule>::template match<A, M, Action, Control>(in, st...);
      if (!ok) {
        if (start > ctx.farthest) {
          ctx.farthest = start;
          ctx.expected.assign(1, Rule::expected);
        } else if (start == ctx.farthest) {
          // The inner names at this place give way to this rule's own name.
          if (farthest_before == start) {
            ctx.expected.resize(expected_before);
          } else {
            ctx.expected.clear();
          }
          ctx.expected.push_back(Rule::expected);
        }
      }
      return ok;
    } else {
      return pegtl::normal<Rule>::template match<A, M, Action, Control>(in, st...);
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Which rules become parse-tree nodes.

template <typename Rule>
using selector = pegtl::parse_tree::selector<
    Rule,
    pegtl::parse_tree::store_content::on<
        // literals
        grammar::number_token, grammar::string_token, grammar::true_literal, grammar::false_literal,
        grammar::null_literal, grammar::parameter_name, grammar::parameter,
        // expressions
        grammar::expression, grammar::variable, grammar::property_key, grammar::label_name, grammar::list_literal,
        grammar::map_entry, grammar::map_literal, grammar::count_star, grammar::case_subject, grammar::case_when,
        grammar::case_else, grammar::case_expression, grammar::filter_where, grammar::filter_expression,
        grammar::comprehension_result, grammar::list_comprehension, grammar::path_binding,
        grammar::pattern_comprehension, grammar::quantifier_all, grammar::quantifier_any, grammar::quantifier_none,
        grammar::quantifier_single, grammar::quantifier, grammar::reduce_expression, grammar::exists_pattern,
        grammar::exists_subquery, grammar::pattern_predicate, grammar::function_name, grammar::distinct_marker,
        grammar::function_call, grammar::projection_all_properties, grammar::projection_property,
        grammar::projection_literal, grammar::projection_variable, grammar::map_projection, grammar::parenthesized,
        grammar::node_labels, grammar::property_lookup, grammar::slice_or_index, grammar::range_dots,
        grammar::label_check, grammar::postfix_expression, grammar::unary_expression, grammar::power_expression,
        grammar::multiplicative_expression, grammar::additive_expression, grammar::is_null_suffix,
        grammar::is_not_null_suffix, grammar::in_operator, grammar::starts_with_operator, grammar::ends_with_operator,
        grammar::contains_operator, grammar::op_regex, grammar::predicate_suffix, grammar::predicate_expression,
        grammar::comparison_expression, grammar::not_operator, grammar::not_expression, grammar::and_expression,
        grammar::xor_expression, grammar::or_expression, grammar::op_eq, grammar::op_ne, grammar::op_le, grammar::op_ge,
        grammar::op_lt, grammar::op_gt, grammar::op_add, grammar::op_sub, grammar::op_mul, grammar::op_div,
        grammar::op_mod, grammar::op_plus_eq,
        // patterns
        grammar::properties, grammar::node_pattern, grammar::range_min, grammar::range_max, grammar::range_literal,
        grammar::type_name, grammar::relationship_types, grammar::relationship_detail, grammar::incoming,
        grammar::outgoing, grammar::relationship_pattern, grammar::pattern_chain, grammar::pattern_element,
        grammar::relationships_pattern, grammar::shortest_path, grammar::all_shortest_paths, grammar::pattern_part,
        grammar::pattern,
        // clauses
        grammar::where_clause, grammar::optional_marker, grammar::match_clause, grammar::unwind_clause,
        grammar::projection_item, grammar::projection_star, grammar::descending, grammar::sort_item, grammar::order_by,
        grammar::skip, grammar::limit, grammar::projection_body, grammar::with_clause, grammar::return_clause,
        grammar::create_clause, grammar::set_labels, grammar::set_assignment, grammar::on_create, grammar::on_match,
        grammar::merge_clause, grammar::set_clause, grammar::remove_labels, grammar::remove_property,
        grammar::remove_clause, grammar::detach_marker, grammar::delete_clause, grammar::procedure_arguments,
        grammar::yield_field, grammar::yield_alias, grammar::yield_item, grammar::yield_all, grammar::yield_part,
        grammar::call_clause, grammar::single_query, grammar::union_all_marker, grammar::union_part,
        grammar::explain_marker, grammar::profile_marker>>;

using Node = pegtl::parse_tree::node;

// ---------------------------------------------------------------------------------------------
// Tree conversion: parse-tree nodes -> ast.hpp.

Position position_of(const Node& node) {
  const auto p = node.begin();
  return Position{static_cast<int>(p.line), static_cast<int>(p.column), p.byte};
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) text.remove_suffix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) text.remove_prefix(1);
  return text;
}

/// The symbolic name at the start of `text` (backticks removed, ```` unescaped); `text` moves past it.
std::string take_symbolic_name(std::string_view& text) {
  std::string out;
  if (!text.empty() && text.front() == '`') {
    std::size_t i = 1;
    while (i < text.size()) {
      if (text[i] == '`') {
        if (i + 1 < text.size() && text[i + 1] == '`') {
          out += '`';
          i += 2;
          continue;
        }
        ++i;
        break;
      }
      out += text[i++];
    }
    text.remove_prefix(i);
    return out;
  }
  std::size_t i = 0;
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) != 0 || text[i] == '_')) ++i;
  out.assign(text.substr(0, i));
  text.remove_prefix(i);
  return out;
}

std::string symbolic_name_of(const Node& node) {
  std::string_view text = node.string_view();
  return take_symbolic_name(text);
}

/// `a.b.c` as written, each part unquoted.
std::string dotted_name_of(const Node& node) {
  std::string_view text = node.string_view();
  std::string out = take_symbolic_name(text);
  while (!text.empty() && text.front() == '.') {
    text.remove_prefix(1);
    out += '.';
    out += take_symbolic_name(text);
  }
  return out;
}

[[noreturn]] void fail_at(const Node& node, std::string code, const std::string& message) {
  throw LiteralError{std::move(code), message, node.begin().byte};
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// The value of a string token (quotes included; the grammar has checked the escapes).
std::string unescape_string(const Node& node) {
  const std::string_view text = node.string_view();
  const std::string_view body = text.substr(1, text.size() - 2);
  std::string out;
  out.reserve(body.size());
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\') {
      out += body[i];
      continue;
    }
    const char c = body[++i];
    switch (c) {
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u':
      case 'U': {
        const std::size_t digits = c == 'u' ? 4 : 8;
        std::uint32_t cp = 0;
        std::from_chars(body.data() + i + 1, body.data() + i + 1 + digits, cp, 16);
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
          throw LiteralError{"SyntaxError: InvalidUnicodeLiteral", "Invalid unicode code point",
                             node.begin().byte + 1 + i - 1};
        }
        append_utf8(out, cp);
        i += digits;
        break;
      }
      default: out += c; break;  // \\ \' \"
    }
  }
  return out;
}

/// The value of a number token; `negative` when a unary minus applies to it directly (so that
/// -9223372036854775808 fits).
QueryValue number_value(const Node& node, bool negative) {
  const std::string_view text = node.string_view();
  const bool is_float = text.find_first_of(".eE") != std::string_view::npos && !text.starts_with("0x");
  if (is_float) {
    const std::string copy(text);
    errno = 0;
    double value = std::strtod(copy.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(value)) {
      fail_at(node, "SyntaxError: FloatingPointOverflow", "Floating point number is too large");
    }
    return QueryValue(negative ? -value : value);
  }
  int base = 10;
  std::string_view digits = text;
  if (text.starts_with("0x")) {
    base = 16;
    digits.remove_prefix(2);
  } else if (text.starts_with("0o")) {
    base = 8;
    digits.remove_prefix(2);
  }
  std::uint64_t magnitude = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  const std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (negative ? 1 : 0);
  if (error != std::errc{} || end != digits.data() + digits.size() || magnitude > limit) {
    fail_at(node, "SyntaxError: IntegerOverflow", "Integer literal is too large");
  }
  const std::int64_t value = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  return QueryValue(Value(value));
}

ExprPtr make_expr(ExprKind kind, Position position) {
  auto expr = std::make_unique<Expr>();
  expr->kind = kind;
  expr->position = position;
  return expr;
}

ExprPtr make_binary(Op op, ExprPtr left, ExprPtr right, Position position) {
  auto expr = make_expr(ExprKind::binary, position);
  expr->op = op;
  expr->children.push_back(std::move(left));
  expr->children.push_back(std::move(right));
  return expr;
}

ExprPtr clone(const Expr& e);

MapProjectionItem clone(const MapProjectionItem& item) {
  return MapProjectionItem{item.kind, item.key, item.value ? clone(*item.value) : nullptr};
}

ExprPtr clone(const Expr& e) {
  auto copy = std::make_unique<Expr>();
  copy->kind = e.kind;
  copy->op = e.op;
  copy->position = e.position;
  copy->value = e.value;
  copy->name = e.name;
  copy->keys = e.keys;
  for (const auto& child : e.children) copy->children.push_back(child ? clone(*child) : nullptr);
  copy->distinct = e.distinct;
  copy->has_subject = e.has_subject;
  copy->has_else = e.has_else;
  copy->pattern = e.pattern;
  copy->subquery = e.subquery;
  for (const auto& item : e.projection) copy->projection.push_back(clone(item));
  return copy;
}

class TreeBuilder {
 public:
  std::unique_ptr<Statement> statement(const Node& root, std::string_view text) {
    auto result = std::make_unique<Statement>();
    result->text = std::string(text);
    for (const auto& child : root.children) {
      const Node& node = *child;
      if (node.is_type<grammar::explain_marker>()) {
        result->explain = true;
      } else if (node.is_type<grammar::profile_marker>()) {
        result->profile = true;
      } else if (node.is_type<grammar::single_query>()) {
        result->queries.push_back(single_query(node));
      } else if (node.is_type<grammar::union_part>()) {
        bool all = false;
        for (const auto& part : node.children) {
          if (part->is_type<grammar::union_all_marker>()) all = true;
          if (part->is_type<grammar::single_query>()) result->queries.push_back(single_query(*part));
        }
        result->union_all.push_back(all);
      }
    }
    return result;
  }

 private:
  // --- Clauses -------------------------------------------------------------------------------

  SingleQuery single_query(const Node& node) {
    SingleQuery query;
    for (const auto& child : node.children) query.clauses.push_back(clause(*child));
    return query;
  }

  ClauseNode clause(const Node& node) {
    const Position position = position_of(node);
    if (node.is_type<grammar::match_clause>()) {
      MatchClause match;
      for (const auto& child : node.children) {
        if (child->is_type<grammar::optional_marker>()) match.optional = true;
        if (child->is_type<grammar::pattern>()) match.pattern = pattern(*child);
        if (child->is_type<grammar::where_clause>()) match.where = expression(*child->children.front());
      }
      return {position, std::move(match)};
    }
    if (node.is_type<grammar::unwind_clause>()) {
      UnwindClause unwind;
      unwind.expression = expression(*node.children.at(0));
      unwind.variable = symbolic_name_of(*node.children.at(1));
      return {position, std::move(unwind)};
    }
    if (node.is_type<grammar::with_clause>()) {
      WithClause with;
      with.projection.position = position;
      for (const auto& child : node.children) {
        if (child->is_type<grammar::projection_body>()) projection_body(*child, with.projection);
        if (child->is_type<grammar::where_clause>()) with.projection.where = expression(*child->children.front());
      }
      return {position, std::move(with)};
    }
    if (node.is_type<grammar::return_clause>()) {
      ReturnClause ret;
      ret.projection.position = position;
      projection_body(*node.children.at(0), ret.projection);
      return {position, std::move(ret)};
    }
    if (node.is_type<grammar::create_clause>()) {
      return {position, CreateClause{pattern(*node.children.at(0))}};
    }
    if (node.is_type<grammar::merge_clause>()) {
      MergeClause merge;
      for (const auto& child : node.children) {
        if (child->is_type<grammar::pattern_part>()) merge.pattern = pattern_part(*child);
        if (child->is_type<grammar::on_create>()) {
          for (const auto& item : child->children) merge.on_create.push_back(set_item(*item));
        }
        if (child->is_type<grammar::on_match>()) {
          for (const auto& item : child->children) merge.on_match.push_back(set_item(*item));
        }
      }
      return {position, std::move(merge)};
    }
    if (node.is_type<grammar::set_clause>()) {
      SetClause set;
      for (const auto& item : node.children) set.items.push_back(set_item(*item));
      return {position, std::move(set)};
    }
    if (node.is_type<grammar::remove_clause>()) {
      RemoveClause remove;
      for (const auto& item : node.children) remove.items.push_back(remove_item(*item));
      return {position, std::move(remove)};
    }
    if (node.is_type<grammar::delete_clause>()) {
      DeleteClause del;
      for (const auto& child : node.children) {
        if (child->is_type<grammar::detach_marker>()) {
          del.detach = true;
        } else {
          del.expressions.push_back(expression(*child));
        }
      }
      return {position, std::move(del)};
    }
    return {position, call_clause(node)};
  }

  CallClause call_clause(const Node& node) {
    CallClause call;
    for (const auto& child : node.children) {
      if (child->is_type<grammar::function_name>()) {
        call.procedure = dotted_name_of(*child);
      } else if (child->is_type<grammar::procedure_arguments>()) {
        call.has_arguments = true;
        for (const auto& argument : child->children) call.arguments.push_back(expression(*argument));
      } else if (child->is_type<grammar::yield_part>()) {
        for (const auto& part : child->children) {
          if (part->is_type<grammar::yield_all>()) {
            call.yield_all = true;
          } else if (part->is_type<grammar::yield_item>()) {
            std::string alias;
            if (part->children.size() > 1) alias = symbolic_name_of(*part->children[1]);
            call.yield.emplace_back(symbolic_name_of(*part->children[0]), std::move(alias));
          } else if (part->is_type<grammar::where_clause>()) {
            call.where = expression(*part->children.front());
          }
        }
      }
    }
    return call;
  }

  void projection_body(const Node& node, Projection& projection) {
    for (const auto& child : node.children) {
      if (child->is_type<grammar::distinct_marker>()) {
        projection.distinct = true;
      } else if (child->is_type<grammar::projection_star>()) {
        projection.star = true;
      } else if (child->is_type<grammar::projection_item>()) {
        ProjectionItem item;
        const Node& expr_node = *child->children.at(0);
        item.expression = expression(expr_node);
        item.text = std::string(trimmed(expr_node.string_view()));
        item.position = position_of(expr_node);
        if (child->children.size() > 1) item.alias = symbolic_name_of(*child->children[1]);
        projection.items.push_back(std::move(item));
      } else if (child->is_type<grammar::order_by>()) {
        for (const auto& sort : child->children) {
          SortItem item;
          item.expression = expression(*sort->children.at(0));
          item.descending = sort->children.size() > 1 && sort->children[1]->is_type<grammar::descending>();
          projection.order_by.push_back(std::move(item));
        }
      } else if (child->is_type<grammar::skip>()) {
        projection.skip = expression(*child->children.at(0));
      } else if (child->is_type<grammar::limit>()) {
        projection.limit = expression(*child->children.at(0));
      }
    }
  }

  SetItem set_item(const Node& node) {
    SetItem item;
    item.position = position_of(node);
    if (node.is_type<grammar::set_labels>()) {
      item.kind = SetItem::Kind::labels;
      item.target = variable(*node.children.at(0));
      item.labels = labels(*node.children.at(1));
      return item;
    }
    item.target = postfix(*node.children.at(0));
    const bool merge = node.children.at(1)->is_type<grammar::op_plus_eq>();
    item.value = expression(*node.children.at(2));
    if (merge) {
      if (item.target->kind != ExprKind::variable)
        fail_at(node, "SyntaxError: UnexpectedSyntax", "Expected a variable before '+='");
      item.kind = SetItem::Kind::merge_properties;
    } else if (item.target->kind == ExprKind::variable) {
      item.kind = SetItem::Kind::replace_properties;
    } else if (item.target->kind == ExprKind::property) {
      item.kind = SetItem::Kind::property;
    } else {
      fail_at(node, "SyntaxError: UnexpectedSyntax", "Expected a property or a variable before '='");
    }
    return item;
  }

  RemoveItem remove_item(const Node& node) {
    RemoveItem item;
    item.position = position_of(node);
    if (node.is_type<grammar::remove_labels>()) {
      item.target = variable(*node.children.at(0));
      item.labels = labels(*node.children.at(1));
      return item;
    }
    item.target = postfix(node);
    if (item.target->kind != ExprKind::property)
      fail_at(node, "SyntaxError: UnexpectedSyntax", "Expected a property or labels to remove");
    return item;
  }

  // --- Patterns ------------------------------------------------------------------------------

  Pattern pattern(const Node& node) {
    Pattern result;
    for (const auto& part : node.children) result.parts.push_back(pattern_part(*part));
    return result;
  }

  PatternPart pattern_part(const Node& node) {
    PatternPart part;
    part.position = position_of(node);
    for (const auto& child : node.children) {
      if (child->is_type<grammar::path_binding>()) {
        part.path_variable = symbolic_name_of(*child->children.at(0));
      } else if (child->is_type<grammar::shortest_path>()) {
        part.kind = PatternPart::Kind::shortest;
        pattern_element(*child->children.at(0), part);
      } else if (child->is_type<grammar::all_shortest_paths>()) {
        part.kind = PatternPart::Kind::all_shortest;
        pattern_element(*child->children.at(0), part);
      } else {
        pattern_element(*child, part);
      }
    }
    return part;
  }

  /// A pattern_element, relationships_pattern or pattern_predicate node into `part`.
  void pattern_element(const Node& node, PatternPart& part) {
    for (const auto& child : node.children) {
      if (child->is_type<grammar::pattern_element>() || child->is_type<grammar::relationships_pattern>()) {
        pattern_element(*child, part);
      } else if (child->is_type<grammar::node_pattern>()) {
        part.nodes.push_back(node_pattern(*child));
      } else if (child->is_type<grammar::pattern_chain>()) {
        part.relationships.push_back(relationship_pattern(*child->children.at(0)));
        part.nodes.push_back(node_pattern(*child->children.at(1)));
      }
    }
  }

  std::shared_ptr<PatternPart> relationships_pattern(const Node& node, std::string path_variable) {
    auto part = std::make_shared<PatternPart>();
    part->position = position_of(node);
    part->path_variable = std::move(path_variable);
    pattern_element(node, *part);
    return part;
  }

  NodePattern node_pattern(const Node& node) {
    NodePattern result;
    result.position = position_of(node);
    for (const auto& child : node.children) {
      if (child->is_type<grammar::variable>()) result.variable = symbolic_name_of(*child);
      if (child->is_type<grammar::node_labels>()) result.labels = labels(*child);
      if (child->is_type<grammar::properties>()) result.properties = expression(*child->children.at(0));
    }
    return result;
  }

  RelationshipPattern relationship_pattern(const Node& node) {
    RelationshipPattern result;
    result.position = position_of(node);
    bool incoming = false;
    bool outgoing = false;
    for (const auto& child : node.children) {
      if (child->is_type<grammar::incoming>()) incoming = true;
      if (child->is_type<grammar::outgoing>()) outgoing = true;
      if (!child->is_type<grammar::relationship_detail>()) continue;
      for (const auto& detail : child->children) {
        if (detail->is_type<grammar::variable>()) {
          result.variable = symbolic_name_of(*detail);
        } else if (detail->is_type<grammar::relationship_types>()) {
          for (const auto& type : detail->children) result.types.push_back(symbolic_name_of(*type));
        } else if (detail->is_type<grammar::range_literal>()) {
          range(*detail, result);
        } else if (detail->is_type<grammar::properties>()) {
          result.properties = expression(*detail->children.at(0));
        }
      }
    }
    result.direction = incoming == outgoing ? Direction::both : (incoming ? Direction::in : Direction::out);
    return result;
  }

  static void range(const Node& node, RelationshipPattern& rel) {
    rel.variable_length = true;
    bool dots = false;
    for (const auto& child : node.children) {
      if (child->is_type<grammar::range_dots>()) {
        dots = true;
        continue;
      }
      const std::int64_t hops = number_value(*child, false).as_int();
      if (child->is_type<grammar::range_min>()) rel.min_hops = hops;
      if (child->is_type<grammar::range_max>()) rel.max_hops = hops;
    }
    if (!dots && rel.min_hops) rel.max_hops = rel.min_hops;
  }

  static std::vector<std::string> labels(const Node& node) {
    std::vector<std::string> result;
    for (const auto& label : node.children) result.push_back(symbolic_name_of(*label));
    return result;
  }

  // --- Expressions ---------------------------------------------------------------------------

  static ExprPtr variable(const Node& node) {
    auto expr = make_expr(ExprKind::variable, position_of(node));
    expr->name = symbolic_name_of(node);
    return expr;
  }

  /// Any expression-level node.
  ExprPtr expression(const Node& node) {
    if (node.is_type<grammar::expression>() || node.is_type<grammar::or_expression>()) {
      return fold(node, Op::or_);
    }
    if (node.is_type<grammar::xor_expression>()) return fold(node, Op::xor_);
    if (node.is_type<grammar::and_expression>()) return fold(node, Op::and_);
    if (node.is_type<grammar::not_expression>()) return not_expression(node);
    if (node.is_type<grammar::comparison_expression>()) return comparison(node);
    if (node.is_type<grammar::predicate_expression>()) return predicates(node);
    if (node.is_type<grammar::additive_expression>() || node.is_type<grammar::multiplicative_expression>()) {
      return arithmetic(node);
    }
    if (node.is_type<grammar::power_expression>()) return fold(node, Op::pow);
    if (node.is_type<grammar::unary_expression>()) return unary(node);
    if (node.is_type<grammar::postfix_expression>()) return postfix(node);
    return atom(node);
  }

  /// `a OP b OP c`, left-associative: the node's children are the operands.
  ExprPtr fold(const Node& node, Op op) {
    ExprPtr result = expression(*node.children.at(0));
    for (std::size_t i = 1; i < node.children.size(); ++i) {
      result = make_binary(op, std::move(result), expression(*node.children[i]), position_of(node));
    }
    return result;
  }

  ExprPtr not_expression(const Node& node) {
    ExprPtr result = expression(*node.children.back());
    for (std::size_t i = node.children.size() - 1; i-- > 0;) {
      auto expr = make_expr(ExprKind::unary, position_of(*node.children[i]));
      expr->op = Op::not_;
      expr->children.push_back(std::move(result));
      result = std::move(expr);
    }
    return result;
  }

  static Op operator_of(const Node& node) {
    if (node.is_type<grammar::op_eq>()) return Op::eq;
    if (node.is_type<grammar::op_ne>()) return Op::ne;
    if (node.is_type<grammar::op_lt>()) return Op::lt;
    if (node.is_type<grammar::op_le>()) return Op::le;
    if (node.is_type<grammar::op_gt>()) return Op::gt;
    if (node.is_type<grammar::op_ge>()) return Op::ge;
    if (node.is_type<grammar::op_add>()) return Op::add;
    if (node.is_type<grammar::op_sub>()) return Op::sub;
    if (node.is_type<grammar::op_mul>()) return Op::mul;
    if (node.is_type<grammar::op_div>()) return Op::div;
    if (node.is_type<grammar::op_mod>()) return Op::mod;
    if (node.is_type<grammar::in_operator>()) return Op::in;
    if (node.is_type<grammar::starts_with_operator>()) return Op::starts_with;
    if (node.is_type<grammar::ends_with_operator>()) return Op::ends_with;
    if (node.is_type<grammar::contains_operator>()) return Op::contains;
    return Op::regex_match;
  }

  /// `a < b <= c` -> (a < b) AND (b <= c), the middle operand cloned.
  ExprPtr comparison(const Node& node) {
    ExprPtr left = expression(*node.children.at(0));
    if (node.children.size() == 1) return left;
    ExprPtr result;
    for (std::size_t i = 1; i + 1 < node.children.size(); i += 2) {
      ExprPtr right = expression(*node.children[i + 1]);
      ExprPtr next = i + 3 < node.children.size() ? clone(*right) : nullptr;
      ExprPtr compared =
          make_binary(operator_of(*node.children[i]), std::move(left), std::move(right), position_of(node));
      result = result ? make_binary(Op::and_, std::move(result), std::move(compared), position_of(node))
                      : std::move(compared);
      left = std::move(next);
    }
    return result;
  }

  ExprPtr predicates(const Node& node) {
    ExprPtr result = expression(*node.children.at(0));
    for (std::size_t i = 1; i < node.children.size(); ++i) {
      const Node& suffix = *node.children[i];
      const Node& first = *suffix.children.at(0);
      if (first.is_type<grammar::is_null_suffix>() || first.is_type<grammar::is_not_null_suffix>()) {
        auto expr = make_expr(first.is_type<grammar::is_null_suffix>() ? ExprKind::is_null : ExprKind::is_not_null,
                              position_of(node));
        expr->children.push_back(std::move(result));
        result = std::move(expr);
      } else {
        result =
            make_binary(operator_of(first), std::move(result), expression(*suffix.children.at(1)), position_of(node));
      }
    }
    return result;
  }

  ExprPtr arithmetic(const Node& node) {
    ExprPtr result = expression(*node.children.at(0));
    for (std::size_t i = 1; i + 1 < node.children.size(); i += 2) {
      result = make_binary(operator_of(*node.children[i]), std::move(result), expression(*node.children[i + 1]),
                           position_of(node));
    }
    return result;
  }

  ExprPtr unary(const Node& node) {
    const Node& operand = *node.children.back();
    std::size_t operators = node.children.size() - 1;
    ExprPtr result;
    // A minus right before a number literal is part of the literal (-9223372036854775808 fits).
    if (operators > 0 && node.children[operators - 1]->is_type<grammar::op_sub>() && operand.children.size() == 1 &&
        operand.children[0]->is_type<grammar::number_token>()) {
      result = make_expr(ExprKind::literal, position_of(*node.children[operators - 1]));
      result->value = number_value(*operand.children[0], true);
      --operators;
    } else {
      result = expression(operand);
    }
    for (std::size_t i = operators; i-- > 0;) {
      auto expr = make_expr(ExprKind::unary, position_of(*node.children[i]));
      expr->op = node.children[i]->is_type<grammar::op_sub>() ? Op::negate : Op::plus;
      expr->children.push_back(std::move(result));
      result = std::move(expr);
    }
    return result;
  }

  /// An atom and its `.key`, `[i]`, `[a..b]` and `:Label` suffixes (also remove_property).
  ExprPtr postfix(const Node& node) {
    ExprPtr result = atom(*node.children.at(0));
    for (std::size_t i = 1; i < node.children.size(); ++i) {
      const Node& suffix = *node.children[i];
      if (suffix.is_type<grammar::property_lookup>()) {
        auto expr = make_expr(ExprKind::property, position_of(suffix));
        expr->name = symbolic_name_of(*suffix.children.at(0));
        expr->children.push_back(std::move(result));
        result = std::move(expr);
      } else if (suffix.is_type<grammar::label_check>()) {
        auto expr = make_expr(ExprKind::label_check, position_of(suffix));
        expr->keys = labels(suffix);
        expr->children.push_back(std::move(result));
        result = std::move(expr);
      } else {
        result = subscript(suffix, std::move(result));
      }
    }
    return result;
  }

  ExprPtr subscript(const Node& node, ExprPtr subject) {
    std::size_t dots = node.children.size();
    for (std::size_t i = 0; i < node.children.size(); ++i) {
      if (node.children[i]->is_type<grammar::range_dots>()) dots = i;
    }
    if (dots == node.children.size()) {
      auto expr = make_expr(ExprKind::subscript, position_of(node));
      expr->children.push_back(std::move(subject));
      expr->children.push_back(expression(*node.children.at(0)));
      return expr;
    }
    auto expr = make_expr(ExprKind::slice, position_of(node));
    expr->children.push_back(std::move(subject));
    expr->children.push_back(dots > 0 ? expression(*node.children[0]) : nullptr);
    expr->children.push_back(dots + 1 < node.children.size() ? expression(*node.children[dots + 1]) : nullptr);
    return expr;
  }

  ExprPtr atom(const Node& node) {
    const Position position = position_of(node);
    if (node.is_type<grammar::number_token>()) {
      auto expr = make_expr(ExprKind::literal, position);
      expr->value = number_value(node, false);
      return expr;
    }
    if (node.is_type<grammar::string_token>()) {
      auto expr = make_expr(ExprKind::literal, position);
      expr->value = QueryValue(unescape_string(node));
      return expr;
    }
    if (node.is_type<grammar::true_literal>() || node.is_type<grammar::false_literal>()) {
      auto expr = make_expr(ExprKind::literal, position);
      expr->value = QueryValue(node.is_type<grammar::true_literal>());
      return expr;
    }
    if (node.is_type<grammar::null_literal>()) return make_expr(ExprKind::literal, position);
    if (node.is_type<grammar::parameter>()) {
      auto expr = make_expr(ExprKind::parameter, position);
      const Node& name = *node.children.at(0);
      std::string_view text = name.string_view();
      expr->name = text.front() == '`' ? take_symbolic_name(text) : std::string(text);
      return expr;
    }
    if (node.is_type<grammar::variable>() || node.is_type<grammar::projection_variable>()) return variable(node);
    if (node.is_type<grammar::parenthesized>()) return expression(*node.children.at(0));
    if (node.is_type<grammar::count_star>()) return make_expr(ExprKind::count_star, position);
    if (node.is_type<grammar::list_literal>()) {
      auto expr = make_expr(ExprKind::list, position);
      for (const auto& item : node.children) expr->children.push_back(expression(*item));
      return expr;
    }
    if (node.is_type<grammar::map_literal>()) {
      auto expr = make_expr(ExprKind::map, position);
      for (const auto& entry : node.children) {
        expr->keys.push_back(symbolic_name_of(*entry->children.at(0)));
        expr->children.push_back(expression(*entry->children.at(1)));
      }
      return expr;
    }
    if (node.is_type<grammar::function_call>()) return function_call(node);
    if (node.is_type<grammar::case_expression>()) return case_expression(node);
    if (node.is_type<grammar::list_comprehension>()) return list_comprehension(node);
    if (node.is_type<grammar::pattern_comprehension>()) return pattern_comprehension(node);
    if (node.is_type<grammar::quantifier>()) return quantifier(node);
    if (node.is_type<grammar::reduce_expression>()) return reduce(node);
    if (node.is_type<grammar::exists_subquery>()) return exists_subquery(node);
    if (node.is_type<grammar::pattern_predicate>()) {
      auto expr = make_expr(ExprKind::pattern_predicate, position);
      expr->pattern = relationships_pattern(node, {});
      return expr;
    }
    if (node.is_type<grammar::map_projection>()) return map_projection(node);
    if (node.is_type<grammar::shortest_path>() || node.is_type<grammar::all_shortest_paths>()) {
      return shortest_path_expression(node);
    }
    // Any other node wraps exactly one expression (e.g. a nested expression level). Anything else
    // is a grammar/tree mismatch: fail instead of recursing forever.
    if (node.children.size() == 1) return expression(*node.children.front());
    throw QueryError("unsupported expression '" + std::string(node.string_view()) + "'",
                     "SyntaxError: UnexpectedSyntax", position.line, position.column);
  }

  ExprPtr function_call(const Node& node) {
    auto expr = make_expr(ExprKind::function, position_of(node));
    for (const auto& child : node.children) {
      if (child->is_type<grammar::function_name>()) {
        expr->name = dotted_name_of(*child);
      } else if (child->is_type<grammar::distinct_marker>()) {
        expr->distinct = true;
      } else {
        expr->children.push_back(expression(*child));
      }
    }
    return expr;
  }

  ExprPtr case_expression(const Node& node) {
    auto expr = make_expr(ExprKind::case_expr, position_of(node));
    expr->children.emplace_back();  // the subject, if any
    for (const auto& child : node.children) {
      if (child->is_type<grammar::case_subject>()) {
        expr->has_subject = true;
        expr->children[0] = expression(*child->children.at(0));
      } else if (child->is_type<grammar::case_when>()) {
        expr->children.push_back(expression(*child->children.at(0)));
        expr->children.push_back(expression(*child->children.at(1)));
      } else if (child->is_type<grammar::case_else>()) {
        expr->has_else = true;
        expr->children.push_back(expression(*child->children.at(0)));
      }
    }
    if (!expr->has_else) expr->children.emplace_back();
    return expr;
  }

  /// filter_expression `x IN list [WHERE p]`: sets name, appends list and where (or nullptr).
  void filter(const Node& node, Expr& expr) {
    expr.name = symbolic_name_of(*node.children.at(0));
    expr.children.push_back(expression(*node.children.at(1)));
    expr.children.push_back(node.children.size() > 2 ? expression(*node.children[2]->children.at(0)) : nullptr);
  }

  ExprPtr list_comprehension(const Node& node) {
    auto expr = make_expr(ExprKind::list_comprehension, position_of(node));
    filter(*node.children.at(0), *expr);
    expr->children.push_back(node.children.size() > 1 ? expression(*node.children[1]->children.at(0)) : nullptr);
    return expr;
  }

  ExprPtr pattern_comprehension(const Node& node) {
    auto expr = make_expr(ExprKind::pattern_comprehension, position_of(node));
    ExprPtr where;
    for (const auto& child : node.children) {
      if (child->is_type<grammar::path_binding>()) {
        expr->name = symbolic_name_of(*child->children.at(0));
      } else if (child->is_type<grammar::relationships_pattern>()) {
        expr->pattern = relationships_pattern(*child, expr->name);
      } else if (child->is_type<grammar::filter_where>()) {
        where = expression(*child->children.at(0));
      } else if (child->is_type<grammar::comprehension_result>()) {
        expr->children.push_back(std::move(where));
        expr->children.push_back(expression(*child->children.at(0)));
      }
    }
    return expr;
  }

  /// `shortestPath(pattern)` in an expression (as Neo4j allows): the first path of
  /// `[p = shortestPath(pattern) | p]`, null when there is none; `allShortestPaths(pattern)`:
  /// the list itself. The path variable's name cannot be written in a query.
  ExprPtr shortest_path_expression(const Node& node) {
    const Position position = position_of(node);
    auto comprehension = make_expr(ExprKind::pattern_comprehension, position);
    comprehension->name = " shortest path";
    comprehension->pattern = relationships_pattern(*node.children.at(0), comprehension->name);
    const bool all = node.is_type<grammar::all_shortest_paths>();
    comprehension->pattern->kind = all ? PatternPart::Kind::all_shortest : PatternPart::Kind::shortest;
    auto path = make_expr(ExprKind::variable, position);
    path->name = comprehension->name;
    comprehension->children.push_back(nullptr);  // no WHERE
    comprehension->children.push_back(std::move(path));
    if (all) return comprehension;
    auto head = make_expr(ExprKind::function, position);
    head->name = "head";
    head->children.push_back(std::move(comprehension));
    return head;
  }

  ExprPtr quantifier(const Node& node) {
    auto expr = make_expr(ExprKind::quantifier, position_of(node));
    const Node& kind = *node.children.at(0);
    expr->op = kind.is_type<grammar::quantifier_all>()    ? Op::all
               : kind.is_type<grammar::quantifier_any>()  ? Op::any
               : kind.is_type<grammar::quantifier_none>() ? Op::none
                                                          : Op::single;
    filter(*node.children.at(1), *expr);
    return expr;
  }

  ExprPtr reduce(const Node& node) {
    auto expr = make_expr(ExprKind::reduce, position_of(node));
    // Children: accumulator, `=` (op_eq is a tree node), initial value, variable, list, `| result`.
    expr->name = symbolic_name_of(*node.children.at(0));
    expr->children.push_back(expression(*node.children.at(2)));
    expr->keys.push_back(symbolic_name_of(*node.children.at(3)));
    expr->children.push_back(expression(*node.children.at(4)));
    expr->children.push_back(expression(*node.children.at(5)->children.at(0)));
    return expr;
  }

  ExprPtr exists_subquery(const Node& node) {
    auto expr = make_expr(ExprKind::exists_subquery, position_of(node));
    const Node& body = *node.children.at(0);
    if (body.is_type<grammar::single_query>()) {
      expr->subquery = std::make_shared<SingleQuery>(single_query(body));
      return expr;
    }
    MatchClause match;
    match.pattern = pattern(*body.children.at(0));
    if (body.children.size() > 1) match.where = expression(*body.children[1]->children.at(0));
    auto query = std::make_shared<SingleQuery>();
    query->clauses.push_back(ClauseNode{position_of(body), std::move(match)});
    expr->subquery = std::move(query);
    return expr;
  }

  ExprPtr map_projection(const Node& node) {
    auto expr = make_expr(ExprKind::map_projection, position_of(node));
    expr->name = symbolic_name_of(*node.children.at(0));
    for (std::size_t i = 1; i < node.children.size(); ++i) {
      const Node& item = *node.children[i];
      MapProjectionItem entry;
      if (item.is_type<grammar::projection_all_properties>()) {
        entry.kind = MapProjectionItem::Kind::all_properties;
      } else if (item.is_type<grammar::projection_property>()) {
        entry.kind = MapProjectionItem::Kind::property;
        entry.key = symbolic_name_of(*item.children.at(0));
      } else if (item.is_type<grammar::projection_literal>()) {
        entry.kind = MapProjectionItem::Kind::literal;
        entry.key = symbolic_name_of(*item.children.at(0));
        entry.value = expression(*item.children.at(1));
      } else {
        entry.kind = MapProjectionItem::Kind::variable;
        entry.key = symbolic_name_of(item);
        entry.value = variable(item);
      }
      expr->projection.push_back(std::move(entry));
    }
    return expr;
  }
};

// ---------------------------------------------------------------------------------------------
// Errors.

struct LineColumn {
  int line = 1;
  int column = 1;
};

LineColumn line_column(std::string_view text, std::size_t offset) {
  LineColumn result;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++result.line;
      result.column = 1;
    } else {
      ++result.column;
    }
  }
  return result;
}

/// The input at `offset` as the message quotes it: a word, or one character.
std::string quoted_input(std::string_view text, std::size_t offset) {
  std::size_t end = offset;
  while (end < text.size() && end - offset < 40 &&
         (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_')) {
    ++end;
  }
  if (end == offset) end = offset + 1;
  return std::string(text.substr(offset, end - offset));
}

[[noreturn]] void throw_syntax_error(std::string_view text, std::size_t offset, std::string code,
                                     const std::string& message) {
  const LineColumn at = line_column(text, offset);
  std::string what = message + " (line " + std::to_string(at.line) + ", column " + std::to_string(at.column) + ")";
  throw QueryError(what, std::move(code), at.line, at.column);
}

std::string expected_list(std::vector<std::string_view> names) {
  std::vector<std::string_view> unique;
  for (const auto name : names) {
    if (std::find(unique.begin(), unique.end(), name) == unique.end()) unique.push_back(name);
  }
  std::string out;
  for (std::size_t i = 0; i < unique.size(); ++i) {
    if (i > 0) out += i + 1 == unique.size() ? " or " : ", ";
    out += unique[i];
  }
  return out;
}

}  // namespace

std::unique_ptr<Statement> parse_statement(std::string_view text) {
  ParseContext context;
  context.begin = text.data();
  context.work_limit = 4096 + 64 * text.size();
  struct Scope {
    ParseContext* previous;
    ~Scope() { current_context = previous; }
  } scope{current_context};
  current_context = &context;

  try {
    pegtl::memory_input<> input(text.data(), text.size(), "statement");
    auto root = pegtl::parse_tree::parse<grammar::statement, Node, selector, pegtl::nothing, tracking_control>(input);
    if (!root) {
      const std::size_t offset = std::min(context.farthest, text.size());
      std::string message = offset < text.size() ? "Invalid input '" + quoted_input(text, offset) + "'"
                                                 : std::string("Unexpected end of input");
      if (!context.expected.empty()) message += ": expected " + expected_list(context.expected);
      throw_syntax_error(text, offset, "SyntaxError: UnexpectedSyntax", message);
    }
    return TreeBuilder{}.statement(*root, text);
  } catch (const LiteralError& error) {
    throw_syntax_error(text, error.offset, error.code, error.message);
  }
}

}  // namespace propgraph::query
