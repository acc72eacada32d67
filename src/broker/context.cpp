#include "broker/context.hpp"

#include <atomic>
#include <random>

#include "broker/ids.hpp"
#include "broker/schema.hpp"

namespace sindri::broker {

const char* Identity::kind_name() const {
  switch (kind) {
    case Kind::Admin: return "admin";
    case Kind::Generator: return "generator";
    case Kind::Agent: return "agent";
  }
  return "unknown";
}

ApiResult<std::string> Call::id_param(std::string_view name) const {
  const std::string& value = params[name];
  if (!is_uuid(value)) {
    ApiError error = bad_request("invalid_path_parameter",
                                 "path parameter {" + std::string(name) + "} must be a UUID, got \"" + value + "\"");
    return error;
  }
  return stored_uuid(value);
}

Value row_object(const store::Rows& rows, size_t index, std::initializer_list<std::string_view> booleans) {
  const auto& row = rows.rows[index];
  Object object;
  object.reserve(row.size());
  for (size_t column = 0; column < row.size(); ++column) {
    const std::string& name = rows.columns[column];
    Value cell = row[column];
    if (cell.is_int()) {
      for (std::string_view boolean : booleans) {
        if (boolean == name) {
          cell = Value(cell.get_int() != 0);
          break;
        }
      }
    }
    object.push_back({Value(name), std::move(cell)});
  }
  return Value(std::move(object));
}

Value rows_array(const store::Rows& rows, std::initializer_list<std::string_view> booleans) {
  Array items;
  items.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) items.push_back(row_object(rows, i, booleans));
  return Value(std::move(items));
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
  BROKER_CHECK(connection.query("UPDATE target_state_generations SET generation = generation + 1 WHERE shard = $1",
                                {Value(target_state_shard())}));
  return Ok{};
}

ApiResult<Ok> touch_credentials(store::Connection& connection) {
  BROKER_CHECK(connection.query("UPDATE broker_state SET credentials_generation = credentials_generation + 1 WHERE id = 1"));
  return Ok{};
}

ApiResult<Ok> touch_credentials(Call& call, store::Connection& connection) {
  call.touched_credentials = true;
  return touch_credentials(connection);
}

}  // namespace sindri::broker
