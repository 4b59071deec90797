// One libpq connection driven through the non-blocking API, so that every wait for the server
// goes through wait_socket() (fiber-aware) and never blocks a fiber's thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <libpq-fe.h>

#include "postgres/socket_wait.hpp"
#include "propgraph/errors.hpp"

namespace propgraph::postgres_detail {

/// A server-reported error: QueryError plus the SQLSTATE code (e.g. "23503") and the fields
/// that locate it.
class ServerError : public QueryError {
 public:
  ServerError(const std::string& message, std::string sqlstate, std::string constraint = {}, std::string context = {},
              std::string detail = {})
      : QueryError(message),
        sqlstate_(std::move(sqlstate)),
        constraint_(std::move(constraint)),
        context_(std::move(context)),
        detail_(std::move(detail)) {}
  [[nodiscard]] const std::string& sqlstate() const noexcept { return sqlstate_; }
  /// The violated constraint or index, for integrity errors (class 23).
  [[nodiscard]] const std::string& constraint() const noexcept { return constraint_; }
  /// Where the server was, e.g. "COPY vertices, line 3".
  [[nodiscard]] const std::string& context() const noexcept { return context_; }
  /// The server's detail line, e.g. "Key (from_id)=(12) is not present in table ...".
  [[nodiscard]] const std::string& detail() const noexcept { return detail_; }

 private:
  std::string sqlstate_;
  std::string constraint_;
  std::string context_;
  std::string detail_;
};

/// Owns a PGresult.
class Result {
 public:
  Result() = default;
  explicit Result(PGresult* res) : res_(res) {}

  [[nodiscard]] int rows() const { return PQntuples(res_.get()); }
  [[nodiscard]] bool is_null(int row, int col) const { return PQgetisnull(res_.get(), row, col) != 0; }
  [[nodiscard]] std::string_view text(int row, int col) const {
    return {PQgetvalue(res_.get(), row, col), static_cast<std::size_t>(PQgetlength(res_.get(), row, col))};
  }
  /// A bigint column; throws QueryError when it is not one.
  [[nodiscard]] std::int64_t int64(int row, int col) const;
  [[nodiscard]] bool boolean(int row, int col) const { return text(row, col) == "t"; }
  /// Rows changed by an INSERT/UPDATE/DELETE.
  [[nodiscard]] std::int64_t affected() const;

 private:
  struct Free {
    void operator()(PGresult* r) const noexcept { PQclear(r); }
  };
  std::unique_ptr<PGresult, Free> res_;
};

/// A query parameter: NUL-terminated text the caller keeps alive during exec(); nullptr is
/// SQL NULL. Types come from casts in the SQL ($1::bigint).
using Param = const char*;

/// Owns the text of a statement's parameters: `ParamList p; p.text(label).null();`, then
/// `c.exec(sql, p.view())`. view() stays valid until the next change.
class ParamList {
 public:
  ParamList& text(std::string value) {
    values_.emplace_back(std::move(value));
    return *this;
  }
  ParamList& null() {
    values_.emplace_back(std::nullopt);
    return *this;
  }
  ParamList& integer(std::int64_t value) { return text(std::to_string(value)); }
  [[nodiscard]] std::span<const Param> view() {
    pointers_.clear();
    for (const auto& v : values_) pointers_.push_back(v ? v->c_str() : nullptr);
    return pointers_;
  }

 private:
  std::vector<std::optional<std::string>> values_;
  std::vector<Param> pointers_;
};

/// Throws Timeout("PostgresGraph: deadline exceeded (<what>)").
[[noreturn]] void throw_deadline(std::string_view what);

/// Whether a statement honours the caller's deadline (propgraph::current_deadline()). COMMIT and
/// ROLLBACK ignore it: once sent they run to the end.
enum class Deadline { honour, ignore };

class Connection {
 public:
  /// Connects with the non-blocking API (fiber-aware). `conninfo` is a libpq connection string
  /// or URI. Throws ConnectionError with libpq's message on failure or when `timeout` passes,
  /// Timeout when the caller's deadline passes first.
  static std::unique_ptr<Connection> open(const std::string& conninfo, Reactor& reactor,
                                          std::chrono::milliseconds timeout);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  /// Runs one parameterized statement (text parameters, types from the SQL's casts).
  /// `prepare` keeps a server-side prepared statement for this SQL text on this connection.
  /// Throws ServerError (a QueryError) for a server error and ConnectionError when the
  /// connection broke; after the latter, broken() is true.
  ///
  /// Deadline: a deadline that has passed throws Timeout before anything is sent. One that
  /// passes while the server works cancels the statement (a cancel request, as PQcancel
  /// sends it; on a fiber it is sent from a helper thread so that the fiber's thread goes on)
  /// and reads the server's answer, so the connection stays usable: Timeout when the statement
  /// was cancelled, its result when it finished first. A server that does not answer within
  /// kCancelGrace of the cancel, or a statement that could not even be sent in time, closes the
  /// connection (broken() is true) and throws Timeout.
  Result exec(const std::string& sql, std::span<const Param> params = {}, bool prepare = true,
              Deadline deadline = Deadline::honour);

  /// Queues parameterless statements (SAVEPOINT, RELEASE SAVEPOINT) to run, in order, right
  /// before the next statement this connection sends: exec() sends them in the same round trip
  /// (libpq pipeline mode), copy_in()/copy_out() first on their own. One that fails stops the
  /// rest and the statement; the next call throws its error, and prelude_failed() is true.
  /// Replaces statements queued before and not yet sent.
  void run_before_next(std::vector<std::string> statements) { prelude_ = std::move(statements); }
  /// Whether statements queued by run_before_next() wait for the next statement.
  [[nodiscard]] bool prelude_pending() const noexcept { return !prelude_.empty(); }
  /// Drops the queued statements that were not sent.
  void drop_prelude() noexcept { prelude_.clear(); }
  /// Whether the last call that sent queued statements failed in one of them (so the statement
  /// itself did not run).
  [[nodiscard]] bool prelude_failed() const noexcept { return prelude_failed_; }

  /// How long the server may take to answer a cancelled statement.
  static constexpr std::chrono::seconds kCancelGrace{5};

  /// COPY ... FROM STDIN: sends what `fill` appends to its (cleared) argument, call after call,
  /// until it returns false. An exception from `fill` aborts the COPY (the server rolls the
  /// statement back) and is rethrown. Errors and the deadline as for exec(); an error the server
  /// raises mid-stream stops the sending early.
  Result copy_in(const std::string& sql, const std::function<bool(std::string& chunk)>& fill);
  /// COPY ... TO STDOUT: calls `row` with each CopyData message (one row; in binary format the
  /// first also carries the header). An exception from `row` cancels the statement and is
  /// rethrown. Errors and the deadline as for exec().
  Result copy_out(const std::string& sql, const std::function<void(std::string_view message)>& row);

  /// True once the connection failed; the pool then discards it.
  [[nodiscard]] bool broken() const;
  /// True when the connection sits outside a transaction, ready for reuse.
  [[nodiscard]] bool idle_in_no_transaction() const;
  /// True inside a transaction that a failed statement aborted (only ROLLBACK helps).
  [[nodiscard]] bool in_failed_transaction() const;
  /// Cheap liveness check for a connection taken from the pool: a closed server socket shows
  /// as readable. Consumes pending input; false means discard it.
  [[nodiscard]] bool still_usable();

 private:
  Connection(PGconn* conn, Reactor& reactor) : conn_(conn), reactor_(&reactor) {}
  class StatementWait;
  [[noreturn]] void fail_connection(std::string_view what);
  [[noreturn]] void fail_deadline(std::string_view what);
  /// Checks the connection and the deadline before a statement; returns the deadline to honour.
  std::optional<Clock::time_point> start(Deadline mode);
  void send_prepare(const std::string& name, const std::string& sql, int n_params,
                    std::optional<Clock::time_point> deadline);
  /// Sends the statement: a deadline passing meanwhile closes the connection (Timeout).
  void flush(std::optional<Clock::time_point> deadline);
  /// Sends while the statement runs (COPY data): past the deadline the statement is cancelled.
  void flush(StatementWait& wait);
  PGresult* next_result(StatementWait& wait);
  /// Sends a COPY statement (simple protocol: COPY takes no parameters); returns the deadline.
  std::optional<Clock::time_point> send_copy(const std::string& sql);
  /// Waits for the server to enter COPY `mode` (a PGRES_COPY_* status): nullopt then, else the
  /// statement's result (errors throw).
  std::optional<Result> enter_copy(StatementWait& wait, int mode);
  /// Reads every result of the statement (`first`: one already read); throws the first error.
  Result collect(StatementWait& wait, PGresult* first = nullptr);
  /// Reads the results of one statement, up to the null result that ends them: keeps the last
  /// good one in `last` (when not null) and the first error in `error`.
  void read_results(StatementWait& wait, PGresult* first, Result* last, std::optional<ServerError>& error);
  /// After a statement's results: throws `error` (ConnectionError when the connection broke,
  /// Timeout when a cancel for the deadline stopped it), or fails when the connection broke.
  void raise(StatementWait& wait, std::optional<ServerError>& error);
  /// exec() of a statement with queued statements ahead of it, in one round trip.
  Result exec_pipelined(const std::string* prepared, const std::string& sql, std::span<const Param> params,
                        std::optional<Clock::time_point> deadline);
  /// Runs the queued statements on their own (before a COPY).
  void run_prelude();

  PGconn* conn_;
  Reactor* reactor_;
  bool broken_ = false;
  std::unordered_map<std::string, std::string> prepared_;  // SQL text -> statement name
  std::vector<std::string> prelude_;                       // see run_before_next()
  bool prelude_failed_ = false;
};

}  // namespace propgraph::postgres_detail
