#include "agent/workloads/work_order_steps.hpp"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "value/pointer.hpp"
#include "value/yaml/yaml.hpp"
#include "value/members.hpp"

namespace sindri::agent {

namespace {

// The longest a watch sleeps between looks at `stopping`, so a stop is
// honoured at once whatever the poll interval.
constexpr auto kStopCheckSlice = std::chrono::milliseconds(20);

// Seconds as a clock duration; below 0 (or NaN) is 0, and past ten years is
// ten years, so that no claim timeout a broker sends can overflow the clock.
std::chrono::steady_clock::duration steady_duration(double seconds) {
  constexpr double kLongest = 10 * 365 * 86400.0;
  const double bounded = seconds > 0 ? std::min(seconds, kLongest) : 0.0;
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(bounded));
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

}  // namespace

std::string WorkDocument::describe() const {
  std::string text = "document " + std::to_string(index) + " (" + api_version + " " + kind;
  if (!name.empty()) text += " " + (namespace_.empty() ? name : namespace_ + "/" + name);
  return text + ")";
}

WorkOrderOutcome permanent_failure(std::string message) {
  return WorkOrderOutcome{.success = false, .message = std::move(message), .retryable = false};
}

Result<std::vector<WorkDocument>, WorkOrderOutcome> work_documents(std::string_view yaml) {
  auto parsed = parse_yaml_stream(yaml);
  if (!parsed.ok()) {
    const YamlError& error = parsed.error();
    return permanent_failure("document " + std::to_string(error.document + 1) + ": unparseable YAML at line " +
                             std::to_string(error.line) + ", column " + std::to_string(error.column) + ": " +
                             error.message);
  }
  std::vector<WorkDocument> documents;
  for (size_t i = 0; i < parsed->size(); ++i) {
    const Value& object = (*parsed)[i].value;
    if (object.is_null()) continue;
    if (!object.is_object()) {
      return permanent_failure("document " + std::to_string(i + 1) + ": a YAML " + object.kind_name() +
                               ", not a Kubernetes object (a mapping)");
    }
    documents.push_back(WorkDocument{.index = i + 1,
                                     .object = object,
                                     .api_version = std::string(string_at(object, "/apiVersion")),
                                     .kind = std::string(string_at(object, "/kind")),
                                     .name = std::string(string_at(object, "/metadata/name")),
                                     .namespace_ = std::string(string_at(object, "/metadata/namespace"))});
  }
  if (documents.empty()) return permanent_failure("the work order's YAML holds no document");
  return documents;
}

WorkOrderOutcome kube_failure(std::string_view what, const kube::KubeError& error) {
  return WorkOrderOutcome{.success = false,
                          .message = std::string(what) + ": " + error.message,
                          .retryable = error.retryable()};
}

Result<kube::ResourceType, WorkOrderOutcome> type_of(kube::Client& client, const WorkDocument& document) {
  if (document.api_version.empty() || document.kind.empty()) {
    return permanent_failure(document.describe() + ": no apiVersion or kind, so no Kubernetes object");
  }
  if (document.name.empty()) {
    return permanent_failure(document.describe() +
                             ": no metadata.name (server-side apply needs one; generateName is not supported)");
  }
  auto type = client.find_type(document.api_version, document.kind);
  if (type.ok()) return std::move(type).value();
  if (type.error().status == 404) {
    return permanent_failure(document.describe() + ": the cluster serves no kind " + document.kind + " in " +
                             document.api_version);
  }
  return kube_failure(document.describe(), type.error());
}

std::string namespace_for(const kube::ResourceType& type, const WorkDocument& document) {
  if (!type.namespaced) return {};
  return document.namespace_.empty() ? "default" : document.namespace_;
}

Result<Value, WorkOrderOutcome> apply_document(kube::Client& client, const kube::ResourceType& type,
                                               const WorkDocument& document) {
  const kube::ApplyOptions options{.field_manager = std::string(kWorkOrderFieldManager), .force = true, .dry_run = false};
  auto applied = client.apply(type, namespace_for(type, document), document.object, options);
  if (!applied.ok()) return kube_failure(document.describe(), applied.error());
  return std::move(applied).value();
}

WatchLimits watch_limits(double claim_timeout_seconds, const WorkOrderTiming& timing,
                         const std::atomic<bool>& stopping) {
  const double margin = std::max(claim_timeout_seconds * 0.1, timing.claim_margin_floor_seconds);
  return WatchLimits{.deadline = std::chrono::steady_clock::now() + steady_duration(claim_timeout_seconds - margin),
                     .claim_timeout_seconds = claim_timeout_seconds,
                     .poll_interval = timing.job_poll_interval,
                     .stopping = &stopping};
}

WorkOrderOutcome watch_until_finished(std::string_view what, const WatchLimits& limits,
                                      const std::function<WatchReading()>& read) {
  const auto not_finished = [&](std::string why, const std::string& read_error) {
    std::string message = std::string(what) + " " + why + "; it was not cancelled and its outcome is unknown";
    if (!read_error.empty()) message += " (the last status read failed: " + read_error + ")";
    return WorkOrderOutcome{.success = false, .message = std::move(message), .retryable = true};
  };
  const auto interval = steady_duration(limits.poll_interval);
  while (true) {
    WatchReading reading = read();
    if (reading.outcome) return std::move(*reading.outcome);
    const auto next_read = std::chrono::steady_clock::now() + interval;
    while (true) {
      if (limits.stopping->load()) return not_finished("was still running when the agent stopped", reading.read_error);
      const auto now = std::chrono::steady_clock::now();
      if (now >= limits.deadline) {
        return not_finished("had not finished when the work order's claim timeout (" +
                                seconds_text(limits.claim_timeout_seconds) + " s) came near",
                            reading.read_error);
      }
      if (now >= next_read) break;
      std::this_thread::sleep_for(std::min({next_read - now, limits.deadline - now,
                                            std::chrono::steady_clock::duration(kStopCheckSlice)}));
    }
  }
}

}  // namespace sindri::agent
