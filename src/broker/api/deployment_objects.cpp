// Deployment objects: immutable YAML snapshots of a stack's desired state,
// numbered by a sequence id that only grows.

#include "broker/access.hpp"
#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/deployment_objects.hpp"
#include "broker/db/stacks.hpp"
#include "broker/db/templates.hpp"
#include "broker/manifests.hpp"
#include "broker/notices.hpp"
#include "broker/provenance.hpp"
#include "broker/pushes.hpp"
#include "value/digest.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

bool is_yaml_media_type(std::string_view content_type) {
  const std::string_view media = content_type.substr(0, content_type.find(';'));
  return media == "application/yaml" || media == "application/x-yaml" || media == "text/yaml" ||
         media == "text/x-yaml";
}

struct Submission {
  std::string yaml;
  bool deletion_marker = false;
};

// JSON (CreateDeploymentObjectRequest) or, with a YAML content type, the YAML
// itself and ?deletion_marker=true.
ApiResult<Submission> read_submission(const http::Request& request) {
  constexpr TextRule kYamlContentRule{0, false, true, false};
  Submission submission;
  if (is_yaml_media_type(request.header("Content-Type"))) {
    submission.yaml = request.body;
    SINDRI_TRY(marker, optional_bool_query(request, "deletion_marker"));
    submission.deletion_marker = marker;
    // A marker's text is not read as manifests (whose errors say where in
    // the YAML), but it is served to agents as JSON all the same.
    if (submission.deletion_marker) {
      SINDRI_CHECK(check_text(submission.yaml, kYamlContentRule, ""));
    } else {
      SINDRI_CHECK(check_manifests(submission.yaml, ""));
    }
    return submission;
  }
  SINDRI_TRY(body, BodyObject::parse(request, "CreateDeploymentObjectRequest"));
  SINDRI_TRY(yaml, body.required_string("yaml_content", kYamlContentRule));
  SINDRI_TRY(marker, body.optional_bool("is_deletion_marker"));
  SINDRI_CHECK(body.finish());
  submission.yaml = std::move(yaml);
  submission.deletion_marker = marker.value_or(false);
  if (!submission.deletion_marker) SINDRI_CHECK(check_manifests(submission.yaml, "/yaml_content"));
  return submission;
}

ApiResult<http::Response> create_deployment_object(Call& call) {
  SINDRI_TRY(stack_id, call.id_param());
  SINDRI_TRY(submission, read_submission(call.request));
  const std::string checksum = sha256_hex(submission.yaml);
  // The answer is written outside the transaction: SQLite's writes queue
  // behind it.
  StagedNotices notices(*call.services.notices);
  SINDRI_TRY(object, in_write<Value>(call.db(), [&](store::Connection& connection) -> ApiResult<Value> {
    // One statement checks the stack and its owner as it inserts; only when
    // it inserts nothing does the stack's row say which answer is due.
    const std::string_view owner =
        call.caller.kind == Identity::Kind::Generator ? std::string_view(call.caller.id) : std::string_view();
    auto inserted =
        db::insert_deployment_object(connection, stack_id, submission.yaml, checksum, submission.deletion_marker, owner);
    if (inserted.ok()) {
      SINDRI_CHECK(notices.stage(connection, stack_changed_notice(stack_id, std::string(field(*inserted, "id")))));
    }
    if (inserted.ok() || inserted.error().status != 404) return inserted;
    SINDRI_TRY(stack, db::load_stack(connection, stack_id));
    SINDRI_CHECK(check_stack_access(connection, call.caller, stack, StackAccess::Manage));
    return inserted;
  }));
  notices.deliver();
  return json_response(201, object);
}

ApiResult<http::Response> list_deployment_objects(Call& call) {
  SINDRI_TRY(stack_id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(stack, db::load_stack(connection, stack_id));
    SINDRI_CHECK(check_stack_access(connection, call.caller, stack, StackAccess::Manage));
    SINDRI_TRY(objects, db::list_deployment_objects(connection, stack_id));
    return json_response(200, objects);
  });
}

ApiResult<http::Response> get_deployment_object(Call& call) {
  SINDRI_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(object, load_readable_object(connection, call.caller, id));
    return json_response(200, object);
  });
}

// Beyond Brokkr: the template version and parameters an object was rendered
// from, with that version's record (superseded or not), so that anyone may
// render it again and compare.
ApiResult<http::Response> get_provenance(Call& call) {
  SINDRI_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(provenance, load_readable_provenance(connection, call.caller, id));
    db::RecordedProvenance& recorded = provenance.recorded;
    SINDRI_TRY(tpl, db::load_any_template(connection, recorded.template_id.get_string()));
    return json_response(200, make_object({{"deployment_object_id", Value(id)},
                                           {"template_id", std::move(recorded.template_id)},
                                           {"template_version", std::move(recorded.template_version)},
                                           {"parameters", std::move(provenance.parameters)},
                                           {"created_at", std::move(recorded.created_at)},
                                           {"template", std::move(tpl)}}));
  });
}

// Beyond Brokkr: the provenance of every object of a stack rendered from a
// template, in one answer, so that a listing of the stack's objects with
// their templates costs one request, not one per object. Whoever may list
// the stack's objects may read it.
ApiResult<http::Response> list_stack_provenance(Call& call) {
  SINDRI_TRY(stack_id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(stack, db::load_stack(connection, stack_id));
    SINDRI_CHECK(check_stack_access(connection, call.caller, stack, StackAccess::Manage));
    SINDRI_TRY(records, db::list_stack_provenance(connection, stack_id));
    Array answer;
    answer.reserve(records.size());
    for (db::ObjectProvenance& record : records) {
      SINDRI_TRY(parameters, recorded_parameters(record.recorded, record.deployment_object_id.get_string()));
      answer.push_back(make_object({{"deployment_object_id", std::move(record.deployment_object_id)},
                                    {"template_id", std::move(record.recorded.template_id)},
                                    {"template_name", std::move(record.template_name)},
                                    {"template_version", std::move(record.recorded.template_version)},
                                    {"parameters", std::move(parameters)},
                                    {"created_at", std::move(record.recorded.created_at)}}));
    }
    return json_response(200, Value(std::move(answer)));
  });
}

}  // namespace

void add_deployment_object_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"POST", "/stacks/{id}/deployment-objects", Allow::Admin | Allow::Generator, create_deployment_object});
  routes.push_back({"GET", "/stacks/{id}/deployment-objects", Allow::Admin | Allow::Generator, list_deployment_objects});
  routes.push_back({"GET", "/deployment-objects/{id}", Allow::Admin | Allow::Generator | Allow::Agent, get_deployment_object});
  routes.push_back({"GET", "/deployment-objects/{id}/provenance", Allow::Admin | Allow::Generator, get_provenance});
  routes.push_back({"GET", "/stacks/{id}/provenance", Allow::Admin | Allow::Generator, list_stack_provenance});
}

}  // namespace sindri::broker
