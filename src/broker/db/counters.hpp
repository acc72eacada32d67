#pragma once
// The two counters that cached answers are checked against (counters.hpp
// reads them per request): the target-state generation, summed over
// kTargetStateShards rows so that concurrent writers do not queue on one, and
// the credentials generation.

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

struct Generations {
  int64_t target_state = 0;
  int64_t credentials = 0;
};
ApiResult<Generations> read_generations(store::Database& db);
// Whether the broker's tables answer a read (readiness).
store::DbStatus check_readable(store::Database& db);

// Bumps the target-state generation; call it in every write that can change
// what an agent's target state holds.
ApiResult<Ok> touch_target_state(store::Connection& connection);
// The row of the target-state counter that this thread's writes bump.
int64_t target_state_shard();
// Bumps the credentials generation; call it in every write that revokes a
// PAK or the identity behind it.
ApiResult<Ok> touch_credentials(store::Connection& connection);

}  // namespace sindri::broker::db
