// sindri agent create NAME --cluster CLUSTER [--generator-id ID]... [--label L]... [--annotation K=V]...
// sindri agent list
// sindri agent get AGENT
// sindri agent delete AGENT
// sindri agent rotate-pak AGENT
// sindri agent targets AGENT
// sindri agent label AGENT LABEL... [--remove]
// sindri agent annotate AGENT KEY=VALUE... | --remove KEY...
// sindri agent run ... (agent_run.cpp: the agent itself)
//
// The agents a broker knows, over --broker and --pak (see
// broker_client.hpp). An admin registers agents and sees all of them; a
// generator sees those registered with it. AGENT is an id or a name. create
// and rotate-pak print the agent's PAK, which the broker shows only then
// (with -o yaml|json, the API's answer holding it). An agent targets the
// stacks whose labels and annotations it carries.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/agent_run.hpp"
#include "cli/broker_client.hpp"
#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/programs.hpp"
#include "cli/tags.hpp"
#include "cli/targets.hpp"
#include "cli/verbs.hpp"

namespace sindri::cli {

namespace {

struct AgentArgs {
  BrokerFlags flags;
  std::string agent;  // NAME for create, AGENT (id or name) otherwise
  std::string cluster;
  std::vector<std::string> generator_ids;
  Tags tags;  // create's --label and --annotation
  TagChange tag_change;
};

const std::vector<Column>& agent_columns() {
  static const std::vector<Column> columns = {
      {"NAME", [](const Value& agent) { return cell(agent, "name"); }},
      {"ID", [](const Value& agent) { return cell(agent, "id"); }},
      {"CLUSTER", [](const Value& agent) { return cell(agent, "cluster_name"); }},
      {"STATUS", [](const Value& agent) { return cell(agent, "status"); }},
      {"LAST HEARTBEAT", [](const Value& agent) { return cell(agent, "last_heartbeat"); }},
  };
  return columns;
}

// The table form of an answer holding a PAK the broker shows only once.
std::string with_pak(const std::string& done, const Value& answer, std::string_view pak_field) {
  return done + "PAK (shown only now; the agent authenticates with it): " + cell(answer, pak_field) + "\n";
}

int run_create(const AgentArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  Value body{Object{}};
  body.set("name", args.agent);
  body.set("cluster_name", args.cluster);
  if (!args.generator_ids.empty()) {
    Array ids;
    for (const std::string& id : args.generator_ids) ids.push_back(Value(id));
    body.set("generator_ids", Value(std::move(ids)));
  }
  auto created = client->post("/agents", body);
  if (!created) return fail(created.error().message);
  const Value* agent = created->find("agent");
  if (!agent || !agent->is_object()) return fail("the broker's answer to POST /agents has no agent object");
  if (auto tagged = add_tags_to_new(*client, "/agents/" + cell(*agent, "id"), "agent", *agent, args.tags); !tagged) {
    return fail(tagged.error().message);
  }
  return print_result(*created, args.flags.output, [agent](const Value& answer) {
    return with_pak("agent " + cell(*agent, "name") + " created (id " + cell(*agent, "id") + ")\n", answer,
                    "initial_pak");
  });
}

int run_list(const AgentArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto agents = client->get("/agents");
  if (!agents) return fail(agents.error().message);
  return print_list(*agents, args.flags.output, agent_columns(), "agents");
}

int run_get(const AgentArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto agent = client->find_agent(args.agent);
  if (!agent) return fail(agent.error().message);
  return print_with_tags(*client, *agent, "/agents/" + cell(*agent, "id"), agent_columns(), args.flags.output);
}

int run_delete(const AgentArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto agent = client->find_agent(args.agent);
  if (!agent) return fail(agent.error().message);
  if (auto removed = client->remove("/agents/" + cell(*agent, "id")); !removed) return fail(removed.error().message);
  const std::string done = "agent " + cell(*agent, "name") + " deleted (id " + cell(*agent, "id") + ")\n";
  return write_stdout(done) ? 0 : fail("cannot write the output");
}

int run_rotate_pak(const AgentArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto agent = client->find_agent(args.agent);
  if (!agent) return fail(agent.error().message);
  auto rotated = client->post("/agents/" + cell(*agent, "id") + "/rotate-pak", Value(Object{}));
  if (!rotated) return fail(rotated.error().message);
  return print_result(*rotated, args.flags.output, [&](const Value& answer) {
    return with_pak("agent " + cell(*agent, "name") + ": PAK rotated; the old one no longer works\n", answer, "pak");
  });
}

int run_targets(const AgentArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto agent = client->find_agent(args.agent);
  if (!agent) return fail(agent.error().message);
  return print_stack_targets(*client, "/agents/" + cell(*agent, "id") + "/targets", args.flags.output,
                             "stacks targeted by agent " + cell(*agent, "name"));
}

int run_tagging(const AgentArgs& args) {
  if (int usage = check_tag_items(args.tag_change); usage != 0) return usage;
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto agent = client->find_agent(args.agent);
  if (!agent) return fail(agent.error().message);
  return change_tags(*client, "/agents/" + cell(*agent, "id"), "agent " + cell(*agent, "name"), args.tag_change);
}

void add_agent_option(CLI::App& command, AgentArgs& args) {
  command.add_option("AGENT", args.agent, "Id or name of the agent")->required();
}

}  // namespace

Verb add_agent(CLI::App& app) {
  auto args = std::make_shared<AgentArgs>();
  CLI::App* cmd = app.add_subcommand(std::string(kAgentVerb.name), std::string(kAgentVerb.description));
  cmd->require_subcommand(1);

  CLI::App* create = cmd->add_subcommand("create", "Register an agent (admin) and print its PAK");
  create->add_option("NAME", args->agent, "Name of the agent")->required();
  create->add_option("--cluster", args->cluster, "Name of the cluster the agent runs in")->required();
  create->add_option("--generator-id", args->generator_ids,
                     "Generator to register the agent with, besides the system generator (repeatable)")
      ->allow_extra_args(false);
  create->add_option("--label", args->tags.labels, "Label of the agent (repeatable)")->allow_extra_args(false);
  create->add_option("--annotation", args->tags.annotations, "Annotation KEY=VALUE of the agent (repeatable)")
      ->allow_extra_args(false)
      ->check(key_value_validator());
  add_broker_flags(*create, args->flags);

  CLI::App* list = cmd->add_subcommand("list", "List the agents the PAK may see");
  add_broker_flags(*list, args->flags);

  CLI::App* get = cmd->add_subcommand("get", "Show an agent, its labels and annotations");
  add_agent_option(*get, *args);
  add_broker_flags(*get, args->flags);

  CLI::App* remove = cmd->add_subcommand("delete", "Delete an agent (its PAK stops working)");
  add_agent_option(*remove, *args);
  add_broker_flags(*remove, args->flags, false);

  CLI::App* rotate = cmd->add_subcommand("rotate-pak", "Give an agent a new PAK and print it (the old one stops working)");
  add_agent_option(*rotate, *args);
  add_broker_flags(*rotate, args->flags);

  add_tag_verbs(*cmd, "agent", args->agent, args->tag_change, args->flags);

  const AgentRunVerb run = add_agent_run(*cmd);

  CLI::App* targets = cmd->add_subcommand("targets", "List the stacks the agent targets (deploys)");
  add_agent_option(*targets, *args);
  add_broker_flags(*targets, args->flags);

  return Verb{cmd, [args, create, list, get, remove, rotate, targets, run] {
                if (run.command->parsed()) return run.run();
                if (create->parsed()) return run_create(*args);
                if (list->parsed()) return run_list(*args);
                if (get->parsed()) return run_get(*args);
                if (remove->parsed()) return run_delete(*args);
                if (rotate->parsed()) return run_rotate_pak(*args);
                if (targets->parsed()) return run_targets(*args);
                return run_tagging(*args);
              }};
}

}  // namespace sindri::cli
