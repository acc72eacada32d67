// Instantiating a template into a stack (seed 000), and the dry run that
// answers with the YAML instead of storing it. The checks answer in the
// seed's order: the stack and the template exist and are live, the caller
// may deploy into the stack, their labels match, the parameters satisfy the
// schema, the template renders, the output is Kubernetes YAML. Loading and
// rendering run on the render pool (render_pool.hpp), the write after it on
// a request thread; the database checks run inside the transaction that writes the deployment
// object and its provenance, so that a template retired or relabelled
// meanwhile is never instantiated (the dry run checks first, on the request
// thread).

#include <memory>
#include <optional>

#include "broker/access.hpp"
#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/deployment_objects.hpp"
#include "broker/db/template_targets.hpp"
#include "broker/db/templates.hpp"
#include "broker/notices.hpp"
#include "broker/provenance.hpp"
#include "broker/pushes.hpp"
#include "broker/render_pool.hpp"
#include "broker/template_rendering.hpp"
#include "render/bounded_cache.hpp"
#include "value/digest.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

struct LoadedVersion {
  int64_t version = 0;
  render::CompiledTemplateVersion compiled;
};
using LoadedVersionPtr = std::shared_ptr<const LoadedVersion>;

// A template version never changes once stored (an update makes a new id),
// so its compiled form is kept by id; whether the version is still live is
// asked of the database every time.
render::BoundedCache<LoadedVersion>& loaded_versions() {
  static render::BoundedCache<LoadedVersion> cache;
  return cache;
}

// The version by id, live or not (liveness is checked with the stack).
ApiResult<LoadedVersionPtr> load_version(store::Database& db, const std::string& template_id) {
  if (LoadedVersionPtr cached = loaded_versions().find(template_id)) return cached;
  SINDRI_TRY(source, in_read<std::optional<db::TemplateSource>>(
                         db, [&](store::Connection& connection) { return db::load_template_source(connection, template_id); }));
  if (!source) return not_found("template", template_id);
  SINDRI_TRY(compiled, compile_stored_version(
                           render::TemplateVersion{source->name, source->version, source->content, source->parameters_schema}));
  auto loaded = std::make_shared<const LoadedVersion>(LoadedVersion{source->version, std::move(compiled)});
  loaded_versions().add(template_id, loaded);
  return LoadedVersionPtr(loaded);
}

// 422 template_stack_mismatch listing what the stack lacks.
ApiError mismatch_error(const db::TemplateMismatch& mismatch, std::string_view template_id, std::string_view stack_id) {
  std::string message = "template " + std::string(template_id) + " does not match stack " + std::string(stack_id) +
                        ": the stack lacks";
  Array labels;
  for (const std::string& label : mismatch.missing_labels) {
    labels.push_back(Value(label));
    message += " label \"" + label + "\",";
  }
  Array annotations;
  for (const auto& [key, value] : mismatch.missing_annotations) {
    annotations.push_back(make_object({{"key", Value(key)}, {"value", Value(value)}}));
    message += " annotation " + key + "=" + value + ",";
  }
  message.pop_back();
  return ApiError{422, "template_stack_mismatch", std::move(message),
                  make_object({{"template_id", Value(template_id)},
                               {"stack_id", Value(stack_id)},
                               {"missing_labels", Value(std::move(labels))},
                               {"missing_annotations", Value(std::move(annotations))}}),
                  std::nullopt};
}

// Whether `template_id` may be instantiated into `stack_id` by the caller:
// 404 for a missing stack or template, then 403, then 422 listing what the
// stack lacks. One query answers it when all is well.
ApiResult<Ok> check_target(store::Connection& connection, const Identity& caller, const std::string& template_id,
                           const std::string& stack_id) {
  SINDRI_TRY(target, db::load_instantiation_target(connection, template_id, stack_id));
  if (!target) return not_found("stack", stack_id);
  if (!target->template_live) return not_found("template", template_id);
  SINDRI_CHECK(check_stack_access(
      connection, caller,
      make_object({{"id", Value(stack_id)}, {"generator_id", std::move(target->stack_generator_id)}}),
      StackAccess::Manage));
  if (!target->labels_match) {
    SINDRI_TRY(mismatch, db::template_mismatch(connection, template_id, stack_id));
    return mismatch_error(mismatch, template_id, stack_id);
  }
  return Ok{};
}

// Every check that needs the database, read-only: with a stack, as
// instantiation into it; without, only that the template is live.
ApiResult<Ok> check_in_read(store::Database& db, const Identity& caller, const std::string& template_id,
                            const std::optional<std::string>& stack_id) {
  return in_read<Ok>(db, [&](store::Connection& connection) -> ApiResult<Ok> {
    if (stack_id) return check_target(connection, caller, template_id, *stack_id);
    return check_template_access(connection, caller, template_id, false);
  });
}

struct Rendered {
  std::string yaml;
  int64_t version = 0;
};

ApiResult<Rendered> render_version(const Services& services, const std::string& template_id, const Value& parameters) {
  SINDRI_TRY(loaded, load_version(services.db, template_id));
  SINDRI_TRY(yaml, render_stored_version(loaded->compiled, parameters, *services.config.current(),
                                         &services.render_pool->cancel_flag()));
  return Rendered{std::move(yaml), loaded->version};
}

// The write of the object and its provenance, whose one statement checks
// the stack, the template, access and labels. A read for those checks
// before the render would cost a round trip per instantiation (a quarter of
// the throughput on PostgreSQL); a caller who may not instantiate spends
// only its own share of the pool.
ApiResult<http::Response> store_rendered(const Services& services, const Identity& caller,
                                         const std::string& template_id, const std::string& stack_id,
                                         const Rendered& rendered, const std::string& recorded_parameters) {
  const std::string checksum = sha256_hex(rendered.yaml);
  // The answer is written outside the transaction: SQLite's writes queue
  // behind it.
  StagedNotices notices(*services.notices);
  SINDRI_TRY(object, in_write<Value>(services.db, [&](store::Connection& connection) -> ApiResult<Value> {
    // One statement checks the stack, its owner, the template and their
    // labels again as it inserts (a template retired or relabelled since
    // the checks); only when it inserts nothing does check_target say
    // which answer is due.
    const std::string_view owner =
        caller.kind == Identity::Kind::Generator ? std::string_view(caller.id) : std::string_view();
    const db::Provenance provenance{template_id, rendered.version, recorded_parameters};
    auto inserted = db::insert_deployment_object(connection, stack_id, rendered.yaml, checksum, false, owner, &provenance);
    if (!inserted.ok() && inserted.error().status == 404) {
      SINDRI_CHECK(check_target(connection, caller, template_id, stack_id));
    }
    SINDRI_CHECK(inserted);
    SINDRI_CHECK(notices.stage(connection, stack_changed_notice(stack_id, std::string(field(*inserted, "id")))));
    return inserted;
  }));
  notices.deliver();
  return json_response(201, object);
}

struct InstantiationRequest {
  Identity caller;
  std::string template_id;
  std::string stack_id;
  Value parameters;
  std::string method;
  std::string path;
};

// On the render pool: the render; then, on a request thread, the write
// (store_rendered), so that a pool thread never waits on the database.
ApiResult<http::Response> render_then_store(const Services& services, InstantiationRequest request) {
  auto rendered = render_version(services, request.template_id, request.parameters);
  if (!rendered.ok()) {
    // A failure to load or render yields to the error the seed's order
    // puts first (404, 403, 422), when there is one.
    SINDRI_CHECK(check_in_read(services.db, request.caller, request.template_id, request.stack_id));
    return std::move(rendered).error();
  }
  auto stored = std::make_shared<const Rendered>(std::move(rendered).value());
  std::string method = request.method;
  std::string path = request.path;
  return on_request_thread(services.log, std::move(method), std::move(path),
                           [&services, request = std::move(request), stored]() {
                             return store_rendered(services, request.caller, request.template_id, request.stack_id,
                                                   *stored, to_json(request.parameters));
                           });
}

ApiResult<http::Response> instantiate(Call& call) {
  SINDRI_TRY(stack_id, call.id_param());
  SINDRI_TRY(body, BodyObject::parse(call.request, "TemplateInstantiationRequest"));
  SINDRI_TRY(template_id, body.required_string("template_id", kUuidRule));
  SINDRI_TRY(parameters, body.required_value("parameters"));
  SINDRI_CHECK(body.finish());
  InstantiationRequest request{call.caller,          template_id, stack_id, std::move(parameters),
                               call.request.method, call.request.path};
  // Called once: the request moves into the work.
  return call.on_render_pool([&services = call.services, request = std::move(request)]() mutable {
    return render_then_store(services, std::move(request));
  });
}

// Beyond Brokkr: every check of an instantiation, nothing stored; the
// preview of the admin UI and of `sindri template render`.
ApiResult<http::Response> dry_run(Call& call) {
  SINDRI_TRY(template_id, call.id_param());
  SINDRI_TRY(body, BodyObject::parse(call.request, "TemplateRenderRequest"));
  SINDRI_TRY(parameters, body.required_value("parameters"));
  SINDRI_TRY(stack_id, body.optional_string("stack_id", kUuidRule));
  SINDRI_CHECK(body.finish());
  SINDRI_CHECK(check_in_read(call.db(), call.caller, template_id, stack_id));
  return call.on_render_pool(
      [&services = call.services, template_id, parameters = std::move(parameters)]() -> ApiResult<http::Response> {
        SINDRI_TRY(rendered, render_version(services, template_id, parameters));
        return json_response(200, make_object({{"template_id", Value(template_id)},
                                               {"template_version", Value(rendered.version)},
                                               {"checksum", Value(sha256_hex(rendered.yaml))},
                                               {"yaml_content", Value(std::move(rendered.yaml))}}));
      });
}

// What reconstruct() renders and compares against.
struct RecordedObject {
  std::string template_id;
  Value template_version;
  Value parameters;
  std::string yaml;
  std::string checksum;
};

ApiResult<RecordedObject> load_recorded_object(store::Database& db, const Identity& caller, const std::string& id) {
  return in_read<RecordedObject>(db, [&](store::Connection& connection) -> ApiResult<RecordedObject> {
    SINDRI_TRY(provenance, load_readable_provenance(connection, caller, id));
    return RecordedObject{std::string(provenance.recorded.template_id.get_string()),
                          std::move(provenance.recorded.template_version), std::move(provenance.parameters),
                          std::string(field(provenance.object, "yaml_content")),
                          std::string(field(provenance.object, "yaml_checksum"))};
  });
}

// Beyond Brokkr: an object rendered again from its provenance (the template
// version, retired or not, and the parameters as sent) and compared byte for
// byte with what is stored; the console's "re-render and compare", as
// `sindri reconstruct` does on the client's side.
ApiResult<http::Response> reconstruct(Call& call) {
  SINDRI_TRY(id, call.id_param());
  if (!call.request.body.empty()) return field_error("body_not_allowed", "reconstruct takes no request body", "");
  SINDRI_TRY(recorded, load_recorded_object(call.db(), call.caller, id));
  return call.on_render_pool(
      [&services = call.services, id, recorded = std::move(recorded)]() -> ApiResult<http::Response> {
        SINDRI_TRY(rendered, render_version(services, recorded.template_id, recorded.parameters));
        const std::string checksum = sha256_hex(rendered.yaml);
        const bool identical = rendered.yaml == recorded.yaml && checksum == recorded.checksum;
        return json_response(200, make_object({{"deployment_object_id", Value(id)},
                                               {"template_id", Value(recorded.template_id)},
                                               {"template_version", recorded.template_version},
                                               {"identical", Value(identical)},
                                               {"stored_checksum", Value(recorded.checksum)},
                                               {"rendered_checksum", Value(checksum)},
                                               {"yaml_content", Value(std::move(rendered.yaml))}}));
      });
}

}  // namespace

void add_instantiation_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"POST", "/stacks/{id}/deployment-objects/from-template", Allow::Admin | Allow::Generator, instantiate});
  routes.push_back({"POST", "/templates/{id}/render", Allow::Admin | Allow::Generator, dry_run});
  routes.push_back({"POST", "/deployment-objects/{id}/reconstruct", Allow::Admin | Allow::Generator, reconstruct});
}

}  // namespace sindri::broker
