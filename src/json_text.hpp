// JSON string literals, for every writer of JSON in the project (NDJSON export, the PostgreSQL
// backend's jsonb parameters).
#pragma once

#include <string>
#include <string_view>

namespace propgraph::detail {

/// Appends `text` as a JSON string literal. Escapes quotes, backslashes, controls and
/// U+FFFE/U+FFFF, so the result is also safe inside XML 1.0. Bytes are otherwise copied as they
/// are (the caller's text is UTF-8).
void append_json_string(std::string& out, std::string_view text);

}  // namespace propgraph::detail
