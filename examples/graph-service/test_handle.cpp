// Unit tests of GraphService::handle on hostile input (ctest graph-service.handle.*): bytes
// that are not UTF-8 in every position of a request are a 400 naming the position, every body
// is valid JSON, and handle() never throws.
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <propgraph/propgraph.hpp>

#include "service.hpp"

namespace {

using nlohmann::json;
using service::Request;
using service::Response;
namespace http = boost::beast::http;

class HandleTest : public ::testing::Test {
 protected:
  Response call(http::verb method, std::string_view target, std::string body = {},
                std::string_view timeout_header = {}) {
    Request request(method, target, 11);
    if (!timeout_header.empty()) request.set("X-Timeout-Ms", timeout_header);
    request.body() = std::move(body);
    request.prepare_payload();
    return service.handle(request, propgraph::DeadlineClock::now());
  }

  /// The body as JSON; a test failure (and null) when it is not.
  static json body_of(const Response& response) {
    try {
      return json::parse(response.body());
    } catch (const json::exception& e) {
      ADD_FAILURE() << "not JSON (" << e.what() << "): " << response.body();
      return nullptr;
    }
  }

  /// A 400 invalid_argument whose message is `message`.
  static void expect_invalid(const Response& response, std::string_view message) {
    EXPECT_EQ(response.result(), http::status::bad_request) << response.body();
    const json body = body_of(response);
    EXPECT_EQ(body.value("error", ""), "invalid_argument") << response.body();
    EXPECT_EQ(body.value("message", ""), message) << response.body();
  }

  propgraph::MemoryGraph memory;
  propgraph::InstrumentedGraph graph{memory};
  service::GraphService service{graph, "test"};
};

TEST_F(HandleTest, QueryValueNotUtf8) {
  expect_invalid(call(http::verb::get, "/persons?limit=%FF"), "query parameter limit: invalid UTF-8");
  expect_invalid(call(http::verb::get, "/persons?after=%C3"), "query parameter after: invalid UTF-8");
  expect_invalid(call(http::verb::get, "/persons/x/edges?direction=%FF"), "query parameter direction: invalid UTF-8");
  expect_invalid(call(http::verb::get, "/paths?from=a&to=%80"), "query parameter to: invalid UTF-8");
  expect_invalid(call(http::verb::get, "/persons?timeout_ms=%FF"), "query parameter timeout_ms: invalid UTF-8");
  expect_invalid(call(http::verb::get, "/persons?limit=\xff"), "query parameter limit: invalid UTF-8");
}

TEST_F(HandleTest, QueryNameNotUtf8) {
  expect_invalid(call(http::verb::get, "/persons?limit=1&%FF=1"), "query parameter 2: name: invalid UTF-8");
}

TEST_F(HandleTest, PathSegmentNotUtf8) {
  expect_invalid(call(http::verb::get, "/persons/%FF/edges"), "path segment 2: invalid UTF-8");
  expect_invalid(call(http::verb::get, "/persons/%FF"), "path segment 2: invalid UTF-8");
  expect_invalid(call(http::verb::get, "/persons/\xff"), "path segment 2: invalid UTF-8");
  expect_invalid(call(http::verb::patch, "/persons/%C0%AF", "{}"), "path segment 2: invalid UTF-8");     // overlong
  expect_invalid(call(http::verb::delete_, "/persons/%ED%A0%80"), "path segment 2: invalid UTF-8");      // surrogate
  expect_invalid(call(http::verb::get, "/persons/%F4%90%80%80"), "path segment 2: invalid UTF-8");  // > U+10FFFF
  expect_invalid(call(http::verb::post, "/persons/a/knows/%E2%82"), "path segment 4: invalid UTF-8");  // cut short
  expect_invalid(call(http::verb::get, "/%FF"), "path segment 1: invalid UTF-8");
}

TEST_F(HandleTest, BodyNotUtf8) {
  expect_invalid(call(http::verb::post, "/persons", "{\"name\":\"\xff\"}"), "body: invalid UTF-8");
  expect_invalid(call(http::verb::post, "/persons", "\xff"), "body: invalid UTF-8");
  const json alice = body_of(call(http::verb::post, "/persons", R"({"name":"Alice"})"));
  const std::string id = alice.value("id", "");
  ASSERT_FALSE(id.empty());
  expect_invalid(call(http::verb::patch, "/persons/" + id, "{\"name\":\"\xc3(\"}"), "body: invalid UTF-8");
}

TEST_F(HandleTest, TimeoutHeaderNotUtf8) {
  expect_invalid(call(http::verb::get, "/persons", {}, "\xff"), "header X-Timeout-Ms: invalid UTF-8");
}

TEST_F(HandleTest, ValidUtf8IsUntouched) {
  const Response euro = call(http::verb::get, "/persons/%E2%82%AC");
  EXPECT_EQ(euro.result(), http::status::not_found);
  EXPECT_EQ(body_of(euro).value("message", ""), "no person \u20ac");
  const Response emoji = call(http::verb::get, "/persons/%F0%9F%98%80");
  EXPECT_EQ(emoji.result(), http::status::not_found);
  EXPECT_EQ(body_of(emoji).value("message", ""), "no person \U0001F600");
  const Response created = call(http::verb::post, "/persons", R"({"name":"Zürich €"})");
  EXPECT_EQ(created.result(), http::status::created);
  EXPECT_EQ(body_of(created)["properties"].value("name", ""), "Zürich €");
}

// Text that is not UTF-8 where nothing checks it (here a method no HTTP parser would pass, quoted
// by the 404) is answered with U+FFFD in its place, not with an error about the error.
TEST_F(HandleTest, UncheckedTextNotUtf8IsReplaced) {
  Request request;
  request.method_string("GET\xff");
  request.target("/persons");
  request.version(11);
  const Response response = service.handle(request, propgraph::DeadlineClock::now());
  EXPECT_EQ(response.result(), http::status::not_found) << response.body();
  EXPECT_EQ(body_of(response).value("message", ""), "no route GET\xef\xbf\xbd /persons");
}

// Random requests: handle() answers each, and every body is JSON (the service's only text
// body is /metrics).
TEST_F(HandleTest, ArbitraryRequestsAreAnsweredWithJson) {
  std::mt19937 random(7);
  auto bytes = [&](std::size_t max) {
    std::string s(std::uniform_int_distribution<std::size_t>(0, max)(random), '\0');
    for (char& c : s) c = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(random));
    return s;
  };
  const std::string targets[] = {
      "/persons", "/persons/", "/persons/x/edges?direction=", "/paths?from=", "/pagerank?top=", "/persons?limit="};
  const http::verb verbs[] = {http::verb::get, http::verb::post, http::verb::patch, http::verb::delete_};
  for (int i = 0; i < 2000; ++i) {
    const http::verb verb = verbs[static_cast<std::size_t>(i) % std::size(verbs)];
    const std::string target = targets[static_cast<std::size_t>(i) % std::size(targets)] + bytes(8);
    std::string body = i % 3 == 0 ? "{\"name\":\"" + bytes(6) + "\"}" : bytes(12);
    Response response;
    ASSERT_NO_THROW(response = call(verb, target, body, i % 5 == 0 ? bytes(4) : std::string()));
    if (response.body().empty()) continue;  // 204
    EXPECT_TRUE(json::accept(response.body())) << response.body();
  }
}

}  // namespace
