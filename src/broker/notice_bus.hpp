#pragma once
// Carries notices (notices.hpp) between brokers sharing a PostgreSQL
// database. A write's control notices are NOTIFYed in its transaction
// (stage()). For the copies viewers get a request never waits: send()
// queues the notice, and a sender thread NOTIFYs what has queued, many notices to a payload
// {"origin", "notices": [...]} (a payload larger than NOTIFY carries goes
// through the broker_notices table, the NOTIFY naming its row). Every
// broker LISTENs on a connection of its own, on a listener thread, and
// hands what the others sent to its sockets. When the listening connection
// is lost, the bus opens another after notices.reconnect_interval and then
// asks every agent connected here to poll at once, since it may have missed
// notices meanwhile. A broker alone on its database (no other broker has
// said it is alive, as the listener reads every second) sends nothing:
// NOTIFY serialises the commits that carry one.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "broker/api_error.hpp"
#include "broker/config.hpp"
#include "broker/log.hpp"
#include "store/database.hpp"

namespace sindri::broker {

class NoticeBus {
 public:
  using Deliver = std::function<void(const Value& notice)>;
  using Replay = std::function<void()>;

  // Starts listening and sending at once; `deliver` gets other brokers'
  // notices, `replay` runs after a lost connection is listening again.
  NoticeBus(store::Database& db, Logger& log, const LiveConfig& config, std::string broker_id, Deliver deliver,
            Replay replay);
  ~NoticeBus();  // sends what is queued, stops both threads and waits for them
  NoticeBus(const NoticeBus&) = delete;
  NoticeBus& operator=(const NoticeBus&) = delete;

  // Queues a notice this broker published for the others; past
  // kMaxQueuedNotices queued, it is dropped and counted (agents poll anyway).
  void send(const Value& notice);
  // NOTIFYs a control notice within the transaction of `connection` (one
  // too large for a NOTIFY is stored in broker_notices in it too).
  ApiResult<Ok> stage(store::Connection& connection, const Value& notice);

  bool listening() const { return listening_; }
  // Whether another broker shares the database, as last read.
  bool others_present() const { return others_present_; }
  uint64_t losses() const { return losses_; }
  uint64_t dropped() const { return dropped_; }

  static constexpr size_t kMaxQueuedNotices = 10000;

 private:
  void listen_loop();
  void send_loop();
  // NOTIFYs `notices` (JSON texts) in as few payloads as fit.
  void notify_all(std::deque<std::string> notices);
  void notify(const std::string& payload);
  void take(const std::string& payload);
  void read_others_present();
  void deliver_list(const Value& list);
  // Waits `seconds` or until stopping; false when stopping.
  bool pause(double seconds);
  bool stopping();

  store::Database& db_;
  Logger& log_;
  const LiveConfig& config_;
  const std::string broker_id_;
  Deliver deliver_;
  Replay replay_;
  std::atomic<bool> listening_{false};
  std::atomic<bool> others_present_{true};  // until read: a notice too many costs nothing
  std::atomic<uint64_t> losses_{0};
  std::atomic<uint64_t> dropped_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::deque<std::string> queued_;  // notices' JSON texts
  std::thread listener_;
  std::thread sender_;
};

}  // namespace sindri::broker
