#include "service.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <propgraph/errors.hpp>
#include <propgraph/json.hpp>

namespace service {

using nlohmann::json;
using propgraph::ElementId;
using propgraph::InvalidArgument;

namespace {

/// Decodes %XX escapes (and '+' in query values).
std::string percent_decode(std::string_view text, bool query) {
  auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) && hex(text[i + 2])) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += query && text[i] == '+' ? ' ' : text[i];
    }
  }
  return out;
}

/// Whether `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
/// past U+10FFFF).
bool valid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    unsigned char low = 0x80;  // the range of the second byte
    unsigned char high = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) low = 0xA0;   // overlong
      if (c == 0xED) high = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) low = 0x90;   // overlong
      if (c == 0xF4) high = 0x8F;  // beyond U+10FFFF
    } else {
      return false;
    }
    if (n - i < length || s[i + 1] < low || s[i + 1] > high) return false;
    for (std::size_t k = 2; k < length; ++k) {
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) return false;
    }
    i += length;
  }
  return true;
}

/// InvalidArgument naming `what` unless `text` is well-formed UTF-8. Input is checked before
/// anything quotes it, so no error message carries bytes JSON cannot hold.
void require_utf8(std::string_view text, std::string_view what) {
  if (!valid_utf8(text)) throw InvalidArgument(fmt::format("{}: invalid UTF-8", what));
}

/// `text` as an integer in [min, max]; InvalidArgument naming `what` otherwise.
long parse_integer(std::string_view what, std::string_view text, long min, long max) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    throw InvalidArgument(fmt::format("{}: expected an integer in [{}, {}], got \"{}\"", what, min, max, text));
  }
  return value;
}

/// Calls fn(part) for each non-empty part of `text` between separators `sep`.
template <class Fn>
void split(std::string_view text, char sep, Fn fn) {
  while (!text.empty()) {
    const auto at = std::min(text.find(sep), text.size());
    if (at != 0) fn(text.substr(0, at));
    text.remove_prefix(std::min(at + 1, text.size()));
  }
}

}  // namespace

/// A request target split into decoded path segments and query parameters.
struct Target {
  std::vector<std::string> path;
  std::map<std::string, std::string, std::less<>> query;

  /// Throws InvalidArgument naming the segment or parameter whose decoded text is not UTF-8.
  explicit Target(std::string_view target) {
    const auto q = std::min(target.find('?'), target.size());
    split(target.substr(0, q), '/', [&](std::string_view part) {
      path.push_back(percent_decode(part, false));
      require_utf8(path.back(), fmt::format("path segment {}", path.size()));
    });
    std::size_t index = 0;
    split(target.substr(q), '&', [&](std::string_view item) {
      if (item.front() == '?') item.remove_prefix(1);
      ++index;
      const auto eq = std::min(item.find('='), item.size());
      std::string name = percent_decode(item.substr(0, eq), true);
      require_utf8(name, fmt::format("query parameter {}: name", index));
      std::string value = percent_decode(item.substr(std::min(eq + 1, item.size())), true);
      require_utf8(value, fmt::format("query parameter {}", name));
      query[std::move(name)] = std::move(value);
    });
  }

  [[nodiscard]] std::optional<std::string> text(std::string_view name) const {
    auto it = query.find(name);
    return it == query.end() ? std::nullopt : std::optional(it->second);
  }
  /// An integer parameter in [min, max], or `fallback` when absent.
  [[nodiscard]] long integer(std::string_view name, long fallback, long min, long max) const {
    const auto value = text(name);
    return value ? parse_integer(fmt::format("query parameter {}", name), *value, min, max) : fallback;
  }
  [[nodiscard]] propgraph::Direction direction(propgraph::Direction fallback) const {
    const auto value = text("direction");
    if (!value) return fallback;
    if (*value == "out") return propgraph::Direction::out;
    if (*value == "in") return propgraph::Direction::in;
    if (*value == "both") return propgraph::Direction::both;
    throw InvalidArgument(fmt::format("query parameter direction: expected out, in or both, got \"{}\"", *value));
  }
  [[nodiscard]] propgraph::Page page() const {
    propgraph::Page page{.limit = static_cast<std::size_t>(integer("limit", 100, 1, 1000))};
    if (auto after = text("after")) page.after = ElementId(*after);
    return page;
  }
};

namespace {

Response json_response(http::status status, const json& body) {
  Response response(status, 11);
  response.set(http::field::content_type, "application/json");
  // Replace, not throw: a message quoting input that is not UTF-8 must still make a body.
  response.body() = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return response;
}

Response error_response(http::status status, std::string_view kind, std::string_view message) {
  return json_response(status, json{{"error", kind}, {"message", message}});
}

/// The status of each propgraph::ErrorKind, in its order: invalid_argument, not_found,
/// already_exists, query, connection, import, transaction_conflict, timeout, storage, other.
constexpr std::array<http::status, propgraph::error_kind_count> kStatusOf = {http::status::bad_request,
                                                                             http::status::not_found,
                                                                             http::status::conflict,
                                                                             http::status::internal_server_error,
                                                                             http::status::service_unavailable,
                                                                             http::status::internal_server_error,
                                                                             http::status::conflict,
                                                                             http::status::gateway_timeout,
                                                                             http::status::internal_server_error,
                                                                             http::status::internal_server_error};

/// The response for an exception: the status follows the error's family.
Response error_response(const std::exception_ptr& error) {
  const propgraph::ErrorKind kind = propgraph::classify(error);
  const http::status status = kStatusOf[static_cast<std::size_t>(kind)];
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return error_response(status, to_string(kind), e.what());
  } catch (...) {
    return error_response(status, to_string(kind), "unknown error");
  }
}

/// Properties from a JSON object body; an empty body is no properties.
propgraph::Properties properties_of(const Request& request) {
  if (request.body().empty()) return {};
  return propgraph::parse_json(request.body()).get<propgraph::Properties>();
}

/// A page of results as {"items": [...], "next": id of the last item, or null when no more}.
template <class T>
json page_of(const std::vector<T>& items, const propgraph::Page& page) {
  json body{{"items", items}, {"next", nullptr}};
  if (!items.empty() && items.size() == page.limit) body["next"] = items.back().id;
  return body;
}

constexpr std::string_view kPerson = "Person";
constexpr long kMaxBudgetMs = 3'600'000;

}  // namespace

Response GraphService::handle(const Request& request, propgraph::DeadlineClock::time_point arrived) {
  ++in_flight_;
  Response response;
  try {
    try {
      response = handle_checked(request, arrived);
    } catch (...) {
      response = error_response(std::current_exception());
    }
  } catch (...) {  // no memory for the error's body, or a bug: still an answer, never a throw
    response = Response(http::status::internal_server_error, 11);
    response.set(http::field::content_type, "application/json");
    response.body() = R"({"error":"other","message":"the error could not be reported"})";
  }
  --in_flight_;
  response.version(request.version());
  response.prepare_payload();
  return response;
}

Response GraphService::handle_checked(const Request& request, propgraph::DeadlineClock::time_point arrived) {
  const Target target(request.target());
  require_utf8(request.body(), "body");
  std::optional<long> budget_ms;
  if (auto header = request.find("X-Timeout-Ms"); header != request.end()) {
    require_utf8(header->value(), "header X-Timeout-Ms");
    budget_ms = parse_integer("header X-Timeout-Ms", header->value(), 0, kMaxBudgetMs);
  } else if (target.text("timeout_ms")) {
    budget_ms = target.integer("timeout_ms", 0, 0, kMaxBudgetMs);
  }
  std::optional<propgraph::DeadlineScope> deadline;
  if (budget_ms) deadline.emplace(arrived + std::chrono::milliseconds(*budget_ms));
  return route(request, target);
}

Response GraphService::route(const Request& request, const Target& target) {
  const auto& p = target.path;
  const http::verb method = request.method();
  auto is = [&](http::verb verb, std::size_t segments) { return method == verb && p.size() == segments; };
  auto not_found = [](std::string_view what) { return error_response(http::status::not_found, "not_found", what); };
  auto require_person = [&](const std::string& id) {
    if (!graph_.find_vertex_by_id(kPerson, ElementId(id))) throw propgraph::NotFound(fmt::format("no person {}", id));
  };

  if (p.size() == 1 && p[0] == "health" && method == http::verb::get) {
    return json_response(http::status::ok, json{{"status", "ok"}, {"mode", mode_}, {"in_flight", in_flight_.load()}});
  }
  if (p.size() == 1 && p[0] == "metrics" && method == http::verb::get) {
    Response response(http::status::ok, 11);
    response.set(http::field::content_type, "text/plain; version=0.0.4");
    response.body() = propgraph::to_prometheus(graph_.snapshot());
    return response;
  }
  if (!p.empty() && p[0] == "persons") {
    if (is(http::verb::post, 1)) {
      return json_response(http::status::created, graph_.create_vertex(kPerson, properties_of(request)));
    }
    if (is(http::verb::get, 1)) {
      const propgraph::Page page = target.page();
      return json_response(http::status::ok, page_of(graph_.find_vertices_by_label(kPerson, {}, page), page));
    }
    if (p.size() >= 2) {
      const ElementId id(p[1]);
      if (is(http::verb::get, 2)) {
        auto person = graph_.find_vertex_by_id(kPerson, id);
        return person ? json_response(http::status::ok, *person) : not_found("no person " + p[1]);
      }
      if (is(http::verb::patch, 2)) {
        auto person = graph_.update_vertex(kPerson, id, properties_of(request));
        return person ? json_response(http::status::ok, *person) : not_found("no person " + p[1]);
      }
      if (is(http::verb::delete_, 2)) {
        if (!graph_.delete_vertex(kPerson, id)) return not_found("no person " + p[1]);
        return Response(http::status::no_content, 11);
      }
      if (is(http::verb::post, 4) && (p[2] == "knows" || p[2] == "follows")) {
        const std::string label = p[2] == "knows" ? "KNOWS" : "FOLLOWS";
        return json_response(http::status::created,
                             graph_.create_edge(id, ElementId(p[3]), label, properties_of(request)));
      }
      if (is(http::verb::get, 3) && p[2] == "edges") {
        require_person(p[1]);
        const propgraph::Page page = target.page();
        const propgraph::EdgeQuery query{.direction = target.direction(propgraph::Direction::both),
                                         .edge_label = target.text("label"),
                                         .page = page};
        return json_response(http::status::ok, page_of(graph_.incident_edges(id, query), page));
      }
      if (is(http::verb::get, 3) && p[2] == "neighbors") {
        require_person(p[1]);
        const propgraph::NeighborOptions options{.edge_label = target.text("label"),
                                                 .direction = target.direction(propgraph::Direction::out),
                                                 .max_depth = static_cast<int>(target.integer("depth", 1, 1, 5)),
                                                 .page = target.page()};
        return json_response(http::status::ok, page_of(graph_.neighbors(id, options), options.page));
      }
    }
  }
  if (is(http::verb::get, 1) && p[0] == "paths") {
    const auto from = target.text("from");
    const auto to = target.text("to");
    if (!from || !to) throw InvalidArgument("query parameters from and to are required");
    const propgraph::PathOptions options{.edge_label = target.text("label"),
                                         .direction = target.direction(propgraph::Direction::both),
                                         .max_depth = static_cast<int>(target.integer("max_depth", 10, 1, 20))};
    auto path = graph_.shortest_path(ElementId(*from), ElementId(*to), options);
    return path ? json_response(http::status::ok, *path) : not_found(fmt::format("no path from {} to {}", *from, *to));
  }
  if (is(http::verb::get, 1) && p[0] == "pagerank") {
    const propgraph::PageRankOptions options{.vertex_label = std::string(kPerson),
                                             .edge_label = target.text("label"),
                                             .top_k = static_cast<std::size_t>(target.integer("top", 10, 1, 1000))};
    return json_response(http::status::ok, graph_.page_rank(options));
  }
  return not_found(fmt::format("no route {} {}", request.method_string(), request.target()));
}

}  // namespace service
