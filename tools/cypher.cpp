// propgraph-cypher: an openCypher shell. Runs statements from arguments, files or standard input
// on an in-memory, durable or PostgreSQL graph, or prompts for them on a terminal. See usage().
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "propgraph/errors.hpp"
#include "propgraph/fmt.hpp"
#include "propgraph/json.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/operations.hpp"
#include "propgraph/query.hpp"
#ifdef PROPGRAPH_CYPHER_POSTGRES
#include "propgraph/postgres/postgres_graph.hpp"
#endif

using namespace propgraph;

namespace {

constexpr int kOk = 0;
constexpr int kStatementFailed = 1;
constexpr int kUsage = 2;
constexpr int kOpenFailed = 3;

void usage(std::FILE* out) {
  fmt::print(out, R"(usage: propgraph-cypher [options] [-c STATEMENT]... [-f FILE]...

Runs openCypher statements on a graph: each -c STATEMENT and -f FILE in the order given, else
standard input (a prompt when it is a terminal, a script otherwise).

A script holds statements separated by ';' at the end of a line; the last one needs none.
Lines starting with // between statements are skipped.

graph (default: a new in-memory graph):
  --data-dir DIR        a durable in-memory graph kept in DIR (created when missing)
  --postgres DSN        a PostgreSQL graph (libpq connection string or URI){}
  --graph NAME          the graph's name (default: g1 in memory, default in PostgreSQL)

statements:
  -c, --command TEXT    run TEXT (repeatable)
  -f, --file FILE       run the statements in FILE; '-' is standard input (repeatable)
  --param NAME=JSON     set parameter $NAME to a JSON value; objects are maps (repeatable)

output:
  --format table        an aligned table per statement, then '<n> rows' and the changes (default)
  --format json         JSON Lines: one object per row (column name -> value, in column
                        order; nodes, relationships and paths as propgraph::json writes them),
                        then one line {{"$summary": {{"statement", "columns", "rows", "stats"}}}}
                        per statement ("parse_ms" and "run_ms" added with --timing)
  --timing              print the parse and run time of each statement
  -h, --help            this text

At the prompt: statements end with ';' (input continues over lines until then), and
  :param NAME => EXPR   set $NAME to the value of a Cypher expression, e.g. {{name: 'Ann'}}
  :params               list the parameters; ':params clear' removes them all
  :help                 this text
  :quit, :exit          leave (so does end of input)

Errors print 'error: <code>: <message> (line L, column C)' on standard error; in a file, L is
the line in the file, and the file and statement number are named too.

exit status: 0 done, 1 a statement failed (the run stops there; not at the prompt), 2 usage
error or unreadable file, 3 the graph could not be opened
)",
#ifdef PROPGRAPH_CYPHER_POSTGRES
             ""
#else
             "\n                        (not available: built without PostgreSQL)"
#endif
  );
}

[[noreturn]] void usage_error(const std::string& message) {
  fmt::print(stderr, "propgraph-cypher: {}\n\n", message);
  usage(stderr);
  std::exit(kUsage);
}

// -- statements ------------------------------------------------------------------------------------

/// One statement of a script and where it starts: its text begins at the start of line
/// `first_line` of its source, so a QueryError's line maps to the source's line directly and
/// its column stays as it is.
struct Statement {
  std::string text;
  int first_line = 1;
};

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string_view trim(std::string_view s) {
  s = trim_right(s);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

/// True when every line is blank or a // comment.
bool is_blank(std::string_view text) {
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    auto t = trim(line);
    if (!t.empty() && !t.starts_with("//")) return false;
  }
  return true;
}

/// Splits a script at each ';' that ends a line (trailing blanks aside); the ';' is dropped.
/// Blank and comment-only statements are left out.
std::vector<Statement> split_statements(std::string_view script) {
  std::vector<Statement> statements;
  Statement current;
  int line_number = 0;
  std::size_t pos = 0;
  while (pos < script.size()) {
    std::size_t end = script.find('\n', pos);
    std::string_view line = script.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? script.size() : end + 1;
    ++line_number;
    if (current.text.empty()) current.first_line = line_number;
    std::string_view content = trim_right(line);
    if (!content.empty() && content.back() == ';') {
      content.remove_suffix(1);
      current.text += content;
      if (!is_blank(current.text)) statements.push_back(std::move(current));
      current = {};
    } else {
      current.text += line;
      current.text += '\n';
    }
  }
  if (!is_blank(current.text)) statements.push_back(std::move(current));
  // Without trailing blanks an error at the end of input points at the end of the last line.
  for (Statement& s : statements) s.text.resize(trim_right(s.text).size());
  return statements;
}

// -- errors ----------------------------------------------------------------------------------------

/// The error's class for the message: a QueryError's code, else the exception type.
std::string error_code(const std::exception& e) {
  if (const auto* q = dynamic_cast<const QueryError*>(&e)) return q->code();
  if (dynamic_cast<const InvalidArgument*>(&e)) return "InvalidArgument";
  if (dynamic_cast<const NotFound*>(&e)) return "NotFound";
  if (dynamic_cast<const AlreadyExists*>(&e)) return "AlreadyExists";
  if (dynamic_cast<const ConnectionError*>(&e)) return "ConnectionError";
  if (dynamic_cast<const TransactionConflict*>(&e)) return "TransactionConflict";
  if (dynamic_cast<const Timeout*>(&e)) return "Timeout";
  if (dynamic_cast<const StorageError*>(&e)) return "StorageError";
  if (dynamic_cast<const Error*>(&e)) return "Error";
  return "InternalError";
}

/// Where an error happened, beyond its line and column: the source and statement, when known.
struct Place {
  std::string source;  // a file name, "<stdin>"; empty for -c and the prompt
  int statement = 0;   // 1-based within the source; 0: not shown
  int first_line = 1;  // the statement's first line in the source
  int column_shift = 0;  // subtracted from columns on the statement's first line
};

/// `error: <code>: <message> (<source>: statement N, line L, column C)` on standard error.
void print_error(const std::exception& e, const Place& place) {
  const std::string code = error_code(e);
  std::string_view message = e.what();
  if (!code.empty() && message.starts_with(code) && message.substr(code.size()).starts_with(": ")) {
    message.remove_prefix(code.size() + 2);  // the code is printed once
  }
  std::vector<std::string> where;
  if (!place.source.empty())
    where.push_back(place.statement > 0 ? fmt::format("{}: statement {}", place.source, place.statement)
                                        : place.source);
  const auto* q = dynamic_cast<const QueryError*>(&e);
  if (q != nullptr && q->line() > 0) {
    // The message ends with the place in the statement; it is printed once, mapped to the source.
    const std::string own = fmt::format(" (line {}, column {})", q->line(), q->column());
    if (message.ends_with(own)) message.remove_suffix(own.size());
    const int column =
        q->line() == 1 && q->column() > place.column_shift ? q->column() - place.column_shift : q->column();
    where.push_back(fmt::format("line {}, column {}", place.first_line + q->line() - 1, column));
  }
  std::string text = code.empty() ? fmt::format("error: {}", message) : fmt::format("error: {}: {}", code, message);
  for (std::size_t i = 0; i < where.size(); ++i) text += fmt::format("{}{}", i == 0 ? " (" : ", ", where[i]);
  if (!where.empty()) text += ')';
  fmt::print(stderr, "{}\n", text);
}

// -- output ----------------------------------------------------------------------------------------

enum class Format { table, json };

std::string json_text(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

struct Timing {
  double parse_ms = 0;
  double run_ms = 0;
};

void print_table(const QueryResult& result, const std::optional<Timing>& timing) {
  fmt::print("{}\n", result);
  if (timing) fmt::print("parse {:.3f} ms, run {:.3f} ms\n", timing->parse_ms, timing->run_ms);
}

void print_json(const QueryResult& result, int statement, const std::optional<Timing>& timing) {
  // Rows are written by hand: nlohmann's objects sort their keys, rows keep the column order.
  std::string line;
  for (const auto& row : result.rows) {
    line.clear();
    line += '{';
    for (std::size_t c = 0; c < result.columns.size() && c < row.size(); ++c) {
      if (c > 0) line += ',';
      line += json_text(result.columns[c]);
      line += ':';
      line += json_text(row[c]);
    }
    line += '}';
    fmt::print("{}\n", line);
  }
  nlohmann::json summary{
      {"statement", statement}, {"columns", result.columns}, {"rows", result.rows.size()}, {"stats", result.stats}};
  if (timing) {
    summary["parse_ms"] = timing->parse_ms;
    summary["run_ms"] = timing->run_ms;
  }
  fmt::print("{}\n", json_text(nlohmann::json{{"$summary", std::move(summary)}}));
}

// -- the shell -------------------------------------------------------------------------------------

struct Settings {
  Format format = Format::table;
  bool timing = false;
};

class Shell {
 public:
  Shell(GraphOperations& graph, Settings settings, Parameters parameters)
      : graph_(graph), settings_(settings), parameters_(std::move(parameters)) {}

  /// Parses and runs one statement and prints its result; prints the error and returns false
  /// when it fails.
  bool run(const Statement& statement, const Place& place) {
    ++statements_run_;
    try {
      using Clock = std::chrono::steady_clock;
      const auto start = Clock::now();
      const Query query = Query::parse(statement.text);
      const auto parsed = Clock::now();
      const QueryResult result = graph_.query(query, parameters_);
      const auto done = Clock::now();
      std::optional<Timing> timing;
      if (settings_.timing) {
        timing = Timing{std::chrono::duration<double, std::milli>(parsed - start).count(),
                        std::chrono::duration<double, std::milli>(done - parsed).count()};
      }
      if (settings_.format == Format::json) {
        print_json(result, statements_run_, timing);
      } else {
        print_table(result, timing);
      }
      std::fflush(stdout);
      return true;
    } catch (const std::exception& e) {
      std::fflush(stdout);
      print_error(e, place);
      return false;
    }
  }

  /// Runs a script's statements in order; stops at the first failure unless `keep_going`.
  bool run_script(std::string_view script, const std::string& source, bool keep_going) {
    const auto statements = split_statements(script);
    bool ok = true;
    for (std::size_t i = 0; i < statements.size(); ++i) {
      const Place place{source, source.empty() ? 0 : static_cast<int>(i) + 1, statements[i].first_line, 0};
      if (!run(statements[i], place)) {
        ok = false;
        if (!keep_going) return false;
      }
    }
    return ok;
  }

  /// The prompt: reads statements until :quit or the end of input.
  void interactive() {
    fmt::print("propgraph-cypher: statements end with ';', :help for help, :quit to leave.\n");
    std::string buffer;
    int buffer_lines = 0;
    for (;;) {
      fmt::print("{}", buffer_lines == 0 ? "cypher> " : "   ...> ");
      std::fflush(stdout);
      std::string line;
      if (!std::getline(std::cin, line)) {
        fmt::print("\n");
        if (!is_blank(buffer)) run_script(buffer, "", true);
        return;
      }
      if (buffer_lines == 0 && trim(line).starts_with(':')) {
        if (!command(trim(line))) return;
        continue;
      }
      buffer += line;
      buffer += '\n';
      ++buffer_lines;
      if (trim_right(line).ends_with(';')) {
        run_script(buffer, "", true);
        buffer.clear();
        buffer_lines = 0;
      }
    }
  }

 private:
  /// A prompt command; false for :quit.
  bool command(std::string_view line) {
    auto space = line.find_first_of(" \t");
    const std::string_view name = line.substr(0, space);
    const std::string_view rest = space == std::string_view::npos ? std::string_view() : trim(line.substr(space));
    if (name == ":quit" || name == ":exit" || name == ":q") return false;
    if (name == ":help") {
      usage(stdout);
    } else if (name == ":params" && rest == "clear") {
      parameters_ = {};
    } else if (name == ":params" || (name == ":param" && rest.empty())) {
      for (const auto& [key, value] : parameters_) fmt::print(":param {} => {}\n", key, value);
    } else if (name == ":param") {
      set_parameter(rest);
    } else {
      fmt::print(stderr, "error: unknown command {} (:help lists them)\n", name);
    }
    return true;
  }

  /// `NAME => EXPR`: evaluates `RETURN EXPR` with the parameters so far and keeps its value.
  void set_parameter(std::string_view spec) {
    const auto arrow = spec.find("=>");
    std::string_view key = arrow == std::string_view::npos ? std::string_view() : trim(spec.substr(0, arrow));
    if (key.starts_with('$')) key.remove_prefix(1);
    if (key.size() >= 2 && key.front() == '`' && key.back() == '`') key = key.substr(1, key.size() - 2);
    if (key.empty()) {
      fmt::print(stderr, "error: usage: :param NAME => EXPRESSION\n");
      return;
    }
    constexpr std::string_view prefix = "RETURN ";
    const std::string expression(trim(spec.substr(arrow + 2)));
    try {
      const QueryResult result = graph_.query(Query::parse(std::string(prefix) + expression), parameters_);
      if (result.rows.size() != 1 || result.rows.front().size() != 1) {
        throw InvalidArgument("the expression must give one value");
      }
      parameters_.set(std::string(key), result.rows.front().front());
      fmt::print(":param {} => {}\n", key, result.rows.front().front());
    } catch (const std::exception& e) {
      print_error(e, Place{"", 0, 1, static_cast<int>(prefix.size())});
    }
  }

  GraphOperations& graph_;
  Settings settings_;
  Parameters parameters_;
  int statements_run_ = 0;
};

// -- arguments -------------------------------------------------------------------------------------

struct Source {
  bool file = false;
  std::string text;  // the statement text, or the file name
};

struct Arguments {
  std::optional<std::string> data_dir;
  std::optional<std::string> postgres;
  std::optional<std::string> graph_name;
  std::vector<Source> sources;
  Settings settings;
  Parameters parameters;
};

Arguments parse_arguments(int argc, char** argv) {
  Arguments args;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(fmt::format("{} needs a value", arg));
      return argv[++i];
    };
    if (arg == "-h" || arg == "--help") {
      usage(stdout);
      std::exit(kOk);
    } else if (arg == "-c" || arg == "--command") {
      args.sources.push_back({false, value()});
    } else if (arg == "-f" || arg == "--file") {
      args.sources.push_back({true, value()});
    } else if (arg == "--data-dir") {
      args.data_dir = value();
    } else if (arg == "--postgres") {
      args.postgres = value();
    } else if (arg == "--graph") {
      args.graph_name = value();
    } else if (arg == "--timing") {
      args.settings.timing = true;
    } else if (arg == "--format") {
      const std::string format = value();
      if (format == "table") {
        args.settings.format = Format::table;
      } else if (format == "json") {
        args.settings.format = Format::json;
      } else {
        usage_error(fmt::format("unknown format '{}' (table or json)", format));
      }
    } else if (arg == "--param") {
      const std::string spec = value();
      const auto equals = spec.find('=');
      if (equals == std::string::npos || equals == 0)
        usage_error(fmt::format("--param needs NAME=JSON, got '{}'", spec));
      try {
        args.parameters.set(spec.substr(0, equals), parse_json(spec.substr(equals + 1)).get<QueryValue>());
      } catch (const Error& e) {
        usage_error(fmt::format("--param {}: {}", spec.substr(0, equals), e.what()));
      }
    } else {
      usage_error(fmt::format("unknown argument '{}'", arg));
    }
  }
  if (args.data_dir && args.postgres) usage_error("--data-dir and --postgres exclude each other");
#ifndef PROPGRAPH_CYPHER_POSTGRES
  if (args.postgres) usage_error("--postgres: this propgraph-cypher was built without PostgreSQL");
#endif
  return args;
}

std::unique_ptr<GraphOperations> open_graph(const Arguments& args) {
#ifdef PROPGRAPH_CYPHER_POSTGRES
  if (args.postgres) {
    PostgresOptions options{.conninfo = *args.postgres};
    if (args.graph_name) options.graph = *args.graph_name;
    return std::make_unique<PostgresGraph>(std::move(options));
  }
#endif
  MemoryOptions options;
  if (args.graph_name) options.graph_name = *args.graph_name;
  if (args.data_dir) options.data_dir = *args.data_dir;
  return std::make_unique<MemoryGraph>(std::move(options));
}

std::optional<std::string> read_file(const std::string& name) {
  if (name == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::ifstream in(name, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(text).str();
}

}  // namespace

int main(int argc, char** argv) {
  Arguments args = parse_arguments(argc, argv);

  std::unique_ptr<GraphOperations> graph;
  try {
    graph = open_graph(args);
  } catch (const std::exception& e) {
    fmt::print(stderr, "propgraph-cypher: cannot open the graph: {}: {}\n", error_code(e), e.what());
    return kOpenFailed;
  }
  Shell shell(*graph, args.settings, std::move(args.parameters));

  if (args.sources.empty()) {
    if (isatty(STDIN_FILENO) != 0) {
      shell.interactive();
      return kOk;
    }
    args.sources.push_back({true, "-"});
  }
  for (const auto& source : args.sources) {
    if (!source.file) {
      if (!shell.run_script(source.text, "", false)) return kStatementFailed;
      continue;
    }
    auto text = read_file(source.text);
    if (!text) {
      fmt::print(stderr, "propgraph-cypher: cannot read {}\n", source.text);
      return kUsage;
    }
    if (!shell.run_script(*text, source.text == "-" ? "<stdin>" : source.text, false)) return kStatementFailed;
  }
  return kOk;
}
