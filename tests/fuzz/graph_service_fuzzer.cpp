// libFuzzer harness: the example service's request handling (GraphService::handle) on arbitrary
// requests. The input is raw HTTP/1.1 bytes; what Beast parses into a request goes to handle()
// over a small MemoryGraph. handle() must answer every request (it promises never to throw)
// with a status and, for JSON responses, a body that is valid JSON (hence valid UTF-8).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>
#include <propgraph/memory/memory_graph.hpp>
#include <propgraph/metrics.hpp>

#include "service.hpp"

namespace {

namespace http = boost::beast::http;

[[noreturn]] void violated(const std::string& what) {
  std::fprintf(stderr, "invariant violated: %s\n", what.c_str());
  std::abort();
}

/// One graph for the whole run, with a few persons and edges: requests may change it, which
/// is part of what is fuzzed (later requests see earlier writes).
struct Fixture {
  propgraph::MemoryGraph memory;
  propgraph::InstrumentedGraph graph{memory};
  service::GraphService service{graph, "fuzz"};
  Fixture() {
    const auto a = graph.create_vertex("Person", {{"name", "Alice"}});
    const auto b = graph.create_vertex("Person", {{"name", "Bob"}});
    (void)graph.create_edge(a.id, b.id, "KNOWS", {{"since", 2020}});
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Fixture fixture;
  http::request_parser<http::string_body> parser;
  parser.eager(true);
  parser.body_limit(1 << 16);
  boost::beast::error_code ec;
  parser.put(boost::asio::buffer(data, size), ec);
  if (!ec && !parser.is_done()) parser.put_eof(ec);
  if (ec || !parser.is_done()) return 0;  // Beast refuses it: the server answers 400 itself
  const service::Request request = parser.release();
  service::Response response;
  try {
    response = fixture.service.handle(request, propgraph::DeadlineClock::now());
  } catch (const std::exception& e) {
    violated(std::string("handle() threw: ") + e.what());
  }
  const unsigned status = response.result_int();
  if (status < 200 || status > 599) violated("status " + std::to_string(status));
  const auto type = response[http::field::content_type];
  if (type == "application/json" && !nlohmann::json::accept(response.body())) {
    violated("a JSON response body that does not parse: " + response.body().substr(0, 200));
  }
  return 0;
}
