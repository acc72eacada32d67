// libFuzzer target for the YAML outline (src/value/yaml/outline.hpp): on any
// input, outline_yaml_stream must give parse_yaml_stream's documents cut down
// to their top, or exactly its error (message, document, line, column). A
// difference aborts; so do crashes, leaks and undefined behaviour.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "value/yaml/outline.hpp"

namespace {

using namespace sindri;

constexpr std::array<std::string_view, 2> kKeys = {"apiVersion", "kind"};

Value cut_to_top(const Value& value) {
  if (value.is_array()) return Value(Array{});
  if (!value.is_object()) return value;
  Object kept;
  for (const Member& member : value.get_object()) {
    if (member.key.get_string() != kKeys[0] && member.key.get_string() != kKeys[1]) continue;
    const Value& v = member.value;
    kept.push_back(Member{member.key, v.is_object() ? Value(Object{}) : v.is_array() ? Value(Array{}) : v});
  }
  return Value(std::move(kept));
}

bool same_as_reference(std::string_view text) {
  auto reference = parse_yaml_stream(text);
  auto outline = outline_yaml_stream(text, kKeys);
  if (reference.ok() != outline.ok()) return false;
  if (!reference.ok()) {
    const YamlError &a = reference.error(), &b = outline.error();
    return a.message == b.message && a.document == b.document && a.line == b.line && a.column == b.column;
  }
  if (reference->size() != outline->size()) return false;
  for (size_t i = 0; i < reference->size(); ++i) {
    const YamlDocument& document = (*reference)[i];
    if (document.line != (*outline)[i].line || !(cut_to_top(document.value) == (*outline)[i].top)) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (!same_as_reference(text)) {
    std::fprintf(stderr, "outline_yaml_stream differs from parse_yaml_stream on this input\n");
    std::abort();
  }
  return 0;
}
