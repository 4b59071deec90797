#include "server.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <string_view>
#include <system_error>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <propgraph/asio.hpp>

namespace service {

namespace asio = boost::asio;
namespace beast = boost::beast;
using beast::error_code;

struct Connection {
  explicit Connection(tcp::socket s) : stream(std::move(s)) {}
  /// Fiber mode reads and writes through the stream (its expiry is the timeout); thread mode
  /// uses the socket with a DeadlineStream.
  beast::tcp_stream stream;
  tcp::socket& socket = stream.socket();
  beast::flat_buffer buffer;
  bool busy = false;  // a request is being handled; guarded by the server's mutex
};

namespace {

constexpr std::uint64_t kBodyLimit = 1 << 20;
constexpr std::size_t kReadChunk = 4096;
/// How long the listener waits after a failed accept (out of descriptors) before retrying.
constexpr std::chrono::milliseconds kAcceptBackoff{50};

/// The peer closed the connection, stop() did, or a timeout did.
bool closed(const error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::operation_aborted ||
         ec == asio::error::connection_reset || ec == beast::error::timeout;
}

/// Sets the stream's timeout for the operations that follow; zero is none.
void expire(beast::tcp_stream& stream, std::chrono::milliseconds timeout) {
  if (timeout.count() > 0) {
    stream.expires_after(timeout);
  } else {
    stream.expires_never();
  }
}

/// Blocking reads and writes with a deadline, for thread mode (Asio's blocking calls wait in
/// poll() without a limit, even with SO_RCVTIMEO). The socket is made non-blocking; each
/// read_some/write_some waits in poll() for at most the time left until the deadline, then
/// fails with beast::error::timeout. A SyncReadStream and SyncWriteStream for Beast.
class DeadlineStream {
 public:
  explicit DeadlineStream(tcp::socket& socket) : socket_(socket) {
    error_code ignored;
    socket_.non_blocking(true, ignored);
  }

  /// The operations that follow must finish within `timeout` from now; zero is no limit.
  void expires_after(std::chrono::milliseconds timeout) {
    deadline_ = timeout.count() > 0 ? std::optional(std::chrono::steady_clock::now() + timeout) : std::nullopt;
  }

  template <class Buffers>
  std::size_t read_some(const Buffers& buffers, error_code& ec) {
    return wait_for(POLLIN, ec, [&] { return socket_.read_some(buffers, ec); });
  }
  template <class Buffers>
  std::size_t read_some(const Buffers& buffers) {
    error_code ec;
    const std::size_t n = read_some(buffers, ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }
  template <class Buffers>
  std::size_t write_some(const Buffers& buffers, error_code& ec) {
    return wait_for(POLLOUT, ec, [&] { return socket_.write_some(buffers, ec); });
  }
  template <class Buffers>
  std::size_t write_some(const Buffers& buffers) {
    error_code ec;
    const std::size_t n = write_some(buffers, ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }

 private:
  /// Runs `io` until it does not ask to wait, waiting in poll() for `events` in between.
  template <class Io>
  std::size_t wait_for(short events, error_code& ec, Io io) {
    for (;;) {
      const std::size_t n = io();
      if (ec != asio::error::would_block && ec != asio::error::try_again) return n;
      int wait_ms = -1;
      if (deadline_) {
        const auto left = *deadline_ - std::chrono::steady_clock::now();
        if (left <= std::chrono::steady_clock::duration::zero()) {
          ec = beast::error::timeout;
          return 0;
        }
        wait_ms = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(left).count());
      }
      pollfd fd{.fd = socket_.native_handle(), .events = events, .revents = 0};
      if (::poll(&fd, 1, wait_ms) < 0 && errno != EINTR) {
        ec.assign(errno, boost::system::system_category());
        return 0;
      }
    }
  }

  tcp::socket& socket_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

/// The answer to a request Beast could not read (malformed, or a body over the limit).
Response bad_request(const error_code& ec) {
  Response response(http::status::bad_request, 11);
  response.set(http::field::content_type, "application/json");
  response.body() = R"({"error":"invalid_argument","message":"malformed HTTP request: )" + ec.message() + "\"}";
  response.keep_alive(false);
  response.prepare_payload();
  return response;
}

/// Answers 503 to a connection the server cannot serve (best effort: never blocks), and closes it.
void refuse(tcp::socket& socket) {
  static constexpr std::string_view kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
      "Content-Length: 74\r\n\r\n{\"error\":\"connection\",\"message\":\"no thread for the connection; try again\"}";
  error_code ignored;
  socket.non_blocking(true, ignored);
  socket.write_some(asio::buffer(kBusy.data(), kBusy.size()), ignored);
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
}

/// No bytes of a next request have arrived.
bool nothing_to_read(const tcp::socket& socket) {
  error_code ec;
  return socket.available(ec) == 0 && !ec;
}

}  // namespace

Server::Server(asio::io_context& io, const tcp::endpoint& endpoint, GraphService& service,
               std::optional<propgraph::FiberOperations> fibers, Timeouts timeouts)
    : io_(io), acceptor_(io, endpoint), service_(service), fibers_(std::move(fibers)), timeouts_(timeouts) {}

void Server::start() { asio::co_spawn(io_, accept(), asio::detached); }

asio::awaitable<void> Server::accept() {
  asio::steady_timer backoff(io_);
  for (;;) {
    error_code ec;
    tcp::socket socket = co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    // stop() closed the listener: the accept was cancelled, or failed on the closed descriptor.
    if (ec == asio::error::operation_aborted || !acceptor_.is_open() || stopping()) co_return;
    if (ec == asio::error::connection_aborted) continue;  // that client gave up; the next one
    if (ec) {
      // Out of descriptors or buffers (EMFILE, ENFILE, ENOBUFS): the connection waits in the
      // backlog; retrying at once would fail again at once. Wait, then try again.
      backoff.expires_after(kAcceptBackoff);
      co_await backoff.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    socket.set_option(tcp::no_delay(true), ec);  // may fail if the peer is gone already: harmless
    auto connection = std::make_shared<Connection>(std::move(socket));
    if (!serve(connection)) refuse(connection->socket);
  }
}

bool Server::serve(const std::shared_ptr<Connection>& connection) {
  std::lock_guard lock(mutex_);
  connections_.push_back(connection);
  if (fibers_) {
    asio::co_spawn(io_, serve_on_fibers(connection), asio::detached);
    return true;
  }
  try {
    std::thread([this, connection] { serve_on_thread(connection); }).detach();
    return true;
  } catch (const std::system_error&) {  // a thread or address-space limit: refuse this one only
    connections_.pop_back();
    ended_.notify_all();
    return false;
  }
}

asio::awaitable<void> Server::serve_on_fibers(std::shared_ptr<Connection> c) {
  for (error_code ec;;) {
    if (c->buffer.size() == 0) {
      // Idle: wait for the first byte of the next request (stop() cancels this wait).
      expire(c->stream, timeouts_.idle);
      const std::size_t n = co_await c->stream.async_read_some(c->buffer.prepare(kReadChunk),
                                                               asio::redirect_error(asio::use_awaitable, ec));
      c->buffer.commit(n);
      if (ec) break;
    }
    http::request_parser<http::string_body> parser;
    parser.body_limit(kBodyLimit);
    expire(c->stream, timeouts_.read);
    co_await http::async_read(c->stream, c->buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
    if (closed(ec)) break;
    Response response;
    if (ec) {
      response = bad_request(ec);
    } else {
      mark_busy(*c);
      Request request = parser.release();
      const auto arrived = propgraph::DeadlineClock::now();
      // The handler runs on a pool fiber; this coroutine waits without blocking its thread.
      response = co_await propgraph::async_get(
          *fibers_->pool(), fibers_->start([&] { return service_.handle(request, arrived); }), asio::use_awaitable);
      response.keep_alive(request.keep_alive() && !stopping());
    }
    expire(c->stream, timeouts_.write);
    co_await http::async_write(c->stream, response, asio::redirect_error(asio::use_awaitable, ec));
    if (ec || !next_request(*c, response.keep_alive())) break;
  }
  forget(c);
}

void Server::serve_on_thread(std::shared_ptr<Connection> c) {
  DeadlineStream stream(c->socket);
  for (error_code ec;;) {
    if (c->buffer.size() == 0) {
      // Idle: wait for the first byte of the next request (stop() shuts reading down).
      stream.expires_after(timeouts_.idle);
      const std::size_t n = stream.read_some(c->buffer.prepare(kReadChunk), ec);
      c->buffer.commit(n);
      if (ec) break;
    }
    http::request_parser<http::string_body> parser;
    parser.body_limit(kBodyLimit);
    stream.expires_after(timeouts_.read);
    http::read(stream, c->buffer, parser, ec);
    if (closed(ec)) break;
    Response response;
    if (ec) {
      response = bad_request(ec);
    } else {
      mark_busy(*c);
      Request request = parser.release();
      response = service_.handle(request, propgraph::DeadlineClock::now());
      response.keep_alive(request.keep_alive() && !stopping());
    }
    stream.expires_after(timeouts_.write);
    http::write(stream, response, ec);
    if (ec || !next_request(*c, response.keep_alive())) break;
  }
  forget(c);
}

void Server::mark_busy(Connection& c) {
  std::lock_guard lock(mutex_);
  c.busy = true;
}

bool Server::stopping() {
  std::lock_guard lock(mutex_);
  return stopping_;
}

bool Server::next_request(Connection& c, bool keep_alive) {
  std::lock_guard lock(mutex_);
  c.busy = false;
  return keep_alive && !stopping_;  // stop() may have come during the write
}

void Server::forget(const std::shared_ptr<Connection>& c) {
  error_code ignored;
  c->socket.shutdown(tcp::socket::shutdown_send, ignored);
  std::lock_guard lock(mutex_);
  connections_.remove(c);
  ended_.notify_all();
}

void Server::stop() {
  asio::post(io_, [this] {
    error_code ignored;
    acceptor_.close(ignored);
  });
  std::lock_guard lock(mutex_);
  stopping_ = true;
  for (const auto& c : connections_) {
    if (fibers_) {
      // On the Asio thread, where its reads complete: cancel a read still waiting.
      asio::post(io_, [this, c] {
        std::lock_guard io_lock(mutex_);
        if (!c->busy && c->buffer.size() == 0 && nothing_to_read(c->socket)) c->socket.cancel();
      });
    } else if (!c->busy && nothing_to_read(c->socket)) {
      // The thread is blocked in read(): shutting the socket down for reading ends it.
      ::shutdown(c->socket.native_handle(), SHUT_RD);
    }
  }
}

void Server::wait() {
  std::unique_lock lock(mutex_);
  ended_.wait(lock, [&] { return connections_.empty(); });
}

}  // namespace service
