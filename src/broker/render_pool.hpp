#pragma once
// Template renders (instantiation, dry run) run here, apart from the
// server's request threads: render.threads threads at a lower scheduling
// priority, so that the requests answered at once (health checks, target
// states, listings) win the cores, and at most render.per_identity_limit
// renders in flight per caller. Tasks wait in arrival order, but one whose
// caller is at its limit lets later tasks of other callers pass it. A task
// that waited render.queue_wait without starting is refused, and so is one
// submitted while render.queue_limit tasks wait. The limits are read from
// the live settings at each submission; the thread count once.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "broker/config.hpp"

namespace sindri::broker {

enum class RenderRefusal {
  CallerAtLimit,  // waited out render.queue_wait while its caller was at render.per_identity_limit
  PoolBusy,       // waited out render.queue_wait for a free thread
  QueueFull,      // render.queue_limit tasks were waiting already
  Stopping,       // the broker is stopping
};

struct RenderPoolStats {
  size_t running = 0;
  size_t waiting = 0;
  uint64_t refused = 0;  // since start, every reason
};

class RenderPool {
 public:
  using Run = std::function<void()>;
  using Refuse = std::function<void(RenderRefusal)>;

  explicit RenderPool(const LiveConfig& config);
  // Refuses the waiting tasks (Stopping) and waits for the running ones.
  ~RenderPool();
  RenderPool(const RenderPool&) = delete;
  RenderPool& operator=(const RenderPool&) = delete;

  // Calls exactly one of `run`, on a pool thread, or `refuse`: on this
  // thread when the task is refused at once, else on the pool's timer
  // thread or the stopping thread. `identity` names the caller whose limit
  // the task counts against.
  void submit(std::string identity, Run run, Refuse refuse);

  RenderPoolStats stats() const;

 private:
  struct Task {
    std::string identity;
    size_t identity_limit;
    std::chrono::steady_clock::time_point deadline;
    Run run;
    Refuse refuse;
  };

  void work();
  void expire_waiting();
  // The first waiting task whose caller is below its limit; end() if none.
  std::deque<Task>::iterator first_runnable();
  bool at_limit(const Task& task) const;

  const LiveConfig& config_;
  const size_t threads_;
  mutable std::mutex mutex_;
  std::condition_variable task_ready_;
  std::condition_variable deadlines_changed_;
  std::deque<Task> waiting_;
  std::map<std::string, size_t, std::less<>> in_flight_;  // by identity, only those above 0
  size_t running_ = 0;
  uint64_t refused_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  std::thread timer_;
};

}  // namespace sindri::broker
