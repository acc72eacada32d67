#include "broker/notice_bus.hpp"

#include <chrono>
#include <memory>

#include "broker/context.hpp"
#include "broker/db/agent_connections.hpp"
#include "broker/db/notices.hpp"
#include "broker/fleet_record.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

constexpr std::string_view kTopic = "sindri_notices";
// How long a wait for notices lasts before the listener looks at stopping_.
constexpr auto kWaitSlice = std::chrono::milliseconds(200);
// How often the listener reads whether other brokers share the database: a
// broker that starts hears notices within this.
constexpr auto kPresenceReadInterval = std::chrono::seconds(1);

std::string cause_of(const ApiError& error) { return error.cause ? error.cause->message : error.message; }

}  // namespace

NoticeBus::NoticeBus(store::Database& db, Logger& log, const LiveConfig& config, std::string broker_id,
                     Deliver deliver, Replay replay)
    : db_(db),
      log_(log),
      config_(config),
      broker_id_(std::move(broker_id)),
      deliver_(std::move(deliver)),
      replay_(std::move(replay)),
      listener_([this] { listen_loop(); }),
      sender_([this] { send_loop(); }) {}

NoticeBus::~NoticeBus() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  listener_.join();
  sender_.join();
}

bool NoticeBus::stopping() {
  std::lock_guard lock(mutex_);
  return stopping_;
}

void NoticeBus::send(const Value& notice) {
  if (!others_present_) return;
  std::string text = to_json(notice);
  {
    std::lock_guard lock(mutex_);
    if (queued_.size() >= kMaxQueuedNotices) {
      ++dropped_;
      return;
    }
    queued_.push_back(std::move(text));
  }
  wake_.notify_all();
}

ApiResult<Ok> NoticeBus::stage(store::Connection& connection, const Value& notice) {
  if (!others_present_) return Ok{};
  std::string payload = R"({"origin":")" + broker_id_ + R"(","notices":[)" + to_json(notice) + "]}";
  // Too large for a NOTIFY: the row goes with the same transaction.
  if (payload.size() > store::kMaxNoticeBytes) {
    SINDRI_TRY(stored, db::store_notice(connection, payload));
    payload = to_json(make_object({{"origin", Value(broker_id_)}, {"stored", Value(stored)}}));
  }
  SINDRI_CHECK(db_.notify_in(connection, kTopic, payload));
  return Ok{};
}

void NoticeBus::send_loop() {
  for (;;) {
    std::deque<std::string> batch;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queued_.empty(); });
      if (queued_.empty()) return;
      batch.swap(queued_);
    }
    notify_all(std::move(batch));
  }
}

void NoticeBus::notify_all(std::deque<std::string> notices) {
  const std::string head = R"({"origin":")" + broker_id_ + R"(","notices":[)";
  std::string payload = head;
  bool empty = true;
  const auto flush = [&] {
    if (empty) return;
    payload += "]}";
    notify(payload);
    payload = head;
    empty = true;
  };
  for (const std::string& notice : notices) {
    if (!empty && payload.size() + notice.size() + 3 > store::kMaxNoticeBytes) flush();
    if (!empty) payload += ',';
    payload += notice;
    empty = false;
  }
  flush();
}

void NoticeBus::notify(const std::string& payload) {
  std::string sent = payload;
  if (sent.size() > store::kMaxNoticeBytes) {
    auto stored = in_write<std::string>(db_, [&](store::Connection& connection) {
      return db::store_notice(connection, payload);
    });
    if (!stored.ok()) {
      log_.warn("notices not sent to other brokers", {{"cause", Value(cause_of(stored.error()))}});
      return;
    }
    sent = to_json(make_object({{"origin", Value(broker_id_)}, {"stored", Value(*stored)}}));
  }
  if (auto notified = db_.notify(kTopic, sent); !notified.ok()) {
    log_.warn("notices not sent to other brokers", {{"cause", Value(notified.error().message)}});
  }
}

void NoticeBus::deliver_list(const Value& payload) {
  const Value* notices = payload.find("notices");
  if (notices == nullptr || !notices->is_array()) return;
  for (const Value& notice : notices->get_array()) {
    if (notice.is_object()) deliver_(notice);
  }
}

void NoticeBus::take(const std::string& payload) {
  auto parsed = parse_json(payload);
  if (!parsed.ok() || !parsed->is_object()) return;
  const Value* origin = parsed->find("origin");
  if (origin != nullptr && origin->is_string() && origin->get_string() == broker_id_) return;
  const Value* stored = parsed->find("stored");
  if (stored == nullptr || !stored->is_string()) return deliver_list(*parsed);
  auto text = in_read<std::string>(db_, [&](store::Connection& connection) {
    return db::load_notice(connection, stored->get_string());
  });
  if (!text.ok()) {
    log_.warn("stored notices could not be read", {{"id", *stored}, {"cause", Value(cause_of(text.error()))}});
    return;
  }
  auto list = parse_json(*text);
  if (list.ok() && list->is_object()) deliver_list(*list);
}

void NoticeBus::read_others_present() {
  const std::string cutoff = presence_cutoff(*config_.current());
  auto present = in_read<bool>(db_, [&](store::Connection& connection) {
    return db::other_brokers_present(connection, broker_id_, cutoff);
  });
  if (present.ok()) others_present_ = *present;
}

bool NoticeBus::pause(double seconds) {
  std::unique_lock lock(mutex_);
  return !wake_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return stopping_; });
}

void NoticeBus::listen_loop() {
  bool lost_before = false;
  while (!stopping()) {
    auto listener = db_.listen(kTopic);
    if (!listener.ok()) {
      // Agents may connect meanwhile, and hear nothing from other brokers.
      lost_before = true;
      log_.warn("cannot listen for other brokers' notices", {{"cause", Value(listener.error().message)}});
      if (!pause(config_.current()->notices_reconnect_interval)) return;
      continue;
    }
    listening_ = true;
    if (lost_before) {
      log_.info("listening for other brokers' notices again; agents connected here poll at once", {});
      replay_();
    }
    auto next_presence_read = std::chrono::steady_clock::now();
    while (!stopping()) {
      if (std::chrono::steady_clock::now() >= next_presence_read) {
        read_others_present();
        next_presence_read = std::chrono::steady_clock::now() + kPresenceReadInterval;
      }
      auto payloads = (*listener)->wait(kWaitSlice);
      if (!payloads.ok()) {
        listening_ = false;
        lost_before = true;
        ++losses_;
        log_.warn("lost the connection that listens for other brokers' notices",
                  {{"cause", Value(payloads.error().message)}});
        break;
      }
      for (const std::string& payload : *payloads) take(payload);
    }
    if (!pause(config_.current()->notices_reconnect_interval)) return;
  }
}

}  // namespace sindri::broker
