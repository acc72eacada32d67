#pragma once
// YAML text to Values and back, meaning what it means to kubectl.
//
// Plain scalars resolve as Kubernetes resolves them (sigs.k8s.io/yaml over
// go-yaml v2, YAML 1.1 style): `yes`, `y`, `on` are true, `0755` is 493,
// `1_000` is 1000, timestamps stay strings. A YAML number becomes what kubectl
// prints for it: a float with an integral value that fits in int64 (`1e3`,
// `1.0`, `08`) is the integer. Keys become strings as kubectl converts them
// (`yes:` is "true", `0755:` is "493", `1.5:` is "1.5"). The expected values
// are pinned against kubectl itself by tests/value/yaml_cases/.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri {

struct YamlError {
  std::string file;         // as given to the parser; may be empty
  size_t document = 0;      // 0-based index of the document in the stream
  size_t line = 0;          // 1-based
  size_t column = 0;        // 1-based
  std::string message;      // what is wrong, without the position
  // "FILE:LINE:COLUMN: document N: MESSAGE", N counting from 1.
  std::string describe() const;
};

// Where a node starts in the text. Pointer is the node's JSON pointer inside
// its document ("" for the root, "/spec/containers/0/image").
struct YamlPosition {
  std::string pointer;
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based
};

struct YamlDocument {
  Value value;      // null for an empty document
  size_t line = 0;  // 1-based line where the document starts
  // Sorted by pointer; filled only with YamlOptions::record_positions. A node
  // reached through an alias or a merge key has no entry of its own.
  std::vector<YamlPosition> positions;

  // The position of the node at `pointer`, or nullptr.
  const YamlPosition* position_of(std::string_view pointer) const;
  // The position of the node at `pointer` or, for a missing node or an
  // empty value (line 0), of its nearest ancestor that has one; nullptr when
  // none has. Where a complaint about a value is best shown.
  const YamlPosition* nearest_position_of(std::string_view pointer) const;
};

struct YamlOptions {
  // Fill YamlDocument::positions (costs a string per node; off for speed).
  bool record_positions = false;
  // kubectl's decoder lets the last of duplicate keys win; the strict
  // decoder (sigs.k8s.io/yaml YAMLToJSONStrict, the API server's strict field
  // validation) rejects them. Sindri rejects them unless this is set.
  bool allow_duplicate_keys = false;
  // Bound on the nodes that aliases expand to in one document, so that a
  // "billion laughs" document fails instead of exhausting whoever walks it.
  size_t max_alias_expansion = 1'000'000;
  size_t max_depth = 512;
};

// Every document of a YAML stream, empty documents included (as null).
Result<std::vector<YamlDocument>, YamlError> parse_yaml_stream(std::string_view text,
                                                               std::string_view file_name = {},
                                                               const YamlOptions& options = {});

// A stream that must hold exactly one document (or none: null).
Result<Value, YamlError> parse_yaml(std::string_view text, std::string_view file_name = {},
                                    const YamlOptions& options = {});

// Block YAML as `kubectl -o yaml` prints it: two-space indent, sequences in
// mappings not indented, keys sorted, strings quoted only where a plain
// scalar would read back as something else, multi-line strings as literal
// block scalars, long plain lines folded after column 80. Ends in a newline.
std::string to_yaml(const Value& value);
void append_yaml(std::string& out, const Value& value);
// Documents joined by "---\n".
std::string to_yaml_stream(std::span<const Value> documents);

}  // namespace sindri
