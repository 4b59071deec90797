// propgraph-convert: converts a graph between CSV, NDJSON and GraphML, or only checks a file,
// and prints the import report. See usage() below.
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "propgraph/io.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace fs = std::filesystem;
using namespace propgraph;

namespace {

constexpr int kOk = 0;
constexpr int kImportFailed = 1;
constexpr int kUsage = 2;
constexpr int kExportFailed = 3;

void usage(std::FILE* out) {
  fmt::print(out, R"(usage: propgraph-convert [options] INPUT [OUTPUT]

Reads INPUT, prints its import report, and writes the graph to OUTPUT in the format that
OUTPUT's extension names. Without OUTPUT the input is only checked.

INPUT and OUTPUT are a .ndjson or .jsonl file, a .graphml or .xml file, or a CSV pair
VERTICES.csv,EDGES.csv (on input the edges file may be left out). '-' is standard input or
output (for NDJSON and GraphML; name the format with --from / --to).

options:
  --from FORMAT, --to FORMAT   csv, ndjson or graphml, instead of guessing from the extension
  --skip-duplicates            skip a vertex whose id was seen before (default: fail)
  --skip-missing-endpoints     skip an edge whose endpoint is missing (default: fail)
  --default-vertex-label L     label of vertices without one (default: vertex)
  --default-edge-label L       label of edges without one (default: edge)
  --no-default-labels          a record without a label is an error
  --keep-ids PROPERTY          also store each file id in this property
  --max-problems N             stop after N errors (default: 1000)
  --vertex-labels A,B,...      write only vertices with these labels (default: all)
  --edge-labels A,B,...        write only edges with these labels (default: all)
  -q, --quiet                  print only the problems, not the summary lines
  -h, --help                   this text

exit status: 0 done, 1 the input has errors (nothing written), 2 usage error, 3 writing failed
)");
}

[[noreturn]] void usage_error(const std::string& message) {
  fmt::print(stderr, "propgraph-convert: {}\n\n", message);
  usage(stderr);
  std::exit(kUsage);
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    std::size_t stop = text.find(separator, start);
    parts.emplace_back(text.substr(start, stop == std::string_view::npos ? std::string_view::npos : stop - start));
    if (stop == std::string_view::npos) return parts;
    start = stop + 1;
  }
}

/// One side of the conversion: a format and one file (two for CSV).
struct Endpoint {
  io::Format format = io::Format::ndjson;
  fs::path file;   // the vertices file for CSV; "-" for standard input or output
  fs::path edges;  // CSV only; may be empty on input
};

Endpoint endpoint(const std::string& spec, const std::optional<io::Format>& forced, bool output) {
  Endpoint e;
  auto parts = split(spec, ',');
  if (parts.size() > 2 || parts[0].empty()) usage_error(fmt::format("cannot read '{}' as a file or file pair", spec));
  e.file = parts[0];
  if (parts.size() == 2) e.edges = parts[1];
  if (forced) {
    e.format = *forced;
  } else if (auto guessed = io::guess_format(e.file)) {
    e.format = *guessed;
  } else {
    usage_error(fmt::format("cannot tell the format of '{}': name it with --{}", spec, output ? "to" : "from"));
  }
  if (e.format != io::Format::csv && !e.edges.empty()) usage_error("only CSV takes a file pair");
  if (e.format == io::Format::csv) {
    if (e.file == "-" || e.edges == "-") usage_error("CSV needs files, not standard input or output");
    if (output && e.edges.empty()) usage_error("a CSV output needs two files: VERTICES.csv,EDGES.csv");
  }
  return e;
}

io::ImportReport read_graph(GraphOperations& g, const Endpoint& in, const io::ImportOptions& options) {
  switch (in.format) {
    case io::Format::csv: return io::import_csv(g, in.file, in.edges, options);
    case io::Format::ndjson:
      return in.file == "-" ? io::import_ndjson(g, std::cin, options, "<stdin>")
                            : io::import_ndjson(g, in.file, options);
    case io::Format::graphml:
      return in.file == "-" ? io::import_graphml(g, std::cin, options, "<stdin>")
                            : io::import_graphml(g, in.file, options);
  }
  return {};
}

io::ExportReport write_graph(GraphOperations& g, const Endpoint& out, const io::ExportOptions& options) {
  switch (out.format) {
    case io::Format::csv: return io::export_csv(g, out.file, out.edges, options);
    case io::Format::ndjson:
      return out.file == "-" ? io::export_ndjson(g, std::cout, options) : io::export_ndjson(g, out.file, options);
    case io::Format::graphml:
      return out.file == "-" ? io::export_graphml(g, std::cout, options) : io::export_graphml(g, out.file, options);
  }
  return {};
}

void print_report(const io::ImportReport& report, bool quiet, std::FILE* out) {
  if (!quiet) {
    fmt::print(out, "{}\n", report);
    return;
  }
  for (const auto& p : report.problems) fmt::print(out, "{}\n", p);
}

}  // namespace

int main(int argc, char** argv) {
  io::ImportOptions import_options;
  io::ExportOptions export_options;
  std::optional<io::Format> from, to;
  bool quiet = false;
  std::vector<std::string> paths;

  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(fmt::format("{} needs a value", arg));
      return argv[++i];
    };
    auto format = [&](const std::string& name) {
      auto f = io::parse_format(name);
      if (!f) usage_error(fmt::format("unknown format '{}'", name));
      return *f;
    };
    if (arg == "-h" || arg == "--help") {
      usage(stdout);
      return kOk;
    } else if (arg == "--from") {
      from = format(value());
    } else if (arg == "--to") {
      to = format(value());
    } else if (arg == "--skip-duplicates") {
      import_options.on_duplicate_vertex = io::DuplicatePolicy::skip;
    } else if (arg == "--skip-missing-endpoints") {
      import_options.on_missing_endpoint = io::MissingEndpointPolicy::skip_edge;
    } else if (arg == "--default-vertex-label") {
      import_options.default_vertex_label = value();
    } else if (arg == "--default-edge-label") {
      import_options.default_edge_label = value();
    } else if (arg == "--no-default-labels") {
      import_options.default_vertex_label.reset();
      import_options.default_edge_label.reset();
    } else if (arg == "--keep-ids") {
      import_options.keep_external_id_as = value();
    } else if (arg == "--max-problems") {
      const std::string n = value();
      char* end = nullptr;
      const unsigned long long parsed = std::strtoull(n.c_str(), &end, 10);
      if (n.empty() || *end != '\0' || parsed == 0) usage_error("--max-problems needs a positive number");
      import_options.max_problems = static_cast<std::size_t>(parsed);
    } else if (arg == "--vertex-labels") {
      export_options.vertex_labels = split(value(), ',');
    } else if (arg == "--edge-labels") {
      export_options.edge_labels = split(value(), ',');
    } else if (arg == "-q" || arg == "--quiet") {
      quiet = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      usage_error(fmt::format("unknown option {}", arg));
    } else {
      paths.emplace_back(arg);
    }
  }
  if (paths.empty() || paths.size() > 2) usage_error("expected INPUT and, optionally, OUTPUT");

  const Endpoint in = endpoint(paths[0], from, false);
  const std::optional<Endpoint> out = paths.size() == 2 ? std::optional(endpoint(paths[1], to, true)) : std::nullopt;
  // With the graph on standard output, reports go to standard error.
  std::FILE* report_stream = out && out->file == "-" ? stderr : stdout;

  MemoryGraph graph;
  try {
    print_report(read_graph(graph, in, import_options), quiet, report_stream);
  } catch (const io::ImportFailed& failure) {
    print_report(failure.report(), quiet, report_stream);
    return kImportFailed;
  }
  if (!out) return kOk;
  try {
    auto written = write_graph(graph, *out, export_options);
    if (!quiet) fmt::print(report_stream, "{}\n", written);
  } catch (const Error& failure) {
    fmt::print(stderr, "propgraph-convert: writing failed: {}\n", failure.what());
    return kExportFailed;
  }
  return kOk;
}
