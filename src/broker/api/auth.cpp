// /auth/pak: who the PAK in the request belongs to.

#include "broker/api/routes.hpp"

namespace sindri::broker {
namespace {

ApiResult<http::Response> who_am_i(Call& call) {
  Object body;
  body.push_back({Value("admin"), Value(call.caller.is_admin())});
  body.push_back({Value("agent"), call.caller.kind == Identity::Kind::Agent ? Value(call.caller.id) : Value()});
  body.push_back({Value("generator"), call.caller.kind == Identity::Kind::Generator ? Value(call.caller.id) : Value()});
  body.push_back({Value("readonly"), Value(false)});
  return json_response(200, Value(std::move(body)));
}

}  // namespace

void add_auth_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"POST", "/auth/pak", Allow::Admin | Allow::Generator | Allow::Agent, who_am_i});
}

}  // namespace sindri::broker
