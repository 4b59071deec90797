// What every importer fuzzer checks, beyond the sanitizers: a failed import leaves the graph
// exactly as it was and locates its first error; a successful one created what its report says
// and round-trips through every exporter and importer.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>

#include "graph_content.hpp"
#include "propgraph/io.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace propgraph::fuzz {

using io::ImportOptions;
using io::ImportReport;

/// Reports a broken invariant and aborts, which libFuzzer records as a crash with its input.
[[noreturn]] inline void violated(std::string_view what, const std::string& detail = {}) {
  std::fprintf(stderr, "\ninvariant violated: %.*s\n%s\n", static_cast<int>(what.size()), what.data(), detail.c_str());
  std::abort();
}

/// The options an input's first byte selects: the policies, keep_external_id_as, missing
/// default labels and a small max_problems are all reachable.
inline ImportOptions options_from(std::uint8_t bits) {
  ImportOptions options;
  if (bits & 1) options.on_duplicate_vertex = io::DuplicatePolicy::skip;
  if (bits & 2) options.on_missing_endpoint = io::MissingEndpointPolicy::skip_edge;
  if (bits & 4) options.keep_external_id_as = "ext";
  if (bits & 8) {
    options.default_vertex_label = std::nullopt;
    options.default_edge_label = std::nullopt;
  }
  constexpr std::size_t kMaxProblems[] = {1000, 1, 2, 5};
  options.max_problems = kMaxProblems[(bits >> 4) & 3];
  return options;
}

/// Value equality that also holds for two NaNs and tells -0.0 from 0.0: what a lossless round
/// trip keeps.
inline bool same(const Value& a, const Value& b) {
  if (a.type() != b.type()) return false;
  if (a.is_double()) {
    const double x = a.as_double(), y = b.as_double();
    return (std::isnan(x) && std::isnan(y)) || std::memcmp(&x, &y, sizeof x) == 0;
  }
  if (a.is_list()) {
    const auto &l = a.as_list(), &r = b.as_list();
    if (l.size() != r.size()) return false;
    for (std::size_t i = 0; i < l.size(); ++i) {
      if (!same(l[i], r[i])) return false;
    }
    return true;
  }
  return a == b;
}

inline bool same(const Properties& a, const Properties& b) {
  if (a.size() != b.size()) return false;
  auto it = b.begin();
  for (const auto& [key, value] : a) {
    if (key != it->first || !same(value, it->second)) return false;
    ++it;
  }
  return true;
}

inline bool same(const io::test::Shape& a, const io::test::Shape& b) {
  if (a.vertices.size() != b.vertices.size() || a.edges.size() != b.edges.size()) return false;
  for (std::size_t i = 0; i < a.vertices.size(); ++i) {
    if (a.vertices[i].first != b.vertices[i].first || !same(a.vertices[i].second, b.vertices[i].second)) return false;
  }
  for (std::size_t i = 0; i < a.edges.size(); ++i) {
    const auto& [la, fa, ta, pa] = a.edges[i];
    const auto& [lb, fb, tb, pb] = b.edges[i];
    if (la != lb || fa != fb || ta != tb || !same(pa, pb)) return false;
  }
  return true;
}

/// Exports `g` in every format and imports each export into a fresh graph: each must hold what
/// `g` holds. An export may refuse only a double that JSON cannot hold (NaN, infinities).
inline void check_round_trips(GraphOperations& g) {
  const io::test::Shape expected = io::test::shape(g);
  auto round_trip = [&](std::string_view format, const std::function<void(GraphOperations&)>& run) {
    MemoryGraph copy;
    try {
      run(copy);
    } catch (const InvalidArgument& e) {
      if (std::string_view(e.what()).find("JSON cannot hold the double") != std::string_view::npos) return;
      violated(std::string(format) + " export refused what the graph holds", e.what());
    } catch (const io::ImportFailed& e) {
      violated(std::string(format) + " import rejected its own export", io::to_string(e.report()));
    }
    if (!same(io::test::shape(copy), expected)) {
      violated(std::string(format) + " round trip changed the graph",
               "expected:\n" + io::test::describe(expected) + "got:\n" + io::test::describe(io::test::shape(copy)));
    }
  };
  round_trip("csv", [&](GraphOperations& copy) {
    std::stringstream vertices, edges;
    io::export_csv(g, vertices, edges);
    io::import_csv(copy, vertices, edges);
  });
  round_trip("ndjson", [&](GraphOperations& copy) {
    std::stringstream text;
    io::export_ndjson(g, text);
    io::import_ndjson(copy, text);
  });
  round_trip("graphml", [&](GraphOperations& copy) {
    std::stringstream text;
    io::export_graphml(g, text);
    io::import_graphml(copy, text);
  });
}

/// Runs `import` on the input (first byte: options_from; the rest: the text) into a graph
/// that already holds something, and checks the invariants.
inline void check_import(
    const std::uint8_t* data, std::size_t size,
    const std::function<ImportReport(GraphOperations&, std::string_view, const ImportOptions&)>& import) {
  if (size == 0) return;
  const ImportOptions options = options_from(data[0]);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  MemoryGraph g;
  auto a = g.create_vertex("Existing", {{"name", "a"}});
  auto b = g.create_vertex("Existing", {{"name", "b"}, {"n", 1}});
  g.create_edge(a.id, b.id, "LINK", {{"w", 0.5}});
  const io::test::Snapshot before = io::test::snapshot(g);
  ImportReport report;
  try {
    report = import(g, text, options);
  } catch (const io::ImportFailed& e) {
    if (!(io::test::snapshot(g) == before)) violated("a failed import changed the graph", io::to_string(e.report()));
    const auto& problems = e.report().problems;
    if (e.report().ok() || problems.empty()) violated("a failed import reports no error", io::to_string(e.report()));
    const auto first = std::find_if(problems.begin(), problems.end(),
                                    [](const io::Problem& p) { return p.severity == io::Severity::error; });
    if (first == problems.end()) violated("the first error of a failed import was not kept", io::to_string(e.report()));
    if (first->file.empty() || first->line == 0 || first->column == 0) {
      violated("the first error of a failed import has no location", io::to_string(*first));
    }
    return;
  }
  if (!report.ok()) violated("an import returned with errors", io::to_string(report));
  const io::test::Snapshot after = io::test::snapshot(g);
  if (after.vertices.size() != before.vertices.size() + report.vertices_created ||
      after.edges.size() != before.edges.size() + report.edges_created) {
    violated("the report's counts differ from what the graph gained", io::to_string(report));
  }
  check_round_trips(g);
}

}  // namespace propgraph::fuzz
