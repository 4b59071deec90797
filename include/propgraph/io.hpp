// Umbrella header of propgraph::io: bulk import and export in CSV, NDJSON and GraphML against
// any GraphOperations. Link the CMake target propgraph::io.
//
// Shared contract of the imports:
// - File ids are external: they link edges to vertices within the input; the graph issues new
//   ids (ImportOptions::keep_external_id_as keeps the file id as a property).
// - The whole input is parsed and validated before the first write. When anything is wrong
//   under a failing policy, nothing is written and ImportFailed (an ImportError) carries the
//   report of every problem with its location. When a backend write fails midway, what the
//   import created is deleted again before ImportFailed is thrown.
// - A malformed input never crashes or hangs: it is reported.
#pragma once

#include "propgraph/io/csv.hpp"
#include "propgraph/io/format.hpp"
#include "propgraph/io/graphml.hpp"
#include "propgraph/io/ndjson.hpp"
#include "propgraph/io/options.hpp"
#include "propgraph/io/report.hpp"
