#include "broker/jobs.hpp"

#include "broker/db/jobs.hpp"
#include "broker/ids.hpp"

namespace sindri::broker {

struct JobRunner::Running {
  PeriodicJob job;
  size_t passes = 0;
  std::thread thread;
};

JobRunner::JobRunner(store::Database& db, Logger& log, const LiveConfig& config, std::string broker_id,
                     std::vector<PeriodicJob> jobs)
    : db_(db), log_(log), config_(config), broker_id_(std::move(broker_id)) {
  for (PeriodicJob& job : jobs) {
    jobs_.push_back(std::make_unique<Running>(Running{std::move(job), 0, {}}));
  }
  for (auto& running : jobs_) running->thread = std::thread([this, job = running.get()] { loop(*job); });
}

JobRunner::~JobRunner() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& running : jobs_) running->thread.join();
}

void JobRunner::reschedule() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++schedule_generation_;
  }
  wake_.notify_all();
}

size_t JobRunner::passes(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& running : jobs_) {
    if (running->job.name == name) return running->passes;
  }
  return 0;
}

bool JobRunner::take_turn(const PeriodicJob& job, double interval_seconds) {
  if (!job.one_broker) return true;
  const auto now = std::chrono::system_clock::now();
  // A little short of the interval, so that the broker whose round comes
  // next finds the turn due despite timer jitter.
  const auto next = now + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                              std::chrono::duration<double>(interval_seconds * 0.9));
  auto taken = in_write<bool>(db_, [&](store::Connection& connection) {
    return db::take_job_turn(connection, job.name, timestamp_at(now), timestamp_at(next), broker_id_);
  });
  if (!taken.ok()) {
    const ApiError& error = taken.error();
    log_.warn("cannot take a job's turn", {{"job", Value(job.name)},
                                           {"cause", Value(error.cause ? error.cause->message : error.message)}});
    return false;
  }
  return *taken;
}

void JobRunner::loop(Running& running) {
  const PeriodicJob& job = running.job;
  // A one-broker pass asks for its turn at once: the database knows when it
  // last ran on any broker, so a restart neither skips nor repeats it. A
  // pass of this broker's own waits its first interval.
  auto last_round = std::chrono::steady_clock::now();
  bool due = job.one_broker;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    const double interval = job.interval_seconds(*config_.current());
    if (!due) {
      // From the last round, so that a reload changes when the next one
      // comes rather than putting it off by a whole interval.
      const auto next_round = last_round + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                               std::chrono::duration<double>(interval));
      const uint64_t generation = schedule_generation_;
      if (wake_.wait_until(lock, next_round, [&] { return stopping_ || schedule_generation_ != generation; })) {
        if (stopping_) return;
        continue;
      }
    }
    if (stopping_) return;
    due = false;
    last_round = std::chrono::steady_clock::now();
    lock.unlock();
    const bool ours = take_turn(job, interval);
    if (ours) {
      auto handled = job.pass();
      if (!handled.ok()) {
        const ApiError& error = handled.error();
        log_.warn("periodic pass failed", {{"job", Value(job.name)},
                                           {"cause", Value(error.cause ? error.cause->message : error.message)}});
      } else if (*handled > 0) {
        log_.debug("periodic pass", {{"job", Value(job.name)}, {"handled", Value(static_cast<int64_t>(*handled))}});
      }
    }
    lock.lock();
    if (ours) ++running.passes;
  }
}

}  // namespace sindri::broker
