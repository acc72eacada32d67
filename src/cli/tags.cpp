#include "cli/tags.hpp"

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

}  // namespace sindri::cli
