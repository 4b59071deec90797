// libFuzzer harness: the openCypher parser. Input: one statement. Any input must either parse or
// throw QueryError with a SyntaxError code and a place in the text; nothing else (no crash, no
// other exception, no runaway recursion).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "propgraph/errors.hpp"
#include "query/parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto statement = propgraph::query::parse_statement(text);
    if (statement->queries.empty()) {
      std::fprintf(stderr, "invariant violated: a parsed statement without a query\n");
      std::abort();
    }
  } catch (const propgraph::QueryError& error) {
    if (!std::string_view(error.code()).starts_with("SyntaxError") || error.line() < 1 || error.column() < 1) {
      std::fprintf(stderr, "invariant violated: error '%s' code '%s' at %d:%d\n", error.what(), error.code().c_str(),
                   error.line(), error.column());
      std::abort();
    }
  }
  return 0;
}
