#include "postgres/subgraph_naming.hpp"

#include <string>

#include "postgres/json_codec.hpp"

namespace propgraph::postgres_detail {

ElementId RowNaming::vertex_id(std::int64_t key) const { return ids_->make(kVertexId, key); }

ElementId RowNaming::edge_id(std::int64_t key) const { return ids_->make(kEdgeId, key); }

std::optional<std::int64_t> RowNaming::vertex_key(const ElementId& id) const {
  const auto row = ids_->row(id, kVertexId);
  if (!row) return std::nullopt;
  return std::stoll(*row);
}

Properties RowNaming::decode_properties(std::string_view stored) const {
  return postgres_detail::decode_properties(stored);
}

}  // namespace propgraph::postgres_detail
