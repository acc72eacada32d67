#include "repo/hooks.hpp"

#include <unistd.h>

#include "process/process.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::repo {

namespace {

// A state is settings and file names: a hook printing more is broken.
constexpr size_t kMaxStateBytes = 64 << 20;

Value state_document(const HookCall& call, const HookState& state) {
  Value tpl = Object{};
  tpl.set("name", call.tpl.name());
  tpl.set("path", call.tpl.location.directory.string());
  Value document = Object{};
  document.set("template", std::move(tpl));
  document.set("settings", state.settings);
  document.set("files_to_render", string_array(state.files_to_render));
  document.set("other_templates", call.other_templates);
  if (call.point == HookPoint::BeforeFileRender) document.set("file", call.file);
  return document;
}

Result<HookState> read_state(std::string_view printed, HookState state) {
  auto parsed = parse_json(printed);
  if (!parsed) return make_error("it printed no JSON state: " + parsed.error().describe());
  if (!parsed->is_object()) return make_error(std::string("it printed a JSON ") + parsed->kind_name() + ", not a state");
  if (const Value* settings = parsed->find("settings")) {
    if (!settings->is_object()) return make_error("the `settings` it printed are not an object");
    state.settings = *settings;
  }
  if (const Value* files = parsed->find("files_to_render")) {
    if (!files->is_array()) return make_error("the `files_to_render` it printed are not a list");
    state.files_to_render.clear();
    for (const Value& file : files->get_array()) {
      if (!file.is_string()) return make_error("the `files_to_render` it printed hold a non-string");
      state.files_to_render.emplace_back(file.get_string());
    }
  }
  return state;
}

std::vector<std::string> hook_environment(const HookCall& call) {
  if (call.sindri_program.empty()) return {};
  return {"SINDRI=" + call.sindri_program.string()};
}

}  // namespace

const char* hook_name(HookPoint point) {
  switch (point) {
    case HookPoint::AfterDefaultSettings:
      return "after_default_settings";
    case HookPoint::AfterSharedSettings:
      return "after_shared_settings";
    case HookPoint::AfterProjectSettings:
      return "after_project_settings";
    case HookPoint::AfterFileResolution:
      return "after_file_resolution";
    case HookPoint::BeforeFileRender:
      return "before_file_render";
  }
  return "";
}

std::optional<std::filesystem::path> find_hook(const Template& tpl, HookPoint point) {
  return tpl.location.find_file(std::filesystem::path("hooks") / hook_name(point));
}

Result<HookState> run_hook(const HookCall& call, HookState state) {
  const auto hook = find_hook(call.tpl, call.point);
  if (!hook) return state;
  const std::string what = "template `" + call.tpl.name() + "`: hook " + hook_name(call.point) + " (" +
                           hook->string() + ")";
  if (::access(hook->c_str(), X_OK) != 0) return make_error(what + " is not executable");
  auto outcome = run_process(ProcessRequest{.argv = {hook->string()},
                                            .input = to_json(state_document(call, state)) + "\n",
                                            .directory = call.working_directory,
                                            .timeout_seconds = call.timeout_seconds,
                                            .extra_environment = hook_environment(call),
                                            // One we inherited would name another program.
                                            .withheld_environment = {"SINDRI"},
                                            .max_output_bytes = kMaxStateBytes});
  if (!outcome) return make_error(what + ": " + outcome.error().message);
  const std::string stderr_text = trimmed_output(outcome->err);
  const std::string printed = stderr_text.empty() ? "" : "; it printed on stderr: " + stderr_text;
  if (outcome->timed_out) {
    return make_error(what + " did not finish within " + seconds_text(call.timeout_seconds) + " s" + printed);
  }
  if (outcome->exit_code != 0) {
    return make_error(what + " failed with exit code " + std::to_string(outcome->exit_code) + printed);
  }
  auto next = read_state(outcome->out, std::move(state));
  if (!next) return make_error(what + ": " + next.error().message + printed);
  return next;
}

}  // namespace sindri::repo
