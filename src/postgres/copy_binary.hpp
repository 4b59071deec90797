// PostgreSQL's binary COPY format: a signature header, then per row a 16-bit field count and
// per field a 32-bit length (-1: NULL) and the value in the type's binary send format, then a
// -1 trailer. bigint is 8 bytes big-endian; text is its UTF-8 bytes; jsonb is a version byte
// (1) followed by the JSON text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace propgraph::postgres_detail {

/// Writes a COPY ... FROM STDIN (FORMAT binary) stream into a string the caller drains.
class CopyWriter {
 public:
  /// Appends the header to `out`.
  static void header(std::string& out);
  /// Appends the trailer to `out`.
  static void trailer(std::string& out);
  static void row(std::string& out, std::int16_t fields);
  static void int8(std::string& out, std::int64_t value);
  static void text(std::string& out, std::string_view value);
  static void jsonb(std::string& out, std::string_view json);
};

/// One field of a binary COPY row; `null` or its bytes.
struct CopyField {
  bool null = false;
  std::string_view bytes;
  /// A bigint field; throws QueryError for anything else.
  [[nodiscard]] std::int64_t int8() const;
  /// A jsonb field's JSON text; throws QueryError for an unknown version.
  [[nodiscard]] std::string_view jsonb() const;
};

/// Reads a COPY ... TO STDOUT (FORMAT binary) stream message by message (libpq hands out one
/// CopyData message per row; the first also carries the header, the last is the trailer).
class CopyReader {
 public:
  /// Parses one message into `fields`; false for the trailer. Throws QueryError when the
  /// message is malformed or a row does not have `expected_fields` fields.
  bool row(std::string_view message, std::vector<CopyField>& fields, std::size_t expected_fields);

 private:
  bool started_ = false;
};

}  // namespace propgraph::postgres_detail
