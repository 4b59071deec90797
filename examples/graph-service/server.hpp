// The HTTP/1.1 server, in two modes with the same handlers (GraphService::handle):
// - fibers: Asio coroutines on one thread do all the I/O; each request's handler runs on a
//   FiberPool fiber (as_fiber(graph, pool).start) and the coroutine waits for it with
//   propgraph::async_get, so the Asio thread never blocks;
// - threads: one OS thread per connection does blocking I/O and calls the handler itself.
// stop() is graceful in both: it closes the listener and the idle connections; requests being
// handled finish and are answered with "Connection: close". Timeouts bound the rest: a client
// that sends nothing, sends a request too slowly or does not read its response is disconnected,
// so stop() completes within the longest of them once the handlers have finished.
//
// Faults degrade, never end the service: when accept() fails (out of descriptors: EMFILE,
// ENFILE; ENOBUFS) the listener retries after a short back-off, the pending connections wait
// in the backlog; when a connection's thread cannot be created it is answered 503 and closed.
#pragma once

#include <chrono>
#include <condition_variable>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>  // before Boost 1.74's awaitable.hpp, which uses std::exchange without it

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <propgraph/fiber/fiber_operations.hpp>

#include "service.hpp"

namespace service {

using tcp = boost::asio::ip::tcp;
struct Connection;

/// How long a connection may take; zero is no limit. A client that exceeds one is disconnected
/// without an answer.
struct Timeouts {
  std::chrono::milliseconds idle{60'000};   ///< waiting for the first byte of a request
  std::chrono::milliseconds read{30'000};   ///< from that byte to the end of the request
  std::chrono::milliseconds write{30'000};  ///< writing the whole response
};

class Server {
 public:
  /// Listens on `endpoint` with `io`, which one thread runs. With `fibers`, handlers run on its
  /// pool; without, each connection gets a thread of its own.
  Server(boost::asio::io_context& io, const tcp::endpoint& endpoint, GraphService& service,
         std::optional<propgraph::FiberOperations> fibers, Timeouts timeouts = {});
  [[nodiscard]] unsigned short port() const { return acceptor_.local_endpoint().port(); }
  /// Starts accepting.
  void start();
  /// Stops accepting and closes idle connections; busy ones close after their response.
  void stop();
  /// Blocks until every connection has ended (io.run() returning says the same in fiber mode).
  void wait();

 private:
  boost::asio::awaitable<void> accept();
  boost::asio::awaitable<void> serve_on_fibers(std::shared_ptr<Connection> connection);
  void serve_on_thread(std::shared_ptr<Connection> connection);
  /// Starts serving a new connection; false when it could not (no thread for it).
  bool serve(const std::shared_ptr<Connection>& connection);
  void mark_busy(Connection& connection);
  bool stopping();
  /// After a response: the connection is no longer busy; whether it reads another request.
  bool next_request(Connection& connection, bool keep_alive);
  void forget(const std::shared_ptr<Connection>& connection);

  boost::asio::io_context& io_;
  tcp::acceptor acceptor_;
  GraphService& service_;
  std::optional<propgraph::FiberOperations> fibers_;
  Timeouts timeouts_;
  std::mutex mutex_;
  std::condition_variable ended_;
  std::list<std::shared_ptr<Connection>> connections_;  // guarded by mutex_
  bool stopping_ = false;                               // guarded by mutex_
};

}  // namespace service
