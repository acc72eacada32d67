#pragma once
// Template renders (instantiation, dry run) run here, apart from the
// server's request threads: render.threads threads at a lower scheduling
// priority, so that the requests answered at once (health checks, target
// states, listings) win the cores, and at most render.per_identity_limit
// renders in flight per caller. Tasks wait in arrival order, but one whose
// caller is at its limit lets later tasks of other callers pass it. The
// limit conserves work: when no task of a caller below its limit waits, a
// caller past its limit may take a free thread, as long as another thread
// stays free for the next caller (with one or two threads, never). A caller
// may hold at most half of render.queue_limit's places (waiting_share), so
// that one caller cannot fill the queue and have every other refused. A task
// that waited render.queue_wait without starting is refused, and so is one
// submitted while render.queue_limit tasks wait. The limits are read from
// the live settings at each submission; the thread count once.

#include <chrono>
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "broker/config.hpp"

namespace sindri::broker {

enum class RenderRefusal {
  CallerAtLimit,  // its caller was at render.per_identity_limit and waited out render.queue_wait, or
                  // held its share of the queue, or the queue was full
  PoolBusy,       // waited out render.queue_wait for a free thread
  QueueFull,      // render.queue_limit tasks were waiting already
  Stopping,       // the broker is stopping, or cancel_running() was called
};

// The tasks one caller may have waiting under render.queue_limit `limit`.
inline size_t waiting_share(int64_t queue_limit) { return static_cast<size_t>(std::max<int64_t>(1, queue_limit / 2)); }

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
  // the task counts against. An exception out of `run` is swallowed (its
  // wrapper answers for it: Call::on_render_pool); `refuse` must not throw.
  void submit(std::string identity, Run run, Refuse refuse);

  // For a stop that must not wait out the running renders: sets
  // cancel_flag(), which the renders read (render::RenderLimits::cancel),
  // refuses the waiting tasks (Stopping) and every task submitted after.
  void cancel_running();
  // Set once cancel_running() was called; a render given it stops within a
  // few thousand steps.
  const std::atomic<bool>& cancel_flag() const { return cancelled_; }

  RenderPoolStats stats() const;

 private:
  struct Task {
    std::string identity;
    size_t identity_limit;
    size_t waiting_limit;  // waiting_share at its submission
    std::chrono::steady_clock::time_point deadline;
    Run run;
    Refuse refuse;
  };

  void work();
  void expire_waiting();
  // Refuses every waiting task (Stopping); with the lock held, the
  // callbacks are returned to be called outside it.
  std::deque<Task> take_waiting();
  // The first waiting task whose caller is below its limit; else, when
  // another thread than the one asking stays free, the first waiting task
  // whose caller has the fewest in flight; end() if none.
  std::deque<Task>::iterator next_runnable();
  bool at_limit(const Task& task) const;
  size_t waiting_of(std::string_view identity) const;
  void forget_waiting(std::string_view identity);

  const LiveConfig& config_;
  const size_t threads_;
  mutable std::mutex mutex_;
  std::condition_variable task_ready_;
  std::condition_variable deadlines_changed_;
  std::deque<Task> waiting_;
  std::map<std::string, size_t, std::less<>> in_flight_;  // by identity, only those above 0
  std::map<std::string, size_t, std::less<>> waiting_by_identity_;  // only those above 0
  size_t running_ = 0;
  uint64_t refused_ = 0;
  bool stopping_ = false;
  std::atomic<bool> cancelled_ = false;
  std::vector<std::thread> workers_;
  std::thread timer_;
};

}  // namespace sindri::broker
