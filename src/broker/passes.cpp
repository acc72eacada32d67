#include "broker/passes.hpp"

#include "broker/db/agent_connections.hpp"
#include "broker/db/agent_events.hpp"
#include "broker/db/audit.hpp"
#include "broker/db/diagnostics.hpp"
#include "broker/db/live_view_tickets.hpp"
#include "broker/db/notices.hpp"
#include "broker/db/telemetry.hpp"
#include "broker/db/work_orders.hpp"
#include "broker/ids.hpp"
#include "broker/template_targets_pass.hpp"
#include "broker/webhook_delivery.hpp"

namespace sindri::broker {
namespace {

// How long a notice too large for a NOTIFY is kept for the brokers it names.
constexpr auto kStoredNoticeLifetime = std::chrono::minutes(10);
// Rows a retention transaction deletes at most.
constexpr int64_t kRetentionBatch = 10000;

std::string days_ago(int64_t days) { return timestamp_at(std::chrono::system_clock::now() - std::chrono::days(days)); }

// A pass of one statement in its own write transaction.
std::function<ApiResult<size_t>()> one_statement(store::Database& db,
                                                 ApiResult<int64_t> (*statement)(store::Connection&)) {
  return [&db, statement]() -> ApiResult<size_t> {
    SINDRI_TRY(count, in_write<int64_t>(db, statement));
    return static_cast<size_t>(count);
  };
}

// Runs `batch` (Connection&, limit -> rows deleted) in transactions of its
// own until one deletes fewer than kRetentionBatch rows.
template <class Batch>
ApiResult<size_t> delete_in_batches(store::Database& db, Batch batch) {
  size_t total = 0;
  for (;;) {
    SINDRI_TRY(deleted, in_write<int64_t>(db, [&](store::Connection& connection) {
                 return batch(connection, kRetentionBatch);
               }));
    total += static_cast<size_t>(deleted);
    if (deleted < kRetentionBatch) return total;
  }
}

}  // namespace

ApiResult<size_t> delete_past_retention(store::Database& db, const BrokerConfig& config) {
  const std::string audit_cutoff = days_ago(config.audit_retention_days);
  const std::string events_cutoff = days_ago(config.agent_events_retention_days);
  SINDRI_TRY(audit, delete_in_batches(db, [&](store::Connection& connection, int64_t limit) {
               return db::delete_audit_before(connection, audit_cutoff, limit);
             }));
  SINDRI_TRY(events, delete_in_batches(db, [&](store::Connection& connection, int64_t limit) {
               return db::delete_agent_events_before(connection, events_cutoff, limit);
             }));
  return audit + events;
}

ApiResult<size_t> trim_telemetry(store::Database& db, const BrokerConfig& config) {
  const std::string cutoff = timestamp_seconds_ago(config.telemetry_retention);
  size_t total = 0;
  for (db::TelemetryTable table : {db::TelemetryTable::K8sEvents, db::TelemetryTable::PodLogs}) {
    SINDRI_TRY(deleted, delete_in_batches(db, [&](store::Connection& connection, int64_t limit) {
                 return db::delete_telemetry_before(connection, table, cutoff, limit);
               }));
    total += deleted;
  }
  const std::string now = now_timestamp();
  SINDRI_TRY(tickets, delete_in_batches(db, [&](store::Connection& connection, int64_t limit) {
               return db::delete_lapsed_tickets(connection, now, limit);
             }));
  // Other brokers read a stored notice within moments of its NOTIFY.
  const std::string notices_cutoff = timestamp_at(std::chrono::system_clock::now() - kStoredNoticeLifetime);
  SINDRI_TRY(notices, delete_in_batches(db, [&](store::Connection& connection, int64_t limit) {
               return db::delete_notices_before(connection, notices_cutoff, limit);
             }));
  // A broker gone for an hour is not coming back under its id (each start
  // takes a new one).
  const std::string absent_cutoff = timestamp_at(std::chrono::system_clock::now() - std::chrono::hours(1));
  SINDRI_TRY(absent, in_write<int64_t>(db, [&](store::Connection& connection) {
               return db::forget_absent_brokers(connection, absent_cutoff);
             }));
  return total + tickets + notices + static_cast<size_t>(absent);
}

ApiResult<size_t> record_broker_presence(store::Database& db, const std::string& broker_id) {
  SINDRI_CHECK(in_write<Ok>(db, [&](store::Connection& connection) {
    return db::record_presence(connection, broker_id, now_timestamp());
  }));
  return size_t{1};
}

std::vector<PeriodicJob> periodic_passes(store::Database& db, Logger& log, const LiveConfig& config,
                                         const std::optional<WebhookKey>& webhook_key,
                                         AuthFailureLog& auth_failures, const std::string& broker_id) {
  std::vector<PeriodicJob> jobs;
  jobs.push_back({"template_targets",
                  [](const BrokerConfig& c) { return static_cast<double>(c.template_targets_interval); }, true,
                  [&db] { return sync_all_template_targets(db); }});
  jobs.push_back({"work_order_maintenance", [](const BrokerConfig& c) { return c.work_orders_maintenance_interval; },
                  true, one_statement(db, db::release_expired_work_order_claims)});
  jobs.push_back({"diagnostics_cleanup", [](const BrokerConfig& c) { return c.diagnostics_cleanup_interval; }, true,
                  one_statement(db, db::delete_expired_diagnostics)});
  for (PeriodicJob& job : webhook_jobs(db, log, config, webhook_key)) jobs.push_back(std::move(job));
  // Each broker writes the refused authentications it counted.
  jobs.push_back({"audit_flush", [](const BrokerConfig& c) { return c.audit_flush_interval; }, false,
                  [&db, &auth_failures] { return auth_failures.flush(db, std::chrono::system_clock::now()); }});
  jobs.push_back({"retention", [](const BrokerConfig& c) { return c.retention_interval; }, true,
                  [&db, &config] { return delete_past_retention(db, *config.current()); }});
  if (db.carries_notices()) {
    jobs.push_back({"presence", [](const BrokerConfig& c) { return c.notices_presence_interval; }, false,
                    [&db, broker_id] { return record_broker_presence(db, broker_id); }});
  }
  jobs.push_back({"telemetry_trim", [](const BrokerConfig& c) { return c.telemetry_trim_interval; }, true,
                  [&db, &config] { return trim_telemetry(db, *config.current()); }});
  return jobs;
}

}  // namespace sindri::broker
