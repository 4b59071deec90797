// libFuzzer harness: import_csv. Input: an options byte (import_fuzz_support.hpp), then the
// vertices file, then optionally 0x1E (record separator) and the edges file.
#include <sstream>

#include "import_fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  propgraph::fuzz::check_import(
      data, size,
      [](propgraph::GraphOperations& g, std::string_view text, const propgraph::io::ImportOptions& options) {
        const auto split = text.find('\x1e');
        std::istringstream vertices(std::string(text.substr(0, split)));
        std::istringstream edges(split == std::string_view::npos ? std::string(":START_ID,:END_ID\n")
                                                                 : std::string(text.substr(split + 1)));
        return propgraph::io::import_csv(g, vertices, edges, options);
      });
  return 0;
}
