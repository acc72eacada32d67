#include "broker/render_pool.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <chrono>
#include <optional>

namespace sindri::broker {
namespace {

// Renders are work a client waits for anyway; a health probe or an agent's
// poll is not: on a busy machine the request threads win the cores. Best
// effort: where the niceness cannot change the thread runs as it was.
void lower_priority() {
  const auto thread = static_cast<id_t>(gettid());
  errno = 0;
  const int current = getpriority(PRIO_PROCESS, thread);
  if (errno != 0) return;
  setpriority(PRIO_PROCESS, thread, std::min(current + 5, 19));
}

std::chrono::steady_clock::duration seconds(double value) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(value));
}

}  // namespace

RenderPool::RenderPool(const LiveConfig& config)
    : config_(config), threads_(static_cast<size_t>(std::max<int64_t>(1, config.current()->render_threads))) {
  for (size_t i = 0; i < threads_; ++i) workers_.emplace_back([this] { work(); });
  timer_ = std::thread([this] { expire_waiting(); });
}

RenderPool::~RenderPool() {
  std::deque<Task> abandoned;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    abandoned = take_waiting();
  }
  task_ready_.notify_all();
  deadlines_changed_.notify_all();
  for (Task& task : abandoned) task.refuse(RenderRefusal::Stopping);
  for (std::thread& worker : workers_) worker.join();
  timer_.join();
}

void RenderPool::cancel_running() {
  std::deque<Task> abandoned;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cancelled_ = true;
    abandoned = take_waiting();
  }
  deadlines_changed_.notify_all();
  for (Task& task : abandoned) task.refuse(RenderRefusal::Stopping);
}

std::deque<RenderPool::Task> RenderPool::take_waiting() {
  std::deque<Task> taken;
  taken.swap(waiting_);
  waiting_by_identity_.clear();
  refused_ += taken.size();
  return taken;
}

bool RenderPool::at_limit(const Task& task) const {
  const auto found = in_flight_.find(task.identity);
  return found != in_flight_.end() && found->second >= task.identity_limit;
}

size_t RenderPool::waiting_of(std::string_view identity) const {
  const auto found = waiting_by_identity_.find(identity);
  return found == waiting_by_identity_.end() ? 0 : found->second;
}

std::deque<RenderPool::Task>::iterator RenderPool::next_runnable() {
  const auto below_limit =
      std::find_if(waiting_.begin(), waiting_.end(), [this](const Task& task) { return !at_limit(task); });
  if (below_limit != waiting_.end() || threads_ - running_ < 2) return below_limit;
  // Every waiting caller is at its limit: a thread that would idle serves
  // the one with the fewest in flight.
  auto fewest = waiting_.end();
  size_t fewest_in_flight = SIZE_MAX;
  for (auto task = waiting_.begin(); task != waiting_.end(); ++task) {
    const size_t in_flight = in_flight_.find(task->identity)->second;
    if (in_flight < fewest_in_flight) {
      fewest = task;
      fewest_in_flight = in_flight;
    }
  }
  return fewest;
}

void RenderPool::submit(std::string identity, Run run, Refuse refuse) {
  const auto settings = config_.current();
  Task task{std::move(identity), static_cast<size_t>(std::max<int64_t>(1, settings->render_per_identity_limit)),
            waiting_share(settings->render_queue_limit), std::chrono::steady_clock::now() + seconds(settings->render_queue_wait), std::move(run),
            std::move(refuse)};
  std::unique_lock<std::mutex> lock(mutex_);
  std::optional<RenderRefusal> refusal;
  if (stopping_ || cancelled_) {
    refusal = RenderRefusal::Stopping;
  } else if (waiting_of(task.identity) >= task.waiting_limit) {
    refusal = RenderRefusal::CallerAtLimit;
  } else if (waiting_.size() >= static_cast<size_t>(std::max<int64_t>(0, settings->render_queue_limit))) {
    // A task a free thread takes at once never waits, so no queue refuses it.
    const auto runnable = static_cast<size_t>(
        std::count_if(waiting_.begin(), waiting_.end(), [this](const Task& waiting) { return !at_limit(waiting); }));
    if (at_limit(task)) {
      refusal = RenderRefusal::CallerAtLimit;
    } else if (threads_ - running_ <= runnable) {
      refusal = RenderRefusal::QueueFull;
    }
  }
  if (refusal) {
    ++refused_;
    lock.unlock();
    task.refuse(*refusal);
    return;
  }
  ++waiting_by_identity_[task.identity];
  waiting_.push_back(std::move(task));
  lock.unlock();
  task_ready_.notify_one();
  deadlines_changed_.notify_one();
}

void RenderPool::work() {
  lower_priority();
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    auto next = waiting_.end();
    task_ready_.wait(lock, [&] { return stopping_ || (next = next_runnable()) != waiting_.end(); });
    if (stopping_) return;
    std::string identity;
    {
      Task task = std::move(*next);
      waiting_.erase(next);
      forget_waiting(task.identity);
      ++in_flight_[task.identity];
      ++running_;
      lock.unlock();
      try {
        task.run();
      } catch (...) {
        // The task's own wrapper answers for what it throws; the pool only
        // outlives it.
      }
      identity = std::move(task.identity);
    }
    lock.lock();
    const auto counted = in_flight_.find(identity);
    if (--counted->second == 0) in_flight_.erase(counted);
    --running_;
    // The caller's next task may run now, on any idle thread.
    task_ready_.notify_all();
  }
}

void RenderPool::expire_waiting() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    const auto now = std::chrono::steady_clock::now();
    auto next_deadline = std::chrono::steady_clock::time_point::max();
    std::vector<std::pair<Refuse, RenderRefusal>> refusals;
    for (auto task = waiting_.begin(); task != waiting_.end();) {
      if (task->deadline > now) {
        next_deadline = std::min(next_deadline, task->deadline);
        ++task;
        continue;
      }
      refusals.emplace_back(std::move(task->refuse),
                            at_limit(*task) ? RenderRefusal::CallerAtLimit : RenderRefusal::PoolBusy);
      forget_waiting(task->identity);
      task = waiting_.erase(task);
    }
    if (!refusals.empty()) {
      refused_ += refusals.size();
      lock.unlock();
      for (auto& [refuse, reason] : refusals) refuse(reason);
      refusals.clear();  // what the callbacks hold goes outside the lock too
      lock.lock();
      continue;
    }
    if (next_deadline == std::chrono::steady_clock::time_point::max()) {
      deadlines_changed_.wait(lock);
    } else {
      deadlines_changed_.wait_until(lock, next_deadline);
    }
  }
}

void RenderPool::forget_waiting(std::string_view identity) {
  const auto counted = waiting_by_identity_.find(identity);
  if (--counted->second == 0) waiting_by_identity_.erase(counted);
}

RenderPoolStats RenderPool::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return RenderPoolStats{running_, waiting_.size(), refused_};
}

}  // namespace sindri::broker
