// The openCypher parser (PEGTL): statement text -> syntax tree, nothing checked but syntax.
#pragma once

#include <memory>
#include <string_view>

#include "query/ast.hpp"

namespace propgraph::query {

/// Parses one statement (an optional trailing `;` allowed). Throws QueryError with code
/// "SyntaxError" (or "SyntaxError: <detail>" for the openCypher details the grammar itself
/// decides, e.g. InvalidNumberLiteral, IntegerOverflow, InvalidUnicodeLiteral), the line and
/// column of the offending input and what was expected. Nesting deeper than 256 levels is a
/// SyntaxError, never a stack overflow.
[[nodiscard]] std::unique_ptr<Statement> parse_statement(std::string_view text);

}  // namespace propgraph::query
