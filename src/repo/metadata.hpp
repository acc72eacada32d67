#pragma once
// A template's `template.json`: what it is, its default settings, and the
// shared settings it publishes and subscribes to.

#include <string>
#include <string_view>
#include <vector>

#include "repo/located_document.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::repo {

enum class TemplateType { Project, Kubernetes };
const char* type_name(TemplateType type);

struct TemplateMetadata {
  std::string name;                       // required: a short human name
  std::string description;                // defaults to the name
  TemplateType type = TemplateType::Project;
  Value default_settings = Value(Object{});
  bool always_apply = false;
  std::vector<std::string> tags;          // always holds the directory name
  Value shared_settings = Value(Object{});  // published setting -> its default
  std::vector<std::string> setting_subscriptions;
  LocatedDocument source;                 // the file, for positions
};

// Every problem at once (problems.hpp), each "FILE:LINE:COLUMN: MESSAGE":
// invalid JSON, a missing `name`, a key of the wrong type, an unknown key.
Result<TemplateMetadata> parse_template_json(std::string_view text, std::string file, std::string_view directory_name);

}  // namespace sindri::repo
