// Issue 25 fills this in; until then the resource has no routes.

#include "broker/api/routes.hpp"

namespace sindri::broker {

void add_admin_config_routes(std::vector<ApiRoute>&) {}

}  // namespace sindri::broker
