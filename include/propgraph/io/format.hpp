// The file formats of propgraph::io, by name and by file extension.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace propgraph::io {

enum class Format { csv, ndjson, graphml };

/// "csv", "ndjson" or "graphml".
[[nodiscard]] std::string_view to_string(Format format) noexcept;
/// Parses a format name (also "jsonl" and "xml"), case-insensitively.
[[nodiscard]] std::optional<Format> parse_format(std::string_view name) noexcept;
/// The format a file name suggests: .csv; .ndjson, .jsonl; .graphml, .xml (case-insensitive).
[[nodiscard]] std::optional<Format> guess_format(const std::filesystem::path& path) noexcept;

}  // namespace propgraph::io
