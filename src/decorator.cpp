#include "propgraph/decorator.hpp"

#include <array>

#include <fmt/format.h>

namespace propgraph {

namespace {
#define PROPGRAPH_DETAIL_NAME(name, result, parameters, arguments) #name,
#define PROPGRAPH_DETAIL_SKIP(name, result, parameters, arguments)
constexpr std::array<std::string_view, operation_count> kOperationNames = {
    PROPGRAPH_GRAPH_OPERATIONS(PROPGRAPH_DETAIL_NAME, PROPGRAPH_DETAIL_SKIP, PROPGRAPH_NO_DEFAULT_ARG)  // the list
    "begin",
    "commit",
    "rollback",
};
#undef PROPGRAPH_DETAIL_NAME
#undef PROPGRAPH_DETAIL_SKIP
}  // namespace

std::string_view to_string(Operation op) noexcept {
  const auto i = static_cast<std::size_t>(op);
  return i < kOperationNames.size() ? kOperationNames[i] : std::string_view("unknown");
}

namespace backend {

void detail::throw_call_not_run(Operation op) {
  throw Error(fmt::format("decorator's around({}) returned without running the call", to_string(op)));
}

template class Forwarding<GraphOperations>;
template class Forwarding<Transaction>;

}  // namespace backend

GraphDecorator::GraphDecorator(std::shared_ptr<GraphOperations> inner)
    : Forwarding(inner ? *inner : throw InvalidArgument("GraphDecorator: null inner graph")),
      owner_(std::move(inner)) {}

void GraphDecorator::around(Operation, CallRef call) { call(); }

/// The inner graph's transaction, with every call (commit and rollback included) going through
/// the decorator's around().
class DecoratedTransaction final : public backend::Forwarding<Transaction> {
 public:
  DecoratedTransaction(GraphDecorator& decorator, std::unique_ptr<Transaction> tx) noexcept
      : Forwarding(*tx), decorator_(decorator), tx_(std::move(tx)) {}
  ~DecoratedTransaction() override = default;  // the inner transaction rolls back if still open

  void commit() override {
    forward(Operation::commit, [&](GraphOperations&) {
      tx_->commit();
      return true;
    });
  }
  void rollback() override {
    if (!tx_->is_open()) return;
    forward(Operation::rollback, [&](GraphOperations&) {
      tx_->rollback();
      return true;
    });
  }
  [[nodiscard]] bool is_open() const noexcept override { return tx_->is_open(); }

 protected:
  void around(Operation op, CallRef call) override { decorator_.around(op, call); }

 private:
  GraphDecorator& decorator_;
  std::unique_ptr<Transaction> tx_;
};

std::unique_ptr<Transaction> GraphDecorator::begin() {
  auto tx = forward(Operation::begin, [](GraphOperations& g) { return g.begin(); });
  return std::make_unique<DecoratedTransaction>(*this, std::move(tx));
}

}  // namespace propgraph
