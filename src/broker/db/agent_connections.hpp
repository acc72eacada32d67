#pragma once
// Which broker each agent's channel is open to, for brokers sharing a
// database: GET /fleet on any of them says ws_connected for a socket open
// to another. A broker records that it is alive every
// notices.presence_interval; the sockets of one not seen for three
// intervals (it crashed) count as closed.

#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

ApiResult<Ok> record_connection(store::Connection& connection, std::string_view agent_id, std::string_view broker_id,
                                std::string_view connected_since);
// Forgets the socket unless a newer one of the agent replaced it.
ApiResult<Ok> forget_connection(store::Connection& connection, std::string_view agent_id, std::string_view broker_id,
                                std::string_view connected_since);
ApiResult<Ok> record_presence(store::Connection& connection, std::string_view broker_id, std::string_view now);
// Whether a broker other than `self` said it was alive at or after `cutoff`.
ApiResult<bool> other_brokers_present(store::Connection& connection, std::string_view self, std::string_view cutoff);
// Forgets the brokers not seen since `cutoff` and the sockets they held;
// answers how many rows went.
ApiResult<int64_t> forget_absent_brokers(store::Connection& connection, std::string_view cutoff);

}  // namespace sindri::broker::db
