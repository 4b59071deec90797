#include "propgraph/query.hpp"

#include <memory>
#include <string>

#include "propgraph/backend/query_executor.hpp"
#include "propgraph/operations.hpp"
#include "query/analyzer.hpp"
#include "query/ast.hpp"
#include "query/parser.hpp"

namespace propgraph {

Query Query::parse(std::string_view text) {
  std::unique_ptr<query::Statement> statement = query::parse_statement(text);
  statement->text = std::string(text);
  query::analyze(*statement);
  return Query(std::shared_ptr<const query::Statement>(std::move(statement)));
}

const std::string& Query::text() const noexcept { return statement_->text; }

bool Query::is_write() const noexcept { return statement_->writes; }

QueryResult GraphOperations::query(const Query& statement, const Parameters& parameters) {
  return backend::execute_query(*this, statement, parameters);
}

}  // namespace propgraph
