#include "repo/plan.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "params/values.hpp"
#include "schema/schema.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"
#include "value/pointer.hpp"

namespace sindri::repo {

namespace fs = std::filesystem;

namespace {

void add_problem(Problems& problems, std::string problem) {
  if (std::find(problems.begin(), problems.end(), problem) == problems.end()) problems.push_back(std::move(problem));
}

// The first token of a pointer ("" for the root) and the rest.
std::pair<std::string, std::string> split_pointer(std::string_view pointer) {
  if (pointer.empty()) return {"", ""};
  const size_t end = pointer.find('/', 1);
  const std::string_view head = pointer.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1);
  return {unescape_pointer_token(head), std::string(end == std::string_view::npos ? "" : pointer.substr(end))};
}

size_t index_of(const Plan& plan, std::string_view name) {
  for (size_t i = 0; i < plan.templates.size(); ++i) {
    if (plan.templates[i].tpl.name() == name) return i;
  }
  return plan.templates.size();
}

// Where the value at `location` (a pointer into the settings) of a template
// came from, as a phrase.
std::string describe_origin(const Plan& plan, size_t index, const Project& project, std::string_view location,
                            int depth = 0) {
  const AppliedTemplate& applied = plan.templates[index];
  const auto [key, rest] = split_pointer(location);
  const auto found = applied.origins.find(key);
  if (key.empty() || found == applied.origins.end()) return "the settings of `" + applied.tpl.name() + "`";
  const LocatedDocument& metadata = applied.tpl.metadata.source;
  const SettingOrigin& origin = found->second;
  switch (origin.kind) {
    case SettingOrigin::Kind::Default:
      return "its default, " + metadata.where("/default_settings" + std::string(location));
    case SettingOrigin::Kind::SharedDefault:
      return "its shared setting's default, " + metadata.where("/shared_settings" + std::string(location));
    case SettingOrigin::Kind::Project:
      return "the project file, " + project.file.where(pointer_child("", applied.tpl.name()) + std::string(location));
    case SettingOrigin::Kind::Hook:
      return "hook " + origin.detail + " of `" + applied.tpl.name() + "`";
    case SettingOrigin::Kind::Subscription: {
      const size_t publisher = index_of(plan, origin.detail);
      std::string text = "shared setting `" + key + "` published by `" + origin.detail + "`";
      if (publisher < plan.templates.size() && depth < 4) {
        text += ", from " + describe_origin(plan, publisher, project, location, depth + 1);
      }
      return text;
    }
  }
  return {};
}

bool is_missing_requirement(const schema::Violation& violation) {
  const std::string_view location = violation.schema_location;
  return location.size() >= 9 && location.substr(location.size() - 9) == "/required";
}

// Records who changed which top-level settings.
void note_changes(AppliedTemplate& applied, const Value& before, const SettingOrigin& origin) {
  for (const Member& m : applied.settings.get_object()) {
    const Value* old = before.find(m.key.get_string());
    if (old == nullptr || !(*old == m.value)) applied.origins[std::string(m.key.get_string())] = origin;
  }
  for (auto it = applied.origins.begin(); it != applied.origins.end();) {
    it = applied.settings.find(it->first) ? std::next(it) : applied.origins.erase(it);
  }
}

class Lifecycle {
 public:
  Lifecycle(const Project& project, Plan& plan) : project_(project), plan_(plan) {}

  // Runs a hook of template `index` (not before_file_render), taking its
  // state and validating the settings when they changed.
  Status hook(size_t index, HookPoint point, bool complete) {
    AppliedTemplate& applied = plan_.templates[index];
    if (!find_hook(applied.tpl, point)) return Ok{};
    HookCall call{.point = point,
                  .tpl = applied.tpl,
                  .other_templates = other_templates_state(plan_, index),
                  .file = {},
                  .timeout_seconds = project_.hook_timeout_seconds,
                  .working_directory = project_.directory,
                  .sindri_program = plan_.sindri_program};
    SINDRI_TRY(state, run_hook(call, HookState{applied.settings, applied.files_to_render}));
    for (const std::string& file : state.files_to_render) {
      if (!applied.candidates.contains(file)) {
        return make_error("template `" + applied.tpl.name() + "`: hook " + hook_name(point) + " listed `" + file +
                          "`, which is not a file of the template");
      }
    }
    applied.files_to_render = std::move(state.files_to_render);
    if (state.settings == applied.settings) return Ok{};
    const Value before = applied.settings;
    applied.settings = std::move(state.settings);
    note_changes(applied, before, SettingOrigin{SettingOrigin::Kind::Hook, hook_name(point)});
    check_settings(plan_, index, project_, complete, plan_.problems);
    return Ok{};
  }

  Status each(HookPoint point, bool complete) {
    for (size_t i = 0; i < plan_.templates.size(); ++i) SINDRI_CHECK(hook(i, point, complete));
    return Ok{};
  }

  void validate_all(bool complete) {
    for (size_t i = 0; i < plan_.templates.size(); ++i) check_settings(plan_, i, project_, complete, plan_.problems);
  }

 private:
  const Project& project_;
  Plan& plan_;
};

AppliedTemplate applied_template(Template tpl, bool listed) {
  AppliedTemplate applied;
  applied.tpl = std::move(tpl);
  applied.listed = listed;
  return applied;
}

// Loads the templates to apply: the listed ones in order, then the
// always_apply ones alphabetically (unless told not to). Problems for
// missing or broken ones.
void choose_templates(const Project& project, const Catalog& catalog, bool apply_unlisted_always, Plan& plan) {
  for (const TemplateRequest& request : project.templates) {
    const auto location = catalog.locate(request.name);
    if (!location) {
      std::string searched;
      for (const OpenSource& source : catalog.sources()) {
        searched += (searched.empty() ? "" : ", ") + source.spec.describe();
      }
      add_problem(plan.problems, request.where + ": no template `" + request.name + "` in the template sources (" +
                                     searched + ")");
      continue;
    }
    auto tpl = load_template(*location);
    if (!tpl) {
      for (std::string& problem : problems_of(tpl.error())) add_problem(plan.problems, std::move(problem));
      continue;
    }
    plan.templates.push_back(applied_template(std::move(tpl).value(), true));
  }
  if (!apply_unlisted_always) return;
  for (const TemplateLocation& location : catalog.every_template()) {
    const bool requested = std::any_of(project.templates.begin(), project.templates.end(),
                                       [&](const TemplateRequest& r) { return r.name == location.name; });
    if (requested) continue;
    // A template the project does not list is read in full only when it
    // applies anyway: a broken schema of a template nobody uses is no
    // project's problem. A broken template.json is, since it may say
    // always_apply.
    const auto metadata = load_metadata(location);
    if (metadata && !metadata->always_apply) continue;
    auto tpl = load_template(location);
    if (!tpl) {
      for (std::string& problem : problems_of(tpl.error())) add_problem(plan.problems, std::move(problem));
      continue;
    }
    plan.templates.push_back(applied_template(std::move(tpl).value(), false));
  }
}

// A problem for each hook of a git source that is not trusted.
Problems untrusted_hooks(const Plan& plan, const Catalog& catalog) {
  Problems out;
  for (const AppliedTemplate& applied : plan.templates) {
    for (HookPoint point : kHookPoints) {
      const auto hook = find_hook(applied.tpl, point);
      if (!hook) continue;
      for (const OpenSource& source : catalog.sources()) {
        const std::string root = source.directory.string() + "/";
        if (hook->string().starts_with(root) && !source.hooks_trusted) {
          out.push_back("template `" + applied.tpl.name() + "`: hook " + hook->string() + " (from " +
                        source.spec.describe() + ") would run, but its source is not trusted: mark it `trusted: "
                        "true` or pass --trust-hooks");
          break;
        }
      }
    }
  }
  return out;
}

void load_defaults(AppliedTemplate& applied) {
  applied.settings = applied.tpl.metadata.default_settings;
  for (const Member& m : applied.settings.get_object()) {
    applied.origins[std::string(m.key.get_string())] = SettingOrigin{SettingOrigin::Kind::Default, {}};
  }
}

// Step 2: a template's shared settings join its own settings with their
// defaults, unless its default settings hold them already.
void publish(Plan& plan, std::map<std::string, std::string>& publishers) {
  for (AppliedTemplate& applied : plan.templates) {
    for (const Member& shared : applied.tpl.metadata.shared_settings.get_object()) {
      const std::string name(shared.key.get_string());
      const auto [it, first] = publishers.emplace(name, applied.tpl.name());
      if (!first) {
        add_problem(plan.problems, "shared setting `" + name + "` is published by both `" + it->second + "` and `" +
                                       applied.tpl.name() + "`");
      }
      if (applied.settings.find(name)) continue;
      applied.settings.set(name, shared.value);
      applied.origins[name] = SettingOrigin{SettingOrigin::Kind::SharedDefault, {}};
    }
  }
}

// Step 3.
void apply_project(Plan& plan, const Project& project) {
  for (AppliedTemplate& applied : plan.templates) {
    const Value* mine = project.settings_for(applied.tpl.name());
    if (mine == nullptr || !mine->is_object()) continue;
    applied.settings = params::merge_values(applied.settings, *mine);
    for (const Member& m : mine->get_object()) {
      applied.origins[std::string(m.key.get_string())] = SettingOrigin{SettingOrigin::Kind::Project, {}};
    }
  }
}

// Every shared setting a template of the sources publishes, applied or not.
// A template that cannot be read publishes nothing here: its problems are
// reported where it is applied.
std::set<std::string> published_in_sources(const Catalog& catalog) {
  std::set<std::string> out;
  for (const TemplateLocation& location : catalog.every_template()) {
    const auto metadata = load_metadata(location);
    if (!metadata) continue;
    for (const Member& shared : metadata->shared_settings.get_object()) out.emplace(shared.key.get_string());
  }
  return out;
}

// Step 4. A subscription to a setting whose publisher is not applied leaves
// it absent (the seed's PDK Ignore reads `use_litmus` whether or not the
// litmus template is used); one that nothing in the sources publishes is a
// mistake.
void resolve_subscriptions(Plan& plan, const Project& project, const Catalog& catalog,
                           const std::map<std::string, std::string>& publishers) {
  // Publishers' values as step 3 left them, whatever the order of templates.
  std::map<std::string, Value> published;
  for (const auto& [name, publisher] : publishers) {
    const AppliedTemplate& from = plan.templates[index_of(plan, publisher)];
    const Value* value = from.settings.find(name);
    published[name] = value ? *value : *from.tpl.metadata.shared_settings.find(name);
  }
  // Read from the sources once, and only when some publisher is not applied.
  std::optional<std::set<std::string>> in_sources;
  for (AppliedTemplate& applied : plan.templates) {
    const Value* mine = project.settings_for(applied.tpl.name());
    for (const std::string& name : applied.tpl.metadata.setting_subscriptions) {
      const auto publisher = publishers.find(name);
      if (publisher == publishers.end()) {
        if (!in_sources) in_sources = published_in_sources(catalog);
        if (!in_sources->contains(name)) {
          add_problem(plan.problems, "template `" + applied.tpl.name() + "` subscribes to shared setting `" + name +
                                         "`, which no template of the sources publishes");
        }
        continue;
      }
      if (publisher->second == applied.tpl.name()) continue;
      if (mine && mine->is_object() && mine->find(name)) continue;
      applied.settings.set(name, published[name]);
      applied.origins[name] = SettingOrigin{SettingOrigin::Kind::Subscription, publisher->second};
    }
  }
}

bool escapes_project(const std::string& path) {
  const fs::path p(path);
  if (p.is_absolute()) return true;
  return std::any_of(p.begin(), p.end(), [](const fs::path& part) { return part == ".."; });
}

// Step 5, before the hooks: files/** always, files_init/** where the target
// does not exist yet.
void resolve_files(AppliedTemplate& applied, const Project& project, Problems& problems) {
  for (const bool init_only : {false, true}) {
    const std::string_view subdirectory = init_only ? "files_init" : "files";
    for (const std::string& relative : applied.tpl.location.files_under(subdirectory)) {
      PlannedFile file{.source = *applied.tpl.location.find_file(fs::path(subdirectory) / relative),
                       .tera = relative.ends_with(kTeraSuffix),
                       .init_only = init_only};
      const std::string output = file.tera ? relative.substr(0, relative.size() - kTeraSuffix.size()) : relative;
      if (output.empty() || output.back() == '/' || escapes_project(output)) {
        add_problem(problems, "template `" + applied.tpl.name() + "`: " + file.source.string() +
                                  " has no usable output path");
        continue;
      }
      if (applied.candidates.contains(output)) {
        add_problem(problems, "template `" + applied.tpl.name() + "` has two sources for `" + output + "`: " +
                                  applied.candidates[output].source.string() + " and " + file.source.string());
        continue;
      }
      std::error_code ec;
      const bool skipped = init_only && fs::exists(project.directory / output, ec);
      applied.candidates.emplace(output, file);
      if (!skipped) applied.files_to_render.push_back(output);
    }
  }
}

void find_conflicts(Plan& plan) {
  std::map<std::string, std::string> writers;
  for (const AppliedTemplate& applied : plan.templates) {
    for (const std::string& file : applied.files_to_render) {
      const auto [it, first] = writers.emplace(file, applied.tpl.name());
      if (!first && it->second != applied.tpl.name()) {
        add_problem(plan.problems,
                    "`" + file + "` is written by both `" + it->second + "` and `" + applied.tpl.name() + "`");
      }
    }
  }
}

}  // namespace

Value other_templates_state(const Plan& plan, size_t self) {
  Array others;
  for (size_t i = 0; i < plan.templates.size(); ++i) {
    if (i == self) continue;
    Value other = Object{};
    other.set("name", plan.templates[i].tpl.name());
    other.set("type", type_name(plan.templates[i].tpl.metadata.type));
    other.set("files_to_render", string_array(plan.templates[i].files_to_render));
    others.push_back(std::move(other));
  }
  return Value(std::move(others));
}

void check_settings(const Plan& plan, size_t index, const Project& project, bool complete, Problems& problems) {
  const AppliedTemplate& applied = plan.templates[index];
  if (!applied.tpl.schema) return;
  for (const schema::Violation& violation : schema::validate(*applied.tpl.schema, applied.settings)) {
    if (!complete && is_missing_requirement(violation)) continue;
    const std::string location = violation.instance_location.empty() ? "settings" : violation.instance_location;
    add_problem(problems, "template `" + applied.tpl.name() + "`: " + location + ": " + violation.message +
                              " (from " + describe_origin(plan, index, project, violation.instance_location) + ")");
  }
}

Result<Plan> make_plan(const Project& project, const Catalog& catalog, const PlanOptions& options) {
  Plan plan;
  plan.sindri_program = options.sindri_program;
  choose_templates(project, catalog, options.apply_unlisted_always, plan);
  if (!plan.problems.empty()) return plan;
  if (!options.trust_hooks) {
    if (const Problems untrusted = untrusted_hooks(plan, catalog); !untrusted.empty()) {
      return problems_error(untrusted);
    }
  }
  std::vector<std::string> applied_names;
  for (const AppliedTemplate& applied : plan.templates) applied_names.push_back(applied.tpl.name());
  // A .sync.yml also holds the seed's V1 settings, keyed by file name.
  if (project.root_key == "sindri_templates") {
    for (const std::string& stray : project.stray_settings(applied_names)) {
      add_problem(plan.problems, project.file.where(pointer_child("", stray)) + ": settings for `" + stray +
                                     "`, which is not an applied template");
    }
  }

  Lifecycle lifecycle(project, plan);
  // A hook's failure joins the problems found so far (validate reports them
  // all) and stops the later steps, which would work without its output.
  auto hook_failed = [&](HookPoint point, bool complete) {
    const Status ran = lifecycle.each(point, complete);
    if (!ran) {
      for (std::string& problem : problems_of(ran.error())) add_problem(plan.problems, std::move(problem));
    }
    return !ran;
  };
  for (AppliedTemplate& applied : plan.templates) load_defaults(applied);
  lifecycle.validate_all(false);
  if (hook_failed(HookPoint::AfterDefaultSettings, false)) return plan;

  std::map<std::string, std::string> publishers;
  publish(plan, publishers);
  lifecycle.validate_all(false);
  if (hook_failed(HookPoint::AfterSharedSettings, false)) return plan;

  apply_project(plan, project);
  lifecycle.validate_all(false);
  if (hook_failed(HookPoint::AfterProjectSettings, false)) return plan;

  resolve_subscriptions(plan, project, catalog, publishers);
  lifecycle.validate_all(true);

  for (AppliedTemplate& applied : plan.templates) resolve_files(applied, project, plan.problems);
  if (hook_failed(HookPoint::AfterFileResolution, true)) return plan;
  find_conflicts(plan);
  return plan;
}

}  // namespace sindri::repo
