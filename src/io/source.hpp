// An input held whole in memory, with line/column lookup for problem locations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace propgraph::io::detail {

/// Line and column (both 1-based, column in bytes) of a byte offset.
struct LineColumn {
  std::uint64_t line = 0;
  std::uint64_t column = 0;
};

/// The bytes of one input file or stream, followed by zeroed padding so SIMD parsers may read
/// past the end. Offsets name positions in the original bytes.
class SourceText {
 public:
  /// Bytes readable past size() (at least simdjson's padding).
  static constexpr std::size_t kPadding = 64;

  SourceText() = default;
  /// Reads a whole file; nullopt with `error` set when it cannot be read.
  static std::optional<SourceText> load(const std::filesystem::path& path, std::string& error);
  /// A source with no bytes, standing for an input that could not be read.
  static SourceText empty(std::string name) { return SourceText(std::move(name), 0); }
  /// Reads a stream to its end; nullopt with `error` set when reading fails.
  static std::optional<SourceText> read(std::istream& in, std::string name, std::string& error);

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const char* data() const noexcept { return data_.get(); }
  [[nodiscard]] char* mutable_data() noexcept { return data_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::string_view text() const noexcept { return {data_.get(), size_}; }

  /// Records where the lines start. Called lazily by position(); call it up front before a
  /// parser rewrites the bytes in place.
  void index_lines();
  /// Line and column of an offset (clamped to the end).
  [[nodiscard]] LineColumn position(std::uint64_t offset);

 private:
  SourceText(std::string name, std::size_t size);
  std::string name_;
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::vector<std::uint64_t> line_starts_;  // empty until index_lines()
};

/// Number of LF bytes in text: an upper bound of the records in a line-based input.
[[nodiscard]] std::size_t count_lines(std::string_view text) noexcept;

/// Length of a UTF-8 byte-order mark at the start of text (0 or 3).
[[nodiscard]] std::size_t bom_length(std::string_view text) noexcept;

/// Offset of the first byte that breaks UTF-8 well-formedness (overlong forms, surrogates and
/// code points above U+10FFFF included), or nullopt when text is valid.
[[nodiscard]] std::optional<std::size_t> find_invalid_utf8(std::string_view text) noexcept;
/// True when text is valid UTF-8.
[[nodiscard]] bool is_valid_utf8(std::string_view text) noexcept;

}  // namespace propgraph::io::detail
