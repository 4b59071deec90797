// What an import or export did: counts, timing and every problem with its location.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "propgraph/errors.hpp"

namespace propgraph::io {

/// An error fails the import; a warning marks a record skipped under a policy.
enum class Severity { warning, error };

/// One problem found in an input, with its location.
struct Problem {
  Severity severity = Severity::error;
  std::string file;          ///< file path, or the stream name given to the import
  std::uint64_t line = 0;    ///< 1-based; 0 when the problem concerns no single place
  std::uint64_t column = 0;  ///< 1-based, in bytes; 0 when unknown
  std::string element;       ///< the record: `vertex "alice"`, `edge "a" -> "b"`, `<node id="n1">`
  std::string field;         ///< column, key or attribute concerned; empty when none
  std::string message;       ///< what was wrong
  friend bool operator==(const Problem&, const Problem&) = default;
};

/// The result of an import. Under a failing policy a failed import created nothing
/// (vertices_created == edges_created == 0) and the report travels in ImportFailed.
struct ImportReport {
  std::string format;  ///< "csv", "ndjson" or "graphml"
  std::uint64_t records_read = 0;      ///< vertex and edge records parsed
  std::uint64_t vertices_created = 0;
  std::uint64_t edges_created = 0;
  std::uint64_t skipped = 0;           ///< records skipped under a skip policy
  std::chrono::nanoseconds elapsed{0};
  /// Problems in input order (by file, then position), at most ImportOptions::max_problems.
  std::vector<Problem> problems;
  std::uint64_t problems_omitted = 0;  ///< problems beyond max_problems, counted only
  std::vector<std::string> vertex_labels;  ///< labels of the created vertices, sorted
  std::vector<std::string> edge_labels;    ///< labels of the created edges, sorted

  /// True when no problem is an error.
  [[nodiscard]] bool ok() const noexcept;
  [[nodiscard]] std::size_t error_count() const noexcept;
  [[nodiscard]] std::size_t warning_count() const noexcept;
  /// records_read / elapsed; 0 when nothing was timed.
  [[nodiscard]] double records_per_second() const noexcept;
};

/// The result of an export.
struct ExportReport {
  std::string format;
  std::uint64_t vertices_written = 0;
  std::uint64_t edges_written = 0;
  std::uint64_t bytes_written = 0;
  std::chrono::nanoseconds elapsed{0};
  [[nodiscard]] double records_per_second() const noexcept;
};

/// Thrown by every import that fails: malformed input, an error under a failing policy, an
/// unreadable file, or a backend write that failed (after rolling back what the import wrote).
/// what() is the first error as `file:line:column: element: field 'f': message`.
class ImportFailed : public ImportError {
 public:
  explicit ImportFailed(ImportReport report);
  /// The full report, every problem included.
  [[nodiscard]] const ImportReport& report() const noexcept { return *report_; }

 private:
  std::shared_ptr<const ImportReport> report_;  // shared: exceptions copy without throwing
};

/// `file:line:column: error: element: field 'f': message`; parts that are unknown are left out.
[[nodiscard]] std::string to_string(const Problem& problem);
/// A summary line, then one line per kept problem.
[[nodiscard]] std::string to_string(const ImportReport& report);
/// One summary line.
[[nodiscard]] std::string to_string(const ExportReport& report);

}  // namespace propgraph::io

template <>
struct fmt::formatter<propgraph::io::Problem> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(const propgraph::io::Problem& p, Ctx& ctx) const -> decltype(ctx.out()) {
    return fmt::formatter<std::string_view>::format(propgraph::io::to_string(p), ctx);
  }
};

template <>
struct fmt::formatter<propgraph::io::ImportReport> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(const propgraph::io::ImportReport& r, Ctx& ctx) const -> decltype(ctx.out()) {
    return fmt::formatter<std::string_view>::format(propgraph::io::to_string(r), ctx);
  }
};

template <>
struct fmt::formatter<propgraph::io::ExportReport> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(const propgraph::io::ExportReport& r, Ctx& ctx) const -> decltype(ctx.out()) {
    return fmt::formatter<std::string_view>::format(propgraph::io::to_string(r), ctx);
  }
};
