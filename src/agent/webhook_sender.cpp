#include "agent/webhook_sender.hpp"

#include <chrono>

#include "http/client.hpp"
#include "value/object_literal.hpp"
#include "value/members.hpp"

namespace sindri::agent {
namespace {

Value failure(std::string error, int64_t duration_ms) {
  return make_object(
      {{"success", Value(false)}, {"error", Value(std::move(error))}, {"duration_ms", Value(duration_ms)}});
}

}  // namespace

Value send_agent_webhook(const Value& delivery) {
  const std::string url(string_member(delivery, "url"));
  // The client takes the scheme and authority; the rest is the request's path.
  const size_t authority = url.find("://");
  if (authority == std::string::npos || (!url.starts_with("http://") && !url.starts_with("https://"))) {
    return failure("the webhook URL is not http:// or https://", 0);
  }
  const size_t path_start = url.find_first_of("/?", authority + 3);
  const std::string base = url.substr(0, path_start);
  std::string path = path_start == std::string::npos ? "/" : url.substr(path_start);
  if (path.front() == '?') path.insert(0, "/");

  http::Client client(base);
  const Value* timeout = delivery.find("timeout_seconds");
  client.set_timeout_ms(timeout && timeout->is_int() && timeout->get_int() > 0 ? timeout->get_int() * 1000 : 30000);
  std::vector<http::Header> headers = {{"X-Brokkr-Event-Type", std::string(string_member(delivery, "event_type"))},
                                       {"X-Brokkr-Delivery-Id", std::string(string_member(delivery, "id"))}};
  client.set_headers(std::move(headers));
  if (const std::string auth(string_member(delivery, "auth_header")); !auth.empty()) client.set_authorization(auth);

  const auto started = std::chrono::steady_clock::now();
  auto response = client.request("POST", path, string_member(delivery, "payload"), "application/json");
  const int64_t duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  // The transport's words name the URL, which may hold a token: say only what kind of failure.
  if (!response.ok()) return failure("the receiver could not be reached", duration_ms);
  const bool delivered = response->status >= 200 && response->status < 300;
  Value result = make_object(
      {{"success", Value(delivered)}, {"status_code", Value(response->status)}, {"duration_ms", Value(duration_ms)}});
  if (!delivered) {
    result.set("error", Value("HTTP " + std::to_string(response->status) + ": " + response->body.substr(0, 200)));
  }
  return result;
}

}  // namespace sindri::agent
