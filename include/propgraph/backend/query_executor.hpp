// The generic openCypher executor of the backend kit: answers any Query through
// GraphOperations calls alone, so a backend (or decorator, or transaction) has query() at once.
#pragma once

#include "propgraph/operations.hpp"
#include "propgraph/query.hpp"

namespace propgraph::backend {

/// Runs `statement` on `graph` through its GraphOperations calls. On a Transaction it runs
/// there; otherwise a statement that writes runs inside transact(graph, ...) (atomic, conflicts
/// retried up to TransactOptions' default attempts) and a read-only one directly on the graph.
/// Clauses run in order over the whole table of rows; pattern matches are found in ascending id
/// order, so results are deterministic. Each call checks the caller's DeadlineScope. Errors as
/// GraphOperations::query documents. GraphOperations::query's default implementation.
[[nodiscard]] QueryResult execute_query(GraphOperations& graph, const Query& statement, const Parameters& parameters);

}  // namespace propgraph::backend
