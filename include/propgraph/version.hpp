// Library version.
#pragma once

#define PROPGRAPH_VERSION_MAJOR 0
#define PROPGRAPH_VERSION_MINOR 1
#define PROPGRAPH_VERSION_PATCH 0

namespace propgraph {
/// "major.minor.patch" of the headers in use.
inline constexpr const char* version_string = "0.1.0";
}  // namespace propgraph
