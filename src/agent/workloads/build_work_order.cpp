#include "agent/workloads/work_order_kinds.hpp"

#include "value/object_literal.hpp"
#include "value/pointer.hpp"
#include "value/members.hpp"

namespace sindri::agent {

namespace {

constexpr std::string_view kShipwrightGroup = "shipwright.io";
constexpr std::string_view kBuildRunApiVersion = "shipwright.io/v1beta1";

bool in_group(const WorkDocument& document, std::string_view group) {
  return document.api_version.starts_with(group);
}

// What BuildRun the work order asks for: the last Build's name and namespace,
// or a brokkr.io WorkOrder's spec.buildRef.name when it names no Build.
struct BuildChoice {
  std::string name, namespace_ = "default";
};

Value build_run_object(const std::string& name, const BuildChoice& build, std::string_view work_order_id) {
  return make_object(
      {{"apiVersion", kBuildRunApiVersion},
       {"kind", "BuildRun"},
       {"metadata", make_object({{"name", name},
                                 {"namespace", build.namespace_},
                                 {"labels", make_object({{"brokkr.io/work-order-id", work_order_id},
                                                         {"shipwright.io/build", build.name}})}})},
       {"spec", make_object({{"build", make_object({{"name", build.name}})}})}});
}

// A BuildRun has finished when its Succeeded condition is True or False.
std::optional<WorkOrderOutcome> build_run_outcome(const Value& build_run, const std::string& what) {
  const Value* conditions = follow_pointer(build_run, "/status/conditions");
  if (!conditions || !conditions->is_array()) return std::nullopt;
  for (const Value& condition : conditions->get_array()) {
    if (string_at(condition, "/type") != "Succeeded") continue;
    const std::string status(string_at(condition, "/status"));
    if (status == "True") {
      // Brokkr reports the image digest as the whole message.
      std::string digest(string_at(build_run, "/status/output/digest"));
      return WorkOrderOutcome{
          .success = true, .message = digest.empty() ? what + " succeeded" : digest, .retryable = false};
    }
    if (status == "False") {
      std::string detail;
      if (follow_pointer(build_run, "/status/failureDetails")) {
        const std::string reason(string_at(build_run, "/status/failureDetails/reason")),
                          message(string_at(build_run, "/status/failureDetails/message"));
        detail = (reason.empty() ? "Unknown" : reason) + ": " + (message.empty() ? "No message" : message);
      } else {
        detail = string_at(condition, "/message");
      }
      return permanent_failure(what + " failed: " + (detail.empty() ? "Build failed" : detail));
    }
  }
  return std::nullopt;
}

}  // namespace

WorkOrderOutcome run_build_work_order(kube::Client& client, std::string_view yaml, std::string_view work_order_id,
                                      const WatchLimits& limits) {
  auto documents = work_documents(yaml);
  if (!documents.ok()) return documents.error();
  BuildChoice build;
  for (const WorkDocument& document : *documents) {
    if (document.kind == "Build" && in_group(document, kShipwrightGroup)) {
      auto type = type_of(client, document);
      if (!type.ok()) return type.error();
      auto applied = apply_document(client, *type, document);
      if (!applied.ok()) return applied.error();
      build.name = document.name;
      if (!document.namespace_.empty()) build.namespace_ = document.namespace_;
    } else if (document.kind == "WorkOrder" && in_group(document, "brokkr.io") && build.name.empty()) {
      build.name = string_at(document.object, "/spec/buildRef/name");
    }
  }
  if (build.name.empty()) return permanent_failure("no Shipwright Build and no WorkOrder buildRef in the YAML");

  auto type = client.find_type(kBuildRunApiVersion, "BuildRun");
  if (!type.ok()) {
    if (type.error().status == 404) {
      return permanent_failure("the cluster serves no Shipwright BuildRun (" + std::string(kBuildRunApiVersion) +
                               "): is Shipwright installed?");
    }
    return kube_failure("finding Shipwright's BuildRun", type.error());
  }
  const std::string name = build.name + "-" + std::string(work_order_id.substr(0, 8));
  const std::string what = "BuildRun " + build.namespace_ + "/" + name;
  // Applied rather than created, so that a retry of the work order finds its
  // BuildRun instead of failing on AlreadyExists.
  const kube::ApplyOptions options{.field_manager = std::string(kWorkOrderFieldManager), .force = true, .dry_run = false};
  auto applied = client.apply(*type, build.namespace_, build_run_object(name, build, work_order_id), options);
  if (!applied.ok()) return kube_failure(what, applied.error());

  return watch_until_finished(what, limits, [&]() -> WatchReading {
    auto build_run = client.get(*type, build.namespace_, name);
    if (build_run.ok()) return WatchReading{.outcome = build_run_outcome(*build_run, what), .read_error = ""};
    if (build_run.error().status == 404) {
      return WatchReading{.outcome = permanent_failure(what + " was made but no longer exists, so its outcome is unknown"),
                          .read_error = ""};
    }
    return WatchReading{.outcome = std::nullopt, .read_error = build_run.error().message};
  });
}

}  // namespace sindri::agent
