#include "io/source.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <istream>

#include "utf8.hpp"

namespace propgraph::io::detail {

static_assert(SourceText::kPadding >= simdjson::SIMDJSON_PADDING);

SourceText::SourceText(std::string name, std::size_t size)
    : name_(std::move(name)), data_(new char[size + kPadding]), size_(size) {
  std::memset(data_.get() + size, 0, kPadding);
}

std::optional<SourceText> SourceText::load(const std::filesystem::path& path, std::string& error) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    error = ec.message();
    return std::nullopt;
  }
  SourceText text(path.string(), static_cast<std::size_t>(size));
  std::size_t got = std::fread(text.data_.get(), 1, text.size_, file.get());
  if (got != text.size_ || std::ferror(file.get())) {
    error = got != text.size_ ? "the file changed size while being read" : std::strerror(errno);
    return std::nullopt;
  }
  return text;
}

std::optional<SourceText> SourceText::read(std::istream& in, std::string name, std::string& error) {
  std::string bytes;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    bytes.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) {
    error = "the stream failed while being read";
    return std::nullopt;
  }
  SourceText text(std::move(name), bytes.size());
  std::memcpy(text.data_.get(), bytes.data(), bytes.size());
  return text;
}

void SourceText::index_lines() {
  if (!line_starts_.empty()) return;
  line_starts_.push_back(0);
  const char* begin = data_.get();
  const char* end = begin + size_;
  for (const char* p = begin; p < end;) {
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    if (!nl) break;
    p = static_cast<const char*>(nl) + 1;
    line_starts_.push_back(static_cast<std::uint64_t>(p - begin));
  }
}

LineColumn SourceText::position(std::uint64_t offset) {
  index_lines();
  offset = std::min<std::uint64_t>(offset, size_);
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  auto line = static_cast<std::uint64_t>(it - line_starts_.begin());  // >= 1: line_starts_[0] == 0
  return {line, offset - line_starts_[line - 1] + 1};
}

std::size_t count_lines(std::string_view text) noexcept {
  std::size_t lines = 0;
  const char* p = text.data();
  const char* end = p + text.size();
  while (const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p))) {
    ++lines;
    p = static_cast<const char*>(nl) + 1;
  }
  return lines + 1;
}

std::size_t bom_length(std::string_view text) noexcept {
  return text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
}

bool is_valid_utf8(std::string_view text) noexcept { return simdjson::validate_utf8(text.data(), text.size()); }

std::optional<std::size_t> find_invalid_utf8(std::string_view text) noexcept {
  if (is_valid_utf8(text)) return std::nullopt;  // the fast path: SIMD over the whole text
  return propgraph::detail::find_invalid_utf8(text);
}

}  // namespace propgraph::io::detail
