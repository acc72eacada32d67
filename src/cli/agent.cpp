// sindri agent create NAME --cluster CLUSTER [--generator-id ID]... [--label L]... [--annotation K=V]...
// sindri agent list
// sindri agent get AGENT
// sindri agent delete AGENT
// sindri agent rotate-pak AGENT
// sindri agent targets AGENT
// sindri agent state AGENT [--incremental]
// sindri agent events AGENT
// sindri agent label AGENT LABEL... [--remove]
// sindri agent annotate AGENT KEY=VALUE... | --remove KEY...
// sindri agent run ... (agent_run.cpp: the agent itself)
//
// The agents a broker knows, over --broker and --pak (see
// broker_client.hpp). An admin registers agents and sees all of them; a
// generator sees those registered with it. AGENT is an id or a name. create
// and rotate-pak print the agent's PAK, which the broker shows only then
// (with -o yaml|json, the API's answer holding it). An agent targets the
// stacks whose labels and annotations it carries; state prints what it
// applies from them, events what it reported. An agent's own PAK may read
// its targets, state and events, and find itself by name.

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/agent_run.hpp"
#include "cli/broker_client.hpp"
#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/names.hpp"
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
  bool incremental = false;  // state: only what the agent has not reported applied
};

const std::vector<Column>& agent_columns() {
  static const std::vector<Column> columns = {
      {"NAME", [](const Value& agent) { return cell(agent, "name"); }},
      {"ID", [](const Value& agent) { return cell(agent, "id"); }},
      {"CLUSTER", [](const Value& agent) { return cell(agent, "cluster_name"); }},
      {"STATUS", [](const Value& agent) { return cell(agent, "status"); }},
      {"LAST HEARTBEAT", [](const Value& agent) { return cell(agent, "last_heartbeat"); }},
      {"CREATED", [](const Value& agent) { return cell(agent, "created_at"); }, true},
      {"K8S REACHABLE", [](const Value& agent) { return cell(agent, "k8s_reachable"); }, true},
      {"K8S LATENCY MS", [](const Value& agent) { return cell(agent, "k8s_api_latency_ms"); }, true},
  };
  return columns;
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
                    "initial_pak", "agent");
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
    return with_pak("agent " + cell(*agent, "name") + ": PAK rotated; the old one no longer works\n", answer, "pak",
                    "agent");
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

// An object's YAML documents as the agent reads them, after a comment
// naming where they come from; `first` leaves out the separator before it.
std::string state_entry(const Value& object, const std::string& stack_name, bool first) {
  std::string content = cell(object, "yaml_content");
  if (!content.empty() && content.back() != '\n') content += '\n';
  std::string entry = first || content.starts_with("---") ? "" : "---\n";
  entry += "# stack " + stack_name + ", object " + cell(object, "id");
  if (is_deletion_marker(object)) entry += " (deletion marker: the agent deletes what these documents name)";
  return entry + "\n" + content;
}

int run_state(const AgentArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto agent = client->find_agent(args.agent);
  if (!agent) return fail(agent.error().message);
  auto state = client->get("/agents/" + cell(*agent, "id") + "/target-state?mode=" +
                           (args.incremental ? "incremental" : "full"));
  if (!state) return fail(state.error().message);
  if (is_table_output(args.flags.output) && state->size() == 0) {
    print_note("agent " + cell(*agent, "name") + " has nothing to apply" +
               (args.incremental ? " that it has not reported applied" : ": it targets no stack with an object"));
    return 0;
  }
  Names names(*client);
  // Every object's stack is named before anything is printed (names.hpp).
  if (is_table_output(args.flags.output)) {
    for (const Value& object : state->get_array()) names.stack(cell(object, "stack_id"));
    if (names.failure()) return fail(*names.failure());
  }
  return print_result(*state, args.flags.output, [&](const Value& objects) {
    std::string text;
    for (const Value& object : objects.get_array()) {
      text += state_entry(object, names.stack(cell(object, "stack_id")), text.empty());
    }
    return text;
  });
}

// Where the objects an agent's events name belong.
struct ObjectStacks {
  std::map<std::string, std::string> stack_of;  // object id -> stack id
  std::set<std::string> not_visible;            // read alone: refused (403) or gone (404)
};

// Objects read one by one, at most, when neither the target state nor the
// stacks' listings placed them; the others show "<stack not read>".
constexpr size_t kMostObjectsReadAlone = 20;

// The stacks of the objects `events` name, in a number of requests bounded
// by the agent's stacks, not by its events: the target state (one request)
// holds the newest object of each stack the agent targets, and so names
// those stacks; an older object is found in its stack's listing (one
// request per stack, for an admin: an agent's PAK may not list a stack's
// objects, nor may anyone a deleted stack's); what is left (an agent's
// older objects, a stack it no longer targets) is read alone, at most
// kMostObjectsReadAlone of them. A failure other than 403 or 404 is the
// verb's, naming the call.
Result<ObjectStacks> read_object_stacks(BrokerClient& client, const std::string& agent_id, const Value& events) {
  std::set<std::string> unplaced;
  for (const Value& event : events.get_array()) unplaced.insert(cell(event, "deployment_object_id"));
  ObjectStacks found;
  auto place = [&](const Value& objects) {
    for (const Value& object : objects.get_array()) {
      if (unplaced.erase(cell(object, "id")) > 0) found.stack_of.emplace(cell(object, "id"), cell(object, "stack_id"));
    }
  };
  auto failed = [](const std::string& path, const Error& error) {
    return make_error("cannot read the stacks of the events' objects (GET " + path + "): " + error.message);
  };
  const std::string state_path = "/agents/" + agent_id + "/target-state?mode=full";
  auto state = client.get(state_path);
  if (!state) return failed(state_path, state.error());
  place(*state);
  for (const Value& newest : state->get_array()) {
    if (unplaced.empty()) break;
    const std::string path = "/stacks/" + cell(newest, "stack_id") + "/deployment-objects";
    auto objects = client.get(path);
    if (objects) {
      place(*objects);
    } else if (client.last_refused()) {
      break;  // an agent's PAK: every stack's listing is refused alike
    } else if (!client.last_not_found()) {
      return failed(path, objects.error());
    }
  }
  size_t read_alone = 0;
  for (const std::string& object_id : unplaced) {
    if (read_alone++ == kMostObjectsReadAlone) break;
    const std::string path = "/deployment-objects/" + object_id;
    auto object = client.get(path);
    if (object) {
      found.stack_of.emplace(object_id, cell(*object, "stack_id"));
    } else if (client.last_refused() || client.last_not_found()) {
      found.not_visible.insert(object_id);
    } else {
      return failed(path, object.error());
    }
  }
  return found;
}

int run_events(const AgentArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto agent = client->find_agent(args.agent);
  if (!agent) return fail(agent.error().message);
  auto events = client->get("/agents/" + cell(*agent, "id") + "/events");
  if (!events) return fail(events.error().message);
  const std::string what = "events of agent " + cell(*agent, "name");
  if (!is_table_output(args.flags.output) || events->size() == 0) {
    return print_list(*events, args.flags.output, {}, what);
  }
  auto object_stacks = read_object_stacks(*client, cell(*agent, "id"), *events);
  if (!object_stacks) return fail(object_stacks.error().message);
  // Every row's stack is named before anything is printed.
  Names names(*client);
  std::map<std::string, std::string> stack_shown;  // by object id
  for (const Value& event : events->get_array()) {
    const std::string object_id = cell(event, "deployment_object_id");
    auto stack = object_stacks->stack_of.find(object_id);
    stack_shown.emplace(object_id, stack != object_stacks->stack_of.end() ? names.stack(stack->second)
                                   : object_stacks->not_visible.count(object_id) > 0 ? "<object not visible>"
                                                                                      : "<stack not read>");
  }
  if (names.failure()) return fail(*names.failure());
  const std::vector<Column> columns = {
      {"TIME", [](const Value& event) { return cell(event, "created_at"); }},
      {"STACK", [&stack_shown](const Value& event) { return stack_shown.at(cell(event, "deployment_object_id")); }},
      {"OBJECT", [](const Value& event) { return cell(event, "deployment_object_id"); }},
      {"TYPE", [](const Value& event) { return cell(event, "event_type"); }},
      {"STATUS", [](const Value& event) { return cell(event, "status"); }},
      {"MESSAGE", [](const Value& event) { return cell(event, "message"); }},
      {"ID", [](const Value& event) { return cell(event, "id"); }, true},
  };
  return print_list(*events, args.flags.output, columns, what);
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

  CLI::App* rotate =
      cmd->add_subcommand("rotate-pak", "Give an agent a new PAK and print it (the old one stops working)");
  add_agent_option(*rotate, *args);
  add_broker_flags(*rotate, args->flags);

  add_tag_verbs(*cmd, "agent", args->agent, args->tag_change, args->flags);

  const AgentRunVerb run = add_agent_run(*cmd);

  CLI::App* targets = cmd->add_subcommand("targets", "List the stacks the agent targets (deploys)");
  add_agent_option(*targets, *args);
  add_broker_flags(*targets, args->flags);

  CLI::App* state = cmd->add_subcommand(
      "state", "Print the agent's target state: the YAML documents it applies, each object after a comment naming it");
  add_agent_option(*state, *args);
  state->add_flag("--incremental", args->incremental,
                  "Only the objects the agent has not yet reported applied (what it applies next)");
  add_broker_flags(*state, args->flags);

  CLI::App* events = cmd->add_subcommand("events", "List what the agent reported on applying objects, oldest first");
  add_agent_option(*events, *args);
  add_broker_flags(*events, args->flags);

  return Verb{cmd, [args, create, list, get, remove, rotate, targets, state, events, run] {
                if (run.command->parsed()) return run.run();
                if (create->parsed()) return run_create(*args);
                if (list->parsed()) return run_list(*args);
                if (get->parsed()) return run_get(*args);
                if (remove->parsed()) return run_delete(*args);
                if (rotate->parsed()) return run_rotate_pak(*args);
                if (targets->parsed()) return run_targets(*args);
                if (state->parsed()) return run_state(*args);
                if (events->parsed()) return run_events(*args);
                return run_tagging(*args);
              }};
}

}  // namespace sindri::cli
