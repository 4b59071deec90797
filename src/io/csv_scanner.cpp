#include "io/csv_scanner.hpp"

#include <array>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

namespace propgraph::io::detail {

namespace {

#if !defined(__SSE2__)
// Bytes that end an unquoted field, or are not allowed in one. NUL is here so the scan can
// stop at the input's zero padding; a NUL inside the input just continues the field.
constexpr std::array<bool, 256> kUnquotedStop = [] {
  std::array<bool, 256> stop{};
  stop[static_cast<unsigned char>(',')] = true;
  stop[static_cast<unsigned char>('\n')] = true;
  stop[static_cast<unsigned char>('\r')] = true;
  stop[static_cast<unsigned char>('"')] = true;
  stop[0] = true;
  return stop;
}();
#endif

/// The first byte at or after p that ends an unquoted field (',', LF, CR, '"' or NUL). The
/// input's zero padding stops the scan, which may read up to 15 bytes past the end.
inline const char* find_unquoted_stop(const char* p) noexcept {
#if defined(__SSE2__)
  const __m128i comma = _mm_set1_epi8(',');
  const __m128i lf = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i nul = _mm_setzero_si128();
  for (;; p += 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i hits =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(chunk, comma), _mm_cmpeq_epi8(chunk, lf)),
                     _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(chunk, cr), _mm_cmpeq_epi8(chunk, quote)),
                                  _mm_cmpeq_epi8(chunk, nul)));
    if (const int mask = _mm_movemask_epi8(hits)) return p + __builtin_ctz(static_cast<unsigned>(mask));
  }
#else
  while (!kUnquotedStop[static_cast<unsigned char>(*p)]) ++p;
  return p;
#endif
}

}  // namespace

CsvScanner::Result CsvScanner::fail(const char* at, std::string message) {
  error_ = std::move(message);
  error_offset_ = static_cast<std::uint64_t>(at - begin_);
  pos_ = end_;
  return Result::error;
}

CsvScanner::Result CsvScanner::next(std::vector<CsvField>& fields) {
  fields.clear();
  while (pos_ < end_ && (*pos_ == '\n' || *pos_ == '\r')) ++pos_;  // empty lines
  if (pos_ >= end_) return Result::end;
  const char* record = pos_;
  record_offset_ = static_cast<std::uint64_t>(record - begin_);
  for (;;) {
    const char* field = pos_;
    if (pos_ < end_ && *pos_ == '"') {
      const char* p = pos_ + 1;
      bool doubled = false;
      const char* close;
      for (;;) {
        close = static_cast<const char*>(std::memchr(p, '"', static_cast<std::size_t>(end_ - p)));
        if (!close) return fail(field, "unterminated quoted field: the closing quote is missing");
        if (close + 1 < end_ && close[1] == '"') {
          doubled = true;
          p = close + 2;
          continue;
        }
        break;
      }
      std::string_view text(pos_ + 1, static_cast<std::size_t>(close - pos_ - 1));
      if (doubled) {
        unescaped_.clear();
        for (std::size_t i = 0; i < text.size(); ++i) {
          unescaped_ += text[i];
          if (text[i] == '"') ++i;  // the second quote of a pair
        }
        text = arena_->store(unescaped_);
      }
      fields.push_back(CsvField{text, static_cast<std::uint64_t>(field - begin_), true});
      pos_ = close + 1;
      if (pos_ < end_ && *pos_ != ',' && *pos_ != '\n' && *pos_ != '\r') {
        return fail(pos_,
                    "unexpected character after a closing quote (a quote inside a quoted "
                    "field must be doubled)");
      }
    } else {
      const char* p = find_unquoted_stop(pos_);
      while (*p == '\0' && p < end_) p = find_unquoted_stop(p + 1);  // a NUL inside the input
      if (p < end_ && *p == '"') {
        return fail(p, "quote inside an unquoted field (quote the whole field and double the quote)");
      }
      fields.push_back(CsvField{std::string_view(pos_, static_cast<std::size_t>(p - pos_)),
                                static_cast<std::uint64_t>(field - begin_), false});
      pos_ = p;
    }
    if (static_cast<std::size_t>(pos_ - record) > max_record_bytes_) {
      return fail(record, fmt::format("record longer than the limit of {} bytes", max_record_bytes_));
    }
    if (pos_ >= end_) return Result::record;
    if (*pos_ == ',') {
      ++pos_;
      continue;
    }
    // Record end: LF, CRLF or a lone CR.
    if (*pos_++ == '\r' && pos_ < end_ && *pos_ == '\n') ++pos_;
    return Result::record;
  }
}

void append_csv_field(std::string& out, std::string_view text) {
  bool quote = text.empty() || text.front() == ' ' || text.front() == '\t' || text.back() == ' ' ||
               text.back() == '\t' || text.find_first_of(",\"\r\n") != std::string_view::npos;
  if (!quote) {
    out.append(text);
    return;
  }
  out += '"';
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') {
      out.append(text.data() + run, i + 1 - run);
      out += '"';
      run = i + 1;
    }
  }
  out.append(text.data() + run, text.size() - run);
  out += '"';
}

}  // namespace propgraph::io::detail
