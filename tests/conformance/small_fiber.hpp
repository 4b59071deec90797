// Runs a callable on a fiber with a small guarded stack: tests that an operation needs no
// recursion as deep as its input.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <utility>

#include <boost/fiber/fiber.hpp>
#include <boost/fiber/protected_fixedsize_stack.hpp>

namespace propgraph::conformance {

/// Runs fn on a fiber whose guarded stack has `stack_bytes`, rethrowing what it throws: an
/// overflow hits the guard page (SIGSEGV) instead of passing silently.
template <typename Fn>
void on_small_fiber(std::size_t stack_bytes, Fn&& fn) {
  std::exception_ptr error;
  boost::fibers::fiber fiber(std::allocator_arg, boost::fibers::protected_fixedsize_stack(stack_bytes), [&] {
    try {
      std::forward<Fn>(fn)();
    } catch (...) {
      error = std::current_exception();
    }
  });
  fiber.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace propgraph::conformance
