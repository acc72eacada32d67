#pragma once
// The agent's end of the broker's WebSocket channel (/internal/ws/agent), as
// Brokkr's agent keeps it: on a thread of its own, reconnecting after
// agent.broker_backoff_initial doubling to agent.broker_backoff_max with
// ±20% jitter (reset by a successful upgrade), and giving up for good after
// the broker refused the upgrade (401 or 403) 5 times in a row. A push
// (target_changed, stack_changed; work_order) asks the loop to poll its
// target state (or its work orders) at once; the loop polls by REST on its
// interval whether or not the channel is open. Telemetry frames go up the
// channel through send() (uplink.hpp): queued, at most kOutboxCapacity, and
// written by the channel's thread between its reads.

#include <atomic>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "agent/settings.hpp"
#include "agent/uplink.hpp"

namespace sindri::http {
class WebSocketClient;
}

namespace sindri::agent {

class BrokerChannel : public Uplink {
 public:
  // Frames waiting to be sent, at most: a channel slower than the telemetry
  // costs frames (which their producers count), never memory.
  static constexpr size_t kOutboxCapacity = 4096;

  // Starts connecting at once, unless agent.ws_force_rest.
  BrokerChannel(const AgentSettings& settings, std::function<void(const std::string&)> log);
  // Closes the channel (1001) and waits for its thread.
  ~BrokerChannel() override;
  BrokerChannel(const BrokerChannel&) = delete;
  BrokerChannel& operator=(const BrokerChannel&) = delete;

  // Whether a push came since the last take.
  bool take_target_push() { return target_push_.exchange(false); }
  bool take_work_push() { return work_push_.exchange(false); }
  bool pushed() const { return target_push_ || work_push_; }
  bool connected() const { return connected_; }
  // Queues a frame while the channel is open.
  Queued send(std::string frame) override;
  bool gave_up() const override { return gave_up_; }

  // The channel's URL for these settings.
  static std::string url_of(const AgentSettings& settings);

 private:
  void run();
  // Waits `backoff` seconds with ±20% jitter; false when stopping.
  bool wait_backoff(double backoff);
  void take(const std::string& frame);
  // Writes what the outbox holds; false when the socket ended meanwhile.
  bool send_queued(http::WebSocketClient& socket);

  const AgentSettings& settings_;
  std::function<void(const std::string&)> log_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> target_push_{false};
  std::atomic<bool> work_push_{false};
  std::atomic<bool> connected_{false};
  std::atomic<bool> gave_up_{false};
  std::mutex outbox_mutex_;
  std::deque<std::string> outbox_;  // guarded by outbox_mutex_
  std::thread thread_;
};

}  // namespace sindri::agent
