#include "cli/tags.hpp"

#include <algorithm>
#include <cctype>
#include <functional>

#include "cli/errors.hpp"
#include "cli/io.hpp"

namespace sindri::cli {

std::string key_value_problem(std::string_view text) {
  const size_t equals = text.find('=');
  if (equals == std::string_view::npos || equals == 0) return "expected KEY=VALUE, got \"" + std::string(text) + "\"";
  return {};
}

CLI::Validator key_value_validator() {
  return CLI::Validator([](std::string& text) { return key_value_problem(text); }, "KEY=VALUE");
}

Value annotation_body(std::string_view key_value) {
  const size_t equals = key_value.find('=');
  Value body{Object{}};
  body.set("key", std::string(key_value.substr(0, equals)));
  body.set("value", equals == std::string_view::npos ? std::string() : std::string(key_value.substr(equals + 1)));
  return body;
}

Status add_tags_to_new(BrokerClient& client, const std::string& path, std::string_view kind, const Value& object,
                       const Tags& tags) {
  auto undo = [&](const std::string& what, const Error& error) -> Status {
    std::string message = what + ": " + error.message;
    if (auto removed = client.remove(path); removed) {
      message += "; " + std::string(kind) + " " + cell(object, "name") + " was not kept";
    } else {
      message += "; " + std::string(kind) + " " + cell(object, "id") +
                 " was created and could not be deleted again: " + removed.error().message;
    }
    return make_error(message);
  };
  for (const std::string& label : tags.labels) {
    if (auto added = client.post(path + "/labels", Value(label)); !added) {
      return undo("cannot add label \"" + label + "\"", added.error());
    }
  }
  for (const std::string& annotation : tags.annotations) {
    if (auto added = client.post(path + "/annotations", annotation_body(annotation)); !added) {
      return undo("cannot add annotation \"" + annotation + "\"", added.error());
    }
  }
  return Ok{};
}

namespace {

std::string joined(const Value& items, const std::function<std::string(const Value&)>& text) {
  std::string out;
  if (items.is_array()) {
    for (const Value& item : items.get_array()) out += (out.empty() ? "" : ", ") + text(item);
  }
  return out.empty() ? "<none>" : out;
}

}  // namespace

int print_with_tags(BrokerClient& client, const Value& object, const std::string& path, std::vector<Column> columns,
                    const std::string& output) {
  auto labels = client.get(path + "/labels");
  auto annotations = labels ? client.get(path + "/annotations") : labels;
  if (!(labels && annotations) && !client.last_refused()) {
    return fail((labels ? annotations : labels).error().message);
  }
  const bool readable = labels && annotations;
  if (!is_table_output(output)) {
    // As kubectl's -o json holds all its table shows: labels as a list,
    // annotations as a map (left out when the PAK may not read them).
    Value shown = object;
    if (readable) {
      Value label_list{Array{}};
      for (const Value& label : labels->get_array()) label_list.push_back(Value(cell(label, "label")));
      Value annotation_map{Object{}};
      for (const Value& annotation : annotations->get_array()) {
        annotation_map.set(cell(annotation, "key"), Value(cell(annotation, "value")));
      }
      shown.set("labels", std::move(label_list));
      shown.set("annotations", std::move(annotation_map));
    }
    return print_result(shown, output, {});
  }
  if (readable) {
    std::string label_text = joined(*labels, [](const Value& label) { return cell(label, "label"); });
    std::string annotation_text = joined(*annotations, [](const Value& annotation) {
      return cell(annotation, "key") + "=" + cell(annotation, "value");
    });
    columns.push_back({"LABELS", [label_text](const Value&) { return label_text; }});
    columns.push_back({"ANNOTATIONS", [annotation_text](const Value&) { return annotation_text; }});
  }
  return print_result(object, output, [&](const Value& found) { return format_table(columns, found, output); });
}

TagVerbs add_tag_verbs(CLI::App& parent, const std::string& kind, std::string& target, TagChange& change,
                       BrokerFlags& flags) {
  std::string placeholder = kind;
  std::transform(placeholder.begin(), placeholder.end(), placeholder.begin(), ::toupper);
  const std::string target_help = "Id or name of the " + kind;

  CLI::App* label = parent.add_subcommand("label", "Add labels to the " + kind + ", or --remove them");
  label->add_option(placeholder, target, target_help)->required();
  label->add_option("LABEL", change.items, "Label, e.g. env=prod")->required();
  label->add_flag("--remove", change.remove, "Remove the labels instead");
  add_broker_flags(*label, flags, false);

  CLI::App* annotate = parent.add_subcommand("annotate", "Add annotations to the " + kind + ", or --remove them by key");
  annotate->add_option(placeholder, target, target_help)->required();
  annotate->add_option("ANNOTATION", change.items, "KEY=VALUE (KEY with --remove)")->required();
  annotate->add_flag("--remove", change.remove, "Remove the annotations with these keys instead");
  annotate->final_callback([&change] { change.annotations = true; });
  add_broker_flags(*annotate, flags, false);
  return TagVerbs{label, annotate};
}

int check_tag_items(const TagChange& change) {
  if (!change.annotations || change.remove) return 0;
  for (const std::string& item : change.items) {
    if (std::string problem = key_value_problem(item); !problem.empty()) {
      return fail(problem + " (to remove an annotation: --remove KEY)", 2);
    }
  }
  return 0;
}

namespace {

// After a 409 for annotation `key_value`: "" when the object holds that
// very annotation, else why the addition failed.
std::string annotation_conflict(BrokerClient& client, const std::string& path, std::string_view key_value,
                                const Error& refusal) {
  const size_t equals = key_value.find('=');
  const std::string_view key = key_value.substr(0, equals);
  auto current = client.get(path);
  if (!current || !current->is_array()) return refusal.message;
  for (const Value& annotation : current->get_array()) {
    if (cell(annotation, "key") != key) continue;
    const std::string value = cell(annotation, "value");
    if (value == key_value.substr(equals + 1)) return {};
    return "it already has the value \"" + value + "\"; remove it first (--remove " + std::string(key) + ")";
  }
  return refusal.message;
}

}  // namespace

int change_tags(BrokerClient& client, const std::string& path, const std::string& subject, const TagChange& change) {
  const std::string what = change.annotations ? "annotation" : "label";
  const std::string collection = path + (change.annotations ? "/annotations" : "/labels");
  for (const std::string& item : change.items) {
    Result<Value> done = change.remove        ? client.remove(collection + "/" + http::percent_encode(item))
                         : change.annotations ? client.post(collection, annotation_body(item))
                                              : client.post(collection, Value(item));
    std::string outcome = change.remove ? "removed" : "added";
    if (!done) {
      const Value& refusal = client.last_error();
      std::string problem = done.error().message;
      if (change.remove && has_error_code(refusal, what + "_not_found")) {
        problem.clear();
        outcome = "not present";
      } else if (!change.remove && has_error_code(refusal, what + "_exists")) {
        problem = change.annotations ? annotation_conflict(client, collection, item, done.error()) : "";
        outcome = "already present";
      }
      if (!problem.empty()) {
        return fail("cannot " + std::string(change.remove ? "remove " : "add ") + what + " \"" + item + "\": " + problem);
      }
    }
    if (!write_stdout(subject + ": " + what + " " + item + " " + outcome + "\n")) {
      return fail("cannot write the output");
    }
  }
  return 0;
}

}  // namespace sindri::cli
