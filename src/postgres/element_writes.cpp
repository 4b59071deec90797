// PostgresGraph: writes of single elements (create, update, upsert, delete).

#include <algorithm>

#include <fmt/format.h>

#include "postgres/graph_impl.hpp"
#include "postgres/json_codec.hpp"
#include "propgraph/fmt.hpp"

namespace propgraph {

namespace {

Properties without_nulls(const Properties& props) {
  const bool any_null = std::any_of(props.begin(), props.end(), [](const auto& e) { return e.second.is_null(); });
  if (!any_null) return props;
  Properties result;
  for (const auto& [key, value] : props) {
    if (!value.is_null()) result.set(key, value);
  }
  return result;
}

/// A merge patch: the entries to set (jsonb) and the keys to remove (text[]).
struct Patch {
  std::string set;
  std::string removed;
};

Patch make_patch(const Properties& properties) {
  std::vector<std::string_view> removed;
  for (const auto& [key, value] : properties) {
    // A key with a NUL character cannot be stored, so there is nothing to remove.
    if (value.is_null() && key.find('\0') == std::string::npos) removed.push_back(key);
  }
  return Patch{encode_properties(properties), text_array(removed)};
}

}  // namespace

// -- vertices ---------------------------------------------------------------------------------

Vertex PostgresGraph::create_vertex(std::string_view label, const Properties& properties) {
  validate_label(label);
  validate_properties(properties);
  const std::string json = encode_properties(properties);
  std::string l(label);
  Result r = impl_->mapping_write_errors(label, properties, [&] {
    return impl_->execute(impl_->sql->insert_vertex, {l.c_str(), json.c_str()});
  });
  return Vertex{impl_->ids->make(kVertexId, r.text(0, 0)), std::move(l), without_nulls(properties)};
}

std::optional<Vertex> PostgresGraph::update_vertex(std::string_view label, const ElementId& id,
                                                   const Properties& properties) {
  validate_properties(properties);
  if (properties.empty()) return find_vertex_by_id(label, id);
  if (!is_valid_label(label)) return std::nullopt;
  const auto row = impl_->ids->row(id, kVertexId);
  if (!row) return std::nullopt;
  const Patch patch = make_patch(properties);
  std::string l(label);
  Result r = impl_->mapping_write_errors(label, properties, [&] {
    return impl_->execute(impl_->sql->update_vertex,
                          {row->c_str(), l.c_str(), patch.set.c_str(), patch.removed.c_str()});
  });
  if (r.rows() == 0) return std::nullopt;
  return Vertex{id, std::move(l), decode_properties(r.text(0, 0))};
}

bool PostgresGraph::delete_vertex(std::string_view label, const ElementId& id) {
  if (!is_valid_label(label)) return false;
  const auto row = impl_->ids->row(id, kVertexId);
  if (!row) return false;
  const std::string l(label);
  // One statement: the foreign keys delete the vertex's edges with it.
  return impl_->execute(impl_->sql->delete_vertex, {row->c_str(), l.c_str()}).affected() > 0;
}

Upserted PostgresGraph::upsert_vertex(std::string_view label, const Properties& match, const Properties& properties) {
  validate_label(label);
  validate_properties(match);
  validate_properties(properties);
  Properties written = match;
  written.merge(properties);
  const std::string created_json = encode_properties(written);
  const Patch patch = make_patch(properties);
  // Concurrent upserts of the same (label, match) queue on one transaction-scoped advisory
  // lock; the lookup that follows sees whatever the previous holder committed.
  std::string lock_key = impl_->schema + '\x1f' + std::string(label);
  for (const auto& [key, value] : match) {
    lock_key += '\x1f';
    append_json_string(lock_key, key);
    lock_key += ':';
    append_json(lock_key, value);
  }
  const Filter f = impl_->filter(label, match);
  const std::string l(label);
  auto& sql = *impl_->sql;
  // Lock, lookup, then UPDATE or INSERT, in one transaction on the primary.
  const auto upsert = [&](Connection& c) -> Upserted {
    Param lock[] = {lock_key.c_str()};
    c.exec(sql.upsert_lock, lock);
    if (!f.matches_nothing) {
      const IndexedKey* indexed = f.indexed ? &*f.indexed : nullptr;
      ParamList p = Impl::scan_params(label, f, nullptr);
      Result found = c.exec(sql.scan(Table::vertices, f.shape, indexed, Scan::lock_first), p.view());
      if (found.rows() > 1) {
        const std::int64_t n = c.exec(sql.scan(Table::vertices, f.shape, indexed, Scan::count), p.view()).int64(0, 0);
        throw InvalidArgument(fmt::format("upsert_vertex: {} vertices of label {} match {}", n, label, match));
      }
      if (found.rows() == 1) {
        const ElementId id = impl_->ids->make(kVertexId, found.text(0, 0));
        if (properties.empty()) return Upserted{Vertex{id, l, decode_properties(found.text(0, 1))}, false};
        Param update[] = {found.text(0, 0).data(), l.c_str(), patch.set.c_str(), patch.removed.c_str()};
        Result u = c.exec(sql.update_vertex, update);
        return Upserted{Vertex{id, l, decode_properties(u.text(0, 0))}, false};
      }
    }
    Param insert[] = {l.c_str(), created_json.c_str()};
    Result r = c.exec(sql.insert_vertex, insert);
    return Upserted{Vertex{impl_->ids->make(kVertexId, r.text(0, 0)), l, without_nulls(written)}, true};
  };
  return impl_->mapping_write_errors(label, written, [&] {
    return impl_->write_on_primary([&](Connection& c) { return impl_->atomically(c, [&] { return upsert(c); }); });
  });
}

// -- edges ------------------------------------------------------------------------------------

Edge PostgresGraph::create_edge(const ElementId& from, const ElementId& to, std::string_view label,
                                const Properties& properties) {
  validate_label(label);
  validate_properties(properties);
  const std::string json = encode_properties(properties);
  const auto source_missing = [&] {
    return NotFound(fmt::format("create_edge: source vertex '{}' not found", from.str()));
  };
  const auto target_missing = [&] {
    return NotFound(fmt::format("create_edge: target vertex '{}' not found", to.str()));
  };
  const auto from_row = impl_->ids->row(from, kVertexId);
  if (!from_row) throw source_missing();
  const auto to_row = impl_->ids->row(to, kVertexId);
  if (!to_row) throw target_missing();
  std::string l(label);
  Result r = impl_->mapping_write_errors(label, properties, [&] {
    try {
      return impl_->execute(impl_->sql->insert_edge, {from_row->c_str(), to_row->c_str(), l.c_str(), json.c_str()});
    } catch (const ServerError& e) {
      // The endpoint was deleted after the statement's snapshot, before its foreign-key check.
      if (e.sqlstate() == kForeignKeyViolation) {
        throw e.constraint() == "edges_from_id_fkey" ? source_missing() : target_missing();
      }
      throw;
    }
  });
  if (r.is_null(0, 0)) {
    if (!r.boolean(0, 1)) throw source_missing();
    throw target_missing();
  }
  return Edge{impl_->ids->make(kEdgeId, r.text(0, 0)), std::move(l), from, to, without_nulls(properties)};
}

std::optional<Edge> PostgresGraph::update_edge(std::string_view label, const ElementId& id,
                                               const Properties& properties) {
  validate_properties(properties);
  if (properties.empty()) return find_edge_by_id(label, id);
  if (!is_valid_label(label)) return std::nullopt;
  const auto row = impl_->ids->row(id, kEdgeId);
  if (!row) return std::nullopt;
  const Patch patch = make_patch(properties);
  std::string l(label);
  Result r = impl_->mapping_write_errors(label, properties, [&] {
    return impl_->execute(impl_->sql->update_edge, {row->c_str(), l.c_str(), patch.set.c_str(), patch.removed.c_str()});
  });
  if (r.rows() == 0) return std::nullopt;
  return impl_->edge_from(r, 0, id, std::move(l), 0);
}

bool PostgresGraph::delete_edge(std::string_view label, const ElementId& id) {
  if (!is_valid_label(label)) return false;
  const auto row = impl_->ids->row(id, kEdgeId);
  if (!row) return false;
  const std::string l(label);
  return impl_->execute(impl_->sql->delete_edge, {row->c_str(), l.c_str()}).affected() > 0;
}

}  // namespace propgraph
