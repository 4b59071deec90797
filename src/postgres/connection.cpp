#include "postgres/connection.hpp"

#include <poll.h>

#include <charconv>
#include <vector>

#include <fmt/format.h>

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
                     std::string(field(PG_DIAG_CONTEXT)));
}

}  // namespace

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
  const auto deadline = Clock::now() + timeout;
  PostgresPollingStatusType status = PGRES_POLLING_WRITING;
  while (status != PGRES_POLLING_OK) {
    if (status == PGRES_POLLING_FAILED) {
      throw ConnectionError(fmt::format("cannot connect to PostgreSQL: {}", trimmed(PQerrorMessage(conn))));
    }
    const unsigned events = status == PGRES_POLLING_READING ? readable : writable;
    if (!wait_socket(reactor, PQsocket(conn), events, deadline)) {
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

bool Connection::still_usable() {
  if (broken()) return false;
  pollfd p{};
  p.fd = PQsocket(conn_);
  p.events = POLLIN;
  if (::poll(&p, 1, 0) <= 0) return true;  // nothing arrived while idle: the usual case
  // Input while idle is a notice or the server saying goodbye (then EOF follows).
  if ((p.revents & (POLLERR | POLLNVAL)) != 0 || PQconsumeInput(conn_) == 0) {
    broken_ = true;
    return false;
  }
  return PQstatus(conn_) == CONNECTION_OK;
}

void Connection::fail_connection(std::string_view what) {
  broken_ = true;
  throw ConnectionError(fmt::format("PostgreSQL connection lost ({}): {}", what, trimmed(PQerrorMessage(conn_))));
}

void Connection::flush() {
  while (true) {
    const int pending = PQflush(conn_);
    if (pending == 0) return;
    if (pending < 0) fail_connection("sending");
    // The server may be waiting for us to read before it reads more.
    wait_socket(*reactor_, PQsocket(conn_), readable | writable);
    if (PQconsumeInput(conn_) == 0) fail_connection("sending");
  }
}

Result Connection::collect() {
  Result last;
  std::optional<ServerError> error;
  while (true) {
    while (PQisBusy(conn_) != 0) {
      wait_socket(*reactor_, PQsocket(conn_), readable);
      if (PQconsumeInput(conn_) == 0) fail_connection("waiting for the result");
    }
    PGresult* res = PQgetResult(conn_);
    if (res == nullptr) break;
    const auto status = PQresultStatus(res);
    if (status == PGRES_FATAL_ERROR || status == PGRES_BAD_RESPONSE || status == PGRES_NONFATAL_ERROR) {
      if (!error) error = server_error(res);
      PQclear(res);
    } else {
      last = Result(res);
    }
  }
  if (error) {
    if (PQstatus(conn_) == CONNECTION_BAD || is_connection_sqlstate(error->sqlstate())) {
      broken_ = true;
      throw ConnectionError(error->what());
    }
    throw *error;
  }
  if (PQstatus(conn_) == CONNECTION_BAD) fail_connection("reading the result");
  return last;
}

void Connection::send_prepare(const std::string& name, const std::string& sql, int n_params) {
  if (PQsendPrepare(conn_, name.c_str(), sql.c_str(), n_params, nullptr) == 0) fail_connection("preparing");
  flush();
  collect();
}

Result Connection::exec(const std::string& sql, std::span<const Param> params, bool prepare) {
  if (broken()) throw ConnectionError("PostgreSQL connection is broken");
  const int n = static_cast<int>(params.size());
  const std::string* statement = nullptr;
  if (prepare) {
    auto it = prepared_.find(sql);
    if (it == prepared_.end() && prepared_.size() < kMaxPreparedStatements) {
      std::string name = fmt::format("propgraph_{}", prepared_.size());
      send_prepare(name, sql, n);
      it = prepared_.emplace(sql, std::move(name)).first;
    }
    if (it != prepared_.end()) statement = &it->second;
  }
  const int sent = statement
                       ? PQsendQueryPrepared(conn_, statement->c_str(), n, params.data(), nullptr, nullptr, 0)
                       : PQsendQueryParams(conn_, sql.c_str(), n, nullptr, params.data(), nullptr, nullptr, 0);
  if (sent == 0) fail_connection("sending");
  flush();
  return collect();
}

}  // namespace propgraph::postgres_detail
