// Umbrella header of the latency decorator (CMake target propgraph::latency): LatencyGraph /
// LatencyOptions and the fiber-aware wait (wait_for, wait_until, running_on_fiber).
#pragma once

#include "propgraph/latency/latency_graph.hpp"
#include "propgraph/latency/wait.hpp"
