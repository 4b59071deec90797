#include "json_writer.hpp"

#include <cmath>

#include <fmt/format.h>

namespace propgraph::bench {

namespace {
std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}
}  // namespace

void Json::newline() {
  out_ += '\n';
  out_.append(2 * first_.size(), ' ');
}

void Json::key(std::string_view k) {
  if (!first_.empty()) {
    if (!first_.back()) out_ += ",";
    first_.back() = false;
    newline();
  }
  if (!k.empty()) out_ += quoted(k) + ": ";
}

Json& Json::open(std::string_view k, char bracket) {
  key(k);
  out_ += bracket;
  first_.push_back(true);
  return *this;
}
Json& Json::close(char bracket) {
  first_.pop_back();
  newline();
  out_ += bracket;
  return *this;
}
Json& Json::begin_object(std::string_view k) { return open(k, '{'); }
Json& Json::end_object() { return close('}'); }
Json& Json::begin_array(std::string_view k) { return open(k, '['); }
Json& Json::end_array() { return close(']'); }
Json& Json::field(std::string_view k, std::string_view value) {
  key(k);
  out_ += quoted(value);
  return *this;
}
Json& Json::field(std::string_view k, double value) {
  key(k);
  out_ += std::isfinite(value) ? fmt::format("{}", value) : std::string("null");
  return *this;
}
Json& Json::field(std::string_view k, std::int64_t value) {
  key(k);
  out_ += fmt::format("{}", value);
  return *this;
}
Json& Json::field(std::string_view k, std::uint64_t value) {
  key(k);
  out_ += fmt::format("{}", value);
  return *this;
}
Json& Json::field(std::string_view k, bool value) {
  key(k);
  out_ += value ? "true" : "false";
  return *this;
}

}  // namespace propgraph::bench
