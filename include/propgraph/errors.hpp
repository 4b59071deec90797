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

/// A backend rejected or failed to run a query (server error, constraint violation).
class QueryError : public Error {
 public:
  using Error::Error;
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
