#include "cli/newest_object.hpp"

#include <cstdint>
#include <string>

#include "value/yaml/yaml.hpp"

namespace sindri::cli {

namespace {

int64_t sequence_of(const Value& object) {
  const Value* sequence = object.find("sequence_id");
  return sequence != nullptr && sequence->is_int() ? sequence->get_int() : -1;
}

}  // namespace

Result<Value> newest_deployment_object(BrokerClient& client, const Value& stack) {
  SINDRI_TRY(objects, client.get("/stacks/" + cell(stack, "id") + "/deployment-objects"));
  if (!objects.is_array()) return make_error("the broker's list of deployment objects is not an array");
  const Value* newest = nullptr;
  for (const Value& object : objects.get_array()) {
    if (newest == nullptr || sequence_of(object) > sequence_of(*newest)) newest = &object;
  }
  return newest != nullptr ? *newest : Value();
}

std::vector<ObjectPair> paired_objects(const std::vector<Manifest>& stored, const std::vector<Manifest>& files) {
  std::vector<bool> paired(stored.size(), false);
  std::vector<ObjectPair> pairs;
  for (const Manifest& file : files) {
    ObjectPair pair{nullptr, &file};
    for (size_t i = 0; i < stored.size() && pair.stored == nullptr; ++i) {
      if (!paired[i] && stored[i].identity == file.identity) {
        paired[i] = true;
        pair.stored = &stored[i];
      }
    }
    pairs.push_back(pair);
  }
  for (size_t i = 0; i < stored.size(); ++i) {
    if (!paired[i]) pairs.push_back(ObjectPair{&stored[i], nullptr});
  }
  return pairs;
}

std::string compared_yaml(const Manifest* side) { return side != nullptr ? to_yaml(side->value) : ""; }

bool same_content(const std::vector<Manifest>& stored, const std::vector<Manifest>& files) {
  for (const ObjectPair& pair : paired_objects(stored, files)) {
    if (pair.stored == nullptr || pair.file == nullptr || compared_yaml(pair.stored) != compared_yaml(pair.file)) {
      return false;
    }
  }
  return true;
}

bool holds_same_content(const Value& newest, const std::vector<Manifest>& files) {
  if (newest.is_null() || is_deletion_marker(newest)) return false;
  auto stored = manifests_in(cell(newest, "yaml_content"), "deployment object " + cell(newest, "id"));
  return stored && same_content(*stored, files);
}

}  // namespace sindri::cli
