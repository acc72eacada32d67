#include "broker/db/counters.hpp"

#include <atomic>
#include <random>

#include "broker/db/tables.hpp"

namespace sindri::broker::db {

ApiResult<Generations> read_generations(store::Database& db) {
  auto rows = db.read_statement(
      "SELECT (SELECT CAST(SUM(generation) AS BIGINT) FROM target_state_generations), credentials_generation "
      "FROM broker_state WHERE id = 1");
  if (!rows.ok()) return database_error(std::move(rows).error());
  if (rows->empty()) return database_error(store::DbError{store::DbError::Kind::Invalid, "broker_state is empty"});
  return Generations{rows->rows[0][0].get_int(), rows->rows[0][1].get_int()};
}

store::DbStatus check_readable(store::Database& db) {
  SINDRI_CHECK(db.read_statement("SELECT credentials_generation FROM broker_state WHERE id = 1"));
  return Ok{};
}

int64_t target_state_shard() {
  // A transaction runs on one thread, so the threads of one broker never
  // share a shard (up to kTargetStateShards of them); the random start keeps
  // brokers sharing a database apart.
  static std::atomic<uint32_t> next_shard{std::random_device{}()};
  thread_local const int64_t shard = next_shard.fetch_add(1, std::memory_order_relaxed) % kTargetStateShards;
  return shard;
}

ApiResult<Ok> touch_target_state(store::Connection& connection) {
  SINDRI_CHECK(connection.query("UPDATE target_state_generations SET generation = generation + 1 WHERE shard = $1",
                                {Value(target_state_shard())}));
  return Ok{};
}

ApiResult<Ok> touch_credentials(store::Connection& connection) {
  SINDRI_CHECK(connection.query("UPDATE broker_state SET credentials_generation = credentials_generation + 1 WHERE id = 1"));
  return Ok{};
}

}  // namespace sindri::broker::db
