#include "postgres/replicas.hpp"

#include <charconv>

namespace propgraph::postgres_detail {

namespace {
const std::string kCurrentLsn = "SELECT pg_current_wal_insert_lsn()::text";
const std::string kReplayLsn = "SELECT pg_last_wal_replay_lsn()::text";

Clock::rep now_ticks() noexcept { return Clock::now().time_since_epoch().count(); }
Clock::rep ticks(Clock::duration d) noexcept { return d.count(); }
}  // namespace

std::uint64_t parse_lsn(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return 0;
  std::uint32_t hi = 0;
  std::uint32_t lo = 0;
  const auto h = std::from_chars(text.data(), text.data() + slash, hi, 16);
  const auto l = std::from_chars(text.data() + slash + 1, text.data() + text.size(), lo, 16);
  if (h.ec != std::errc() || l.ec != std::errc() || h.ptr != text.data() + slash ||
      l.ptr != text.data() + text.size()) {
    return 0;
  }
  return (std::uint64_t{hi} << 32) | lo;
}

Replicas::Replicas(const PostgresOptions& options, const std::shared_ptr<Reactor>& reactor)
    : mode_(options.standby_reads) {
  for (const auto& conninfo : options.standby_conninfos) {
    standbys_.push_back(std::make_unique<Standby>(
        PoolSettings{conninfo, options.standby_pool_size, options.acquire_timeout, options.connect_timeout}, reactor));
  }
}

void Replicas::wrote(Connection& primary) noexcept {
  if (standbys_.empty()) return;
  const Ticks asked_at = now_ticks();
  try {
    // After COMMIT: the insert position is at or past the commit record.
    const std::uint64_t lsn = parse_lsn(primary.exec(kCurrentLsn, {}, true, Deadline::ignore).text(0, 0));
    if (lsn == 0) throw QueryError("unreadable WAL position");
    std::uint64_t seen = last_write_.load(std::memory_order_relaxed);
    while (seen < lsn && !last_write_.compare_exchange_weak(seen, lsn, std::memory_order_relaxed)) {
    }
    // This position also covers any write whose position could not be read before we asked.
    Ticks unknown = unknown_write_at_.load(std::memory_order_relaxed);
    if (unknown != 0 && unknown <= asked_at) unknown_write_at_.compare_exchange_strong(unknown, 0);
  } catch (...) {
    unknown_write_at_.store(now_ticks(), std::memory_order_relaxed);
  }
}

Replicas::Standby* Replicas::next_up() noexcept {
  const Ticks now = now_ticks();
  for (std::size_t i = 0; i < standbys_.size(); ++i) {
    Standby& s = *standbys_[next_.fetch_add(1, std::memory_order_relaxed) % standbys_.size()];
    if (s.down_until.load(std::memory_order_relaxed) <= now) return &s;
  }
  return nullptr;
}

bool Replicas::caught_up(Standby& s, Connection& c) {
  if (mode_ == StandbyReads::always) return true;
  const Ticks now = now_ticks();
  const Ticks unknown = unknown_write_at_.load(std::memory_order_relaxed);
  if (unknown != 0 && now - unknown < ticks(kUnknownWriteWindow)) return false;
  const std::uint64_t need = last_write_.load(std::memory_order_relaxed);
  if (need <= s.replayed.load(std::memory_order_relaxed)) return true;
  // Behind, as last seen: look again, unless someone just did.
  Ticks last = s.refreshed_at.load(std::memory_order_relaxed);
  if (now - last < ticks(kRefreshEvery) || !s.refreshed_at.compare_exchange_strong(last, now)) return false;
  const std::uint64_t replayed = parse_lsn(c.exec(kReplayLsn).text(0, 0));
  std::uint64_t seen = s.replayed.load(std::memory_order_relaxed);
  while (seen < replayed && !s.replayed.compare_exchange_weak(seen, replayed, std::memory_order_relaxed)) {
  }
  return need <= replayed;
}

void Replicas::mark_down(Standby& s) noexcept {
  s.down_until.store(now_ticks() + ticks(std::chrono::duration_cast<Clock::duration>(kRetryAfter)),
                     std::memory_order_relaxed);
}

bool Replicas::is_recovery_conflict(const ServerError& e) noexcept {
  // "canceling statement due to conflict with recovery" (40001), a standby shutting down or not
  // accepting connections yet, and a standby that has not replayed the graph's creation yet
  // (42P01: no such table), which StandbyReads::always may meet.
  return e.sqlstate() == "40001" || e.sqlstate().starts_with("57P0") || e.sqlstate() == "42P01";
}

}  // namespace propgraph::postgres_detail
