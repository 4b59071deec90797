#include "json_text.hpp"

#include <cmath>

#include <fmt/format.h>

#include "propgraph/errors.hpp"

namespace propgraph::detail {

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  std::size_t run = 0;  // start of the pending run of bytes copied as they are
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    const bool special =
        c < 0x20 || c == '"' || c == '\\' ||
        (c == 0xEF && i + 2 < text.size() && text[i + 1] == '\xBF' && (text[i + 2] == '\xBE' || text[i + 2] == '\xBF'));
    if (!special) continue;
    out.append(text.data() + run, i - run);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case 0xEF:  // U+FFFE or U+FFFF
        out += text[i + 2] == '\xBE' ? "\\ufffe" : "\\uffff";
        i += 2;
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
    }
    run = i + 1;
  }
  out.append(text.data() + run, text.size() - run);
  out += '"';
}

void require_json_double(double value) {
  if (!std::isfinite(value)) throw InvalidArgument(fmt::format("JSON cannot hold the double {}", value));
}

std::string json_int_overflow(std::string_view literal) {
  return fmt::format("integer {} is beyond the int64 range", literal);
}

}  // namespace propgraph::detail
