#include "runner.hpp"

#include <algorithm>
#include <exception>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "propgraph/deadline.hpp"
#include "propgraph/errors.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/query.hpp"
#include "tck_values.hpp"

namespace propgraph::tck {

std::string_view to_string(Outcome outcome) noexcept {
  switch (outcome) {
    case Outcome::passed: return "passed";
    case Outcome::failed: return "failed";
    case Outcome::outside: return "outside";
  }
  return "?";
}

namespace {

constexpr std::string_view kOutsidePrefix = "OutsideModel";
constexpr std::size_t kMaxReason = 4000;

/// Ends the scenario with this outcome (thrown by the steps, caught by run_scenario).
struct Verdict {
  Outcome outcome;
  std::string reason;
};

[[noreturn]] void fail(std::string reason) { throw Verdict{Outcome::failed, std::move(reason)}; }

bool is_outside(const QueryError& e) { return std::string_view(e.code()).starts_with(kOutsidePrefix); }

std::string outside_reason(std::string_view code) {
  code.remove_prefix(kOutsidePrefix.size());
  while (!code.empty() && (code.front() == ':' || code.front() == ' ')) code.remove_prefix(1);
  return code.empty() ? std::string("unspecified") : std::string(code);
}

std::string describe(const QueryError& e) {
  return e.code().empty() ? std::string(e.what()) : fmt::format("{} ({})", e.code(), e.what());
}

/// What the last `When executing ...` step produced.
struct Executed {
  std::optional<QueryResult> result;
  bool failed = false;
  bool at_compile_time = false;  // failed in Query::parse
  std::string code;              // QueryError::code(), empty for other exceptions
  std::string message;
};

std::vector<std::string> split_statements(std::string_view script) {
  std::vector<std::string> out;
  std::string current;
  char quote = 0;
  for (std::size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    if (quote != 0) {
      current += c;
      if (c == '\\' && quote != '`' && i + 1 < script.size()) {
        current += script[++i];
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '\'' || c == '"' || c == '`') {
      quote = c;
      current += c;
    } else if (c == ';') {
      out.push_back(std::exchange(current, {}));
    } else {
      current += c;
    }
  }
  out.push_back(std::move(current));
  std::erase_if(out, [](const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; });
  return out;
}

std::string clip(std::string s) {
  if (s.size() > kMaxReason) {
    std::size_t cut = kMaxReason;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
    s.resize(cut);
    s += " ...";
  }
  return s;
}

std::string render_rows(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& rows) {
  std::string out = fmt::format("| {} |", fmt::join(columns, " | "));
  for (const auto& row : rows) out += fmt::format("\n  | {} |", fmt::join(row, " | "));
  return out;
}

class ScenarioRun {
 public:
  ScenarioRun(const Scenario& scenario, const RunOptions& options) : scenario_(scenario), options_(options) {}

  void run() {
    for (const Step& step : scenario_.steps) {
      try {
        do_step(step);
      } catch (const Verdict&) {
        throw;
      } catch (const QueryError& e) {
        if (is_outside(e)) throw Verdict{Outcome::outside, outside_reason(e.code())};
        fail(fmt::format("line {}: {}: {}", step.line, step.text, describe(e)));
      } catch (const std::exception& e) {
        fail(fmt::format("line {}: {}: {}", step.line, step.text, e.what()));
      }
    }
  }

 private:
  void do_step(const Step& step) {
    const std::string& t = step.text;
    static const std::regex named_graph(R"(the ([A-Za-z0-9_-]+) graph)");
    static const std::regex error_step(R"(an? ([A-Za-z]+) should be raised at (compile time|runtime|any time): (.*))");
    std::smatch m;
    if (t == "an empty graph" || t == "any graph") return;
    if (std::regex_match(t, m, named_graph)) return load_graph(m[1].str());
    if (t.starts_with("there exists a procedure")) throw Verdict{Outcome::outside, "procedures"};
    if (t.starts_with("having executed:") || t.starts_with("after having executed:")) return setup(body(step));
    if (t == "parameters are:" || t == "parameter values are:") return set_parameters(step);
    if (t.starts_with("executing query:")) return execute(body(step), true);
    if (t.starts_with("executing control query:")) return execute(body(step), false);
    if (t == "the result should be empty") return check_result(step, false, false, true);
    if (t == "the result should be, in any order:") return check_result(step, false, false, false);
    if (t == "the result should be, in order:") return check_result(step, true, false, false);
    if (t == "the result should be (ignoring element order for lists):") return check_result(step, false, true, false);
    if (t == "the result should be, in order (ignoring element order for lists):") {
      return check_result(step, true, true, false);
    }
    if (t == "no side effects") return check_side_effects({});
    if (t == "the side effects should be:") return check_side_effects(step.table);
    if (std::regex_match(t, m, error_step)) return check_error(m[1].str(), m[2].str(), m[3].str());
    fail(fmt::format("line {}: unsupported step '{} {}'", step.line, step.keyword, t));
  }

  static std::string body(const Step& step) {
    if (step.has_doc_string) return step.doc_string;
    const auto colon = step.text.find(':');  // `When executing query: RETURN 1`
    if (colon == std::string::npos) return {};
    const auto start = step.text.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : step.text.substr(start);
  }

  void load_graph(const std::string& name) {
    const auto path = options_.tck_dir / "graphs" / name / (name + ".cypher");
    std::ifstream in(path);
    if (!in) fail(fmt::format("cannot read graph script {}", path.string()));
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& statement : split_statements(text.str())) setup(statement);
  }

  void setup(const std::string& text) {
    try {
      (void)graph_.query(Query::parse(text), parameters_);
    } catch (const QueryError& e) {
      if (is_outside(e)) throw;
      fail(fmt::format("setup query failed: {}\n  query: {}", describe(e), text));
    }
  }

  void set_parameters(const Step& step) {
    for (const auto& row : step.table) {
      if (row.size() != 2) fail("a parameters table has two columns");
      parameters_.set(row[0], to_query_value(parse_tck_value(row[1])));
    }
  }

  void execute(const std::string& text, bool measured) {
    if (measured) before_ = snapshot(graph_);
    executed_ = Executed{};
    executed_->at_compile_time = true;
    try {
      const Query query = Query::parse(text);
      executed_->at_compile_time = false;
      executed_->result = graph_.query(query, parameters_);
    } catch (const QueryError& e) {
      if (is_outside(e)) throw;
      executed_->failed = true;
      executed_->code = e.code();
      executed_->message = e.what();
    } catch (const std::exception& e) {
      executed_->failed = true;
      executed_->message = e.what();
    }
    query_text_ = text;
  }

  const QueryResult& result() {
    if (!executed_) fail("no query was executed");
    if (executed_->failed) {
      fail(fmt::format("the query raised {}{} at {}: {}\n  query: {}", executed_->code.empty() ? "" : executed_->code,
                       executed_->code.empty() ? "an exception" : "",
                       executed_->at_compile_time ? "compile time" : "runtime", executed_->message, query_text_));
    }
    return *executed_->result;
  }

  void check_result(const Step& step, bool ordered, bool unordered_lists, bool empty) {
    const QueryResult& actual = result();
    std::vector<std::vector<std::string>> got;
    for (const auto& row : actual.rows) {
      std::vector<std::string> cells;
      for (const auto& value : row) cells.push_back(canonical(from_query_value(value), unordered_lists));
      got.push_back(std::move(cells));
    }
    if (empty) {
      if (!got.empty())
        fail(clip(fmt::format("expected no rows, got {}: {}", got.size(), render_rows(actual.columns, got))));
      return;
    }
    if (step.table.empty()) fail("a result table without a header");
    const auto& columns = step.table.front();
    std::vector<std::vector<std::string>> want;
    for (std::size_t r = 1; r < step.table.size(); ++r) {
      std::vector<std::string> cells;
      for (const auto& cell : step.table[r]) {
        try {
          cells.push_back(canonical(parse_tck_value(cell), unordered_lists));
        } catch (const ValueSyntaxError& e) {
          fail(fmt::format("line {}: cannot read the expected value: {}", step.line, e.what()));
        }
      }
      want.push_back(std::move(cells));
    }
    const bool same_columns = columns == actual.columns;
    auto sorted_got = got;
    auto sorted_want = want;
    if (!ordered) {
      std::sort(sorted_got.begin(), sorted_got.end());
      std::sort(sorted_want.begin(), sorted_want.end());
    }
    if (same_columns && sorted_got == sorted_want) return;
    fail(clip(fmt::format("result differs ({}{}):\n  expected {}\n  actual   {}\n  query: {}",
                          ordered ? "in order" : "in any order", unordered_lists ? ", lists unordered" : "",
                          render_rows(columns, want), render_rows(actual.columns, got), query_text_)));
  }

  void check_side_effects(const Table& table) {
    if (!executed_ || !before_) fail("side effects without an executed query");
    std::map<std::string, std::int64_t> want;
    for (const auto& name :
         {"+nodes", "-nodes", "+relationships", "-relationships", "+properties", "-properties", "+labels", "-labels"}) {
      want[name] = 0;
    }
    for (const auto& row : table) {
      if (row.size() != 2 || !want.contains(row[0]))
        fail(fmt::format("unknown side effect row '{}'", fmt::join(row, " | ")));
      want[row[0]] = std::stoll(row[1]);
    }
    const auto got = side_effects(*before_, snapshot(graph_));
    if (got == want) return;
    std::vector<std::string> diffs;
    for (const auto& [name, count] : want) {
      if (got.at(name) != count) diffs.push_back(fmt::format("{} expected {}, actual {}", name, count, got.at(name)));
    }
    fail(fmt::format("side effects differ: {}\n  query: {}", fmt::join(diffs, "; "), query_text_));
  }

  void check_error(const std::string& type, const std::string& phase, const std::string& detail) {
    if (!executed_) fail("no query was executed");
    const std::string want = detail == "*" ? type : type + ": " + detail;
    if (!executed_->failed) {
      fail(fmt::format("expected {} at {}, the query succeeded\n  query: {}", want, phase, query_text_));
    }
    const std::string& code = executed_->code;
    const bool code_ok = detail == "*" ? (code == type || code.starts_with(type + ":")) : code == want;
    const std::string raised = code.empty() ? "an exception without a code" : code;
    if (!code_ok) {
      fail(fmt::format("expected {} at {}, got {} at {}: {}\n  query: {}", want, phase, raised,
                       executed_->at_compile_time ? "compile time" : "runtime", executed_->message, query_text_));
    }
    if (phase == "compile time" && !executed_->at_compile_time) {
      fail(fmt::format("expected {} at compile time, raised at runtime\n  query: {}", want, query_text_));
    }
    // A query that raises an error has no side effects (README.adoc, "Side effects").
    if (before_) {
      const auto effects = side_effects(*before_, snapshot(graph_));
      for (const auto& [name, count] : effects) {
        if (count != 0) fail(fmt::format("the query raised {} but changed the graph: {} {}", want, name, count));
      }
    }
  }

  const Scenario& scenario_;
  const RunOptions& options_;
  MemoryGraph graph_;
  Parameters parameters_;
  std::optional<Executed> executed_;
  std::optional<GraphSnapshot> before_;
  std::string query_text_;
};

}  // namespace

ScenarioResult run_scenario(const Scenario& scenario, const RunOptions& options) {
  try {
    DeadlineScope deadline(options.budget);
    ScenarioRun run(scenario, options);
    run.run();
    return {Outcome::passed, {}};
  } catch (const Verdict& v) {
    return {v.outcome, v.reason};
  } catch (const QueryError& e) {
    if (is_outside(e)) return {Outcome::outside, outside_reason(e.code())};
    return {Outcome::failed, describe(e)};
  } catch (const Timeout& e) {
    return {Outcome::failed, fmt::format("timed out: {}", e.what())};
  } catch (const std::exception& e) {
    return {Outcome::failed, e.what()};
  } catch (...) {
    return {Outcome::failed, "an exception that is not a std::exception"};
  }
}

}  // namespace propgraph::tck
