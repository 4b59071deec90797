// PostgresGraph: bulk writes (create_vertices, create_edges) through COPY, and the edge rebuild
// mode.

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "postgres/copy_binary.hpp"
#include "postgres/graph_impl.hpp"
#include "postgres/json_codec.hpp"

namespace propgraph {

namespace {

/// SQLSTATE of a lock that NOWAIT could not take.
constexpr std::string_view kLockNotAvailable = "55P03";

/// fn() for record i of a bulk write; its InvalidArgument names the record.
template <typename F>
auto at_record(std::string_view call, std::string_view records, std::size_t i, F&& fn) {
  try {
    return fn();
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("{}: {}[{}]: {}", call, records, i, e.what()));
  }
}

/// The jsonb text of a bulk write's record; a value PostgreSQL cannot store names its record.
std::string encode_record(const Properties& properties, std::string_view call, std::string_view records,
                          std::size_t i) {
  return at_record(call, records, i, [&] { return encode_properties(properties); });
}

/// The text rule for a bulk write's record (label and properties), naming the record.
void validate_record(std::string_view label, const Properties& properties, std::string_view call,
                     std::string_view records, std::size_t i) {
  at_record(call, records, i, [&] {
    validate_label(label);
    validate_properties(properties);
    return 0;
  });
}

}  // namespace

std::vector<std::int64_t> PostgresGraph::Impl::reserve_rows(Connection& c, Table table, std::size_t n) {
  const std::string count = decimal(static_cast<std::int64_t>(n));
  Param p[] = {count.c_str()};
  Result r = c.exec(sql->reserve_ids(table), p);
  std::vector<std::int64_t> rows;
  rows.reserve(n);
  for (int i = 0; i < r.rows(); ++i) rows.push_back(r.int64(i, 0));
  std::sort(rows.begin(), rows.end());
  return rows;
}

template <typename PutRow>
std::vector<std::int64_t> PostgresGraph::Impl::copy_rows(Table table, std::size_t n, PutRow&& put_row) {
  return write_on_primary([&](Connection& c) { return atomically(c, [&] { return copy_in(c, table, n, put_row); }); });
}

template <typename PutRow>
std::vector<std::int64_t> PostgresGraph::Impl::copy_edges(
    std::span<const NewEdge> edges, const std::vector<std::pair<std::int64_t, std::int64_t>>& ends, PutRow&& put_row) {
  return write_on_primary([&](Connection& c) {
    return atomically(c, [&] {
      EdgeRebuild own;
      EdgeRebuild& rebuild = pinned ? pinned->edge_rebuild : own;
      const bool started = !rebuild.active && start_edge_rebuild(c, rebuild, edges.size());
      try {
        if (rebuild.active) check_endpoints(c, edges, ends, &rebuild.existing);
        auto rows = copy_in(c, Table::edges, edges.size(), put_row);
        if (!pinned) finish_edge_rebuild(c, rebuild);
        return rows;
      } catch (...) {
        if (started) rebuild = {};  // the rollback (to the call's savepoint) undoes the drops
        throw;
      }
    });
  });
}

template <typename PutRow>
std::vector<std::int64_t> PostgresGraph::Impl::copy_in(Connection& c, Table table, std::size_t n, PutRow&& put_row) {
  constexpr std::size_t kChunk = std::size_t{1} << 18;
  std::vector<std::int64_t> rows = reserve_rows(c, table, n);
  std::size_t next = 0;
  c.copy_in(sql->copy_from(table), [&](std::string& chunk) {
    if (next == 0) CopyWriter::header(chunk);
    for (; next < n && chunk.size() < kChunk; ++next) put_row(chunk, next, rows[next]);
    if (next < n) return true;
    CopyWriter::trailer(chunk);
    return false;
  });
  return rows;
}

bool PostgresGraph::Impl::start_edge_rebuild(Connection& c, EdgeRebuild& rebuild, std::size_t n) {
  if (options.bulk_rebuild_min_edges == 0 || n < options.bulk_rebuild_min_edges) return false;
  const std::string count = decimal(static_cast<std::int64_t>(n));
  Param p[] = {count.c_str()};
  Result check = c.exec(sql->rebuild_check, p);
  if (!check.boolean(0, 0) || check.int64(0, 1) > static_cast<std::int64_t>(n)) return false;
  static const std::string kSave = "SAVEPOINT propgraph_rebuild";
  static const std::string kRelease = "RELEASE SAVEPOINT propgraph_rebuild";
  static const std::string kUndo = "ROLLBACK TO SAVEPOINT propgraph_rebuild";
  c.exec(kSave, {}, false);
  try {
    c.exec(sql->lock_for_rebuild, {}, false);
  } catch (const ServerError& e) {
    if (e.sqlstate() != kLockNotAvailable) throw;
    c.exec(kUndo, {}, false);  // another transaction uses the graph: row by row, as always
    c.exec(kRelease, {}, false);
    return false;
  }
  c.exec(kRelease, {}, false);
  Result indexes = c.exec(sql->plain_edge_indexes, {}, false);
  std::vector<std::string> definitions;
  for (int i = 0; i < indexes.rows(); ++i) {
    c.exec(sql->drop_index(std::string(indexes.text(i, 0))), {}, false);
    definitions.emplace_back(indexes.text(i, 1));
  }
  const bool keys = check.int64(0, 2) == 2;
  if (keys) c.exec(sql->drop_foreign_keys, {}, false);
  rebuild = EdgeRebuild{true, keys, std::move(definitions), {}};
  return true;
}

void PostgresGraph::Impl::finish_edge_rebuild(Connection& c, EdgeRebuild& rebuild) {
  if (!rebuild.active) return;
  const EdgeRebuild done = std::exchange(rebuild, {});
  for (const auto& definition : done.index_definitions) c.exec(definition, {}, false);
  if (done.foreign_keys) c.exec(sql->add_foreign_keys, {}, false);
}

void PostgresGraph::Impl::check_endpoints(Connection& c, std::span<const NewEdge> edges,
                                          const std::vector<std::pair<std::int64_t, std::int64_t>>& ends,
                                          std::vector<std::int64_t>* existing) {
  std::vector<std::int64_t> distinct;
  distinct.reserve(2 * ends.size());
  for (const auto& [from, to] : ends) {
    distinct.push_back(from);
    distinct.push_back(to);
  }
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (existing) {
    std::vector<std::int64_t> unknown;
    std::set_difference(distinct.begin(), distinct.end(), existing->begin(), existing->end(),
                        std::back_inserter(unknown));
    distinct = std::move(unknown);
    if (distinct.empty()) return;
  }
  std::string array = "{";
  for (std::size_t i = 0; i < distinct.size(); ++i) {
    if (i) array.push_back(',');
    array += decimal(distinct[i]);
  }
  array.push_back('}');
  Param p[] = {array.c_str()};
  Result r = c.exec(sql->missing_vertices, p);
  if (r.rows() == 0) {
    if (existing) {
      const auto middle = existing->insert(existing->end(), distinct.begin(), distinct.end());
      std::inplace_merge(existing->begin(), middle, existing->end());
    }
    return;
  }
  std::vector<std::int64_t> missing;
  for (int i = 0; i < r.rows(); ++i) missing.push_back(r.int64(i, 0));
  std::sort(missing.begin(), missing.end());
  const auto gone = [&](std::int64_t row) { return std::binary_search(missing.begin(), missing.end(), row); };
  for (std::size_t i = 0; i < edges.size(); ++i) {
    if (gone(ends[i].first) || gone(ends[i].second)) {
      const bool source = gone(ends[i].first);
      throw NotFound(fmt::format("create_edges: edges[{}]: {} vertex '{}' not found", i, source ? "source" : "target",
                                 (source ? edges[i].from : edges[i].to).str()));
    }
  }
  throw NotFound(fmt::format("create_edges: vertex row {} not found", missing.front()));  // not reached
}

void PostgresGraph::Impl::throw_missing_endpoint(const ServerError& e, std::span<const NewEdge> edges,
                                                 const std::vector<std::pair<std::int64_t, std::int64_t>>& ends) {
  on_primary([&](Connection& c) {
    check_endpoints(c, edges, ends);
    return 0;
  });
  // Missing when the foreign key checked, there now: a vertex that a concurrent bulk write was
  // still creating under an id the caller already knew.
  throw NotFound(fmt::format("create_edges: an endpoint vertex was not found ({})", e.what()));
}

std::optional<std::size_t> PostgresGraph::Impl::copy_record(const ServerError& e, std::size_t n) {
  const auto at = e.context().find(", line ");
  if (at == std::string::npos) return std::nullopt;
  std::size_t line = 0;
  const char* first = e.context().data() + at + 7;
  auto [ptr, ec] = std::from_chars(first, e.context().data() + e.context().size(), line);
  if (ec != std::errc() || line < 1 || line > n) return std::nullopt;
  return line - 1;
}

template <typename Record>
void PostgresGraph::Impl::throw_bulk_error(const ServerError& e, std::string_view call, std::string_view records,
                                           std::size_t n, Record&& record) {
  const auto i = copy_record(e, n);
  const std::string where = i ? fmt::format("{}: {}[{}]: ", call, records, *i) : fmt::format("{}: ", call);
  if (e.sqlstate() == kUniqueViolation && i) {
    const auto& [label, written] = record(*i);
    throw_duplicate(e, label, written, where, [&](const IndexedKey& index, const Value& value) -> std::string {
      for (std::size_t j = 0; j < *i; ++j) {
        const auto& [other_label, other] = record(j);
        if (other_label == index.label && other[index.key] == value) {
          return fmt::format("{}[{}] of the same batch", records, j);
        }
      }
      return {};
    });
  }
  if (e.sqlstate().starts_with("22")) throw InvalidArgument(fmt::format("{}{}", where, e.what()));
  throw e;
}

std::vector<ElementId> PostgresGraph::create_vertices(std::span<const NewVertex> vertices) {
  if (vertices.empty()) return {};
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    validate_record(vertices[i].label, vertices[i].properties, "create_vertices", "vertices", i);
  }
  const auto record = [&](std::size_t i) {
    return std::pair<std::string_view, const Properties&>(vertices[i].label, vertices[i].properties);
  };
  std::vector<std::int64_t> rows;
  try {
    rows = impl_->copy_rows(Table::vertices, vertices.size(), [&](std::string& chunk, std::size_t i, std::int64_t row) {
      CopyWriter::row(chunk, 3);
      CopyWriter::int8(chunk, row);
      CopyWriter::text(chunk, vertices[i].label);
      CopyWriter::jsonb(chunk, encode_record(vertices[i].properties, "create_vertices", "vertices", i));
    });
  } catch (const ServerError& e) {
    impl_->throw_bulk_error(e, "create_vertices", "vertices", vertices.size(), record);
  }
  std::vector<ElementId> ids;
  ids.reserve(rows.size());
  for (std::int64_t row : rows) ids.push_back(impl_->ids->make(kVertexId, row));
  return ids;
}

std::vector<ElementId> PostgresGraph::create_edges(std::span<const NewEdge> edges) {
  if (edges.empty()) return {};
  std::vector<std::pair<std::int64_t, std::int64_t>> ends;
  ends.reserve(edges.size());
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const auto& e = edges[i];
    validate_record(e.label, e.properties, "create_edges", "edges", i);
    const auto from = impl_->ids->row(e.from, kVertexId);
    if (!from) throw NotFound(fmt::format("create_edges: edges[{}]: source vertex '{}' not found", i, e.from.str()));
    const auto to = impl_->ids->row(e.to, kVertexId);
    if (!to) throw NotFound(fmt::format("create_edges: edges[{}]: target vertex '{}' not found", i, e.to.str()));
    ends.emplace_back(std::stoll(*from), std::stoll(*to));
  }
  const auto record = [&](std::size_t i) {
    return std::pair<std::string_view, const Properties&>(edges[i].label, edges[i].properties);
  };
  std::vector<std::int64_t> rows;
  try {
    rows = impl_->copy_edges(edges, ends, [&](std::string& chunk, std::size_t i, std::int64_t row) {
      CopyWriter::row(chunk, 5);
      CopyWriter::int8(chunk, row);
      CopyWriter::text(chunk, edges[i].label);
      CopyWriter::int8(chunk, ends[i].first);
      CopyWriter::int8(chunk, ends[i].second);
      CopyWriter::jsonb(chunk, encode_record(edges[i].properties, "create_edges", "edges", i));
    });
  } catch (const ServerError& e) {
    if (e.sqlstate() == kForeignKeyViolation) impl_->throw_missing_endpoint(e, edges, ends);
    impl_->throw_bulk_error(e, "create_edges", "edges", edges.size(), record);
  }
  std::vector<ElementId> ids;
  ids.reserve(rows.size());
  for (std::int64_t row : rows) ids.push_back(impl_->ids->make(kEdgeId, row));
  return ids;
}

}  // namespace propgraph
