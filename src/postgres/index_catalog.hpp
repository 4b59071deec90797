// What PostgresGraph knows about its property indexes: the catalog table's rows, cached.
//
// The cache only decides which statement text a filter uses (one that names an index, so the
// planner can use it, or a plain scan); both return the same rows, so a stale cache costs
// speed, never correctness. It is reloaded after this instance changes indexes and when it is
// older than kReloadAfter (another instance may have changed them).
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "postgres/statements.hpp"
#include "propgraph/options.hpp"

namespace propgraph::postgres_detail {

/// One row of the index catalog.
struct IndexEntry {
  IndexedKey indexed;
  bool unique = false;
  std::string vertex_index;  // PostgreSQL index names, unqualified
  std::string edge_index;
};

/// The PostgreSQL index name for (label, key) on the vertices ('v') or edges ('e') table:
/// "pg<kind>_<label>_<key>_<hash>" with label and key cut short and reduced to [A-Za-z0-9_]
/// (readable), and 48 bits of a hash of the exact (label, key) (distinct). At most 63 bytes.
[[nodiscard]] std::string index_name(char kind, std::string_view label, std::string_view key);

class IndexCatalog {
 public:
  static constexpr std::chrono::seconds kReloadAfter{5};
  using Clock = std::chrono::steady_clock;

  /// Replaces the cached rows (as loaded from the catalog table).
  void replace(std::vector<IndexEntry> entries);
  /// True when the cache is older than kReloadAfter and no other caller is reloading it; the
  /// caller then reloads and calls replace().
  [[nodiscard]] bool claim_reload();
  /// Gives up a claimed reload that failed.
  void abandon_reload();

  /// The index on (label, key), if cached.
  [[nodiscard]] std::optional<IndexEntry> find(std::string_view label, std::string_view key) const;
  /// The first key of `filter` with a non-null value that has an index on `label`.
  [[nodiscard]] std::optional<IndexedKey> usable_for(std::string_view label, const Properties& filter) const;
  /// The entry whose vertex or edge index is called `name`; `is_edge` says which.
  [[nodiscard]] std::optional<IndexEntry> by_index_name(std::string_view name, bool* is_edge = nullptr) const;
  [[nodiscard]] std::vector<IndexInfo> infos() const;

 private:
  mutable std::shared_mutex mutex_;
  std::vector<IndexEntry> entries_;
  Clock::time_point loaded_{};
  bool loaded_once_ = false;
  bool reloading_ = false;
};

}  // namespace propgraph::postgres_detail
