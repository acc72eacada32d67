#include "broker/db/jobs.hpp"

namespace sindri::broker::db {

ApiResult<bool> take_job_turn(store::Connection& connection, std::string_view name, std::string_view now,
                              std::string_view next_run_at, std::string_view broker_id) {
  SINDRI_CHECK(connection.query(
      "INSERT INTO job_turns (name, next_run_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
      {Value(name), Value(now)}));
  SINDRI_TRY(taken, connection.query("UPDATE job_turns SET next_run_at = $3, taken_by = $4 "
                                     "WHERE name = $1 AND (next_run_at <= $2 OR next_run_at > $3) RETURNING name",
                                     {Value(name), Value(now), Value(next_run_at), Value(broker_id)}));
  return !taken.empty();
}

}  // namespace sindri::broker::db
