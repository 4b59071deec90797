#include "memory/durable/codec.hpp"

// The xxHash functions compiled into this file: no library to link, for propgraph or its users.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace propgraph::detail::durable {

std::uint64_t checksum(const void* data, std::size_t size) noexcept { return XXH3_64bits(data, size); }

}  // namespace propgraph::detail::durable
