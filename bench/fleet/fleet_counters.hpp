#pragma once
// What the simulated agents share: the counters the main thread reads while
// they run (hence atomics), and the change being watched for, which only
// the io_context's thread touches.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <string>

namespace sindri::bench {

using Clock = std::chrono::steady_clock;

struct FleetCounters {
  std::atomic<size_t> sockets_open{0};
  std::atomic<size_t> sockets_lost{0};         // closed by the broker or failed after opening
  std::atomic<size_t> handshake_failures{0};  // refused or failed openings, retried
  std::atomic<size_t> polls{0};               // answered target-state requests
  std::atomic<size_t> polls_changed{0};       // of which 200 (the others 304)
  std::atomic<size_t> poll_failures{0};       // no answer, or a status other than 200 and 304
  std::atomic<size_t> watched_seen{0};        // agents that have fetched the watched token
};

// The io_context's thread only.
struct FleetWatch {
  bool active = false;
  std::string token;                         // text the new target state holds and the old did not
  std::map<std::string, size_t> frames;      // frames received, by type, since the start
  std::string last_loss;                     // why the last socket was lost, for the report
  std::string last_poll_failure;
};

}  // namespace sindri::bench
