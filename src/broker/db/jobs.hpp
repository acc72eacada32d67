#pragma once
// The job_turns table: which broker runs a periodic pass next. Brokers
// sharing a database each try to take a job's turn before a round; one
// conditional update lets exactly one of them through per interval.

#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

// Takes the turn of job `name` when it is due (its next_run_at has passed,
// it has never run, or its next run lies past `next_run_at`: set under a
// longer interval since shortened) and moves its next run to `next_run_at`; true when
// `broker_id` got it. Times are RFC 3339 text as now_timestamp() writes them.
ApiResult<bool> take_job_turn(store::Connection& connection, std::string_view name, std::string_view now,
                              std::string_view next_run_at, std::string_view broker_id);

}  // namespace sindri::broker::db
