#pragma once
// The settings lifecycle, in the seed's order, for every applied template:
//   1. each template's default settings             (hook after_default_settings)
//   2. shared settings published with their defaults (hook after_shared_settings)
//   3. the project's settings over them              (hook after_project_settings)
//   4. subscriptions resolved: a subscribed setting appears under its own
//      name with the publisher's value after step 3, unless the project sets
//      it on the subscriber itself
//   5. the files to render                           (hook after_file_resolution)
// Step 6, rendering, is render.hpp's. Templates apply in the project's
// order, then the `always_apply` templates it does not list, alphabetically.
// Settings are validated against each template's schema after every step
// that changes them; a setting still missing is an error only after step 4.

#include <map>
#include <string>
#include <vector>

#include "repo/catalog.hpp"
#include "repo/hooks.hpp"
#include "repo/problems.hpp"
#include "repo/project.hpp"
#include "repo/template.hpp"

namespace sindri::repo {

// Where a top-level setting's value came from, for messages.
struct SettingOrigin {
  enum class Kind { Default, SharedDefault, Project, Subscription, Hook };
  Kind kind = Kind::Default;
  std::string detail;  // Subscription: the publisher; Hook: the hook's name
};

struct PlannedFile {
  std::filesystem::path source;  // the file in the template (or an override)
  bool tera = false;             // rendered (and its `.tera` dropped), else copied
  bool init_only = false;        // from files_init: written only where absent
};

struct AppliedTemplate {
  Template tpl;
  bool listed = true;  // false: applied because of always_apply
  Value settings = Value(Object{});
  std::map<std::string, SettingOrigin> origins;    // by top-level setting
  std::map<std::string, PlannedFile> candidates;   // by output path
  std::vector<std::string> files_to_render;        // output paths, relative to the project
};

struct Plan {
  std::vector<AppliedTemplate> templates;
  Problems problems;  // nothing may be rendered while there are any
  std::filesystem::path sindri_program;  // PlanOptions', for the hooks run while rendering
};

struct PlanOptions {
  bool trust_hooks = false;              // run the hooks of git sources not marked trusted
  bool apply_unlisted_always = true;     // false: only the listed templates (a template's test case)
  std::filesystem::path sindri_program;  // $SINDRI of the hooks (hooks.hpp)
};

// An error for hooks from an untrusted source; every other problem is
// collected in Plan::problems (a hook failing also stops the lifecycle).
Result<Plan> make_plan(const Project& project, const Catalog& catalog, const PlanOptions& options = {});

// The state hooks see of the templates other than `self`.
Value other_templates_state(const Plan& plan, size_t self);

// Validates a template's settings, adding each violation, with its origin,
// to `problems` (once each). `complete`: a missing required setting counts.
void check_settings(const Plan& plan, size_t index, const Project& project, bool complete, Problems& problems);

}  // namespace sindri::repo
