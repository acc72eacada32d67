// /templates/{id}/targets: the stacks a template may be instantiated into
// (db/template_targets.hpp keeps them current).

#include "broker/access.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/template_targets.hpp"

namespace sindri::broker {
namespace {

ApiResult<http::Response> list_template_targets(Call& call) {
  SINDRI_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_CHECK(check_template_access(connection, call.caller, id, false));
    // A generator sees only its own stacks among the targets.
    const std::string_view owner = call.caller.is_admin() ? std::string_view() : std::string_view(call.caller.id);
    SINDRI_TRY(targets, db::list_template_targets(connection, id, owner));
    return json_response(200, targets);
  });
}

}  // namespace

void add_template_target_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/templates/{id}/targets", Allow::Admin | Allow::Generator, list_template_targets});
}

}  // namespace sindri::broker
