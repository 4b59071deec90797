// The semantic pass over a parsed statement: resolves every variable to a row slot, marks
// aggregations, and finds before any work is done what openCypher calls compile-time errors
// (undefined or re-bound variables, unknown functions, wrong argument counts, patterns CREATE
// cannot make) and what lies outside propgraph's model (two labels on a node, temporal values).
#pragma once

#include "query/ast.hpp"

namespace propgraph::query {

/// Annotates `statement` in place (slots, aggregate flags, columns, writes). Throws QueryError
/// with the openCypher code and the position of the offending construct.
void analyze(Statement& statement);

}  // namespace propgraph::query
