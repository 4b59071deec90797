// The conformance suite, unchanged, against PostgresGraph on the test server: once with the
// default options, once with every bulk edge write that may rebuild doing so.
#include <memory>

#include "conformance_suite.hpp"
#include "pg_test_support.hpp"

namespace {

struct PostgresGraphFactory {
  /// A fresh graph per call; nullptr (the suite skips) when no server is available.
  static std::unique_ptr<propgraph::GraphOperations> make() { return propgraph::pgtest::scratch_graph(); }
};

/// Bulk edge writes of any size into a graph holding no more edges take rebuild mode
/// (PostgresOptions::bulk_rebuild_min_edges) whenever no other transaction holds the tables.
struct PostgresRebuildFactory {
  static std::unique_ptr<propgraph::GraphOperations> make() {
    return propgraph::pgtest::scratch_graph({.pool_size = 2, .bulk_rebuild_min_edges = 1});
  }
};

}  // namespace

namespace propgraph::conformance {
INSTANTIATE_TEST_SUITE_P(Postgres, GraphConformance, ::testing::Values(backend<PostgresGraphFactory>("PostgresGraph")),
                         backend_name);
INSTANTIATE_TEST_SUITE_P(PostgresRebuild, GraphConformance,
                         ::testing::Values(backend<PostgresRebuildFactory>("PostgresRebuild")), backend_name);
}  // namespace propgraph::conformance
