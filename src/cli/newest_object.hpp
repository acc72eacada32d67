#pragma once
// A stack's newest deployment object, which `apply` and `diff` compare
// manifests with: what the stack's agents apply now.

#include "cli/broker_client.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::cli {

// The object of the highest sequence id (GET /stacks/{id}/deployment-objects),
// null when the stack has none.
Result<Value> newest_deployment_object(BrokerClient& client, const Value& stack);

}  // namespace sindri::cli
