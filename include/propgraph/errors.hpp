// Exception hierarchy shared by every backend, the fiber facade and io.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace propgraph {

/// Base of every exception propgraph throws. Catch this to handle all library errors.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A caller-supplied argument is malformed: blank or invalid label on a write, negative edge
/// weight, option out of range, wrong Value type requested.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// A write needs an element that does not exist (for example an edge endpoint).
/// Lookups never throw it: they return an empty result instead.
class NotFound : public Error {
 public:
  using Error::Error;
};

/// A create would duplicate something that must be unique (a graph name, an imported id).
class AlreadyExists : public Error {
 public:
  using Error::Error;
};

/// A query could not be parsed or run: a backend rejected a statement (server error,
/// constraint violation), or an openCypher statement (query.hpp) has a syntax, semantic or
/// runtime type error.
class QueryError : public Error {
 public:
  using Error::Error;
  /// `code` is the openCypher error class and detail (e.g. "SyntaxError",
  /// "SemanticError: UndefinedVariable", "TypeError: InvalidArgumentType"); line and column
  /// are 1-based, 0 when the error has no place in the text.
  QueryError(const std::string& what, std::string code, int line = 0, int column = 0)
      : Error(what), code_(std::move(code)), line_(line), column_(column) {}
  /// The error class and detail; empty for errors a backend reports (server messages).
  [[nodiscard]] const std::string& code() const noexcept { return code_; }
  /// 1-based line of the error in the statement text, 0 when unknown.
  [[nodiscard]] int line() const noexcept { return line_; }
  /// 1-based column (in bytes) of the error in the statement text, 0 when unknown.
  [[nodiscard]] int column() const noexcept { return column_; }

 private:
  std::string code_;
  int line_ = 0;
  int column_ = 0;
};

/// The backend could not be reached, or the connection broke mid-call, or a pool timed out.
class ConnectionError : public Error {
 public:
  using Error::Error;
};

/// Bulk import failed; the message names the file, line, column or element, and the field.
class ImportError : public Error {
 public:
  using Error::Error;
};

/// A transaction could not commit because a concurrent one changed what it read or wrote. The
/// transaction had no effect; running it again may succeed (transact() retries it).
class TransactionConflict : public Error {
 public:
  using Error::Error;
};

/// A deadline (DeadlineScope) passed before the call could finish. The call had no effect.
class Timeout : public Error {
 public:
  using Error::Error;
};

/// A durable backend's storage failed (disk full, I/O error) or its files are damaged. file()
/// and offset() say where, when known. A write that throws it had no effect unless the message
/// says the graph was closed for writing.
class StorageError : public Error {
 public:
  explicit StorageError(const std::string& what, std::string file = {}, std::optional<std::uint64_t> offset = {})
      : Error(what), file_(std::move(file)), offset_(offset) {}
  /// The file concerned, or empty.
  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  /// The byte offset in file() where the damage or failure is, when known.
  [[nodiscard]] std::optional<std::uint64_t> offset() const noexcept { return offset_; }

 private:
  std::string file_;
  std::optional<std::uint64_t> offset_;
};

}  // namespace propgraph
