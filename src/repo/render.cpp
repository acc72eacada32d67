#include "repo/render.hpp"

#include "tera/tera.hpp"
#include "value/file_text.hpp"

namespace sindri::repo {

namespace fs = std::filesystem;

namespace {

bool is_executable(const fs::path& path) {
  std::error_code ec;
  const auto permissions = fs::status(path, ec).permissions();
  return !ec && (permissions & fs::perms::owner_exec) != fs::perms::none;
}

}  // namespace

Result<std::vector<RenderedFile>> render_plan(const Plan& plan, const Project& project) {
  if (!plan.problems.empty()) return problems_error(plan.problems);
  std::vector<RenderedFile> out;
  Problems problems;
  for (size_t index = 0; index < plan.templates.size(); ++index) {
    const AppliedTemplate& applied = plan.templates[index];
    // What the hook is told of the others, made once per template and only
    // for a template that has the hook.
    const Value others =
        find_hook(applied.tpl, HookPoint::BeforeFileRender) ? other_templates_state(plan, index) : Value();
    for (const std::string& output : applied.files_to_render) {
      const PlannedFile& file = applied.candidates.at(output);
      SINDRI_TRY(source, read_file_text(file.source, "template file"));
      RenderedFile rendered{.path = output,
                            .bytes = {},
                            .init_only = file.init_only,
                            .executable = is_executable(file.source),
                            .template_name = applied.tpl.name()};
      HookCall call{.point = HookPoint::BeforeFileRender,
                    .tpl = applied.tpl,
                    .other_templates = others,
                    .file = output,
                    .timeout_seconds = project.hook_timeout_seconds,
                    .working_directory = project.directory,
                    .sindri_program = plan.sindri_program};
      SINDRI_TRY(state, run_hook(call, HookState{applied.settings, applied.files_to_render}));
      if (!(state.settings == applied.settings)) {
        // Validated as the template's settings would be, with the hook as their origin.
        Plan for_file{.templates = {applied}, .problems = {}, .sindri_program = {}};
        for_file.templates[0].settings = state.settings;
        for (const Member& m : state.settings.get_object()) {
          const Value* before = applied.settings.find(m.key.get_string());
          if (!before || !(*before == m.value)) {
            for_file.templates[0].origins[std::string(m.key.get_string())] =
                SettingOrigin{SettingOrigin::Kind::Hook, hook_name(HookPoint::BeforeFileRender)};
          }
        }
        const size_t before_check = problems.size();
        check_settings(for_file, 0, project, true, problems);
        if (problems.size() != before_check) continue;
      }
      if (!file.tera) {
        rendered.bytes = std::move(source);
        out.push_back(std::move(rendered));
        continue;
      }
      auto compiled = tera::compile(file.source.string(), source);
      if (!compiled) {
        problems.push_back(compiled.error().describe());
        continue;
      }
      auto text = tera::render(**compiled, state.settings);
      if (!text) {
        problems.push_back(text.error().describe());
        continue;
      }
      rendered.bytes = std::move(text).value();
      out.push_back(std::move(rendered));
    }
  }
  if (!problems.empty()) return problems_error(problems);
  return out;
}

}  // namespace sindri::repo
