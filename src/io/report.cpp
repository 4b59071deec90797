#include "propgraph/io/report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "propgraph/io/format.hpp"

namespace propgraph::io {

namespace {

double per_second(std::uint64_t records, std::chrono::nanoseconds elapsed) {
  if (elapsed.count() <= 0) return 0.0;
  return static_cast<double>(records) / std::chrono::duration<double>(elapsed).count();
}

std::string first_error_message(const ImportReport& report) {
  auto it = std::find_if(report.problems.begin(), report.problems.end(),
                         [](const Problem& p) { return p.severity == Severity::error; });
  std::string message = it != report.problems.end() ? to_string(*it) : "import failed";
  std::size_t more = report.problems.size() + report.problems_omitted - (it != report.problems.end() ? 1 : 0);
  if (more > 0) message += fmt::format(" (and {} more problem{})", more, more == 1 ? "" : "s");
  return message;
}

}  // namespace

bool ImportReport::ok() const noexcept { return error_count() == 0; }

std::size_t ImportReport::error_count() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(problems.begin(), problems.end(), [](const Problem& p) { return p.severity == Severity::error; }));
}

std::size_t ImportReport::warning_count() const noexcept { return problems.size() - error_count(); }

double ImportReport::records_per_second() const noexcept { return per_second(records_read, elapsed); }

double ExportReport::records_per_second() const noexcept {
  return per_second(vertices_written + edges_written, elapsed);
}

ImportFailed::ImportFailed(ImportReport report)
    : ImportError(first_error_message(report)), report_(std::make_shared<const ImportReport>(std::move(report))) {}

std::string to_string(const Problem& p) {
  std::string out;
  if (!p.file.empty()) {
    out += p.file;
    if (p.line > 0) out += fmt::format(":{}", p.line);
    if (p.column > 0) out += fmt::format(":{}", p.column);
    out += ": ";
  }
  out += p.severity == Severity::error ? "error: " : "warning: ";
  if (!p.element.empty()) out += p.element + ": ";
  if (!p.field.empty()) out += fmt::format("field '{}': ", p.field);
  out += p.message;
  return out;
}

std::string to_string(const ImportReport& r) {
  const double seconds = std::chrono::duration<double>(r.elapsed).count();
  std::string out = fmt::format(
      "{} import {}: {} records read, {} vertices and {} edges created, {} skipped, "
      "{} errors, {} warnings in {:.3f} s ({:.0f} records/s)",
      r.format, r.ok() ? "done" : "failed", r.records_read, r.vertices_created, r.edges_created, r.skipped,
      r.error_count(), r.warning_count(), seconds, r.records_per_second());
  for (const auto& p : r.problems) out += "\n  " + to_string(p);
  if (r.problems_omitted > 0) out += fmt::format("\n  ... and {} more problems not kept", r.problems_omitted);
  return out;
}

std::string to_string(const ExportReport& r) {
  return fmt::format("{} export: {} vertices and {} edges written, {} bytes in {:.3f} s ({:.0f} records/s)", r.format,
                     r.vertices_written, r.edges_written, r.bytes_written,
                     std::chrono::duration<double>(r.elapsed).count(), r.records_per_second());
}

// -- formats ----------------------------------------------------------------------------------

std::string_view to_string(Format format) noexcept {
  switch (format) {
    case Format::csv: return "csv";
    case Format::ndjson: return "ndjson";
    case Format::graphml: return "graphml";
  }
  return "unknown";
}

std::optional<Format> parse_format(std::string_view name) noexcept {
  auto is = [&](std::string_view lower) {
    return std::equal(name.begin(), name.end(), lower.begin(), lower.end(), [](char a, char b) {
      return (a >= 'A' && a <= 'Z' ? static_cast<char>(a - 'A' + 'a') : a) == b;
    });
  };
  if (is("csv")) return Format::csv;
  if (is("ndjson") || is("jsonl")) return Format::ndjson;
  if (is("graphml") || is("xml")) return Format::graphml;
  return std::nullopt;
}

std::optional<Format> guess_format(const std::filesystem::path& path) noexcept {
  std::string ext = path.extension().string();
  if (ext.size() < 2) return std::nullopt;
  return parse_format(std::string_view(ext).substr(1));
}

}  // namespace propgraph::io
