#include "broker/counters.hpp"

namespace sindri::broker {
namespace {

ApiResult<BrokerCounters> read_counters(store::Database& db) {
  auto rows = db.read_statement(
      "SELECT (SELECT CAST(SUM(generation) AS BIGINT) FROM target_state_generations), credentials_generation "
      "FROM broker_state WHERE id = 1");
  if (!rows.ok()) return database_error(std::move(rows).error());
  if (rows->empty()) return database_error(store::DbError{store::DbError::Kind::Invalid, "broker_state is empty"});
  return BrokerCounters{rows->rows[0][0].get_int(), rows->rows[0][1].get_int()};
}

}  // namespace

void CountersReader::wrote(bool touched_credentials) {
  // The credentials count first: a reader that sees the new `any` count
  // then sees it too.
  if (touched_credentials) credential_writes_.fetch_add(1, std::memory_order_acq_rel);
  writes_.fetch_add(1, std::memory_order_acq_rel);
}

CountersReader::WriteCounts CountersReader::write_counts() const {
  WriteCounts counts;
  counts.any = writes_.load(std::memory_order_acquire);
  counts.credentials = credential_writes_.load(std::memory_order_acquire);
  return counts;
}

ApiResult<BrokerCounters> CountersReader::current(store::Database& db, bool with_target_state) {
  const auto now = std::chrono::steady_clock::now();
  const WriteCounts writes = write_counts();
  if (peer_change_delay_.count() > 0) {
    std::lock_guard lock(mutex_);
    const bool after_writes = latest_.writes_before.credentials == writes.credentials &&
                              (!with_target_state || latest_.writes_before.any == writes.any);
    if (have_latest_ && after_writes && now - latest_.read_started <= peer_change_delay_) return latest_.counters;
  }
  // A read that starts after a write was counted sees that write: it had
  // committed before it was counted.
  auto counters = read_counters(db);
  reads_.fetch_add(1, std::memory_order_relaxed);
  if (!counters.ok() || peer_change_delay_.count() == 0) return counters;
  std::lock_guard lock(mutex_);
  const bool newer = !have_latest_ || writes.any > latest_.writes_before.any ||
                     (writes.any == latest_.writes_before.any && now > latest_.read_started);
  if (newer) {
    latest_ = Snapshot{*counters, now, writes};
    have_latest_ = true;
  }
  return counters;
}

}  // namespace sindri::broker
