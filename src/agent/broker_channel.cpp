#include "agent/broker_channel.hpp"

#include <algorithm>
#include <chrono>
#include <random>

#include "agent/wait.hpp"
#include "http/websocket_client.hpp"
#include "value/json.hpp"

namespace sindri::agent {
namespace {

// Brokkr's agent stops trying the channel after this many refusals in a row.
constexpr int kRefusalsBeforeGivingUp = 5;
// How often a read returns to see whether the agent is stopping.
constexpr auto kReadSlice = std::chrono::milliseconds(200);

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

}  // namespace

std::string BrokerChannel::url_of(const AgentSettings& settings) {
  if (!settings.ws_url.empty()) return settings.ws_url;
  std::string url = settings.broker_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (starts_with(url, "https://")) {
    url = "wss://" + url.substr(8);
  } else if (starts_with(url, "http://")) {
    url = "ws://" + url.substr(7);
  }
  return url + "/internal/ws/agent";
}

BrokerChannel::BrokerChannel(const AgentSettings& settings, std::function<void(const std::string&)> log)
    : settings_(settings), log_(std::move(log)) {
  if (settings_.ws_force_rest) return;
  thread_ = std::thread([this] { run(); });
}

BrokerChannel::~BrokerChannel() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

bool BrokerChannel::wait_backoff(double backoff) {
  thread_local std::mt19937 random{std::random_device{}()};
  const double jittered = backoff * std::uniform_real_distribution<double>(0.8, 1.2)(random);
  return wait_until(Clock::now() + seconds(jittered), stopping_);
}

void BrokerChannel::take(const std::string& frame) {
  auto parsed = parse_json(frame);
  if (!parsed.ok() || !parsed->is_object()) return;
  const Value* type = parsed->find("type");
  if (type == nullptr || !type->is_string()) return;
  const std::string_view kind = type->get_string();
  if (kind == "target_changed" || kind == "stack_changed") target_push_ = true;
  if (kind == "work_order") work_push_ = true;
  if (kind == "error") log_("the broker's channel refused a frame: " + frame);
}

Queued BrokerChannel::send(std::string frame) {
  if (!connected_) return Queued::disconnected;
  std::lock_guard lock(outbox_mutex_);
  if (outbox_.size() >= kOutboxCapacity) return Queued::full;
  outbox_.push_back(std::move(frame));
  return Queued::yes;
}

bool BrokerChannel::send_queued(http::WebSocketClient& socket) {
  std::deque<std::string> frames;
  {
    std::lock_guard lock(outbox_mutex_);
    frames.swap(outbox_);
  }
  for (const std::string& frame : frames) {
    if (!socket.send(frame)) return false;
  }
  return true;
}

void BrokerChannel::run() {
  const std::string url = url_of(settings_);
  http::WebSocketClientOptions options;
  options.headers = {{"Authorization", "Bearer " + settings_.pak}};
  options.ca_file = settings_.ca_file;
  options.insecure_skip_verify = settings_.insecure_skip_tls_verify;
  options.connect_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double>(settings_.broker_timeout));
  double backoff = settings_.broker_backoff_initial;
  int refusals = 0;
  while (!stopping_) {
    http::WebSocketEnd failure;
    auto socket = http::WebSocketClient::connect(url, options, failure);
    if (!socket) {
      const bool refused = failure.refused_status == 401 || failure.refused_status == 403;
      refusals = refused ? refusals + 1 : 0;
      if (refusals >= kRefusalsBeforeGivingUp) {
        log_("the broker refused the agent channel " + std::to_string(refusals) +
             " times in a row; polling by REST only from now on, and sending no telemetry: " + failure.message);
        gave_up_ = true;
        return;
      }
      log_("the agent channel is not open (" + failure.message + "); polling by REST meanwhile");
      if (!wait_backoff(backoff)) return;
      backoff = std::min(backoff * 2, settings_.broker_backoff_max);
      continue;
    }
    refusals = 0;
    backoff = settings_.broker_backoff_initial;
    connected_ = true;
    log_("agent channel open at " + url);
    // Whatever changed while the channel was down is read at once.
    target_push_ = true;
    while (!stopping_) {
      if (!send_queued(*socket)) break;
      std::optional<std::string> frame = socket->read(kReadSlice);
      if (frame) {
        take(*frame);
      } else if (socket->ended()) {
        break;
      }
    }
    connected_ = false;
    {
      // Frames queued for a socket that ended are lost with it.
      std::lock_guard lock(outbox_mutex_);
      outbox_.clear();
    }
    if (stopping_) {
      socket->close(1001);
      return;
    }
    const std::string why = socket->ended() ? socket->ended()->message : "a frame could not be sent";
    log_("the agent channel ended (" + why + "); polling by REST meanwhile");
    if (!wait_backoff(backoff)) return;
    backoff = std::min(backoff * 2, settings_.broker_backoff_max);
  }
}

}  // namespace sindri::agent
