// libFuzzer harness: import_ndjson. Input: an options byte (import_fuzz_support.hpp), then the
// file.
#include <sstream>

#include "import_fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  propgraph::fuzz::check_import(
      data, size,
      [](propgraph::GraphOperations& g, std::string_view text, const propgraph::io::ImportOptions& options) {
        std::istringstream in{std::string(text)};
        return propgraph::io::import_ndjson(g, in, options);
      });
  return 0;
}
