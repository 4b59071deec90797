// The hot standbys of one PostgresGraph and the rule that sends reads to them.
//
// Routing (PostgresOptions::standby_reads): `never` keeps every read on the primary; `always`
// sends reads to a reachable standby; `after_own_writes` sends a read to a standby only once
// that standby has replayed this instance's last write. Every write on the primary records the
// primary's WAL insert position after it committed (wrote()); a standby's replay position
// (pg_last_wal_replay_lsn()) is cached and refreshed on the connection about to serve the read
// when it is behind, at most once per kRefreshEvery per standby (in between, such reads go to
// the primary).
//
// Failures: a standby that cannot be reached or breaks mid-read is skipped for kRetryAfter and
// the read goes to the primary (counted as a fallback); a read cancelled because it conflicted
// with the standby's recovery, or that finds no graph tables there yet (the standby has not
// replayed their creation), goes to the primary too. Standbys are used round robin.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "postgres/connection_pool.hpp"
#include "propgraph/postgres/postgres_graph.hpp"

namespace propgraph::postgres_detail {

/// A WAL position ("16/B374D848") as a number; 0 for anything else.
[[nodiscard]] std::uint64_t parse_lsn(std::string_view text);

class Replicas {
 public:
  static constexpr std::chrono::milliseconds kRefreshEvery{1};
  static constexpr std::chrono::seconds kRetryAfter{1};
  /// How long reads stay on the primary after a write whose WAL position could not be read.
  static constexpr std::chrono::seconds kUnknownWriteWindow{10};

  Replicas(const PostgresOptions& options, const std::shared_ptr<Reactor>& reactor);

  [[nodiscard]] bool empty() const noexcept { return standbys_.empty(); }

  /// Records a write committed on the primary: reads its WAL position on `primary` (the
  /// connection that wrote). Never throws: when the position cannot be read, reads stay on the
  /// primary for kUnknownWriteWindow.
  void wrote(Connection& primary) noexcept;

  /// Runs `body(connection)` on a standby when the rule allows; nullopt when no standby may
  /// serve this read (the caller then uses the primary). Exceptions of `body` other than a
  /// standby's failure propagate.
  template <typename F>
  auto try_read(F&& body) -> std::optional<std::invoke_result_t<F&, Connection&>> {
    if (mode_ == StandbyReads::never || standbys_.empty()) return std::nullopt;
    Standby* s = next_up();
    if (s == nullptr) return std::nullopt;
    try {
      auto c = s->pool.acquire();
      if (!caught_up(*s, *c)) return std::nullopt;
      auto result = body(*c);
      standby_reads_.fetch_add(1, std::memory_order_relaxed);
      return result;
    } catch (const ConnectionError&) {
      mark_down(*s);
    } catch (const ServerError& e) {
      if (!is_recovery_conflict(e)) throw;
    }
    fallbacks_.fetch_add(1, std::memory_order_relaxed);
    return std::nullopt;
  }

  /// Counts a read the primary served.
  void read_on_primary() noexcept { primary_reads_.fetch_add(1, std::memory_order_relaxed); }

  [[nodiscard]] PostgresGraph::ReadRouting routing() const noexcept {
    return {primary_reads_.load(std::memory_order_relaxed), standby_reads_.load(std::memory_order_relaxed),
            fallbacks_.load(std::memory_order_relaxed)};
  }

 private:
  using Ticks = Clock::rep;
  struct Standby {
    Standby(PoolSettings settings, std::shared_ptr<Reactor> reactor) : pool(std::move(settings), std::move(reactor)) {}
    ConnectionPool pool;
    std::atomic<std::uint64_t> replayed{0};  // last known replay position
    std::atomic<Ticks> refreshed_at{0};
    std::atomic<Ticks> down_until{0};
  };

  Standby* next_up() noexcept;
  /// True when `s` may serve a read now (see the file comment); may query it through `c`.
  bool caught_up(Standby& s, Connection& c);
  void mark_down(Standby& s) noexcept;
  static bool is_recovery_conflict(const ServerError& e) noexcept;

  StandbyReads mode_;
  std::vector<std::unique_ptr<Standby>> standbys_;
  std::atomic<std::size_t> next_{0};
  std::atomic<std::uint64_t> last_write_{0};  // WAL position of this instance's last write
  std::atomic<Ticks> unknown_write_at_{0};    // when a write's position could not be read
  std::atomic<std::uint64_t> primary_reads_{0};
  std::atomic<std::uint64_t> standby_reads_{0};
  std::atomic<std::uint64_t> fallbacks_{0};
};

}  // namespace propgraph::postgres_detail
