#pragma once
// What a template's settings are, for people: from its schema's top-level
// `properties` and its template.json (for `repo show`, later `repo docs`).

#include <optional>
#include <string>
#include <vector>

#include "repo/template.hpp"

namespace sindri::repo {

struct SettingDoc {
  std::string name;
  std::string description;           // the schema's description, else its title
  std::string type;                  // the schema's type(s) joined by `|`; empty when it gives none
  std::vector<Value> allowed;        // the schema's enum (or const)
  std::optional<Value> default_value;  // from default_settings, shared_settings, else the schema
  bool published = false;            // a shared setting this template publishes
  bool subscribed = false;           // a shared setting it reads from a publisher
};

// Every setting the schema or template.json names, sorted by name.
std::vector<SettingDoc> setting_docs(const Template& tpl);

}  // namespace sindri::repo
