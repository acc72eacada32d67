#include "broker/context.hpp"

#include "broker/db/counters.hpp"
#include "broker/ids.hpp"

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
