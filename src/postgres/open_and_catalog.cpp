// PostgresGraph: opening (options, catalog, the bound graph's schema and its upgrades) and the
// graph catalog.

#include <fmt/format.h>

#include "postgres/graph_impl.hpp"

namespace propgraph {

PostgresGraph::Impl::Impl(PostgresOptions opts) : Impl(std::make_shared<Shared>(validated(std::move(opts))), nullptr) {
  auto c = pool.acquire();
  bool created = false;  // anything this instance created is one of its writes (Replicas)
  if (!c->exec(catalog.catalog_exists).boolean(0, 0)) {
    created = true;
    in_transaction(*c, [&] {
      lock_catalog(*c);
      c->exec(catalog.create_schema, {}, false);
      c->exec(catalog.create_table, {}, false);
      return 0;
    });
  }
  std::optional<std::int64_t> number = graph_number(*c, options.graph);
  if (!number) {
    number = create_graph(*c, options.graph);
    created = true;
  }
  if (!number) number = graph_number(*c, options.graph);  // created concurrently elsewhere
  if (!number) throw QueryError(fmt::format("graph '{}' vanished while being opened", options.graph));
  schema = catalog.graph_schema(*number);
  ids = std::make_unique<IdCodec>(fmt::format("pg{}:", *number));
  naming = std::make_unique<RowNaming>(*ids);
  sql = std::make_unique<GraphSql>(schema);
  // Graphs created before property indexes existed get their (empty) index catalog now.
  if (!c->exec(sql->index_catalog_exists, {}, false).boolean(0, 0)) {
    c->exec(sql->create_index_catalog, {}, false);
    created = true;
  }
  // ... and graphs created without the foreign keys on edges get them.
  if (c->exec(sql->foreign_keys, {}, false).int64(0, 0) < 2) created = add_foreign_keys(*c) || created;
  load_indexes(*c);
  // Reads routed after this instance's own writes wait until a standby has the schema too.
  if (created) replicas.wrote(*c);
}

bool PostgresGraph::Impl::add_foreign_keys(Connection& c) {
  return in_transaction(c, [&] {
    c.exec(sql->lock_for_foreign_keys, {}, false);
    if (c.exec(sql->foreign_keys, {}, false).int64(0, 0) == 2) return false;
    c.exec(sql->delete_dangling_edges, {}, false);
    c.exec(sql->add_foreign_keys, {}, false);
    return true;
  });
}

PostgresOptions PostgresGraph::Impl::validated(PostgresOptions o) {
  validate_label(o.graph, "graph name");
  validate_label(o.catalog_schema, "catalog_schema");
  if (o.catalog_schema.size() > 40) {
    throw InvalidArgument(fmt::format("catalog_schema '{}' is longer than 40 characters", o.catalog_schema));
  }
  if (o.pool_size < 1) throw InvalidArgument("pool_size must be >= 1");
  if (o.standby_pool_size < 1) throw InvalidArgument("standby_pool_size must be >= 1");
  return o;
}

void PostgresGraph::Impl::lock_catalog(Connection& c) {
  Param p[] = {catalog.catalog_schema.c_str()};
  c.exec(catalog.lock, p);
}

std::optional<std::int64_t> PostgresGraph::Impl::graph_number(Connection& c, const std::string& name) {
  Param p[] = {name.c_str()};
  Result r = c.exec(catalog.graph_id, p);
  if (r.rows() == 0) return std::nullopt;
  return r.int64(0, 0);
}

std::optional<std::int64_t> PostgresGraph::Impl::create_graph(Connection& c, const std::string& name) {
  return in_transaction(c, [&]() -> std::optional<std::int64_t> {
    lock_catalog(c);
    Param p[] = {name.c_str()};
    Result r = c.exec(catalog.insert_graph, p);
    if (r.rows() == 0) return std::nullopt;
    const std::int64_t number = r.int64(0, 0);
    for (const auto& ddl : catalog.create_graph_ddl(number)) c.exec(ddl, {}, false);
    return number;
  });
}

PostgresGraph::PostgresGraph(PostgresOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
PostgresGraph::PostgresGraph(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PostgresGraph::~PostgresGraph() = default;

const PostgresOptions& PostgresGraph::options() const noexcept { return impl_->options; }
const std::string& PostgresGraph::schema_name() const noexcept { return impl_->schema; }

PostgresGraph::ReadRouting PostgresGraph::read_routing() const { return impl_->replicas.routing(); }

PostgresGraph::PoolStatus PostgresGraph::pool_status() {
  const auto s = impl_->pool.status();
  return PoolStatus{s.open, s.idle, s.waiting, s.opened};
}

// -- session ----------------------------------------------------------------------------------

bool PostgresGraph::create_graph(std::string_view name) {
  validate_label(name, "graph name");
  return impl_->write_on_primary([&](Connection& c) { return impl_->create_graph(c, std::string(name)).has_value(); });
}

bool PostgresGraph::drop_graph(std::string_view name) {
  if (!is_valid_label(name)) return false;
  if (name == impl_->options.graph) {
    // Empties the graph and drops its property indexes; identities continue, so old ids are
    // never reissued.
    impl_->write_on_primary([&](Connection& c) {
      in_transaction(c, [&] {
        c.exec(impl_->sql->lock_indexes);
        Result dropped = c.exec(impl_->sql->delete_all_indexes);
        for (int i = 0; i < dropped.rows(); ++i) {
          for (int col = 0; col < 2; ++col)
            c.exec(impl_->sql->drop_index(std::string(dropped.text(i, col))), {}, false);
        }
        c.exec(impl_->sql->truncate);
        return 0;
      });
      impl_->load_indexes(c);
      return 0;
    });
    return true;
  }
  const std::string n(name);
  return impl_->write_on_primary([&](Connection& c) {
    return in_transaction(c, [&] {
      impl_->lock_catalog(c);
      Param p[] = {n.c_str()};
      Result r = c.exec(impl_->catalog.delete_graph, p);
      if (r.rows() == 0) return false;
      c.exec(impl_->catalog.drop_graph_ddl(r.int64(0, 0)), {}, false);
      return true;
    });
  });
}

bool PostgresGraph::graph_exists(std::string_view name) {
  if (!is_valid_label(name)) return false;
  const std::string n(name);
  return impl_->query(impl_->catalog.graph_id, {n.c_str()}).rows() > 0;
}

namespace {
std::vector<std::string> column(const Result& r) {
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) out.emplace_back(r.text(i, 0));
  return out;
}
}  // namespace

std::vector<std::string> PostgresGraph::vertex_labels() { return column(impl_->query(impl_->sql->vertex_labels, {})); }
std::vector<std::string> PostgresGraph::edge_labels() { return column(impl_->query(impl_->sql->edge_labels, {})); }

}  // namespace propgraph
