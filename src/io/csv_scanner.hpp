// An RFC 4180 record scanner over a whole input in memory.
//
// Hand-written rather than libcsv: the importer needs every field as a view into the input
// (no copy unless it holds doubled quotes) together with its byte offset, which locates
// problems to line and column, and it must tell a quoted empty field from an unquoted one.
// libcsv copies each field through a callback buffer and reports neither. The grammar is small:
// fields separated by ',', records by LF or CRLF (a lone CR too), quoted fields may hold
// separators, line breaks and doubled quotes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/session.hpp"

namespace propgraph::io::detail {

struct CsvField {
  std::string_view text;  ///< unquoted and unescaped
  std::uint64_t offset;   ///< of the field's first byte (its opening quote, if quoted)
  bool quoted;
};

class CsvScanner {
 public:
  enum class Result { record, end, error };

  /// Scans text[start, end); quoted fields with doubled quotes are unescaped into `arena`.
  CsvScanner(std::string_view text, std::size_t start, Arena& arena, std::size_t max_record_bytes)
      : begin_(text.data()),
        pos_(text.data() + start),
        end_(text.data() + text.size()),
        arena_(&arena),
        max_record_bytes_(max_record_bytes) {}

  /// Reads the next record into `fields`, skipping empty lines. After Result::error, error()
  /// and error_offset() tell what went wrong; the rest of the input cannot be scanned.
  Result next(std::vector<CsvField>& fields);

  [[nodiscard]] std::uint64_t record_offset() const noexcept { return record_offset_; }
  [[nodiscard]] const std::string& error() const noexcept { return error_; }
  [[nodiscard]] std::uint64_t error_offset() const noexcept { return error_offset_; }

 private:
  Result fail(const char* at, std::string message);

  const char* begin_;
  const char* pos_;
  const char* end_;
  Arena* arena_;
  std::size_t max_record_bytes_;
  std::uint64_t record_offset_ = 0;
  std::string error_;
  std::uint64_t error_offset_ = 0;
  std::string unescaped_;
};

/// Appends text as one CSV field, quoted only when it must be (separator, quote, CR, LF, the
/// empty string, or leading/trailing blanks that other tools would trim).
void append_csv_field(std::string& out, std::string_view text);

}  // namespace propgraph::io::detail
