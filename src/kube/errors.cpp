#include "kube/errors.hpp"

#include "value/json.hpp"
#include "value/value.hpp"
#include "value/members.hpp"

namespace sindri::kube {
namespace {

// An answer that is not a Status (a proxy's HTML page) is quoted up to this.
constexpr size_t kMaxQuotedBody = 200;

}  // namespace

bool KubeError::retryable() const {
  return status == 0 || status == 429 || status == 500 || status == 503 || status == 504 ||
         reason == "ServiceUnavailable" || reason == "InternalError" || reason == "Timeout";
}

KubeError error_from_response(std::string_view what, int status, std::string_view body) {
  KubeError error;
  error.status = status;
  std::string detail;
  if (auto parsed = parse_json(body); parsed.ok() && string_member(parsed.value(), "kind") == "Status") {
    error.reason = string_member(parsed.value(), "reason");
    detail = string_member(parsed.value(), "message");
  }
  if (detail.empty()) {
    detail = "HTTP " + std::to_string(status);
    if (!body.empty()) {
      detail += ": " + std::string(body.substr(0, kMaxQuotedBody)) + (body.size() > kMaxQuotedBody ? "..." : "");
    }
  }
  error.message = std::string(what) + ": " + detail;
  if (!error.reason.empty()) error.message += " (" + error.reason + ")";
  return error;
}

}  // namespace sindri::kube
