#include "agent/workloads/work_order_kinds.hpp"

#include "value/pointer.hpp"
#include "value/members.hpp"

namespace sindri::agent {

namespace {

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

bool is_job(const WorkDocument& document) { return document.api_version == "batch/v1" && document.kind == "Job"; }

// A Job has finished only when a condition Complete or Failed is True: its
// `failed` count grows with every pod that fails while it still retries.
std::optional<WorkOrderOutcome> job_outcome(const Value& job, const std::string& what) {
  const Value* conditions = follow_pointer(job, "/status/conditions");
  if (!conditions || !conditions->is_array()) return std::nullopt;
  for (const Value& condition : conditions->get_array()) {
    if (string_at(condition, "/status") != "True") continue;
    const std::string type(string_at(condition, "/type"));
    if (type == "Complete") return WorkOrderOutcome{.success = true, .message = what + " completed", .retryable = false};
    if (type == "Failed") {
      std::string reason(string_at(condition, "/reason")), message(string_at(condition, "/message"));
      std::string detail = reason.empty() ? message : message.empty() ? reason : reason + ": " + message;
      return permanent_failure(what + " ran and failed: " + (detail.empty() ? "no reason given" : detail));
    }
  }
  return std::nullopt;
}

WorkOrderOutcome watch_job(kube::Client& client, const kube::ResourceType& type, const std::string& namespace_,
                           const std::string& name, const WatchLimits& limits) {
  const std::string what = "Job " + namespace_ + "/" + name;
  return watch_until_finished(what, limits, [&]() -> WatchReading {
    auto job = client.get(type, namespace_, name);
    if (job.ok()) return WatchReading{.outcome = job_outcome(*job, what), .read_error = ""};
    if (job.error().status == 404) {
      return WatchReading{.outcome = permanent_failure(what + " was applied but no longer exists: it was deleted "
                                                               "before it finished, so its outcome is unknown"),
                          .read_error = ""};
    }
    return WatchReading{.outcome = std::nullopt, .read_error = job.error().message};
  });
}

}  // namespace

WorkOrderOutcome run_custom_work_order(kube::Client& client, std::string_view yaml, const WatchLimits& limits) {
  auto documents = work_documents(yaml);
  if (!documents.ok()) return documents.error();
  // Every kind is known before anything is applied.
  std::vector<kube::ResourceType> types;
  for (const WorkDocument& document : *documents) {
    auto type = type_of(client, document);
    if (!type.ok()) return type.error();
    types.push_back(std::move(type).value());
  }
  for (size_t i = 0; i < documents->size(); ++i) {
    auto applied = apply_document(client, types[i], (*documents)[i]);
    if (!applied.ok()) return applied.error();
  }
  std::vector<std::string> watched, unwatched;
  for (size_t i = 0; i < documents->size(); ++i) {
    const WorkDocument& document = (*documents)[i];
    if (!is_job(document)) {
      unwatched.push_back(document.kind + " " + document.name);
      continue;
    }
    const std::string namespace_ = namespace_for(types[i], document);
    WorkOrderOutcome outcome = watch_job(client, types[i], namespace_, document.name, limits);
    if (!outcome.success) return outcome;
    watched.push_back(namespace_ + "/" + document.name);
  }
  std::string message = "applied " + std::to_string(documents->size()) + " object(s)";
  message += watched.empty() ? "; no batch/v1 Job among them, so nothing was watched to completion"
                             : "; Job(s) " + join(watched) + " completed";
  if (!unwatched.empty()) message += "; applied only, not watched: " + join(unwatched);
  return WorkOrderOutcome{.success = true, .message = std::move(message), .retryable = false};
}

}  // namespace sindri::agent
