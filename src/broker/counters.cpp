#include "broker/counters.hpp"

namespace sindri::broker {

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

ApiResult<db::Generations> CountersReader::current(store::Database& db, bool with_target_state) {
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
  auto counters = db::read_generations(db);
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
