#include "server.hpp"

#include <sys/socket.h>

#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <propgraph/asio.hpp>

namespace service {

namespace asio = boost::asio;
namespace beast = boost::beast;
using beast::error_code;

struct Connection {
  explicit Connection(tcp::socket s) : socket(std::move(s)) {}
  tcp::socket socket;
  beast::flat_buffer buffer;
  bool busy = false;  // a request is being handled; guarded by the server's mutex
};

namespace {

constexpr std::uint64_t kBodyLimit = 1 << 20;

/// The peer closed the connection, or stop() did.
bool closed(const error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::operation_aborted ||
         ec == asio::error::connection_reset;
}

/// The answer to a request Beast could not read (malformed, or a body over the limit).
Response bad_request(const error_code& ec) {
  Response response(http::status::bad_request, 11);
  response.set(http::field::content_type, "application/json");
  response.body() = R"({"error":"invalid_argument","message":"malformed HTTP request: )" + ec.message() + "\"}";
  response.keep_alive(false);
  response.prepare_payload();
  return response;
}

/// No bytes of a next request have arrived.
bool nothing_to_read(const tcp::socket& socket) {
  error_code ec;
  return socket.available(ec) == 0 && !ec;
}

}  // namespace

Server::Server(asio::io_context& io, const tcp::endpoint& endpoint, GraphService& service,
               std::optional<propgraph::FiberOperations> fibers)
    : io_(io), acceptor_(io, endpoint), service_(service), fibers_(std::move(fibers)) {}

void Server::start() { asio::co_spawn(io_, accept(), asio::detached); }

asio::awaitable<void> Server::accept() {
  for (;;) {
    error_code ec;
    tcp::socket socket = co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec == asio::error::operation_aborted) co_return;  // stop()
    if (ec) continue;
    socket.set_option(tcp::no_delay(true));
    auto connection = std::make_shared<Connection>(std::move(socket));
    std::lock_guard lock(mutex_);
    connections_.push_back(connection);
    if (fibers_) {
      asio::co_spawn(io_, serve_on_fibers(connection), asio::detached);
    } else {
      std::thread([this, connection] { serve_on_thread(connection); }).detach();
    }
  }
}

asio::awaitable<void> Server::serve_on_fibers(std::shared_ptr<Connection> c) {
  for (error_code ec;;) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(kBodyLimit);
    co_await http::async_read(c->socket, c->buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
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
    co_await http::async_write(c->socket, response, asio::redirect_error(asio::use_awaitable, ec));
    if (ec || !next_request(*c, response.keep_alive())) break;
  }
  forget(c);
}

void Server::serve_on_thread(std::shared_ptr<Connection> c) {
  for (error_code ec;;) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(kBodyLimit);
    http::read(c->socket, c->buffer, parser, ec);
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
    http::write(c->socket, response, ec);
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
