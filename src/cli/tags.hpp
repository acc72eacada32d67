#pragma once
// Labels and annotations of the broker objects that carry them (stacks,
// agents, templates): the KEY=VALUE argument check, the annotation body,
// adding them to an object just created, and the label and annotate verbs.

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

// Adds `tags` to `object`, a `kind` ("stack", "agent", "template") just created at
// `path` (/stacks/ID). Labels and annotations are calls of their own once
// the object exists; should one fail, the object is deleted again, so that
// running the command once more does not leave two of the same name.
Status add_tags_to_new(BrokerClient& client, const std::string& path, std::string_view kind, const Value& object,
                       const Tags& tags);

// `get`'s answer: with -o yaml|json the object as the API gives it; as a
// table, `columns` and then what the object does not hold, its targeting:
// LABELS and ANNOTATIONS from `path` ("env=prod, tier", or "<none>"), left
// out when the PAK may not read them. Returns the exit code.
int print_with_tags(BrokerClient& client, const Value& object, const std::string& path, std::vector<Column> columns,
                    const std::string& output);

struct TagChange {
  std::vector<std::string> items;  // LABELs, KEY=VALUEs, or with `remove` KEYs of annotations
  bool annotations = false;
  bool remove = false;
};

// The label and annotate verbs on the object at `path` (/stacks/ID), named
// `subject` in reports ("stack web"): one call per item, each reported as it
// is done, so that a failure in the middle leaves a record of what changed.
// As kubectl, adding what is already there or removing what is not changes
// nothing and is no error; an annotation whose key holds another value is
// one, naming that value.
// Returns the exit code. Callers run check_tag_items first.
int change_tags(BrokerClient& client, const std::string& path, const std::string& subject, const TagChange& change);

struct TagVerbs {
  CLI::App* label;
  CLI::App* annotate;
};
// Adds `label` and `annotate` under `parent` for a `kind` ("stack") found by
// the positional `target` (STACK); both fill `change`.
TagVerbs add_tag_verbs(CLI::App& parent, const std::string& kind, std::string& target, TagChange& change,
                       BrokerFlags& flags);

// Before any call: every KEY=VALUE to add is one, else a usage error (exit
// code 2, printed); 0 when all are.
int check_tag_items(const TagChange& change);

}  // namespace sindri::cli
