// PostgresGraph: transactions (begin(), PostgresGraph::Tx) on a connection of the pool.

#include <fmt/format.h>

#include "postgres/graph_impl.hpp"
#include "propgraph/backend/query_executor.hpp"
#include "propgraph/decorator.hpp"

namespace propgraph {

ConnectionPool::Lease PostgresGraph::Impl::begin_transaction() {
  for (int attempt = 0;; ++attempt) {
    auto c = pool.acquire();
    try {
      c->exec(kBeginTransaction, {}, false);
      return c;
    } catch (const ConnectionError&) {
      if (attempt > 0 || !c.reused()) throw;
    }
  }
}

// -- transactions -----------------------------------------------------------------------------

/// A PostgreSQL transaction: every call runs PostgresGraph's own implementation on a view of the
/// graph pinned to the transaction's connection (Impl::pinned), through Forwarding's one list.
class PostgresGraph::Tx final : public backend::Forwarding<Transaction> {
 public:
  Tx(const std::shared_ptr<Shared>& shared, ConnectionPool::Lease lease)
      : Forwarding(view_),
        lease_(std::move(lease)),
        pinned_{&**lease_},
        view_(std::make_unique<Impl>(shared, &pinned_)) {}
  ~Tx() override { rollback(); }
  Tx(const Tx&) = delete;
  // Queries run here, so their calls join this transaction (not the pinned view's own).
  QueryResult query(const Query& statement, const Parameters& parameters) override {
    return backend::execute_query(*this, statement, parameters);
  }
  Tx& operator=(const Tx&) = delete;

  void commit() override {
    ensure_open(Operation::commit);
    Connection& c = **lease_;
    if (c.in_failed_transaction()) {
      rollback();
      throw QueryError("PostgresGraph: commit: a failed call left the transaction aborted; rolled back");
    }
    if (auto d = current_deadline(); d && Clock::now() >= *d) {
      rollback();
      throw_deadline("before COMMIT; rolled back");
    }
    try {
      view_.impl_->finish_edge_rebuild(c, pinned_.edge_rebuild);
    } catch (const ServerError& e) {
      rollback();
      rethrow_conflict(e);
      throw;
    } catch (...) {
      rollback();
      throw;
    }
    try {
      c.exec(kCommit, {}, false, Deadline::ignore);
    } catch (const ServerError& e) {
      end();  // the server rolled back
      rethrow_conflict(e);
      throw;
    } catch (...) {
      end();  // the connection is lost: the server rolled back unless COMMIT got through first
      throw;
    }
    if (pinned_.wrote) view_.impl_->replicas.wrote(c);
    end();
  }

  void rollback() override {
    if (!lease_) return;
    Connection& c = **lease_;
    if (!c.broken()) {
      try {
        c.exec(kRollback, {}, false, Deadline::ignore);
      } catch (...) {
        // The pool closes a connection left inside a transaction, which rolls it back.
      }
    }
    end();
  }

  [[nodiscard]] bool is_open() const noexcept override { return lease_.has_value(); }

 protected:
  void around(Operation op, CallRef call) override {
    ensure_open(op);
    switch (op) {
      case Operation::create_graph:
      case Operation::drop_graph:
      case Operation::create_index:
      case Operation::drop_index:
        throw InvalidArgument(fmt::format("{} is not transactional: call it outside the transaction", to_string(op)));
      default: break;
    }
    try {
      // A bulk edge load's rebuild mode ends before any call that may read the edges or rely on
      // their keys (see Impl::copy_edges).
      if (pinned_.edge_rebuild.active && op != Operation::create_edges && op != Operation::create_vertices) {
        view_.impl_->finish_edge_rebuild(**lease_, pinned_.edge_rebuild);
      }
      call();
    } catch (const ServerError& e) {
      rethrow_conflict(e);
      throw;
    } catch (...) {
      // A lost connection ends the transaction (the server rolled it back); the pool discards it.
      if ((*lease_)->broken()) end();
      throw;
    }
  }

 private:
  void ensure_open(Operation op) const {
    if (!lease_) {
      throw InvalidArgument(fmt::format("{}: the transaction has ended (committed or rolled back)", to_string(op)));
    }
  }
  /// Serialization failures and deadlocks are the contract's TransactionConflict.
  static void rethrow_conflict(const ServerError& e) {
    if (e.sqlstate() == "40001" || e.sqlstate() == "40P01") {
      throw TransactionConflict(fmt::format("PostgresGraph: {}; run the transaction again", e.what()));
    }
  }
  /// Returns the connection to the pool (which closes it when broken or still in a transaction).
  void end() noexcept { lease_.reset(); }

  std::optional<ConnectionPool::Lease> lease_;
  Pinned pinned_;
  PostgresGraph view_;
};

std::unique_ptr<Transaction> PostgresGraph::begin() {
  // A view's begin() is never reached: Transaction::begin() is final and throws.
  return std::make_unique<Tx>(impl_->shared, impl_->begin_transaction());
}

}  // namespace propgraph
