#pragma once
// Carries notices (notices.hpp) between brokers sharing a PostgreSQL
// database: each is sent with NOTIFY right after the change committed, and
// every broker LISTENs on a connection of its own, on a thread of its own,
// handing what others sent to its sockets. A notice larger than NOTIFY
// carries goes through the broker_notices table, the NOTIFY naming its row.
// When the listening connection is lost, the bus opens another after
// notices.reconnect_interval and then re-reads what it may have missed: it
// asks every agent connected here to poll its target state at once.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "broker/config.hpp"
#include "broker/log.hpp"
#include "store/database.hpp"

namespace sindri::broker {

class NoticeBus {
 public:
  using Deliver = std::function<void(const Value& notice)>;
  using Replay = std::function<void()>;

  // Starts listening at once; `deliver` gets other brokers' notices,
  // `replay` runs after a lost connection is listening again.
  NoticeBus(store::Database& db, Logger& log, const LiveConfig& config, std::string broker_id, Deliver deliver,
            Replay replay);
  ~NoticeBus();  // stops listening and waits for the thread
  NoticeBus(const NoticeBus&) = delete;
  NoticeBus& operator=(const NoticeBus&) = delete;

  // Sends a notice this broker published to the others.
  void send(const Value& notice);
  // Whether the bus is listening now (for /metrics and tests).
  bool listening() const { return listening_; }
  // How many times the listening connection was lost.
  uint64_t losses() const { return losses_; }

 private:
  void run();
  void take(const std::string& payload);
  // Waits `seconds` or until stopping; false when stopping.
  bool pause(double seconds);

  store::Database& db_;
  Logger& log_;
  const LiveConfig& config_;
  const std::string broker_id_;
  Deliver deliver_;
  Replay replay_;
  std::atomic<bool> listening_{false};
  std::atomic<uint64_t> losses_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace sindri::broker
