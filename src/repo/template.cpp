#include "repo/template.hpp"

#include "repo/problems.hpp"
#include "value/file_text.hpp"

namespace sindri::repo {

namespace {

Result<Value> load_schema(const std::filesystem::path& path, Problems& problems) {
  SINDRI_TRY(text, read_file_text(path, "template schema"));
  SINDRI_TRY(document, parse_located_json(text, path.string()));
  const auto violations = schema::check_schema(document.value(), schema::Draft::Draft7);
  for (const schema::Violation& v : violations) {
    problems.push_back(document.where(v.instance_location) + ": not a valid JSON Schema: " + v.describe());
  }
  return document.value();
}

}  // namespace

Result<TemplateMetadata> load_metadata(const TemplateLocation& location) {
  Problems problems;
  // Every symlink is refused, whatever it points at: the simplest rule that
  // keeps a template (maybe from an untrusted git source) from reading or
  // running a file outside itself.
  for (const std::filesystem::path& link : location.symlinks()) {
    problems.push_back(link.string() + ": a template cannot hold a symlink (it could read any file on this machine)");
  }
  if (!problems.empty()) return problems_error(problems);
  const auto metadata_path = location.find_file("template.json");
  if (!metadata_path) return make_error(location.directory.string() + ": no template.json");
  SINDRI_TRY(text, read_file_text(*metadata_path, "template metadata"));
  return parse_template_json(text, metadata_path->string(), location.name);
}

Result<Template> load_template(const TemplateLocation& location) {
  Template tpl{.location = location, .metadata = {}, .schema_document = Value(), .schema = std::nullopt};
  auto metadata = load_metadata(location);
  if (!metadata && !location.symlinks().empty()) return std::move(metadata).error();
  Problems problems;
  if (metadata) {
    tpl.metadata = std::move(metadata).value();
  } else {
    for (std::string& problem : problems_of(metadata.error())) problems.push_back(std::move(problem));
  }
  if (const auto schema_path = location.find_file("template_schema.json")) {
    auto document = load_schema(*schema_path, problems);
    if (!document) {
      problems.push_back(document.error().message);
    } else if (problems.empty()) {
      auto compiled = schema::compile_schema(*document, schema::Draft::Draft7);
      if (!compiled) {
        problems.push_back(schema_path->string() + ": " + compiled.error().describe());
      } else {
        tpl.schema_document = std::move(document).value();
        tpl.schema = std::move(compiled).value();
      }
    }
  }
  if (!problems.empty()) return problems_error(problems);
  return tpl;
}

}  // namespace sindri::repo
