// sindri repo publish NAME... [--project DIR | --repository DIR] [--update] [--generator-id ID] [--dry-run]
//                    (--broker, --pak: see broker_client.hpp)
//
// Makes each kubernetes template of the template sources a template of the
// broker under its directory name (repo/publish.hpp says how): created when
// its owner has no live template of that name, a new version when the live
// one's description, content or schema differs, left alone otherwise. The
// owner is the generator of --generator-id (an admin's choice), else the PAK's generator,
// else none (an admin's system template). Every NAME is checked first: one
// template that cannot be published means nothing is written. --dry-run
// says what would be done and writes nothing.

#include "cli/repo_publish_client.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/broker_client.hpp"
#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/programs.hpp"
#include "cli/repo_common.hpp"
#include "http/server.hpp"
#include "repo/problems.hpp"
#include "repo/publish.hpp"
#include "value/json.hpp"
#include "value/uuid.hpp"

namespace sindri::cli {

namespace {

struct PublishArgs : RepoOptions {
  std::vector<std::string> names;
  std::string repository;  // a directory used alone as the template source
  std::optional<std::string> generator_id;
  bool dry_run = false;
  BrokerFlags flags;
};

// Every template named, made into what the broker stores; every problem of
// every one of them at once.
Result<std::vector<repo::BrokerTemplate>> broker_templates(const PublishArgs& args) {
  SINDRI_TRY(catalog, authoring_catalog(args, args.repository));
  std::vector<repo::BrokerTemplate> out;
  repo::Problems problems;
  const auto add_problems = [&problems](const Error& error) {
    for (std::string& problem : repo::problems_of(error)) problems.push_back(std::move(problem));
  };
  for (const std::string& name : args.names) {
    const auto location = catalog.locate(name);
    if (!location) {
      problems.push_back("no template `" + name + "` in the template sources");
      continue;
    }
    auto tpl = repo::load_template(*location);
    if (!tpl) {
      add_problems(tpl.error());
      continue;
    }
    auto published = repo::broker_template(*tpl);
    if (!published) {
      add_problems(published.error());
      continue;
    }
    out.push_back(std::move(published).value());
  }
  if (!problems.empty()) return repo::problems_error(problems);
  return out;
}

// Who will own the templates: a generator's id, or null for the system.
Result<Value> publishing_owner(BrokerClient& client, const PublishArgs& args) {
  if (args.generator_id) return Value(is_uuid(*args.generator_id) ? stored_uuid(*args.generator_id) : *args.generator_id);
  SINDRI_TRY(identity, client.whoami());
  const Value* generator = identity.find("generator");
  return generator != nullptr && generator->is_string() ? *generator : Value();
}

// The owner's newest live template of the name, if it has one.
Result<std::optional<Value>> live_template(BrokerClient& client, const std::string& name, const Value& owner) {
  SINDRI_TRY(listed, client.get("/templates?all_versions=false&name=" + http::percent_encode(name)));
  if (!listed.is_array()) return make_error("the broker's list of templates is not an array");
  return repo::owned_live_template(listed.get_array(), name, owner);
}

Value content_body(const repo::BrokerTemplate& published) {
  Value body{Object{}};
  body.set("description", published.description);
  body.set("template_content", published.template_content);
  body.set("parameters_schema", to_json(published.parameters_schema));
  return body;
}

// One template published; what was done, as a line.
Result<std::string> publish_one(BrokerClient& client, const PublishArgs& args, const Value& owner,
                                const repo::BrokerTemplate& published) {
  SINDRI_TRY(live, live_template(client, published.name, owner));
  if (live && repo::broker_holds(*live, published)) {
    return "unchanged " + published.name + " (version " + cell(*live, "version") + ")";
  }
  if (args.dry_run) {
    return live ? "would update " + published.name + " (version " + cell(*live, "version") + " is live)"
                : "would create " + published.name;
  }
  Value body = content_body(published);
  if (live) {
    SINDRI_TRY(updated, client.put("/templates/" + cell(*live, "id"), body));
    return "updated " + published.name + " (version " + cell(updated, "version") + ")";
  }
  body.set("name", published.name);
  if (!owner.is_null()) body.set("generator_id", owner);
  SINDRI_TRY(created, client.post("/templates", body));
  return "created " + published.name + " (version " + cell(created, "version") + ")";
}

int run_publish(const PublishArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto templates = broker_templates(args);
  if (!templates) {
    print_repo_problems(templates.error());
    print_note("nothing was published");
    return 1;
  }
  auto owner = publishing_owner(*client, args);
  if (!owner) return fail(owner.error().message);
  for (const repo::BrokerTemplate& published : *templates) {
    auto done = publish_one(*client, args, *owner, published);
    if (!done) return fail("template " + published.name + ": " + done.error().message);
    if (!write_stdout(*done + "\n")) return 1;
  }
  return 0;
}

}  // namespace

Verb add_client_repo(CLI::App& app) {
  auto args = std::make_shared<PublishArgs>();
  CLI::App* cmd = app.add_subcommand(std::string(kRepoPublishSubcommand.group),
                                     "Template repositories: the subcommands that call a broker");
  cmd->require_subcommand(1);
  const ProgramVerb& verb = kRepoPublishSubcommand.subcommand;
  CLI::App* publish = cmd->add_subcommand(std::string(verb.name), std::string(verb.description));
  publish->add_option("NAME", args->names, "The templates to publish (their directory names)")->required();
  add_project_options(*publish, *args);
  publish->add_option("--repository", args->repository,
                      "Take the templates from this directory alone, instead of the project's sources")
      ->excludes(publish->get_option("--project"));
  publish->add_option_function<std::string>(
      "--generator-id", [args](const std::string& id) { args->generator_id = id; },
      "Generator that owns the templates (an admin may give it; none makes system templates)");
  publish->add_flag("--dry-run", args->dry_run, "Say what would be created or updated, without writing anything");
  add_broker_flags(*publish, args->flags, false);
  return Verb{cmd, [args] { return run_publish(*args); }};
}

}  // namespace sindri::cli
