// The PostgreSQL backend's naming for backend::Subgraph: row ids are the keys, IdCodec makes the
// ids, and the stored properties are jsonb text, decoded by the json codec.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "postgres/ids.hpp"
#include "propgraph/backend/subgraph.hpp"

namespace propgraph::postgres_detail {

class RowNaming final : public backend::Subgraph::Naming {
 public:
  /// `ids` must outlive the naming.
  explicit RowNaming(const IdCodec& ids) : ids_(&ids) {}

  [[nodiscard]] ElementId vertex_id(std::int64_t key) const override;
  [[nodiscard]] ElementId edge_id(std::int64_t key) const override;
  [[nodiscard]] std::optional<std::int64_t> vertex_key(const ElementId& id) const override;
  [[nodiscard]] Properties decode_properties(std::string_view stored) const override;

 private:
  const IdCodec* ids_;
};

}  // namespace propgraph::postgres_detail
