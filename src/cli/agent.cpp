// sindri agent list [-o table|yaml|json]
//
// The agents a broker knows (an admin sees all, a generator those registered
// with it), over --broker and --pak (see broker_client.hpp).

#include <memory>
#include <vector>

#include "cli/broker_client.hpp"
#include "cli/verbs.hpp"

namespace sindri::cli {

namespace {

int run_list(const BrokerFlags& flags) {
  auto client = BrokerClient::connect(flags);
  if (!client) return fail(client.error().message, 2);
  auto agents = client->get("/agents");
  if (!agents) return fail(agents.error().message);
  static const std::vector<Column> columns = {
      {"NAME", [](const Value& agent) { return cell(agent, "name"); }},
      {"ID", [](const Value& agent) { return cell(agent, "id"); }},
      {"CLUSTER", [](const Value& agent) { return cell(agent, "cluster_name"); }},
      {"STATUS", [](const Value& agent) { return cell(agent, "status"); }},
      {"LAST HEARTBEAT", [](const Value& agent) { return cell(agent, "last_heartbeat"); }},
  };
  return print_list(*agents, flags.output, columns, "agents");
}

}  // namespace

Verb add_agent(CLI::App& app) {
  auto flags = std::make_shared<BrokerFlags>();
  CLI::App* cmd = app.add_subcommand("agent", "List the agents of a broker");
  cmd->require_subcommand(1);
  CLI::App* list = cmd->add_subcommand("list", "List the agents the PAK may see");
  add_broker_flags(*list, *flags);
  return Verb{cmd, [flags] { return run_list(*flags); }};
}

}  // namespace sindri::cli
