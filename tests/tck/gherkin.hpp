// A small Gherkin reader for the subset the openCypher TCK uses: Feature, Background,
// Scenario, Scenario Outline with Examples tables, steps with doc strings and data tables,
// comments and tags. Outlines come out expanded, one scenario per Examples row.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace propgraph::tck {

/// A syntax error in a feature file; what() names the file and line.
class GherkinError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Table = std::vector<std::vector<std::string>>;

struct Step {
  std::string keyword;  // Given, When, Then, And, But or *
  std::string text;     // the step after its keyword, trimmed
  std::string doc_string;
  bool has_doc_string = false;
  Table table;  // cells unescaped (\|, \\, \n) and trimmed
  int line = 0;
};

struct Scenario {
  std::string name;
  std::vector<std::string> tags;  // the feature's, the scenario's and its Examples'
  std::vector<Step> steps;        // the Background's first
  int line = 0;
  /// 1-based row over all Examples tables of an outline; 0 for a plain scenario.
  int example_index = 0;
};

struct Feature {
  std::string name;
  std::vector<std::string> tags;
  std::vector<Scenario> scenarios;
};

/// Parses a feature file's text; `origin` names it in errors.
[[nodiscard]] Feature parse_feature(std::string_view text, std::string_view origin = "<feature>");

/// Splits one table row `| a | b\|c |` into unescaped, trimmed cells.
[[nodiscard]] std::vector<std::string> split_table_row(std::string_view row);

}  // namespace propgraph::tck
