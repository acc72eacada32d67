#pragma once
// The broker's periodic passes, with the settings that time them: template
// targets, work-order maintenance, diagnostic clean-up, webhook delivery and
// clean-up, retention of the audit log and agent events, and the trim of
// streamed telemetry. JobRunner
// (jobs.hpp) runs them.

#include <vector>

#include "broker/auth_failures.hpp"
#include "broker/jobs.hpp"
#include "broker/webhook_crypto.hpp"

namespace sindri::broker {

// The passes read their settings from `config` at each round; webhooks
// are sent with `webhook_key` once it is set; `auth_failures` is this
// broker's, flushed on audit.flush_interval; on PostgreSQL, the broker
// `broker_id` records its presence every notices.presence_interval.
std::vector<PeriodicJob> periodic_passes(store::Database& db, Logger& log, const LiveConfig& config,
                                         const std::optional<WebhookKey>& webhook_key,
                                         AuthFailureLog& auth_failures, const std::string& broker_id);

// Deletes audit entries and agent events past their retention
// (audit.retention_days, agent_events.retention_days); answers how many.
ApiResult<size_t> delete_past_retention(store::Database& db, const BrokerConfig& config);
// Records that broker `broker_id` is alive now (db/agent_connections.hpp).
ApiResult<size_t> record_broker_presence(store::Database& db, const std::string& broker_id);
// Deletes streamed Kubernetes events and pod log lines older than
// telemetry.retention, lapsed live-view tickets, old stored notices, and
// brokers absent for an hour with the sockets they held; answers how many.
ApiResult<size_t> trim_telemetry(store::Database& db, const BrokerConfig& config);

}  // namespace sindri::broker
