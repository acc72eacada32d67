// A stack's telemetry: the Kubernetes events and pod log lines its agents
// stream over their channel, kept for telemetry.retention (6 hours at most),
// newest first, with the retention record Brokkr answers.

#include <algorithm>
#include <cstdint>

#include "broker/access.hpp"
#include "broker/api/query_params.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/stacks.hpp"
#include "broker/db/telemetry.hpp"
#include "broker/ids.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

// Brokkr's default page and its cap: a larger limit is capped, not refused.
constexpr int64_t kDefaultLimit = 500;
constexpr int64_t kMaxLimit = 5000;

Value retention_record(double retention_seconds, Value oldest_available) {
  return make_object(
      {{"retention_ceiling_seconds", Value(static_cast<int64_t>(kTelemetryCeilingSeconds))},
       {"effective_retention_seconds", Value(static_cast<int64_t>(retention_seconds))},
       {"oldest_available_ts", std::move(oldest_available)},
       {"long_term_sink_hint",
        Value("The broker retains telemetry for at most 6 hours. For long-term log centralisation, ship to Datadog "
              "or equivalent.")}});
}

// Checks the window asked for (since clamped to the retention window) and
// the caller's access to the stack; answers the window's rows under `rows_key`.
ApiResult<http::Response> telemetry_window(Call& call, db::TelemetryTable table, std::string_view rows_key) {
  SINDRI_TRY(stack_id, call.id_param());
  SINDRI_TRY(since, optional_timestamp_query(call.request, "since"));
  SINDRI_TRY(limit, optional_int_query(call.request, "limit", 1, INT64_MAX));
  const double retention = call.services.config.current()->telemetry_retention;
  const std::string window_start = timestamp_seconds_ago(retention);
  const std::string from = since && *since > window_start ? *since : window_start;
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(stack, db::load_stack(connection, stack_id));
    SINDRI_CHECK(check_stack_access(connection, call.caller, stack, StackAccess::Read));
    SINDRI_TRY(rows, db::list_telemetry(connection, table, stack_id, from, std::min(limit.value_or(kDefaultLimit), kMaxLimit)));
    SINDRI_TRY(oldest, db::oldest_telemetry(connection, table, stack_id, window_start));
    return json_response(200, make_object({{"retention", retention_record(retention, std::move(oldest))},
                                           {rows_key, std::move(rows)}}));
  });
}

ApiResult<http::Response> list_telemetry_events(Call& call) {
  return telemetry_window(call, db::TelemetryTable::K8sEvents, "events");
}
ApiResult<http::Response> list_telemetry_logs(Call& call) {
  return telemetry_window(call, db::TelemetryTable::PodLogs, "lines");
}

}  // namespace

void add_telemetry_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/stacks/{id}/events", Allow::Admin | Allow::Generator, list_telemetry_events});
  routes.push_back({"GET", "/stacks/{id}/logs", Allow::Admin | Allow::Generator, list_telemetry_logs});
}

}  // namespace sindri::broker
