#include "postgres/copy_binary.hpp"

#include <cstring>

#include <fmt/format.h>

#include "propgraph/errors.hpp"

namespace propgraph::postgres_detail {

namespace {

constexpr std::string_view kSignature{"PGCOPY\n\377\r\n\0", 11};

template <typename U>
void put_be(std::string& out, U value) {
  char bytes[sizeof(U)];
  for (std::size_t i = 0; i < sizeof(U); ++i) bytes[i] = static_cast<char>(value >> (8 * (sizeof(U) - 1 - i)));
  out.append(bytes, sizeof(U));
}

template <typename U>
U get_be(std::string_view bytes) {
  U value = 0;
  for (std::size_t i = 0; i < sizeof(U); ++i)
    value = static_cast<U>((value << 8) | static_cast<unsigned char>(bytes[i]));
  return value;
}

[[noreturn]] void malformed(std::string_view what) {
  throw QueryError(fmt::format("malformed binary COPY data from the server: {}", what));
}

}  // namespace

void CopyWriter::header(std::string& out) {
  out.append(kSignature);
  put_be<std::uint32_t>(out, 0);  // flags
  put_be<std::uint32_t>(out, 0);  // header extension length
}

void CopyWriter::trailer(std::string& out) { put_be<std::uint16_t>(out, 0xFFFF); }

void CopyWriter::row(std::string& out, std::int16_t fields) {
  put_be<std::uint16_t>(out, static_cast<std::uint16_t>(fields));
}

void CopyWriter::int8(std::string& out, std::int64_t value) {
  put_be<std::uint32_t>(out, 8);
  put_be<std::uint64_t>(out, static_cast<std::uint64_t>(value));
}

void CopyWriter::text(std::string& out, std::string_view value) {
  put_be<std::uint32_t>(out, static_cast<std::uint32_t>(value.size()));
  out.append(value);
}

void CopyWriter::jsonb(std::string& out, std::string_view json) {
  put_be<std::uint32_t>(out, static_cast<std::uint32_t>(json.size() + 1));
  out.push_back('\1');
  out.append(json);
}

std::int64_t CopyField::int8() const {
  if (null || bytes.size() != 8) malformed("expected a bigint");
  return static_cast<std::int64_t>(get_be<std::uint64_t>(bytes));
}

std::string_view CopyField::jsonb() const {
  if (null || bytes.empty() || bytes[0] != '\1') malformed("expected jsonb version 1");
  return bytes.substr(1);
}

bool CopyReader::row(std::string_view message, std::vector<CopyField>& fields, std::size_t expected_fields) {
  if (!started_) {
    if (message.size() < kSignature.size() + 8 || message.substr(0, kSignature.size()) != kSignature) {
      malformed("no header");
    }
    message.remove_prefix(kSignature.size() + 4);
    const auto extension = get_be<std::uint32_t>(message);
    message.remove_prefix(4);
    if (message.size() < extension) malformed("short header extension");
    message.remove_prefix(extension);
    started_ = true;
  }
  if (message.size() < 2) malformed("short row");
  const auto count = static_cast<std::int16_t>(get_be<std::uint16_t>(message));
  message.remove_prefix(2);
  if (count == -1) return false;
  if (count < 0 || static_cast<std::size_t>(count) != expected_fields) {
    malformed(fmt::format("{} fields where {} were expected", count, expected_fields));
  }
  fields.resize(expected_fields);
  for (auto& field : fields) {
    if (message.size() < 4) malformed("short field");
    const auto length = static_cast<std::int32_t>(get_be<std::uint32_t>(message));
    message.remove_prefix(4);
    if (length == -1) {
      field = CopyField{true, {}};
      continue;
    }
    if (length < 0 || message.size() < static_cast<std::size_t>(length)) malformed("short field");
    field = CopyField{false, message.substr(0, static_cast<std::size_t>(length))};
    message.remove_prefix(static_cast<std::size_t>(length));
  }
  return true;
}

}  // namespace propgraph::postgres_detail
