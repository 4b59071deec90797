// Two pieces of work at once, for the bulk paths that split a table in halves.
#pragma once

#include <exception>
#include <system_error>
#include <thread>

namespace propgraph::detail {

/// Runs first() here and second() on a thread of its own, both to the end; rethrows what
/// either threw (first()'s before second()'s). Without a thread to start, runs second() here
/// after first().
template <typename First, typename Second>
void run_both(First&& first, Second&& second) {
  std::exception_ptr failed;
  auto run_second = [&]() noexcept {
    try {
      second();
    } catch (...) {
      failed = std::current_exception();
    }
  };
  std::thread other;
  try {
    other = std::thread(run_second);
  } catch (const std::system_error&) {
  }
  try {
    first();
  } catch (...) {
    if (other.joinable()) other.join();
    throw;
  }
  if (other.joinable()) {
    other.join();
  } else {
    run_second();
  }
  if (failed) std::rethrow_exception(failed);
}

}  // namespace propgraph::detail
