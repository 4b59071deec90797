// MemoryGraph: opening, commit and discard of the shared state, and MemoryGraph's calls: its
// operations are operations_impl.hpp's over the committed graph (CommittedContext).
#include "propgraph/memory/memory_graph.hpp"

#include <atomic>

#include <fmt/format.h>

#include "memory/contexts.hpp"
#include "memory/operations_impl.hpp"
#include "memory/transaction.hpp"

namespace propgraph {

namespace detail {

namespace {
std::atomic<std::uint64_t> next_graph_tag{1};
}  // namespace

GraphState::GraphState(const MemoryOptions& options) : graph_name(options.graph_name) {
  validate_label(graph_name, "graph name");
  if (options.data_dir) {
    if (options.data_dir->empty()) throw InvalidArgument("MemoryOptions::data_dir is empty");
    durability = std::make_unique<durable::Durability>(*this, options);
    return;
  }
  catalog.insert(graph_name);
  renew_prefix();
}

GraphState::~GraphState() = default;

void GraphState::renew_prefix() {
  prefix = durability ? durable::Durability::new_prefix() : fmt::format("g{}:", next_graph_tag.fetch_add(1));
}

std::uint64_t GraphState::log(durable::RecordType type, const std::string& payload) {
  return durability ? durability->log(type, payload) : 0;
}

void GraphState::enter_gate(std::string_view operation) {
  const auto deadline = current_deadline();
  if (deadline && DeadlineClock::now() >= *deadline) throw_timeout(operation);
  if (!gate.enter(deadline)) throw_timeout(operation);
}

std::uint64_t GraphState::commit(Overlay& overlay) {
  if (overlay.empty()) return 0;
  std::uint64_t lsn = 0;
  if (durability) {
    std::string payload;
    durable::ByteWriter w(payload);
    durable::encode_change(overlay, w, false);
    lsn = durability->log(durable::RecordType::change, payload);
  }
  {
    std::unique_lock lock(mutex);
    overlay.apply(store);
  }
  overlay.clear();
  return lsn;
}

void GraphState::discard(Overlay& overlay) noexcept {
  if (overlay.new_vertices().empty() && overlay.new_edges().empty()) return;
  try {
    if (durability) {
      std::string payload;
      durable::ByteWriter w(payload);
      durable::encode_change(overlay, w, true);
      durability->log(durable::RecordType::change, payload);
    }
    std::unique_lock lock(mutex);
    overlay.burn(store);
  } catch (const std::exception&) {
    // Not logged or out of memory: the slots stay unissued and the next writer gets them
    // (their ids were never visible outside the rolled-back transaction). Nothing else changed.
  }
}

}  // namespace detail

// -- MemoryGraph --------------------------------------------------------------------------------

MemoryGraph::MemoryGraph() : MemoryGraph(MemoryOptions{}) {}
MemoryGraph::MemoryGraph(MemoryOptions options) : impl_(std::make_unique<Impl>(options)) {}

MemoryGraph::~MemoryGraph() = default;

const std::string& MemoryGraph::graph_name() const noexcept { return impl_->graph_name; }

std::unique_ptr<Transaction> MemoryGraph::begin() { return std::make_unique<detail::MemoryTransaction>(*impl_); }

void MemoryGraph::checkpoint() {
  if (impl_->durability) impl_->durability->checkpoint();
}

namespace detail {
template class MemoryOperations<CommittedContext>;
}  // namespace detail

#define PROPGRAPH_DETAIL_OVERRIDE(name, result, parameters, arguments)                       \
  result MemoryGraph::name parameters {                                                      \
    return detail::MemoryOperations<detail::CommittedContext>(*impl_, *this).name arguments; \
  }
PROPGRAPH_GRAPH_OPERATIONS(PROPGRAPH_DETAIL_OVERRIDE, PROPGRAPH_DETAIL_OVERRIDE, PROPGRAPH_NO_DEFAULT_ARG)
#undef PROPGRAPH_DETAIL_OVERRIDE

}  // namespace propgraph
