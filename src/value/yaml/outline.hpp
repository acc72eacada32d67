#pragma once
// The top of every document of a YAML stream, for callers that look only at a
// few top-level keys (the manifest check wants apiVersion and kind). A walk
// over parser events that skips nested content instead of building Values
// for it; its outcome is always parse_yaml_stream's (default options) cut
// down to the top, errors included: same message, document, line, column.

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "value/result.hpp"
#include "value/value.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri {

struct YamlDocumentOutline {
  size_t line = 0;  // as YamlDocument::line
  // The document's value cut down to its top. A scalar root is its value
  // (null for an empty document), a sequence root an empty array; a mapping
  // root is an object of those of the asked-for keys it has, each with its
  // value if a scalar, else an empty object or array standing for it.
  Value top;
};

using YamlOutlines = Result<std::vector<YamlDocumentOutline>, YamlError>;

// Every document of the stream, as parse_yaml_stream(text) would give it, cut
// down to `top_level_keys`.
YamlOutlines outline_yaml_stream(std::string_view text, std::span<const std::string_view> top_level_keys);

// The event walk alone: nullopt where it cannot decide cheaply (an anchor, an
// alias, a merge key, a tag, a key that is not plain text, possibly
// duplicate keys, a scalar with no JSON value, deep nesting), which is where
// outline_yaml_stream asks parse_yaml_stream. Exposed for the tests that
// check the walk stays the fast path for ordinary manifests.
std::optional<YamlOutlines> outline_yaml_stream_by_events(std::string_view text,
                                                          std::span<const std::string_view> top_level_keys);

// The fastest tier, tried first: a line scanner for the block YAML that
// renderers and kubectl write (block mappings and sequences, one-line
// scalars, block scalars, one-line flow collections of scalars; see
// block_outline.cpp). nullopt wherever the text leaves that subset or
// might not parse, valid or not, which is where the event walk takes over;
// it never reports an error itself. Exposed for the same tests.
std::optional<std::vector<YamlDocumentOutline>> outline_block_yaml(std::string_view text,
                                                                   std::span<const std::string_view> top_level_keys);

}  // namespace sindri
