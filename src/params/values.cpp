#include "params/values.hpp"

#include <algorithm>

#include "value/json.hpp"

namespace sindri::params {

namespace {

std::string located(std::string_view file, size_t line, size_t column, std::string_view message) {
  return std::string(file) + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + std::string(message);
}

}  // namespace

bool looks_like_json(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (text[first] == '{' || text[first] == '[');
}

Result<YamlDocument> parse_document(std::string_view text, std::string_view file_name) {
  if (looks_like_json(text)) {
    // As the YAML reader does (kubectl's strict decoder), and JSON is YAML.
    auto json = parse_json(text, JsonOptions{.reject_duplicate_keys = true});
    if (!json) {
      const TextError& e = json.error();
      return make_error(located(file_name, e.line, e.column, "invalid JSON: " + e.message));
    }
    YamlDocument doc;
    doc.value = std::move(json).value();
    doc.line = 1;
    return doc;
  }
  YamlOptions options;
  options.record_positions = true;
  auto stream = parse_yaml_stream(text, file_name, options);
  if (!stream) {
    const YamlError& e = stream.error();
    return make_error(located(file_name, e.line, e.column, "invalid YAML: " + e.message));
  }
  if (stream->size() > 1) {
    return make_error(located(file_name, (*stream)[1].line, 1, "expected one YAML document, found " +
                                                                     std::to_string(stream->size())));
  }
  if (stream->empty()) {
    YamlDocument doc;
    doc.line = 1;
    return doc;
  }
  return std::move((*stream)[0]);
}

Result<YamlDocument> parse_values(std::string_view text, std::string_view file_name) {
  auto doc = parse_document(text, file_name);
  if (!doc) return doc;
  if (doc->value.is_null()) doc->value = Value(Object{});
  if (!doc->value.is_object()) {
    return make_error(located(file_name, doc->line, 1,
                              std::string("values must be a mapping, not ") +
                                  (doc->value.is_array() ? "a list" : doc->value.kind_name())));
  }
  return doc;
}

Value merge_values(const Value& base, const Value& overlay) {
  if (!base.is_object() || !overlay.is_object()) return overlay;
  Value out = base;
  for (const Member& m : overlay.get_object()) {
    const Value* mine = base.find(m.key.get_string());
    out.set(m.key.get_string(), mine ? merge_values(*mine, m.value) : m.value);
  }
  return out;
}

}  // namespace sindri::params
