#include "cli/newest_object.hpp"

#include <cstdint>
#include <string>

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

}  // namespace sindri::cli
