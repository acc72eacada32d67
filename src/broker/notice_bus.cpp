#include "broker/notice_bus.hpp"

#include <chrono>
#include <memory>

#include "broker/context.hpp"
#include "broker/db/notices.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

constexpr std::string_view kTopic = "sindri_notices";
// How long a wait for notices lasts before the thread looks at stopping_.
constexpr auto kWaitSlice = std::chrono::milliseconds(200);

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
      thread_([this] { run(); }) {}

NoticeBus::~NoticeBus() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void NoticeBus::send(const Value& notice) {
  Value sent = notice;
  sent.set("origin", Value(broker_id_));
  std::string payload = to_json(sent);
  if (payload.size() > store::kMaxNoticeBytes) {
    auto stored = in_write<std::string>(db_, [&](store::Connection& connection) {
      return db::store_notice(connection, payload);
    });
    if (!stored.ok()) {
      log_.warn("notice not sent to other brokers", {{"cause", Value(cause_of(stored.error()))}});
      return;
    }
    payload = to_json(make_object({{"origin", Value(broker_id_)}, {"stored", Value(*stored)}}));
  }
  if (auto sent_status = db_.notify(kTopic, payload); !sent_status.ok()) {
    log_.warn("notice not sent to other brokers", {{"cause", Value(sent_status.error().message)}});
  }
}

void NoticeBus::take(const std::string& payload) {
  auto parsed = parse_json(payload);
  if (!parsed.ok() || !parsed->is_object()) return;
  const Value* origin = parsed->find("origin");
  if (origin != nullptr && origin->is_string() && origin->get_string() == broker_id_) return;
  const Value* stored = parsed->find("stored");
  if (stored == nullptr || !stored->is_string()) return deliver_(parsed.value());
  auto text = in_read<std::string>(db_, [&](store::Connection& connection) {
    return db::load_notice(connection, stored->get_string());
  });
  if (!text.ok()) {
    log_.warn("a stored notice could not be read", {{"id", *stored}, {"cause", Value(cause_of(text.error()))}});
    return;
  }
  auto notice = parse_json(*text);
  if (notice.ok() && notice->is_object()) deliver_(notice.value());
}

bool NoticeBus::pause(double seconds) {
  std::unique_lock lock(mutex_);
  return !wake_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return stopping_; });
}

void NoticeBus::run() {
  bool lost_before = false;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    auto listener = db_.listen(kTopic);
    if (!listener.ok()) {
      log_.warn("cannot listen for other brokers' notices", {{"cause", Value(listener.error().message)}});
      if (!pause(config_.current()->notices_reconnect_interval)) return;
      continue;
    }
    listening_ = true;
    if (lost_before) {
      log_.info("listening for other brokers' notices again; agents connected here poll at once", {});
      replay_();
    }
    for (;;) {
      {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
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
