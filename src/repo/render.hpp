#pragma once
// Step 6 of the lifecycle: each applied template's files, in order. A file
// ending `.tera` is rendered with the template's settings as the context
// (each setting a top-level variable) after the before_file_render hook,
// which runs once per file and may change the settings for that file only;
// any other file is copied.

#include <string>
#include <vector>

#include "repo/plan.hpp"

namespace sindri::repo {

struct RenderedFile {
  std::string path;  // relative to the project, forward slashes
  std::string bytes;
  bool init_only = false;   // written only where the file does not exist
  bool executable = false;  // its source was
  std::string template_name;
};

// Refuses a plan with problems (listing them); every problem of the
// rendering itself (Tera errors, settings a hook made invalid) at once.
Result<std::vector<RenderedFile>> render_plan(const Plan& plan, const Project& project);

}  // namespace sindri::repo
