#include "postgres/connection.hpp"

#include <poll.h>

#include <charconv>
#include <exception>
#include <thread>
#include <vector>

#include <boost/fiber/future/future.hpp>
#include <boost/fiber/future/promise.hpp>
#include <fmt/format.h>

#include "propgraph/deadline.hpp"

namespace propgraph::postgres_detail {

namespace {

/// Server-side prepared statements kept per connection; beyond this, statements run unnamed.
constexpr std::size_t kMaxPreparedStatements = 256;

std::string_view trimmed(const char* message) {
  std::string_view s = message ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  return s.empty() ? std::string_view("unknown error") : s;
}

void ignore_notice(void*, const char*) {}

/// SQLSTATEs that mean the session is gone rather than that the statement failed.
bool is_connection_sqlstate(std::string_view state) {
  return state.starts_with("08") || state == "57P01" || state == "57P02" || state == "57P03";
}

/// SQLSTATE of a statement cancelled on request.
constexpr std::string_view kQueryCanceled = "57014";

/// The earlier of a deadline and an optional one.
Clock::time_point earliest(Clock::time_point a, std::optional<Clock::time_point> b) { return b && *b < a ? *b : a; }

/// A cancel request for the statement a connection runs. libpq's PQcancel blocks while it
/// connects to the server; a plain thread just calls it, a fiber hands it to a helper thread and
/// waits fiber-aware, so the fiber's thread goes on running other fibers.
class CancelRequest {
 public:
  explicit CancelRequest(PGconn* conn) {
    PGcancel* cancel = PQgetCancel(conn);
    if (cancel == nullptr) return;  // no connection: nothing runs there
    if (!running_on_fiber()) {
      send(cancel);
      return;
    }
    boost::fibers::promise<void> done;
    delivered_ = done.get_future();
    std::thread([cancel, done = std::move(done)]() mutable {
      send(cancel);
      done.set_value();
    }).detach();
  }
  /// Waits until the server took the request, so that it cannot hit a later statement.
  void finish() {
    if (delivered_.valid()) delivered_.get();
  }

 private:
  static void send(PGcancel* cancel) {
    char error[256];
    PQcancel(cancel, error, sizeof error);  // failure: the statement simply runs on
    PQfreeCancel(cancel);
  }
  boost::fibers::future<void> delivered_;
};

ServerError server_error(const PGresult* res) {
  auto field = [&](int code) -> std::string_view {
    const char* v = PQresultErrorField(res, code);
    return v ? v : "";
  };
  const std::string_view state = field(PG_DIAG_SQLSTATE);
  std::string message = fmt::format("PostgreSQL error {}: {}", state, field(PG_DIAG_MESSAGE_PRIMARY));
  if (auto detail = field(PG_DIAG_MESSAGE_DETAIL); !detail.empty()) message += fmt::format(" ({})", detail);
  if (state.empty()) message = fmt::format("PostgreSQL error: {}", trimmed(PQresultErrorMessage(res)));
  return ServerError(message, std::string(state), std::string(field(PG_DIAG_CONSTRAINT_NAME)),
                     std::string(field(PG_DIAG_CONTEXT)), std::string(field(PG_DIAG_MESSAGE_DETAIL)));
}

}  // namespace

void throw_deadline(std::string_view what) {
  throw Timeout(fmt::format("PostgresGraph: deadline exceeded ({})", what));
}

std::int64_t Result::int64(int row, int col) const {
  const auto s = text(row, col);
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    throw QueryError(fmt::format("expected an integer from the server, got '{}'", s));
  }
  return v;
}

std::int64_t Result::affected() const {
  const std::string_view s = PQcmdTuples(res_.get());
  std::int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

std::unique_ptr<Connection> Connection::open(const std::string& conninfo, Reactor& reactor,
                                             std::chrono::milliseconds timeout) {
  // `dbname` is expanded as a full connection string; the later keys override it: jsonb text
  // must arrive as UTF-8.
  const char* keys[] = {"dbname", "client_encoding", "fallback_application_name", nullptr};
  const char* values[] = {conninfo.c_str(), "UTF8", "propgraph", nullptr};
  PGconn* conn = PQconnectStartParams(keys, values, 1);
  if (conn == nullptr) throw ConnectionError("cannot connect to PostgreSQL: out of memory");
  std::unique_ptr<Connection> result(new Connection(conn, reactor));
  if (PQstatus(conn) == CONNECTION_BAD) {
    throw ConnectionError(fmt::format("cannot connect to PostgreSQL: {}", trimmed(PQerrorMessage(conn))));
  }
  const auto call_deadline = current_deadline();
  const auto deadline = earliest(Clock::now() + timeout, call_deadline);
  PostgresPollingStatusType status = PGRES_POLLING_WRITING;
  while (status != PGRES_POLLING_OK) {
    if (status == PGRES_POLLING_FAILED) {
      throw ConnectionError(fmt::format("cannot connect to PostgreSQL: {}", trimmed(PQerrorMessage(conn))));
    }
    const unsigned events = status == PGRES_POLLING_READING ? readable : writable;
    if (!wait_socket(reactor, PQsocket(conn), events, deadline)) {
      if (call_deadline && deadline == *call_deadline) throw_deadline("while connecting");
      throw ConnectionError(fmt::format("cannot connect to PostgreSQL: no answer within {} ms", timeout.count()));
    }
    status = PQconnectPoll(conn);
  }
  PQsetNoticeProcessor(conn, ignore_notice, nullptr);  // e.g. "schema already exists, skipping"
  if (PQsetnonblocking(conn, 1) != 0) {
    throw ConnectionError(fmt::format("PostgreSQL connection: {}", trimmed(PQerrorMessage(conn))));
  }
  return result;
}

Connection::~Connection() { PQfinish(conn_); }

bool Connection::broken() const { return broken_ || PQstatus(conn_) != CONNECTION_OK; }

bool Connection::idle_in_no_transaction() const { return PQtransactionStatus(conn_) == PQTRANS_IDLE; }

bool Connection::in_failed_transaction() const { return PQtransactionStatus(conn_) == PQTRANS_INERROR; }

bool Connection::still_usable() {
  if (broken()) return false;
  pollfd p{};
  p.fd = PQsocket(conn_);
  p.events = POLLIN;
  if (::poll(&p, 1, 0) <= 0) return true;  // nothing arrived while idle: the usual case
  // Input while idle is the server saying goodbye (a FATAL message, then EOF: a restart, an
  // administrator's pg_terminate_backend, an idle timeout) or, rarely, a notice. Either way the
  // connection is not trusted with a call: a fresh one costs one connect.
  broken_ = true;
  return false;
}

void Connection::fail_connection(std::string_view what) {
  broken_ = true;
  throw ConnectionError(fmt::format("PostgreSQL connection lost ({}): {}", what, trimmed(PQerrorMessage(conn_))));
}

void Connection::fail_deadline(std::string_view what) {
  // The server sees the connection close; whatever it had not committed is rolled back.
  broken_ = true;
  throw_deadline(what);
}

/// The waits of one statement for the server: until the caller's deadline, then, after a
/// cancel request, up to kCancelGrace more for the server's answer.
class Connection::StatementWait {
 public:
  StatementWait(Connection& c, std::optional<Clock::time_point> deadline) : c_(c), until_(deadline) {}

  /// Waits until the socket is ready for `events`. Past the deadline it cancels the statement
  /// once and goes on waiting for the server's answer; a server that does not answer within
  /// kCancelGrace closes the connection (Timeout).
  void ready(unsigned events) {
    while (!wait_socket(*c_.reactor_, PQsocket(c_.conn_), events, until_)) {
      if (cancel_) {
        cancel_->finish();
        c_.fail_deadline("the server did not answer the cancel request; the connection was closed");
      }
      cancel();
    }
  }
  /// Asks the server to stop the statement (once), e.g. because its output is no longer wanted.
  void cancel() {
    if (cancel_) return;
    cancel_.emplace(c_.conn_);
    until_ = Clock::now() + kCancelGrace;
  }
  [[nodiscard]] bool cancelled() const noexcept { return cancel_.has_value(); }
  /// Waits until a cancel request was delivered, so that it cannot hit a later statement.
  void finish() {
    if (cancel_) cancel_->finish();
  }

 private:
  Connection& c_;
  std::optional<Clock::time_point> until_;
  std::optional<CancelRequest> cancel_;
};

void Connection::flush(std::optional<Clock::time_point> deadline) {
  while (true) {
    const int pending = PQflush(conn_);
    if (pending == 0) return;
    if (pending < 0) fail_connection("sending");
    // The server may be waiting for us to read before it reads more.
    if (!wait_socket(*reactor_, PQsocket(conn_), readable | writable, deadline)) {
      // The statement is not complete on the server, so it has not started: closing is safe.
      fail_deadline("while sending the statement; the connection was closed");
    }
    if (PQconsumeInput(conn_) == 0) fail_connection("sending");
  }
}

void Connection::flush(StatementWait& wait) {
  while (true) {
    const int pending = PQflush(conn_);
    if (pending == 0) return;
    if (pending < 0) fail_connection("sending");
    wait.ready(readable | writable);
    if (PQconsumeInput(conn_) == 0) fail_connection("sending");
  }
}

PGresult* Connection::next_result(StatementWait& wait) {
  while (PQisBusy(conn_) != 0) {
    wait.ready(readable);
    if (PQconsumeInput(conn_) == 0) fail_connection("waiting for the result");
  }
  return PQgetResult(conn_);
}

void Connection::read_results(StatementWait& wait, PGresult* first, Result* last, std::optional<ServerError>& error) {
  for (PGresult* res = first ? first : next_result(wait); res != nullptr; res = next_result(wait)) {
    const auto status = PQresultStatus(res);
    if (status == PGRES_FATAL_ERROR || status == PGRES_BAD_RESPONSE || status == PGRES_NONFATAL_ERROR) {
      if (!error) error = server_error(res);
      PQclear(res);
    } else if (last != nullptr && status != PGRES_PIPELINE_ABORTED) {
      *last = Result(res);
    } else {
      PQclear(res);
    }
  }
}

void Connection::raise(StatementWait& wait, std::optional<ServerError>& error) {
  wait.finish();
  if (error) {
    if (PQstatus(conn_) == CONNECTION_BAD || is_connection_sqlstate(error->sqlstate())) {
      broken_ = true;
      throw ConnectionError(error->what());
    }
    if (wait.cancelled() && error->sqlstate() == kQueryCanceled) throw_deadline("the statement was cancelled");
    throw *error;
  }
  if (PQstatus(conn_) == CONNECTION_BAD) fail_connection("reading the result");
}

Result Connection::collect(StatementWait& wait, PGresult* first) {
  Result last;
  std::optional<ServerError> error;
  read_results(wait, first, &last, error);
  raise(wait, error);
  return last;
}

std::optional<Clock::time_point> Connection::start(Deadline mode) {
  if (broken()) throw ConnectionError("PostgreSQL connection is broken");
  const auto deadline = mode == Deadline::honour ? current_deadline() : std::nullopt;
  if (deadline && Clock::now() >= *deadline) throw_deadline("before the statement was sent");
  return deadline;
}

void Connection::run_prelude() {
  std::vector<std::string> statements;
  statements.swap(prelude_);
  prelude_failed_ = false;
  for (const auto& statement : statements) {
    try {
      exec(statement, {}, false, Deadline::ignore);  // instant; the COPY after them honours it
    } catch (...) {
      prelude_failed_ = true;  // whatever stopped them: the caller must not roll back
      throw;
    }
  }
}

std::optional<Clock::time_point> Connection::send_copy(const std::string& sql) {
  // A passed deadline refuses the COPY before the queued statements run.
  const auto deadline = start(Deadline::honour);
  if (!prelude_.empty()) run_prelude();
  prelude_failed_ = false;
  if (PQsendQuery(conn_, sql.c_str()) == 0) fail_connection("sending");
  flush(deadline);
  return deadline;
}

std::optional<Result> Connection::enter_copy(StatementWait& wait, int mode) {
  PGresult* first = next_result(wait);
  if (first == nullptr || PQresultStatus(first) != mode) return collect(wait, first);
  PQclear(first);
  return std::nullopt;
}

Result Connection::copy_in(const std::string& sql, const std::function<bool(std::string&)>& fill) {
  StatementWait wait(*this, send_copy(sql));
  if (auto refused = enter_copy(wait, PGRES_COPY_IN)) return std::move(*refused);
  std::exception_ptr failure;
  std::string chunk;
  for (bool more = true; more;) {
    chunk.clear();
    try {
      more = fill(chunk);
    } catch (...) {
      failure = std::current_exception();
      break;
    }
    int put = 0;
    while ((put = PQputCopyData(conn_, chunk.data(), static_cast<int>(chunk.size()))) == 0) {
      wait.ready(writable);
      if (PQconsumeInput(conn_) == 0) fail_connection("sending COPY data");
    }
    if (put < 0) {
      if (PQstatus(conn_) == CONNECTION_BAD) fail_connection("sending COPY data");
      break;  // the server ended the COPY with an error: collect it
    }
    flush(wait);
  }
  // A failure of `fill` aborts the COPY: the server rolls the statement back.
  const char* abort = failure ? "the client abandoned the COPY" : nullptr;
  int ended = 0;
  while ((ended = PQputCopyEnd(conn_, abort)) == 0) wait.ready(writable);
  if (ended < 0 && PQstatus(conn_) == CONNECTION_BAD) fail_connection("ending COPY");
  flush(wait);
  if (!failure) return collect(wait);
  try {
    collect(wait);
  } catch (const QueryError&) {
    // The server's answer to the abort; the caller's failure is what counts.
  }
  std::rethrow_exception(failure);
}

Result Connection::copy_out(const std::string& sql, const std::function<void(std::string_view)>& row) {
  StatementWait wait(*this, send_copy(sql));
  if (auto refused = enter_copy(wait, PGRES_COPY_OUT)) return std::move(*refused);
  std::exception_ptr failure;
  while (true) {
    char* data = nullptr;
    const int n = PQgetCopyData(conn_, &data, 1);
    if (n > 0) {
      if (!failure) {
        try {
          row(std::string_view(data, static_cast<std::size_t>(n)));
        } catch (...) {
          failure = std::current_exception();
          wait.cancel();  // the rest is not wanted: let the server stop early
        }
      }
      PQfreemem(data);
    } else if (n == 0) {
      wait.ready(readable);
      if (PQconsumeInput(conn_) == 0) fail_connection("reading COPY data");
    } else if (n == -1) {
      break;
    } else {
      fail_connection("reading COPY data");
    }
  }
  if (!failure) return collect(wait);
  try {
    collect(wait);
  } catch (const QueryError&) {
    // Most likely the cancel requested above.
  }
  std::rethrow_exception(failure);
}

void Connection::send_prepare(const std::string& name, const std::string& sql, int n_params,
                              std::optional<Clock::time_point> deadline) {
  if (PQsendPrepare(conn_, name.c_str(), sql.c_str(), n_params, nullptr) == 0) fail_connection("preparing");
  flush(deadline);
  StatementWait wait(*this, deadline);
  collect(wait);
}

Result Connection::exec(const std::string& sql, std::span<const Param> params, bool prepare, Deadline mode) {
  const auto deadline = start(mode);
  const int n = static_cast<int>(params.size());
  const std::string* statement = nullptr;
  if (prepare) {
    auto it = prepared_.find(sql);
    if (it == prepared_.end() && prepared_.size() < kMaxPreparedStatements) {
      std::string name = fmt::format("propgraph_{}", prepared_.size());
      send_prepare(name, sql, n, deadline);
      it = prepared_.emplace(sql, std::move(name)).first;
    }
    if (it != prepared_.end()) statement = &it->second;
  }
  prelude_failed_ = false;
  if (!prelude_.empty()) return exec_pipelined(statement, sql, params, deadline);
  const int sent = statement ? PQsendQueryPrepared(conn_, statement->c_str(), n, params.data(), nullptr, nullptr, 0)
                             : PQsendQueryParams(conn_, sql.c_str(), n, nullptr, params.data(), nullptr, nullptr, 0);
  if (sent == 0) fail_connection("sending");
  flush(deadline);
  StatementWait wait(*this, deadline);
  return collect(wait);
}

Result Connection::exec_pipelined(const std::string* prepared, const std::string& sql, std::span<const Param> params,
                                  std::optional<Clock::time_point> deadline) {
  std::vector<std::string> statements;
  statements.swap(prelude_);
  const int n = static_cast<int>(params.size());
  if (PQenterPipelineMode(conn_) == 0) fail_connection("entering pipeline mode");
  for (const auto& s : statements) {
    if (PQsendQueryParams(conn_, s.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) == 0) fail_connection("sending");
  }
  const int sent = prepared ? PQsendQueryPrepared(conn_, prepared->c_str(), n, params.data(), nullptr, nullptr, 0)
                            : PQsendQueryParams(conn_, sql.c_str(), n, nullptr, params.data(), nullptr, nullptr, 0);
  if (sent == 0 || PQpipelineSync(conn_) == 0) fail_connection("sending");
  flush(deadline);
  StatementWait wait(*this, deadline);
  // A null result ends each statement's results; an error makes the server skip the rest up to
  // the sync (PGRES_PIPELINE_ABORTED each).
  std::optional<ServerError> error;
  for (std::size_t i = 0; i < statements.size(); ++i) read_results(wait, nullptr, nullptr, error);
  prelude_failed_ = error.has_value();
  Result last;
  read_results(wait, nullptr, &last, error);
  PGresult* sync = next_result(wait);
  const bool synced = sync != nullptr && PQresultStatus(sync) == PGRES_PIPELINE_SYNC;
  PQclear(sync);
  if (!synced || PQexitPipelineMode(conn_) == 0) {
    if (PQstatus(conn_) == CONNECTION_BAD) fail_connection("reading the result");
    broken_ = true;
    throw ConnectionError(fmt::format("PostgreSQL connection left in an unexpected state after a pipeline: {}",
                                      trimmed(PQerrorMessage(conn_))));
  }
  raise(wait, error);
  return last;
}

}  // namespace propgraph::postgres_detail
