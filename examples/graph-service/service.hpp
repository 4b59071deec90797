// The HTTP API of the graph service: one synchronous function from a request to a response.
// The fiber server runs it on a FiberPool fiber, the thread-per-connection server on the
// connection's thread; the code is the same.
#pragma once

#include <atomic>
#include <string>

#include <boost/beast/http.hpp>
#include <propgraph/deadline.hpp>
#include <propgraph/metrics.hpp>

namespace service {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

struct Target;

class GraphService {
 public:
  /// `graph` is the backend with its metrics; `mode` is reported by /health.
  GraphService(propgraph::InstrumentedGraph& graph, std::string mode) : graph_(graph), mode_(std::move(mode)) {}

  /// Answers one request. The graph calls it makes run under the request's deadline (header
  /// X-Timeout-Ms or query parameter timeout_ms, counted from `arrived`). Never throws: errors
  /// become JSON responses {"error": kind, "message": text} with their status code. Input that
  /// is not UTF-8 (a decoded path segment, a query parameter's name or value, the X-Timeout-Ms
  /// header, the body) is a 400 naming where it is; bodies are always valid JSON.
  Response handle(const Request& request, propgraph::DeadlineClock::time_point arrived);

 private:
  /// handle() without the catch: checks the input, sets the deadline, routes.
  Response handle_checked(const Request& request, propgraph::DeadlineClock::time_point arrived);
  Response route(const Request& request, const Target& target);

  propgraph::InstrumentedGraph& graph_;
  std::string mode_;
  std::atomic<int> in_flight_{0};
};

}  // namespace service
