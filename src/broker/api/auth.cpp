// /auth/pak: who the PAK in the request belongs to.

#include "broker/api/routes.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

ApiResult<http::Response> who_am_i(Call& call) {
  return json_response(
      200, make_object({{"admin", Value(call.caller.is_admin())},
                        {"agent", call.caller.kind == Identity::Kind::Agent ? Value(call.caller.id) : Value()},
                        {"generator", call.caller.kind == Identity::Kind::Generator ? Value(call.caller.id) : Value()},
                        {"readonly", Value(false)}}));
}

}  // namespace

void add_auth_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"POST", "/auth/pak", Allow::Admin | Allow::Generator | Allow::Agent, who_am_i});
}

}  // namespace sindri::broker
