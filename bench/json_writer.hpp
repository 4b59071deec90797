// Json: the minimal JSON writer the benchmarks write their results with.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace propgraph::bench {

/// Appends JSON to a string: objects and arrays with automatic commas. No validation.
class Json {
 public:
  Json& begin_object(std::string_view key = {});
  Json& end_object();
  Json& begin_array(std::string_view key = {});
  Json& end_array();
  Json& field(std::string_view key, std::string_view value);
  Json& field(std::string_view key, const char* value) { return field(key, std::string_view(value)); }
  Json& field(std::string_view key, double value);
  Json& field(std::string_view key, std::int64_t value);
  Json& field(std::string_view key, std::uint64_t value);
  Json& field(std::string_view key, int value) { return field(key, static_cast<std::int64_t>(value)); }
  Json& field(std::string_view key, bool value);
  [[nodiscard]] const std::string& str() const { return out_; }

 private:
  void key(std::string_view k);
  Json& open(std::string_view k, char bracket);  // an object or array: '{' or '['
  Json& close(char bracket);
  void newline();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
};

}  // namespace propgraph::bench
