#pragma once
// The log lines of pods that opt in, sent up the broker's channel as Brokkr's
// agent sends them (pod_logs.rs): a pod annotated brokkr.io/stream-logs:
// "true" and carrying the stack annotation (k8s.brokkr.io/stack) has each
// of its containers followed, a pod_log_line frame per line. kube::Client
// reads whole answers only, so "following" is reading each container's log
// every agent.pod_log_interval with timestamps=true and sinceTime, keeping
// the lines after the last one sent (by their timestamps); a pod's log
// from before the agent started is not sent. A read brings at most 8 MiB
// (limitBytes), and a line longer than 16 KiB is cut.
//
// At most agent.pod_log_lines_per_second lines a container each second; the
// lines over it are dropped and, when the second is over, one log_gap
// (reason rate_limit) says how many. Lines the channel could not take
// (down: disconnected; its queue full: buffer_full) are counted too, and
// their log_gap goes up as soon as the channel takes frames again.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/uplink.hpp"
#include "kube/discovery.hpp"

namespace sindri::kube {
class Client;
}

namespace sindri::agent {

inline constexpr std::string_view kStreamLogsAnnotation = "brokkr.io/stream-logs";

// Drops what passes `lines_per_second` in each second, counting it.
class LogRateLimit {
 public:
  using Clock = std::chrono::steady_clock;
  explicit LogRateLimit(int64_t lines_per_second) : limit_(lines_per_second) {}
  struct Dropped {
    uint64_t lines = 0;
    std::string first_stamp;  // the first dropped line's timestamp
  };
  // Whether a line read at `now` (whose timestamp is `stamp`) may go.
  bool admit(Clock::time_point now, const std::string& stamp);
  // What each second over by `now` dropped, one entry a second that dropped any.
  std::vector<Dropped> take_closed(Clock::time_point now);

 private:
  void close_window();

  int64_t limit_;
  std::optional<Clock::time_point> window_start_;
  int64_t admitted_ = 0;
  Dropped dropped_;
  std::vector<Dropped> closed_;
};

class PodLogForwarder {
 public:
  // watch_namespace "": every namespace. Lines from before `since_micros`
  // (microseconds since the epoch) are not sent.
  PodLogForwarder(kube::Client& client, std::string agent_id, std::string watch_namespace, int64_t lines_per_second,
                  int64_t since_micros, Uplink& uplink, std::function<void(const std::string&)> log);

  // Lists the pods: follows the containers of those that opt in, forgets
  // the rest (deleted, or no longer opted in).
  void scan();
  // Reads the new lines of every followed container, until `stopping`.
  void read(const std::atomic<bool>& stopping);

 private:
  enum GapReason { kRateLimit, kBufferFull, kDisconnected, kGapReasons };
  struct Gap {
    uint64_t dropped = 0;
    std::string since;  // the first dropped line's timestamp
  };
  struct Tail {
    std::string ns, pod, container, stack_id;
    int64_t cursor_micros = 0;   // the timestamp of the last line sent or dropped
    uint64_t lines_at_cursor = 0;  // how many lines carried it (a log can repeat a timestamp)
    LogRateLimit rate;
    std::array<Gap, kGapReasons> gaps;
    std::string last_failure;
    bool warned_untimed = false;
  };

  void read(Tail& tail);
  void forward(Tail& tail, const std::string& stamp, std::string_view line);
  // Sends the gaps counted so far, as the channel takes them.
  void send_gaps(Tail& tail);
  static void count(Gap& gap, const std::string& stamp, uint64_t lines);

  kube::Client& client_;
  std::string agent_id_, watch_namespace_;
  int64_t lines_per_second_;
  int64_t since_micros_;
  Uplink& uplink_;
  std::function<void(const std::string&)> log_;
  std::optional<kube::ResourceType> pod_type_;
  std::map<std::string, Tail> tails_;  // by pod uid and container
  std::string last_failure_;
};

}  // namespace sindri::agent
