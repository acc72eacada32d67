#include "broker/context.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>

#include "broker/db/counters.hpp"
#include "broker/ids.hpp"
#include "broker/render_pool.hpp"
#include "value/setting_text.hpp"

namespace sindri::broker {

const char* Identity::kind_name() const {
  switch (kind) {
    case Kind::Admin: return "admin";
    case Kind::Generator: return "generator";
    case Kind::Agent: return "agent";
  }
  return "unknown";
}

bool allows(Allow allowed, Identity::Kind kind) {
  const Allow caller = kind == Identity::Kind::Admin       ? Allow::Admin
                       : kind == Identity::Kind::Generator ? Allow::Generator
                                                           : Allow::Agent;
  return (uint8_t(allowed) & uint8_t(caller)) != 0;
}

ApiResult<std::string> Call::id_param(std::string_view name) const {
  const std::string& value = params[name];
  if (!is_uuid(value)) {
    ApiError error = bad_request("invalid_path_parameter",
                                 "path parameter {" + std::string(name) + "} must be a UUID, got \"" + value + "\"");
    return error;
  }
  return stored_uuid(value);
}

namespace {

// 429 when the caller's own renders held it up, else 503; either way the
// client may try again once a render could have finished.
http::Response render_refusal(RenderRefusal reason, const Identity& caller, const BrokerConfig& settings) {
  const std::string wait = duration_text(settings.render_queue_wait);
  ApiError error{503, "render_pool_busy", "", Value(), std::nullopt};
  switch (reason) {
    case RenderRefusal::CallerAtLimit:
      error.status = 429;
      error.code = "too_many_renders";
      error.message = "this " + std::string(caller.kind_name()) + " PAK already has " +
                      std::to_string(settings.render_per_identity_limit) +
                      " render(s) in flight (render.per_identity_limit), and none finished within render.queue_wait (" +
                      wait + " s)";
      break;
    case RenderRefusal::PoolBusy:
      error.message = "every render thread (render.threads " + std::to_string(settings.render_threads) +
                      ") stayed busy for render.queue_wait (" + wait + " s)";
      break;
    case RenderRefusal::QueueFull:
      error.message = "render.queue_limit (" + std::to_string(settings.render_queue_limit) +
                      ") renders are waiting already";
      break;
    case RenderRefusal::Stopping: error.message = "the broker is stopping"; break;
  }
  error.message += "; try again later";
  http::Response response = error_response(error);
  const auto retry_after = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(settings.render_queue_wait)));
  response.headers.push_back({"Retry-After", std::to_string(retry_after)});
  return response;
}

}  // namespace

http::Response answer_of(ApiResult<http::Response> result, Logger& log, std::string_view method,
                         std::string_view path) {
  if (result.ok()) return std::move(result).value();
  const ApiError& error = result.error();
  if (error.status >= 500) {
    log.error("request failed", {{"method", Value(method)},
                                 {"path", Value(path)},
                                 {"code", Value(error.code)},
                                 {"cause", Value(error.cause ? error.cause->message : error.message)}});
  }
  return error_response(error);
}

namespace {

// What a task that threw is answered: nothing of the exception reaches the
// client, the log says what it was.
http::Response internal_error(Logger& log, std::string_view method, std::string_view path, std::string_view stage) {
  std::string what = "an exception not derived from std::exception";
  try {
    throw;
  } catch (const std::exception& exception) {
    what = exception.what();
  } catch (...) {
  }
  log.error("render task failed", {{"method", Value(method)},
                                   {"path", Value(path)},
                                   {"stage", Value(stage)},
                                   {"exception", Value(what)}});
  return error_response(ApiError{500, "internal_error", "the broker failed to answer this request", Value(),
                                 std::nullopt});
}

}  // namespace

http::Response Call::on_render_pool(RenderWork work) const {
  http::Response response;
  response.later = [&services = services, caller = caller, method = request.method, path = request.path,
                    work = std::move(work)](http::Answer answer) mutable {
    services.render_pool->submit(
        caller.key(),
        [&services, method, path, work = std::move(work), answer] {
          http::Response response;
          try {
            response = answer_of(work(), services.log, method, path);
          } catch (...) {
            response = internal_error(services.log, method, path, "render");
          }
          answer(std::move(response));
        },
        [&services, caller, method, path, answer](RenderRefusal reason) {
          http::Response response;
          try {
            response = render_refusal(reason, caller, *services.config.current());
          } catch (...) {
            response = internal_error(services.log, method, path, "refusal");
          }
          answer(std::move(response));
        });
  };
  return response;
}

http::Response on_request_thread(Logger& log, std::string method, std::string path, RenderWork work) {
  http::Response response;
  response.later = [&log, method = std::move(method), path = std::move(path),
                    work = std::move(work)](http::Answer answer) {
    http::Response answered;
    try {
      answered = answer_of(work(), log, method, path);
    } catch (...) {
      answered = internal_error(log, method, path, "after the render");
    }
    answer(std::move(answered));
  };
  return response;
}

db::AuditEntry audit_entry(const Call& call, std::string action, std::string resource_type, std::string resource_id,
                           Value details) {
  return db::AuditEntry{call.caller.kind_name(),
                        call.caller.id,
                        std::move(action),
                        std::move(resource_type),
                        std::move(resource_id),
                        std::move(details),
                        call.request.remote,
                        std::string(http::find_header(call.request.headers, "User-Agent"))};
}

ApiResult<Ok> audit(const Call& call, store::Connection& connection, std::string action, std::string resource_type,
                    std::string resource_id, Value details) {
  return db::record_audit(connection, audit_entry(call, std::move(action), std::move(resource_type),
                                                  std::move(resource_id), std::move(details)));
}

ApiResult<Ok> touch_credentials(Call& call, store::Connection& connection) {
  call.touched_credentials = true;
  return db::touch_credentials(connection);
}

}  // namespace sindri::broker
