#include "agent/health_server.hpp"

#include "value/rfc3339.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::agent {
namespace {

http::Response text(int status, std::string body) {
  http::Response response;
  response.status = status;
  response.content_type = "text/plain";
  response.body = std::move(body);
  return response;
}

}  // namespace

Status HealthState::check_sink() {
  std::unique_lock checking(checking_, std::try_to_lock);
  if (!checking.owns_lock()) {
    std::lock_guard lock(mutex_);
    return last_check_;
  }
  Status checked = check_sink_();
  std::lock_guard lock(mutex_);
  last_check_ = checked;
  return checked;
}

void HealthState::heartbeat_succeeded() {
  broker_connected_ = true;
  std::lock_guard lock(mutex_);
  last_heartbeat_ = rfc3339::now();
}

void HealthState::broker_failed() { broker_connected_ = false; }

std::string HealthState::last_heartbeat() const {
  std::lock_guard lock(mutex_);
  return last_heartbeat_;
}

double HealthState::uptime_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

HealthServer::HealthServer(HealthState& state, std::string version) : state_(state), version_(std::move(version)) {}

HealthServer::~HealthServer() { stop(); }

Status HealthServer::start(const std::string& host, uint16_t port) {
  http::ServerOptions options;
  options.host = host;
  options.port = port;
  // /healthz never waits behind a /readyz or /health asking a slow cluster.
  options.threads = 3;
  options.body_limit = 1024;
  options.stop_grace = std::chrono::seconds(1);
  server_ = std::make_unique<http::Server>(
      options, [this](http::Request& request) { return handle(request); },
      [](int status, std::string_view, std::string_view message) { return text(status, std::string(message)); });
  if (auto started = server_->start(); !started.ok()) {
    server_.reset();
    return make_error("the agent's health server: " + started.error().message);
  }
  return Ok{};
}

uint16_t HealthServer::port() const { return server_ ? server_->port() : 0; }

void HealthServer::stop() {
  if (!server_) return;
  server_->stop();
  server_.reset();
}

http::Response HealthServer::handle(const http::Request& request) {
  if (request.method != "GET" && request.method != "HEAD") return text(405, "method not allowed");
  if (request.path == "/healthz") return text(200, "OK");
  if (request.path == "/readyz") {
    auto checked = state_.check_sink();
    return checked.ok() ? text(200, "Ready") : text(503, "Kubernetes API unavailable: " + checked.error().message);
  }
  if (request.path == "/metrics") {
    http::Response response = text(200, state_.metrics().render());
    response.content_type = "text/plain; version=0.0.4";
    return response;
  }
  if (request.path == "/health") {
    auto checked = state_.check_sink();
    const bool healthy = checked.ok() && state_.broker_connected();
    const std::string last = state_.last_heartbeat();
    const Value body = make_object({
        {"status", Value(healthy ? "healthy" : "unhealthy")},
        {"kubernetes", make_object({{"connected", Value(checked.ok())},
                                    {"error", checked.ok() ? Value() : Value(checked.error().message)}})},
        {"broker", make_object({{"connected", Value(state_.broker_connected())},
                                {"last_heartbeat", last.empty() ? Value() : Value(last)}})},
        {"uptime_seconds", Value(static_cast<int64_t>(state_.uptime_seconds()))},
        {"version", Value(version_)},
        {"timestamp", Value(rfc3339::now())},
    });
    http::Response response;
    response.status = healthy ? 200 : 503;
    response.body = to_json(body);
    return response;
  }
  return text(404, "not found");
}

}  // namespace sindri::agent
