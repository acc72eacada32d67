#pragma once
// The API's resources, one file each; each adds its routes (paths under
// /api/v1, as brokkr-v1.json gives them). A handler parses the request, asks
// access.hpp whether the caller may, calls db/ and answers.

#include <vector>

#include "broker/context.hpp"

namespace sindri::broker {

void add_auth_routes(std::vector<ApiRoute>& routes);                // auth.cpp
void add_generator_routes(std::vector<ApiRoute>& routes);           // generators.cpp
void add_stack_routes(std::vector<ApiRoute>& routes);               // stacks.cpp
void add_stack_tag_routes(std::vector<ApiRoute>& routes);           // tags.cpp
void add_deployment_object_routes(std::vector<ApiRoute>& routes);   // deployment_objects.cpp
void add_agent_routes(std::vector<ApiRoute>& routes);               // agents.cpp
void add_agent_tag_routes(std::vector<ApiRoute>& routes);           // tags.cpp
void add_agent_target_routes(std::vector<ApiRoute>& routes);        // agent_targets.cpp
void add_agent_event_routes(std::vector<ApiRoute>& routes);         // agent_events.cpp
void add_registration_routes(std::vector<ApiRoute>& routes);        // registrations.cpp
void add_template_routes(std::vector<ApiRoute>& routes);            // templates.cpp
void add_template_tag_routes(std::vector<ApiRoute>& routes);        // tags.cpp
void add_template_target_routes(std::vector<ApiRoute>& routes);     // template_targets.cpp
void add_instantiation_routes(std::vector<ApiRoute>& routes);       // instantiation.cpp
void add_work_order_routes(std::vector<ApiRoute>& routes);          // work_orders.cpp
void add_diagnostic_routes(std::vector<ApiRoute>& routes);          // diagnostics.cpp
void add_webhook_routes(std::vector<ApiRoute>& routes);             // webhooks.cpp
void add_health_routes(std::vector<ApiRoute>& routes);              // health.cpp
void add_fleet_routes(std::vector<ApiRoute>& routes);               // fleet.cpp
void add_telemetry_routes(std::vector<ApiRoute>& routes);           // telemetry.cpp
void add_live_view_ticket_routes(std::vector<ApiRoute>& routes);    // live_view_tickets.cpp
void add_admin_routes(std::vector<ApiRoute>& routes);               // admin.cpp
void add_admin_config_routes(std::vector<ApiRoute>& routes);        // admin_config.cpp

}  // namespace sindri::broker
