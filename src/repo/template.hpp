#pragma once
// A template found in a source, read: its metadata and its settings schema.

#include <optional>
#include <string_view>

#include "repo/catalog.hpp"
#include "repo/metadata.hpp"
#include "schema/schema.hpp"

namespace sindri::repo {

// A file of files/ or files_init/ whose name ends so is rendered with Tera
// and written without it; any other is copied.
inline constexpr std::string_view kTeraSuffix = ".tera";

struct Template {
  TemplateLocation location;
  TemplateMetadata metadata;
  Value schema_document;                        // null without template_schema.json
  std::optional<schema::CompiledSchema> schema;  // absent: any settings are accepted

  const std::string& name() const { return location.name; }
};

// template.json alone: enough to know whether a template is always applied
// or publishes a setting, without its schema.
Result<TemplateMetadata> load_metadata(const TemplateLocation& location);

// template.json and template_schema.json (each maybe from an override);
// every problem of both at once, each naming its file.
Result<Template> load_template(const TemplateLocation& location);

}  // namespace sindri::repo
