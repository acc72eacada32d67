#pragma once
// The broker's periodic passes (template targets, work-order maintenance,
// webhook delivery, clean-ups, retention), each on a thread of its own. Each
// round reads its interval from the live settings, so a reload applies at
// the next round. A pass marked one_broker runs on one broker at a time
// among those sharing the database: before a round the broker takes the
// job's turn (db/jobs.hpp), and only the broker that got it runs the pass.

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "broker/config.hpp"
#include "broker/context.hpp"

namespace sindri::broker {

struct PeriodicJob {
  std::string name;  // in logs, and the job's row in job_turns
  std::function<double(const BrokerConfig&)> interval_seconds;
  bool one_broker = true;
  // One round; answers how many items it handled (for the debug log).
  std::function<ApiResult<size_t>()> pass;
};

class JobRunner {
 public:
  // `broker_id` names this broker in job_turns.
  JobRunner(store::Database& db, Logger& log, const LiveConfig& config, std::string broker_id,
            std::vector<PeriodicJob> jobs);
  ~JobRunner();  // stops every job, waiting for a round under way
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  // Makes every job read its interval again now (after a reload), instead
  // of at the end of the wait under way.
  void reschedule();

  // Passes job `name` has run on this broker (rounds whose turn it got).
  size_t passes(std::string_view name) const;

 private:
  struct Running;
  void loop(Running& job);
  // True when this broker should run `job` now.
  bool take_turn(const PeriodicJob& job, double interval_seconds);

  store::Database& db_;
  Logger& log_;
  const LiveConfig& config_;
  std::string broker_id_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  uint64_t schedule_generation_ = 0;
  std::vector<std::unique_ptr<Running>> jobs_;
};

}  // namespace sindri::broker
