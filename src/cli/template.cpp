// sindri template create NAME -f TEMPLATE_FILE --schema SCHEMA_FILE [--description D] [--generator-id ID]
//                        [--label L]... [--annotation K=V]...
// sindri template list [--name N] [--generator-id ID] [--all-versions]
// sindri template get TEMPLATE
// sindri template update TEMPLATE -f TEMPLATE_FILE --schema SCHEMA_FILE [--description D]
// sindri template delete TEMPLATE [--version N]
// sindri template label TEMPLATE LABEL... [--remove]
// sindri template annotate TEMPLATE KEY=VALUE... | --remove KEY...
// sindri template targets TEMPLATE
// sindri template render TEMPLATE [-f VALUES]... [--set P=V]... [--set-string P=V]... [--stack STACK]
//                        [-o raw|yaml|json] [--output-dir DIR]
//
// Templates on a broker (--broker, --pak: see broker_client.hpp). TEMPLATE
// is an id or the name of a live template; a name two owners use is
// ambiguous and needs the id. The schema file may be JSON (sent as written)
// or YAML (sent as JSON); it is checked against its meta-schema here, the
// template's syntax is checked by the broker. update makes a new version
// (a new id); the broker keeps the description unless --description is
// given. delete of a name deletes every live version of it (`template
// create` under a used name adds one beside the others), --version N only
// that one; delete of an id, that template. list's LIVE VERSIONS column
// gives each name's live versions, so that a name with several stands out.
// Labels and annotations are two verbs, as kubectl's label and annotate;
// --remove takes labels, or annotation keys, away. render is the broker's
// dry run: the values are gathered as `sindri render` gathers them, and the
// rendered YAML is printed as `sindri render` prints it (-o raw, the default:
// exactly; -o yaml|json, --output-dir); with --stack the template must also
// match that stack's labels and annotations. create, list, get and update
// print a table, or with -o yaml|json the API's objects.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/broker_client.hpp"
#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/manifest_output.hpp"
#include "cli/names.hpp"
#include "cli/parameters.hpp"
#include "cli/programs.hpp"
#include "cli/tags.hpp"
#include "cli/template_mismatch.hpp"
#include "cli/targets.hpp"
#include "cli/verbs.hpp"
#include "value/uuid.hpp"

namespace sindri::cli {

namespace {

struct TemplateArgs {
  BrokerFlags flags;
  std::string tpl;  // NAME for create, TEMPLATE (id or name) otherwise
  std::string template_file;
  std::string schema_file;
  std::optional<std::string> description;
  std::optional<std::string> generator_id;
  std::optional<std::string> name_filter;
  bool all_versions = false;
  std::optional<int64_t> version;  // delete's --version
  Tags tags;  // create's --label and --annotation
  TagChange tag_change;
  ValuesSources values;
  std::optional<std::string> stack;
  std::string render_output = "raw";  // render's -o
  std::string output_dir;
};

// A template's owner by name; a system template has none.
std::function<std::string(const Value&)> owner_cell(Names& names) {
  return [&names](const Value& tpl) {
    const std::string owner = cell(tpl, "generator_id");
    return owner == "<none>" ? std::string("<system>") : names.generator(owner);
  };
}

// "web v2", as messages name a template version.
std::string version_name(const Value& tpl) { return cell(tpl, "name") + " v" + cell(tpl, "version"); }

// The live versions of each name, by owner: "1, 2".
using LiveVersions = std::map<std::pair<std::string, std::string>, std::string>;

std::pair<std::string, std::string> owner_and_name(const Value& tpl) {
  return {cell(tpl, "generator_id"), cell(tpl, "name")};
}

LiveVersions live_versions_in(const Value& templates) {
  LiveVersions live;
  for (const Value& tpl : templates.get_array()) {
    if (cell(tpl, "deleted_at") != "<none>") continue;
    std::string& versions = live[owner_and_name(tpl)];
    versions += (versions.empty() ? "" : ", ") + cell(tpl, "version");
  }
  return live;
}

// With `live`, the LIVE VERSIONS column after VERSION.
std::vector<Column> template_columns(Names& names, bool with_deleted, const LiveVersions* live = nullptr) {
  std::vector<Column> columns = {
      {"NAME", [](const Value& tpl) { return cell(tpl, "name"); }},
      {"VERSION", [](const Value& tpl) { return cell(tpl, "version"); }},
  };
  if (live != nullptr) {
    columns.push_back({"LIVE VERSIONS", [live](const Value& tpl) {
                         auto found = live->find(owner_and_name(tpl));
                         return found == live->end() ? std::string("<none>") : found->second;
                       }});
  }
  columns.insert(columns.end(), {
                                    {"ID", [](const Value& tpl) { return cell(tpl, "id"); }},
                                    {"GENERATOR", owner_cell(names)},
                                    {"CREATED", [](const Value& tpl) { return cell(tpl, "created_at"); }},
                                });
  if (with_deleted) columns.push_back({"DELETED", [](const Value& tpl) { return cell(tpl, "deleted_at"); }});
  columns.push_back({"DESCRIPTION", [](const Value& tpl) { return cell(tpl, "description"); }, true});
  columns.push_back({"CHECKSUM", [](const Value& tpl) { return cell(tpl, "checksum"); }, true});
  columns.push_back({"GENERATOR ID", [](const Value& tpl) { return cell(tpl, "generator_id"); }, true});
  return columns;
}

// The body fields create and update share: the template text and its schema.
Status add_content(Value& body, const TemplateArgs& args) {
  SINDRI_TRY(content, read_template_file(args.template_file));
  SINDRI_TRY(schema, read_schema_as_json(args.schema_file));
  body.set("template_content", std::move(content));
  body.set("parameters_schema", std::move(schema));
  return Ok{};
}

// Creation under a name its owner already uses adds a version beside the
// live ones (the seed's rule); `update` is what supersedes. Said on stderr,
// since the user may well have meant update.
void warn_of_live_versions(BrokerClient& client, const Value& created) {
  if (cell(created, "version") == "1") return;
  auto same_name = client.get("/templates?all_versions=false&name=" + http::percent_encode(cell(created, "name")));
  if (!same_name || !same_name->is_array()) return;
  std::string others;
  size_t count = 0;
  for (const Value& tpl : same_name->get_array()) {
    if (cell(tpl, "generator_id") == cell(created, "generator_id") && cell(tpl, "id") != cell(created, "id")) {
      others += (others.empty() ? "v" : ", v") + cell(tpl, "version");
      ++count;
    }
  }
  if (count == 0) return;
  print_warning("template " + cell(created, "name") + " " + others + (count == 1 ? " stays" : " stay") +
                " live beside v" + cell(created, "version") +
                "; `sindri template update` makes a version that supersedes the live one");
}

int run_create(const TemplateArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  Value body{Object{}};
  body.set("name", args.tpl);
  if (args.description) body.set("description", *args.description);
  if (args.generator_id) body.set("generator_id", *args.generator_id);
  if (auto read = add_content(body, args); !read) return fail(read.error().message);
  auto created = client->post("/templates", body);
  if (!created) return fail(created.error().message);
  const std::string path = "/templates/" + cell(*created, "id");
  if (auto tagged = add_tags_to_new(*client, path, "template", *created, args.tags); !tagged) {
    return fail(tagged.error().message);
  }
  warn_of_live_versions(*client, *created);
  return print_result(*created, args.flags.output, [](const Value& tpl) {
    return "template " + version_name(tpl) + " created (id " + cell(tpl, "id") + ")\n";
  });
}

int run_list(const TemplateArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  std::string query;
  auto add_query = [&](const std::string& key, const std::string& value) {
    query += (query.empty() ? "?" : "&") + key + "=" + http::percent_encode(value);
  };
  if (args.name_filter) add_query("name", *args.name_filter);
  if (args.generator_id) add_query("generator_id", *args.generator_id);
  // Said either way: by name, the API lists every version unless told.
  add_query("all_versions", args.all_versions ? "true" : "false");
  auto templates = client->get("/templates" + query);
  if (!templates) return fail(templates.error().message);
  if (!templates->is_array()) return fail("the broker's list of templates is not an array");
  const LiveVersions live = live_versions_in(*templates);
  Names names(*client);
  if (is_table_output(args.flags.output)) {
    if (auto named = names.read_generators_of(*templates); !named) return fail(named.error().message);
  }
  return print_list(*templates, args.flags.output, template_columns(names, args.all_versions, &live), "templates");
}

int run_get(const TemplateArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto tpl = client->find_template(args.tpl);
  if (!tpl) return fail(tpl.error().message);
  Names names(*client);
  if (is_table_output(args.flags.output)) {
    if (auto named = names.read_generators_of(*tpl); !named) return fail(named.error().message);
  }
  return print_with_tags(*client, *tpl, "/templates/" + cell(*tpl, "id"), template_columns(names, false),
                         args.flags.output);
}

int run_update(const TemplateArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  Value body{Object{}};
  if (auto read = add_content(body, args); !read) return fail(read.error().message);
  auto current = client->find_template(args.tpl);
  if (!current) return fail(current.error().message);
  if (args.description) body.set("description", *args.description);
  auto updated = client->put("/templates/" + cell(*current, "id"), body);
  if (!updated) return fail(updated.error().message);
  return print_result(*updated, args.flags.output, [&](const Value& tpl) {
    return "template " + cell(tpl, "name") + " updated to v" + cell(tpl, "version") + " (id " + cell(tpl, "id") +
           "; v" + cell(*current, "version") + " is superseded)\n";
  });
}

// The live versions of `tpl`'s name that its owner has, oldest first; with
// `version`, that one alone.
Result<std::vector<Value>> live_versions_of(BrokerClient& client, const Value& tpl, std::optional<int64_t> version) {
  SINDRI_TRY(same_name, client.get("/templates?all_versions=false&name=" + http::percent_encode(cell(tpl, "name"))));
  if (!same_name.is_array()) return make_error("the broker's list of templates is not an array");
  std::vector<Value> live;
  for (const Value& found : same_name.get_array()) {
    if (owner_and_name(found) == owner_and_name(tpl)) live.push_back(found);
  }
  auto version_of = [](const Value& found) {
    const Value* number = found.find("version");
    return number != nullptr && number->is_int() ? number->get_int() : 0;
  };
  std::sort(live.begin(), live.end(), [&](const Value& a, const Value& b) { return version_of(a) < version_of(b); });
  if (!version) return live;
  std::string versions;
  for (const Value& found : live) {
    if (version_of(found) == *version) return std::vector<Value>{found};
    versions += (versions.empty() ? "v" : ", v") + cell(found, "version");
  }
  return make_error("template " + cell(tpl, "name") + " has no live version " + std::to_string(*version) +
                    " (live: " + versions + ")");
}

int run_delete(const TemplateArgs& args) {
  // Refused before any request, though a name may look like an id: each of
  // that name's versions is deleted by its own id.
  if (args.version && is_uuid(args.tpl)) {
    return fail("--version picks among the live versions of a name; " + args.tpl +
                    " is shaped as a template id: delete a version by its id alone",
                2);
  }
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto tpl = client->find_template(args.tpl);
  if (!tpl) return fail(tpl.error().message);
  const bool by_id = is_uuid(args.tpl) && cell(*tpl, "id") == stored_uuid(args.tpl);
  std::vector<Value> doomed = {*tpl};
  if (!by_id) {
    auto live = live_versions_of(*client, *tpl, args.version);
    if (!live) return fail(live.error().message);
    doomed = std::move(live).value();
  }
  std::string deleted;
  for (const Value& version : doomed) {
    if (auto removed = client->remove("/templates/" + cell(version, "id")); !removed) {
      return fail(removed.error().message + (deleted.empty() ? "" : " (deleted before it: " + deleted + ")"));
    }
    deleted += (deleted.empty() ? "v" : ", v") + cell(version, "version") + " id " + cell(version, "id");
  }
  const std::string said = doomed.size() == 1
                               ? "template " + version_name(doomed.front()) + " deleted (id " +
                                     cell(doomed.front(), "id") + ")\n"
                               : "template " + cell(*tpl, "name") + ": " + std::to_string(doomed.size()) +
                                     " versions deleted (" + deleted + ")\n";
  return write_stdout(said) ? 0 : fail("cannot write the output");
}

int run_targets(const TemplateArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto tpl = client->find_template(args.tpl);
  if (!tpl) return fail(tpl.error().message);
  return print_stack_targets(*client, "/templates/" + cell(*tpl, "id") + "/targets", args.flags.output,
                             "stacks matching template " + version_name(*tpl));
}

int run_tagging(const TemplateArgs& args) {
  if (int usage = check_tag_items(args.tag_change); usage != 0) return usage;
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto tpl = client->find_template(args.tpl);
  if (!tpl) return fail(tpl.error().message);
  return change_tags(*client, "/templates/" + cell(*tpl, "id"), "template " + version_name(*tpl), args.tag_change);
}

int run_render(const TemplateArgs& args) {
  if (auto combined = check_rendered_output(args.render_output, args.output_dir); !combined) {
    return fail(combined.error().message, 2);
  }
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  std::vector<ValuesFile> files;
  auto values = gather_values(args.values, files);
  if (!values) return fail(values.error().message);
  auto tpl = client->find_template(args.tpl);
  if (!tpl) return fail(tpl.error().message);
  Value body{Object{}};
  body.set("parameters", *values);
  Value stack;
  if (args.stack) {
    auto found = client->find_stack(*args.stack);
    if (!found) return fail(found.error().message);
    stack = std::move(found).value();
    body.set("stack_id", cell(stack, "id"));
  }
  auto rendered = client->post("/templates/" + cell(*tpl, "id") + "/render", body);
  if (!rendered) {
    const std::string message = name_mismatch(rendered.error().message, client->last_error(), *tpl, stack);
    return fail(locate_broker_violations(message, client->last_error(), *values, files));
  }
  const Value* yaml = rendered->find("yaml_content");
  if (!yaml || !yaml->is_string()) return fail("the broker's dry run answer has no yaml_content string");
  auto printed = print_rendered(std::string(yaml->get_string()), "template " + version_name(*tpl), args.render_output,
                                args.output_dir);
  return printed ? 0 : fail(printed.error().message);
}

void add_template_option(CLI::App& command, TemplateArgs& args) {
  command.add_option("TEMPLATE", args.tpl, "Id or name of the template")->required();
}

void add_content_options(CLI::App& command, TemplateArgs& args) {
  command.add_option("-f,--filename", args.template_file, "Tera template file")->required();
  command.add_option("--schema", args.schema_file, "JSON Schema of the parameters (JSON or YAML)")->required();
  command.add_option_function<std::string>(
      "--description", [&args](const std::string& text) { args.description = text; }, "Description of the template");
}

}  // namespace

Verb add_template(CLI::App& app) {
  auto args = std::make_shared<TemplateArgs>();
  CLI::App* cmd = app.add_subcommand(std::string(kTemplateVerb.name), std::string(kTemplateVerb.description));
  cmd->require_subcommand(1);
  auto set_generator = [args](const std::string& id) { args->generator_id = id; };

  CLI::App* create = cmd->add_subcommand(
      "create", "Create a template (version 1, or the next version of a name its owner already uses)");
  create->add_option("NAME", args->tpl, "Name of the template")->required();
  add_content_options(*create, *args);
  create->add_option_function<std::string>(
      "--generator-id", set_generator,
      "Generator that owns the template (an admin may give it; none makes a system template)");
  create->add_option("--label", args->tags.labels, "Label a stack must carry (repeatable)")->allow_extra_args(false);
  create->add_option("--annotation", args->tags.annotations, "Annotation KEY=VALUE a stack must carry (repeatable)")
      ->allow_extra_args(false)
      ->check(key_value_validator());
  add_broker_flags(*create, args->flags);

  CLI::App* list = cmd->add_subcommand("list", "List templates (the live version of each, unless --all-versions)");
  list->add_option_function<std::string>(
      "--name", [args](const std::string& name) { args->name_filter = name; }, "Only templates of this name");
  list->add_option_function<std::string>("--generator-id", set_generator, "Only templates of this generator");
  list->add_flag("--all-versions", args->all_versions, "Also superseded and deleted versions");
  add_broker_flags(*list, args->flags);

  CLI::App* get = cmd->add_subcommand("get", "Show a template, its labels and annotations");
  add_template_option(*get, *args);
  add_broker_flags(*get, args->flags);

  CLI::App* update = cmd->add_subcommand("update", "Make a new version of a template");
  add_template_option(*update, *args);
  add_content_options(*update, *args);
  add_broker_flags(*update, args->flags);

  CLI::App* remove =
      cmd->add_subcommand("delete", "Delete every live version of a template's name, or the template of an id "
                                    "(its objects stay)");
  add_template_option(*remove, *args);
  remove->add_option_function<int64_t>(
      "--version", [args](const int64_t& version) { args->version = version; },
      "Only this live version of the name");
  add_broker_flags(*remove, args->flags, false);

  const TagVerbs tagging = add_tag_verbs(*cmd, "template", args->tpl, args->tag_change, args->flags);

  CLI::App* targets =
      cmd->add_subcommand("targets", "List the stacks whose labels and annotations the template matches");
  add_template_option(*targets, *args);
  add_broker_flags(*targets, args->flags);

  CLI::App* render = cmd->add_subcommand("render", "Render a template on the broker without storing anything");
  add_template_option(*render, *args);
  add_values_options(*render, args->values);
  render->add_option_function<std::string>(
      "--stack", [args](const std::string& stack) { args->stack = stack; },
      "Stack (id or name) the template must match, as instantiation checks it");
  add_rendered_output_options(*render, args->render_output, args->output_dir);
  add_broker_flags(*render, args->flags, false);

  return Verb{cmd, [args, create, list, get, update, remove, tagging, targets] {
                if (create->parsed()) return run_create(*args);
                if (list->parsed()) return run_list(*args);
                if (get->parsed()) return run_get(*args);
                if (update->parsed()) return run_update(*args);
                if (remove->parsed()) return run_delete(*args);
                if (tagging.label->parsed() || tagging.annotate->parsed()) return run_tagging(*args);
                if (targets->parsed()) return run_targets(*args);
                return run_render(*args);
              }};
}

}  // namespace sindri::cli
