#include "agent/kube_wiring.hpp"

#include <chrono>

#include "agent/kube_sink.hpp"
#include "agent/telemetry.hpp"
#include "agent/workloads/deployment_health.hpp"
#include "agent/workloads/diagnostics.hpp"
#include "agent/workloads/work_order.hpp"
#include "kube/client.hpp"
#include "kube/config.hpp"

namespace sindri::agent {

KubeWiring::KubeWiring(const AgentSettings& settings, std::unique_ptr<kube::Client> client,
                       std::unique_ptr<kube::Client> telemetry_client, std::function<void(const std::string&)> log)
    : settings_(settings),
      client_(std::move(client)),
      telemetry_client_(std::move(telemetry_client)),
      log_(std::move(log)) {}

KubeWiring::~KubeWiring() = default;

Result<std::unique_ptr<KubeWiring>> KubeWiring::connect(const AgentSettings& settings,
                                                        std::function<void(const std::string&)> log) {
  kube::KubeconfigOptions options;
  options.path = settings.kubeconfig;
  options.context = settings.kube_context;
  auto config = kube::load_cluster_config(options);
  if (!config.ok()) return make_error("the cluster's configuration: " + config.error().message);
  log("cluster " + config->server + " from " + config->source);
  kube::RetryPolicy retry{settings.kube_retry_initial, settings.kube_retry_max, settings.kube_retry_give_up};
  // Telemetry's reads (a log of megabytes, lists every few seconds) go on a
  // connection of their own, never holding up an apply.
  auto telemetry_client = std::make_unique<kube::Client>(*config, retry);
  return std::unique_ptr<KubeWiring>(new KubeWiring(settings, std::make_unique<kube::Client>(std::move(*config), retry),
                                                    std::move(telemetry_client), std::move(log)));
}

void KubeWiring::stop_when(const std::atomic<bool>* stopping) {
  stopping_ = stopping;
  client_->stop_retrying_when(stopping);
  telemetry_client_->stop_retrying_when(stopping);
}

Result<std::unique_ptr<Sink>> KubeWiring::make_sink(const std::string& agent_id) {
  KubeSinkOptions options;
  options.agent_id = agent_id;
  options.watch_namespace = settings_.watch_namespace;
  options.crd_wait = settings_.crd_wait;
  options.crd_poll_interval = settings_.crd_poll_interval;
  options.stopping = stopping_;
  return std::unique_ptr<Sink>(std::make_unique<KubeSink>(*client_, options));
}

SinkHooks KubeWiring::hooks() {
  kube::Client& client = *client_;
  const std::string watch_namespace = settings_.watch_namespace;
  SinkHooks hooks;
  hooks.probe_sink = [&client]() -> Result<int64_t> {
    const auto started = std::chrono::steady_clock::now();
    // Not retried: the heartbeat and /readyz tell how the cluster is now.
    auto version = client.version(kube::Client::Retries::none);
    if (!version.ok()) return make_error(version.error().message);
    return static_cast<int64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count());
  };
  hooks.deployment_health = [&client, watch_namespace](const std::vector<std::string>& ids) {
    return check_deployments_health(client, ids, watch_namespace);
  };
  hooks.collect_diagnostics = [&client, watch_namespace](const std::string& id, const std::string& yaml) {
    return collect_diagnostics(client, id, yaml, watch_namespace);
  };
  WorkOrderTiming timing;
  timing.job_poll_interval = settings_.job_poll_interval;
  timing.claim_timeout_seconds = settings_.work_order_claim_timeout;
  hooks.run_work_order = [&client, timing](const Value& work_order, const std::atomic<bool>& stopping) {
    const WorkOrderOutcome outcome = run_work_order(client, work_order, timing, stopping);
    return TaskOutcome{outcome.success, outcome.message, outcome.retryable};
  };
  hooks.start_telemetry = [&telemetry = *telemetry_client_, settings = settings_, log = log_](
                               const std::string& agent_id, Uplink& uplink) {
    return start_telemetry(telemetry, settings, agent_id, uplink, log);
  };
  hooks.observe_into = [&client](AgentMetrics& metrics) {
    client.on_operation([&metrics](const kube::OperationRecord& record) {
      metrics.observe_kubernetes(record.operation, record.seconds);
    });
  };
  return hooks;
}

}  // namespace sindri::agent
