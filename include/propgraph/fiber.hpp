// Umbrella header of the Boost.Fiber facade (CMake target propgraph::fiber): as_fiber /
// FiberOperations, run_on_fiber, FiberPool, when_all / when_any and StackAllocator.
#pragma once

#include "propgraph/fiber/fiber_operations.hpp"
#include "propgraph/fiber/fiber_pool.hpp"
#include "propgraph/fiber/io_scheduler.hpp"
#include "propgraph/fiber/spawn.hpp"
#include "propgraph/fiber/stack_allocator.hpp"
#include "propgraph/fiber/when_all.hpp"
