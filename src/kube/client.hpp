#pragma once
// A small Kubernetes API client: discovery, get, list, server-side apply,
// delete and raw GETs, with the retries Brokkr's agent makes. Safe to call
// from several threads (one connection, taken in turn).

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kube/config.hpp"
#include "kube/discovery.hpp"
#include "kube/errors.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::kube {

struct ApplyOptions {
  std::string field_manager = "brokkr-controller";
  bool force = true;
  bool dry_run = false;
};

// Seconds, fractions allowed (tests use milliseconds). Retryable errors
// (KubeError::retryable) wait initial_delay, doubling up to max_delay, until
// the next wait would pass give_up_after; other errors fail at once.
struct RetryPolicy {
  double initial_delay = 1, max_delay = 60, give_up_after = 300;
  double request_timeout = 30;  // one HTTP request, connecting included
};

struct OperationRecord {
  std::string_view operation;  // version, discovery, get, list, apply, delete, get_text
  bool ok;
  double seconds;  // retries included
};

class Client {
 public:
  explicit Client(ClusterConfig config, RetryPolicy retry = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const ClusterConfig& config() const;
  // Called after each operation (for the agent's metrics); set it before use.
  void on_operation(std::function<void(const OperationRecord&)> observer);
  // Once *stopping is true, retryable errors are no longer retried and a
  // wait between attempts ends early: a stopping agent finishes in moments.
  void stop_retrying_when(const std::atomic<bool>* stopping);
  // Items asked for per list request (`limit`; 500 as kubectl); set it before use.
  void set_list_page_size(size_t items);

  // Retries::none for a reachability probe (the agent's heartbeat), which
  // must answer now rather than after the retry policy's minutes.
  enum class Retries { policy, none };
  Result<Value, KubeError> version(Retries retries = Retries::policy);  // GET /version
  // Every kind of every group version (subresources left out), cached until
  // forget_discovery. A group version's document is asked for a few times;
  // one that keeps answering 503 is left out and named in `unavailable`, any
  // other failure fails discovery.
  Result<Discovery, KubeError> discovery();
  // discovery()'s kinds.
  Result<std::vector<ResourceType>, KubeError> resource_types();
  void forget_discovery();
  // Finds a kind; on a miss refreshes discovery once; an unknown kind is
  // KubeError{404, "NotFound", ...}.
  Result<ResourceType, KubeError> find_type(std::string_view api_version, std::string_view kind);

  Result<Value, KubeError> get(const ResourceType& type, std::string_view ns, std::string_view name);
  // Every page (following `continue`); items carry apiVersion and kind. ns "" = all namespaces.
  Result<std::vector<Value>, KubeError> list(const ResourceType& type, std::string_view ns,
                                             std::string_view label_selector = {},
                                             std::string_view field_selector = {});
  // Server-side apply: PATCH to the object's URL, application/apply-patch+yaml.
  Result<Value, KubeError> apply(const ResourceType& type, std::string_view ns, const Value& object,
                                 const ApplyOptions& options);
  // DELETE with DeleteOptions{propagationPolicy}; a 404 counts as done.
  Result<Ok, KubeError> remove(const ResourceType& type, std::string_view ns, std::string_view name,
                               std::string_view propagation = "Background");
  // A raw GET of a path (pod logs: text), with retries.
  Result<std::string, KubeError> get_text(std::string_view path_and_query);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sindri::kube
