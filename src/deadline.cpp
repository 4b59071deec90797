// DeadlineScope: the innermost scope of each fiber (a plain thread's code runs on its main
// fiber) is kept in fiber-specific storage, so a scope follows its fiber across pool threads.
#include "propgraph/deadline.hpp"

#include <boost/fiber/fss.hpp>
#include <fmt/format.h>

#include "propgraph/errors.hpp"

namespace propgraph {

namespace {
void keep(DeadlineScope*) noexcept {}  // scopes are owned by their creators' stacks

// Never destroyed: scopes may still be checked while static objects are torn down at exit.
boost::fibers::fiber_specific_ptr<DeadlineScope>& innermost() {
  static auto* slot = new boost::fibers::fiber_specific_ptr<DeadlineScope>(&keep);
  return *slot;
}
}  // namespace

DeadlineScope::DeadlineScope(DeadlineClock::time_point deadline) : deadline_(deadline) {
  enclosing_ = innermost().get();
  if (enclosing_ != nullptr && enclosing_->deadline_ < deadline_) deadline_ = enclosing_->deadline_;
  innermost().reset(this);
  detail::live_deadline_scopes.fetch_add(1, std::memory_order_relaxed);
}

DeadlineScope::~DeadlineScope() {
  innermost().reset(const_cast<DeadlineScope*>(enclosing_));
  detail::live_deadline_scopes.fetch_sub(1, std::memory_order_relaxed);
}

namespace detail {

std::optional<DeadlineClock::time_point> scoped_deadline() {
  const DeadlineScope* scope = innermost().get();
  if (scope == nullptr) return std::nullopt;
  return scope->deadline();
}

void throw_timeout(std::string_view operation) { throw Timeout(fmt::format("{}: deadline exceeded", operation)); }

}  // namespace detail
}  // namespace propgraph
