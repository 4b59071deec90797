#include "gherkin.hpp"

#include <optional>
#include <utility>

#include <fmt/format.h>

namespace propgraph::tck {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

bool starts_with_keyword(std::string_view line, std::string_view keyword, std::string_view& rest) {
  if (!line.starts_with(keyword)) return false;
  rest = trim(line.substr(keyword.size()));
  return true;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos; pos += to.size()) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

struct Examples {
  std::vector<std::string> tags;
  Table rows;  // header first
  int line = 0;
};

struct Block {
  std::string name;
  std::vector<std::string> tags;
  std::vector<Step> steps;
  bool outline = false;
  std::vector<Examples> examples;
  int line = 0;
};

class Reader {
 public:
  Reader(std::string_view text, std::string_view origin) : text_(text), origin_(origin) {}

  Feature read() {
    while (next_line()) {
      const std::string_view line = trim(raw_);
      if (line.empty() || line.starts_with('#')) continue;
      if (line.starts_with('@')) {
        read_tags(line);
      } else if (line.starts_with("\"\"\"") || line.starts_with("```")) {
        read_doc_string(line);
      } else if (line.starts_with('|')) {
        read_table_row(line);
      } else {
        read_keyword_line(line);
      }
    }
    if (!seen_feature_) fail(line_number_, "no 'Feature:' line");
    for (Block& block : blocks_) expand(block);
    return std::move(feature_);
  }

 private:
  enum class Section { none, feature, background, scenario, examples };

  bool next_line() {
    if (pos_ >= text_.size()) return false;
    auto end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    raw_ = text_.substr(pos_, end - pos_);
    if (raw_.ends_with('\r')) raw_.remove_suffix(1);
    pos_ = end + 1;
    ++line_number_;
    return true;
  }

  [[noreturn]] void fail(int line, std::string_view what) const {
    throw GherkinError(fmt::format("{}:{}: {}", origin_, line, what));
  }

  void read_tags(std::string_view line) {
    while (!line.empty()) {
      if (line.starts_with('#')) break;  // a comment after the tags
      const auto end = line.find_first_of(" \t");
      const std::string_view tag = line.substr(0, end);
      if (!tag.starts_with('@') || tag.size() == 1) fail(line_number_, fmt::format("bad tag '{}'", tag));
      pending_tags_.emplace_back(tag);
      line = end == std::string_view::npos ? std::string_view{} : trim(line.substr(end));
    }
  }

  void read_doc_string(std::string_view line) {
    const std::string_view delimiter = line.substr(0, 3);
    const std::size_t indent = raw_.find(delimiter);
    const int start = line_number_;
    Step* step = last_step();
    if (step == nullptr) fail(start, "doc string without a step");
    if (step->has_doc_string) fail(start, "second doc string of one step");
    std::string content;
    bool first = true;
    while (true) {
      if (!next_line()) fail(start, "unterminated doc string");
      if (trim(raw_) == delimiter) break;
      std::string_view body = raw_;
      // Strip the delimiter's indentation (only whitespace) from each content line.
      std::size_t strip = 0;
      while (strip < indent && strip < body.size() && (body[strip] == ' ' || body[strip] == '\t')) ++strip;
      body.remove_prefix(strip);
      if (!first) content += '\n';
      first = false;
      content += body;
    }
    step->doc_string = replace_all(std::move(content), delimiter == "\"\"\"" ? "\\\"\\\"\\\"" : "\\`\\`\\`", delimiter);
    step->has_doc_string = true;
  }

  void read_table_row(std::string_view line) {
    if (!line.ends_with('|') || (line.size() >= 2 && line[line.size() - 2] == '\\' && !line.ends_with("\\\\|"))) {
      fail(line_number_, "table row without a closing '|'");
    }
    auto cells = split_table_row(line);
    Table* table = nullptr;
    if (section_ == Section::examples) {
      table = &blocks_.back().examples.back().rows;
    } else if (Step* step = last_step(); step != nullptr && step_is_last_) {
      table = &step->table;
    } else {
      fail(line_number_, "table row outside a step or Examples");
    }
    if (!table->empty() && table->front().size() != cells.size()) {
      fail(line_number_, fmt::format("{} cells, the table's first row has {}", cells.size(), table->front().size()));
    }
    table->push_back(std::move(cells));
  }

  void read_keyword_line(std::string_view line) {
    std::string_view rest;
    step_is_last_ = false;
    if (starts_with_keyword(line, "Feature:", rest)) {
      if (seen_feature_) fail(line_number_, "second 'Feature:'");
      seen_feature_ = true;
      feature_.name = std::string(rest);
      feature_.tags = std::exchange(pending_tags_, {});
      section_ = Section::feature;
    } else if (starts_with_keyword(line, "Background:", rest)) {
      require_feature();
      if (!blocks_.empty()) fail(line_number_, "'Background:' after a scenario");
      section_ = Section::background;
      pending_tags_.clear();
    } else if (starts_with_keyword(line, "Scenario Outline:", rest) ||
               starts_with_keyword(line, "Scenario Template:", rest)) {
      start_block(rest, true);
    } else if (starts_with_keyword(line, "Scenario:", rest) || starts_with_keyword(line, "Example:", rest)) {
      start_block(rest, false);
    } else if (starts_with_keyword(line, "Examples:", rest) || starts_with_keyword(line, "Scenarios:", rest)) {
      if (blocks_.empty() || section_ == Section::background || section_ == Section::feature) {
        fail(line_number_, "'Examples:' outside a Scenario Outline");
      }
      if (!blocks_.back().outline) fail(line_number_, "'Examples:' under a plain Scenario");
      blocks_.back().examples.push_back(Examples{std::exchange(pending_tags_, {}), {}, line_number_});
      section_ = Section::examples;
    } else if (auto keyword = step_keyword(line, rest)) {
      if (section_ != Section::background && section_ != Section::scenario) {
        fail(line_number_, fmt::format("step '{}' outside a Scenario or Background", line));
      }
      Step step{std::string(*keyword), std::string(rest), {}, false, {}, line_number_};
      (section_ == Section::background ? background_ : blocks_.back().steps).push_back(std::move(step));
      step_is_last_ = true;
    } else if (section_ == Section::none) {
      fail(line_number_, fmt::format("unexpected '{}' before 'Feature:'", line));
    }
    // Anything else is free description text.
  }

  static std::optional<std::string_view> step_keyword(std::string_view line, std::string_view& rest) {
    for (std::string_view keyword : {"Given", "When", "Then", "And", "But", "*"}) {
      if (line.starts_with(keyword) && line.size() > keyword.size() &&
          (line[keyword.size()] == ' ' || line[keyword.size()] == '\t')) {
        rest = trim(line.substr(keyword.size()));
        return keyword;
      }
    }
    return std::nullopt;
  }

  void require_feature() const {
    if (!seen_feature_) fail(line_number_, "expected 'Feature:' first");
  }

  void start_block(std::string_view name, bool outline) {
    require_feature();
    Block block;
    block.name = std::string(name);
    block.tags = std::exchange(pending_tags_, {});
    block.outline = outline;
    block.line = line_number_;
    blocks_.push_back(std::move(block));
    section_ = Section::scenario;
  }

  Step* last_step() {
    if (section_ == Section::background) return background_.empty() ? nullptr : &background_.back();
    if (section_ == Section::scenario && !blocks_.empty() && !blocks_.back().steps.empty()) {
      return &blocks_.back().steps.back();
    }
    return nullptr;
  }

  std::vector<std::string> tags_of(const Block& block, const Examples* examples) const {
    std::vector<std::string> tags = feature_.tags;
    tags.insert(tags.end(), block.tags.begin(), block.tags.end());
    if (examples != nullptr) tags.insert(tags.end(), examples->tags.begin(), examples->tags.end());
    return tags;
  }

  void expand(const Block& block) {
    std::vector<Step> steps = background_;
    steps.insert(steps.end(), block.steps.begin(), block.steps.end());
    if (!block.outline) {
      feature_.scenarios.push_back(Scenario{block.name, tags_of(block, nullptr), std::move(steps), block.line, 0});
      return;
    }
    if (block.examples.empty()) fail(block.line, "Scenario Outline without Examples");
    int index = 0;
    for (const Examples& examples : block.examples) {
      if (examples.rows.empty()) fail(examples.line, "Examples without a header row");
      const auto& header = examples.rows.front();
      for (std::size_t r = 1; r < examples.rows.size(); ++r) {
        const auto& row = examples.rows[r];
        auto substitute = [&](std::string text) {
          for (std::size_t c = 0; c < header.size(); ++c)
            text = replace_all(std::move(text), "<" + header[c] + ">", row[c]);
          return text;
        };
        std::vector<Step> expanded = steps;
        for (Step& step : expanded) {
          step.text = substitute(std::move(step.text));
          step.doc_string = substitute(std::move(step.doc_string));
          for (auto& cells : step.table) {
            for (auto& cell : cells) cell = substitute(std::move(cell));
          }
        }
        feature_.scenarios.push_back(
            Scenario{substitute(block.name), tags_of(block, &examples), std::move(expanded), block.line, ++index});
      }
    }
  }

  std::string_view text_;
  std::string_view origin_;
  std::size_t pos_ = 0;
  std::string_view raw_;
  int line_number_ = 0;
  bool seen_feature_ = false;
  bool step_is_last_ = false;  // the last keyword line was a step (a table may follow)
  Section section_ = Section::none;
  std::vector<std::string> pending_tags_;
  std::vector<Step> background_;
  std::vector<Block> blocks_;
  Feature feature_;
};

}  // namespace

std::vector<std::string> split_table_row(std::string_view row) {
  row = trim(row);
  std::vector<std::string> cells;
  if (!row.starts_with('|')) return cells;
  std::string cell;
  bool open = false;  // a cell has started (after a '|')
  for (std::size_t i = 0; i < row.size(); ++i) {
    const char c = row[i];
    if (c == '|') {
      if (open) cells.emplace_back(trim(cell));
      cell.clear();
      open = true;
    } else if (c == '\\' && i + 1 < row.size()) {
      const char n = row[++i];
      if (n == '|') {
        cell += '|';
      } else if (n == '\\') {
        cell += '\\';
      } else if (n == 'n') {
        cell += '\n';
      } else {
        cell += '\\';
        cell += n;
      }
    } else {
      cell += c;
    }
  }
  // Text after the last '|' (only whitespace in a well-formed row) is not a cell.
  return cells;
}

Feature parse_feature(std::string_view text, std::string_view origin) { return Reader(text, origin).read(); }

}  // namespace propgraph::tck
