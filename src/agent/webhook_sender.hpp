#pragma once
// Sends a webhook delivery the broker handed this agent (GET
// /agents/{id}/webhooks/pending: receivers only the cluster can reach) as
// the broker sends its own (broker/webhook_delivery.hpp): a POST of the
// payload with X-Brokkr-Event-Type, X-Brokkr-Delivery-Id and the
// subscription's Authorization header. Answers the body of POST
// /webhook-deliveries/{id}/result: {success, status_code, error, duration_ms}.

#include "value/value.hpp"

namespace sindri::agent {

Value send_agent_webhook(const Value& delivery);

}  // namespace sindri::agent
