// The HTTP/1.1 server, in two modes with the same handlers (GraphService::handle):
// - fibers: Asio coroutines on one thread do all the I/O; each request's handler runs on a
//   FiberPool fiber (as_fiber(graph, pool).start) and the coroutine waits for it with
//   propgraph::async_get, so the Asio thread never blocks;
// - threads: one OS thread per connection does blocking I/O and calls the handler itself.
// stop() is graceful in both: it closes the listener and the idle connections; requests being
// handled finish and are answered with "Connection: close".
#pragma once

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

class Server {
 public:
  /// Listens on `endpoint` with `io`, which one thread runs. With `fibers`, handlers run on its
  /// pool; without, each connection gets a thread of its own.
  Server(boost::asio::io_context& io, const tcp::endpoint& endpoint, GraphService& service,
         std::optional<propgraph::FiberOperations> fibers);
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
  void mark_busy(Connection& connection);
  bool stopping();
  /// After a response: the connection is no longer busy; whether it reads another request.
  bool next_request(Connection& connection, bool keep_alive);
  void forget(const std::shared_ptr<Connection>& connection);

  boost::asio::io_context& io_;
  tcp::acceptor acceptor_;
  GraphService& service_;
  std::optional<propgraph::FiberOperations> fibers_;
  std::mutex mutex_;
  std::condition_variable ended_;
  std::list<std::shared_ptr<Connection>> connections_;  // guarded by mutex_
  bool stopping_ = false;                               // guarded by mutex_
};

}  // namespace service
