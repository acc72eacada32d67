#include "repo/located_document.hpp"

#include "value/json.hpp"

namespace sindri::repo {

namespace {

std::string at(const std::string& file, size_t line, size_t column) {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

Result<YamlDocument> read_yaml_document(std::string_view text, const std::string& file) {
  YamlOptions options;
  options.record_positions = true;
  auto stream = parse_yaml_stream(text, file, options);
  if (!stream) {
    const YamlError& e = stream.error();
    return make_error(at(file, e.line, e.column) + ": invalid YAML: " + e.message);
  }
  if (stream->size() > 1) {
    return make_error(at(file, (*stream)[1].line, 1) + ": expected one YAML document, found " +
                      std::to_string(stream->size()));
  }
  if (stream->empty()) return YamlDocument{.value = Value(), .line = 1, .positions = {}};
  return std::move((*stream)[0]);
}

}  // namespace

std::string LocatedDocument::where(std::string_view pointer) const {
  const YamlPosition* found = document.nearest_position_of(pointer);
  return found != nullptr ? at(file, found->line, found->column) : file;
}

Result<LocatedDocument> parse_located_json(std::string_view text, std::string file) {
  auto json = parse_json(text, JsonOptions{.reject_duplicate_keys = true});
  if (!json) {
    const TextError& e = json.error();
    return make_error(at(file, e.line, e.column) + ": invalid JSON: " + e.message);
  }
  LocatedDocument out{.file = std::move(file), .document = {}};
  if (auto positioned = read_yaml_document(text, out.file)) out.document = std::move(positioned).value();
  out.document.value = std::move(json).value();
  return out;
}

Result<LocatedDocument> parse_located_yaml(std::string_view text, std::string file) {
  SINDRI_TRY(document, read_yaml_document(text, file));
  return LocatedDocument{.file = std::move(file), .document = std::move(document)};
}

}  // namespace sindri::repo
