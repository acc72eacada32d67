#pragma once
// The two counters that cached answers (target states, PAK lookups) are
// checked against. They live in the database, so that brokers sharing it
// see each other's writes. Reading them is a round trip on PostgreSQL, once
// per request; a broker may instead reuse a read for up to
// `peer_change_delay`, which delays only what other brokers change: a read
// is never reused across a write this broker has answered that could have
// moved what the request needs.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

#include "broker/context.hpp"
#include "broker/db/counters.hpp"

namespace sindri::broker {

class CountersReader {
 public:
  explicit CountersReader(std::chrono::microseconds peer_change_delay) : peer_change_delay_(peer_change_delay) {}

  // The counters as of at most `peer_change_delay` ago, and after every
  // write that `wrote` was called for. A request that does not read target
  // states passes `with_target_state` false: then only writes that touched
  // credentials make it read again.
  ApiResult<db::Generations> current(store::Database& db, bool with_target_state);
  // Call once a write of this broker has committed, before answering it.
  void wrote(bool touched_credentials);
  // Reads that went to the database.
  uint64_t reads() const { return reads_.load(std::memory_order_relaxed); }

 private:
  // How many writes of each kind this broker had answered.
  struct WriteCounts {
    uint64_t any = 0;
    uint64_t credentials = 0;
  };
  struct Snapshot {
    db::Generations counters;
    std::chrono::steady_clock::time_point read_started;
    WriteCounts writes_before;  // when the read started
  };
  WriteCounts write_counts() const;

  const std::chrono::microseconds peer_change_delay_;
  std::atomic<uint64_t> writes_{0};
  std::atomic<uint64_t> credential_writes_{0};
  std::atomic<uint64_t> reads_{0};
  std::mutex mutex_;
  Snapshot latest_;
  bool have_latest_ = false;
};

}  // namespace sindri::broker
