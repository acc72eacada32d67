#pragma once
// Lifecycle hooks: an executable `hooks/<point>` of a template (any
// language; its shebang decides) reads the template's state as JSON on
// stdin and prints the new state on stdout (the environment also holds
// $SINDRI, the running sindri program):
//
//   {"template": {"name": N, "path": DIR}, "settings": {...},
//    "files_to_render": [output paths], "file": PATH (before_file_render only),
//    "other_templates": [{"name": N, "type": "project"|"kubernetes", "files_to_render": [...]}]}
//
// Of what it prints, `settings` and `files_to_render` are taken (either may
// be left out to keep it); the rest is read-only.

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "repo/template.hpp"
#include "value/result.hpp"

namespace sindri::repo {

enum class HookPoint { AfterDefaultSettings, AfterSharedSettings, AfterProjectSettings, AfterFileResolution, BeforeFileRender };
inline constexpr std::array<HookPoint, 5> kHookPoints = {
    HookPoint::AfterDefaultSettings, HookPoint::AfterSharedSettings, HookPoint::AfterProjectSettings,
    HookPoint::AfterFileResolution, HookPoint::BeforeFileRender};

const char* hook_name(HookPoint point);

// The template's hook for a point, or nothing.
std::optional<std::filesystem::path> find_hook(const Template& tpl, HookPoint point);

struct HookState {
  Value settings;
  std::vector<std::string> files_to_render;
};

struct HookCall {
  HookPoint point;
  const Template& tpl;
  Value other_templates;  // [{name, type, files_to_render}] of every other applied template
  std::string file;       // before_file_render: the file about to be rendered
  double timeout_seconds = 10;
  std::filesystem::path working_directory;  // the project's directory
  // Given to the hook as $SINDRI (as Cargo gives build scripts $CARGO), so
  // that a shell hook can use `"$SINDRI" render` or `patch` instead of
  // needing an interpreter; empty: not set.
  std::filesystem::path sindri_program;
};

// The state unchanged when the template has no hook at this point. Errors
// name the template, the hook and what it printed on stderr.
Result<HookState> run_hook(const HookCall& call, HookState state);

}  // namespace sindri::repo
