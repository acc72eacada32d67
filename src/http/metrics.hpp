#pragma once
// Prometheus metrics for the HTTP layer: requests and latency per route,
// method and status, written in the text exposition format. Thread-safe and
// cheap on the request path (one lock-free lookup after the first request of
// a route/method/status).

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sindri::http {

class Metrics {
 public:
  Metrics();
  ~Metrics();
  void observe(std::string_view route, std::string_view method, int status, std::chrono::nanoseconds latency);

  // A gauge read when metrics are scraped (pool use, open connections), or a
  // counter kept elsewhere and read the same way (database writes).
  struct Gauge {
    std::string name;  // e.g. "sindri_db_pool_in_use"
    std::string help;
    double value = 0;
    bool counter = false;
    // Written between braces as given (reason="header_timeout"); empty for
    // none. Series of one name share the first one's help and type.
    std::string labels = {};
  };
  // The exposition text: sindri_http_requests_total{route,method,status},
  // sindri_http_request_duration_seconds histogram{route,method,status}, then
  // gauges, those of one name together under one HELP and TYPE, names in the
  // order they first appear.
  std::string render(const std::vector<Gauge>& gauges) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sindri::http
