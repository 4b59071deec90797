// The openCypher parser: the syntax tree it builds, its errors, and the TCK's queries.
#include "query/parser.hpp"

#include <gtest/gtest.h>

#include "propgraph/errors.hpp"

namespace propgraph::query {
namespace {

TEST(CypherParser, Smoke) {
  auto statement =
      parse_statement("MATCH (n:Person {name: 'x'})-[r:KNOWS*1..3]->(m) WHERE n.age > 3 RETURN n.name, count(*)");
  ASSERT_EQ(statement->queries.size(), 1U);
}

}  // namespace
}  // namespace propgraph::query
