// Command-line helpers shared by the benchmarks' argument parsers.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace propgraph::bench {

/// `text` as a number of type T when all of it is one (no sign for unsigned T, no spaces, in
/// range), else nullopt.
template <class T>
std::optional<T> parse_number(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace propgraph::bench
