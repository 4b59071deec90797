// PostgresGraph: property indexes (the cached index catalog, create_index, drop_index) and the
// unique violations they raise.

#include <fmt/format.h>

#include "postgres/graph_impl.hpp"
#include "postgres/json_codec.hpp"
#include "propgraph/fmt.hpp"

namespace propgraph {

std::vector<IndexEntry> PostgresGraph::Impl::load_indexes(Connection& c) {
  Result r = c.exec(sql->list_indexes);
  std::vector<IndexEntry> entries;
  for (int i = 0; i < r.rows(); ++i) {
    entries.push_back(IndexEntry{IndexedKey{std::string(r.text(i, 0)), std::string(r.text(i, 1))}, r.boolean(i, 2),
                                 std::string(r.text(i, 3)), std::string(r.text(i, 4))});
  }
  index_catalog.replace(entries);
  return entries;
}

const IndexCatalog& PostgresGraph::Impl::indexes() {
  if (index_catalog.claim_reload()) {
    try {
      on_primary([&](Connection& c) { return load_indexes(c); });
    } catch (...) {
      index_catalog.abandon_reload();
      throw;
    }
  }
  return index_catalog;
}

void PostgresGraph::Impl::throw_duplicate(
    const ServerError& e, std::string_view label, const Properties& written, std::string_view where,
    const std::function<std::string(const IndexedKey&, const Value&)>& batch_holder) {
  bool is_edge = false;
  auto entry = index_catalog.by_index_name(e.constraint(), &is_edge);
  if (!entry) {
    on_primary([&](Connection& c) { return load_indexes(c); });
    entry = index_catalog.by_index_name(e.constraint(), &is_edge);
  }
  if (!entry) throw AlreadyExists(fmt::format("{}{}", where, e.what()));
  const IndexedKey& index = entry->indexed;
  const std::string_view kind = is_edge ? "edge" : "vertex";
  const Value* value = written.find(index.key);
  if (value == nullptr || value->is_null()) {
    throw AlreadyExists(fmt::format("{}unique index on {}.{}: the value is already held by another {}", where,
                                    index.label, index.key, kind));
  }
  std::string holder;
  std::string json;
  append_json(json, comparable(*value));
  ParamList p;
  p.text(std::string(label)).text(json).text("0").text("1");
  const Table table = is_edge ? Table::edges : Table::vertices;
  // On the primary (in a transaction: on its connection): the holder may be a write no
  // standby has replayed yet, or one of the transaction.
  Result r = on_primary(
      [&](Connection& c) { return c.exec(sql->scan(table, FilterShape::none, &index, Scan::page), p.view()); });
  if (r.rows() > 0) {
    holder = fmt::format("{} {}", kind, ids->make(is_edge ? kEdgeId : kVertexId, r.text(0, 0)));
  } else if (batch_holder) {
    holder = batch_holder(index, *value);
  }
  if (holder.empty()) holder = "another " + std::string(kind);
  throw AlreadyExists(fmt::format("{}unique index on {}.{}: value {} is already held by {}", where, index.label,
                                  index.key, *value, holder));
}

// -- indexes ----------------------------------------------------------------------------------

bool PostgresGraph::create_index(std::string_view label, std::string_view key, const IndexOptions& options) {
  validate_label(label);
  validate_index_key(key, "create_index");
  if (key.find('\0') != std::string_view::npos) {
    throw InvalidArgument("create_index: PostgresGraph cannot store a NUL character in a key");
  }
  const IndexEntry entry{IndexedKey{std::string(label), std::string(key)}, options.unique, index_name('v', label, key),
                         index_name('e', label, key)};
  const std::string unique = options.unique ? "true" : "false";
  auto& sql = *impl_->sql;
  return impl_->write_on_primary([&](Connection& c) {
    Table building = Table::vertices;
    try {
      // One transaction: the catalog row and both indexes exist together or not at all.
      const bool created = in_transaction(c, [&] {
        c.exec(sql.lock_indexes);
        Param find[] = {entry.indexed.label.c_str(), entry.indexed.key.c_str()};
        if (c.exec(sql.find_index, find).rows() > 0) return false;
        Param insert[] = {entry.indexed.label.c_str(), entry.indexed.key.c_str(), unique.c_str(),
                          entry.vertex_index.c_str(), entry.edge_index.c_str()};
        c.exec(sql.insert_index, insert);
        building = Table::vertices;
        c.exec(sql.create_index(Table::vertices, entry.vertex_index, entry.indexed, options.unique), {}, false);
        building = Table::edges;
        c.exec(sql.create_index(Table::edges, entry.edge_index, entry.indexed, options.unique), {}, false);
        return true;
      });
      impl_->load_indexes(c);
      return created;
    } catch (const ServerError& e) {
      if (e.sqlstate() != kUniqueViolation) throw;
      // Rolled back; name the first duplicate as MemoryGraph does.
      Result d = c.exec(sql.first_duplicate(building, entry.indexed), {}, false);
      if (d.rows() == 0) throw AlreadyExists(fmt::format("create_index: {}", e.what()));
      const Value value = decode_properties(d.text(0, 0))["v"];
      std::string_view row_ids = d.text(0, 1);  // {12,34,...}
      row_ids.remove_prefix(1);
      const auto comma = row_ids.find(',');
      const std::string_view first = row_ids.substr(0, comma);
      const std::string_view second = row_ids.substr(comma + 1, row_ids.find_first_of(",}", comma + 1) - comma - 1);
      const IdKind kind = building == Table::vertices ? kVertexId : kEdgeId;
      throw AlreadyExists(fmt::format("create_index: {} {} and {} of label {} both hold {} = {}",
                                      building == Table::vertices ? "vertices" : "edges", impl_->ids->make(kind, first),
                                      impl_->ids->make(kind, second), label, key, value));
    }
  });
}

bool PostgresGraph::drop_index(std::string_view label, std::string_view key) {
  if (!is_valid_label(label) || key.empty() || key.find('\0') != std::string_view::npos) return false;
  const std::string l(label);
  const std::string k(key);
  auto& sql = *impl_->sql;
  return impl_->write_on_primary([&](Connection& c) {
    const bool dropped = in_transaction(c, [&] {
      c.exec(sql.lock_indexes);
      Param p[] = {l.c_str(), k.c_str()};
      Result r = c.exec(sql.delete_index, p);
      if (r.rows() == 0) return false;
      c.exec(sql.drop_index(std::string(r.text(0, 0))), {}, false);
      c.exec(sql.drop_index(std::string(r.text(0, 1))), {}, false);
      return true;
    });
    impl_->load_indexes(c);
    return dropped;
  });
}

std::vector<IndexInfo> PostgresGraph::indexes() {
  impl_->on_primary([&](Connection& c) { return impl_->load_indexes(c); });
  return impl_->index_catalog.infos();
}

}  // namespace propgraph
