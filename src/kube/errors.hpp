#pragma once
// A failed Kubernetes API call, read from the Status object the API server
// answers with.

#include <string>
#include <string_view>

namespace sindri::kube {

struct KubeError {
  int status = 0;       // HTTP status; 0 for a transport failure (refused, reset, timeout, TLS)
  std::string reason;   // the Status object's reason (NotFound, Conflict, Invalid, ...), "" if none
  std::string message;  // what failed: "PATCH apps/v1 Deployment default/web: <server's message>"
  // 429, 500, 503, 504, or reason ServiceUnavailable/InternalError/Timeout,
  // or a transport failure: what Brokkr's agent retries, and a dropped connection.
  bool retryable() const;
};

// The error of an answer with status >= 400: `what` names the call, the
// body's Status object (when it is one) gives the reason and message.
KubeError error_from_response(std::string_view what, int status, std::string_view body);

}  // namespace sindri::kube
