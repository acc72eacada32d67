#pragma once
// Labels and annotations of the broker objects that carry them (stacks,
// templates): the KEY=VALUE argument check, the annotation body, and adding
// them to an object just created.

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/broker_client.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::cli {

struct Tags {
  std::vector<std::string> labels;
  std::vector<std::string> annotations;  // KEY=VALUE
};

// What is wrong with a KEY=VALUE argument ("" for nothing): the key must
// not be empty; the broker checks the rest.
std::string key_value_problem(std::string_view text);
// key_value_problem as a CLI11 check: a usage error.
CLI::Validator key_value_validator();

// The body of POST .../annotations: {key, value}, split at the first '='.
Value annotation_body(std::string_view key_value);

// Adds `tags` to `object`, a `kind` ("stack", "template") just created at
// `path` (/stacks/ID). Labels and annotations are calls of their own once
// the object exists; should one fail, the object is deleted again, so that
// running the command once more does not leave two of the same name.
Status add_tags_to_new(BrokerClient& client, const std::string& path, std::string_view kind, const Value& object,
                       const Tags& tags);

}  // namespace sindri::cli
