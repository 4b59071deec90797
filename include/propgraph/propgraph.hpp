// Umbrella header: model, options, errors, deadlines, the GraphOperations interface, the
// in-memory backend and the {fmt} formatters. The fiber facade, io and postgres have headers of their own.
#pragma once

#include "propgraph/deadline.hpp"
#include "propgraph/errors.hpp"
#include "propgraph/fmt.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/model.hpp"
#include "propgraph/operations.hpp"
#include "propgraph/options.hpp"
#include "propgraph/version.hpp"
