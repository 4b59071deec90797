// The conformance suite, unchanged, against PostgresGraph on the test server.
#include <memory>

#include "conformance_suite.hpp"
#include "pg_test_support.hpp"

namespace {

struct PostgresGraphFactory {
  /// A fresh graph per call; nullptr (the suite skips) when no server is available.
  static std::unique_ptr<propgraph::GraphOperations> make() { return propgraph::pgtest::scratch_graph(); }
};

}  // namespace

namespace propgraph::conformance {
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, GraphConformance, ::testing::Types<PostgresGraphFactory>);
}  // namespace propgraph::conformance
