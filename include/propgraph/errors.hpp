// Exception hierarchy shared by every backend, the fiber facade and io.
#pragma once

#include <stdexcept>
#include <string>

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

}  // namespace propgraph
