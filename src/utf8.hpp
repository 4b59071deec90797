// UTF-8 well-formedness, shared by the modules that quote or check input text.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace propgraph::detail {

/// Offset of the first byte that breaks UTF-8 well-formedness (overlong forms, surrogates and
/// code points above U+10FFFF included), or nullopt when text is valid. One pass, O(n).
[[nodiscard]] std::optional<std::size_t> find_invalid_utf8(std::string_view text) noexcept;

}  // namespace propgraph::detail
