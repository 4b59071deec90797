// Element ids of one PostgreSQL graph: "<prefix><kind><row id>", e.g. "pg7:v42".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "propgraph/model.hpp"

namespace propgraph::postgres_detail {

/// Which table an id names: 'v' vertices, 'e' edges.
using IdKind = char;
inline constexpr IdKind kVertexId = 'v';
inline constexpr IdKind kEdgeId = 'e';

class IdCodec {
 public:
  /// `prefix` is "pg<graph number>:".
  explicit IdCodec(std::string prefix) : prefix_(std::move(prefix)) {}

  [[nodiscard]] ElementId make(IdKind kind, std::string_view row_digits) const;
  [[nodiscard]] ElementId make(IdKind kind, std::int64_t row) const;

  /// The row id an id of this graph and kind names, as decimal text; nullopt for anything else.
  [[nodiscard]] std::optional<std::string> row(const ElementId& id, IdKind kind) const;

  /// Keyset pagination: the bound r >= 0 such that the ids of `kind` sorting after `after`
  /// (ElementId's shortlex order) are exactly those of rows > r; nullopt when none can. Works
  /// for any `after`: an id of another graph or kind, or an arbitrary string. O(1) for an id
  /// of this graph and kind, else a binary search (ids are monotonic in their row id).
  [[nodiscard]] std::optional<std::int64_t> rows_after(const ElementId& after, IdKind kind) const;

 private:
  std::string prefix_;
};

}  // namespace propgraph::postgres_detail
