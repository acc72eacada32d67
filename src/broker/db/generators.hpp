#pragma once
// The generators table: the identities CI pipelines and people create stacks
// with.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

// The live generator `id`; 404 when missing or deleted.
ApiResult<Value> load_generator(store::Connection& connection, std::string_view id);
// A generator a request body names must exist and be live: a 400 naming the
// field at `pointer` otherwise.
ApiResult<Ok> check_named_generator(store::Connection& connection, std::string_view id, std::string_view pointer);

ApiResult<Value> list_generators(store::Connection& connection);
// Every live generator that has a PAK (all but the system generator) as its
// id and name, by name.
ApiResult<Value> list_pak_owners(store::Connection& connection);
// The live system generators' ids (one after the first start).
ApiResult<std::vector<std::string>> system_generator_ids(store::Connection& connection);

// A unique violation (the name is taken) is the caller's to answer.
ApiResult<Value> insert_generator(store::Connection& connection, std::string_view name,
                                  const std::optional<std::string>& description, std::string_view pak_hash);
ApiResult<Value> update_generator(store::Connection& connection, std::string_view id, std::string_view name,
                                  const Value& description, bool is_active);
// A new PAK hash for the live generator `id`; 404 when there is none.
ApiResult<Value> set_generator_pak(store::Connection& connection, std::string_view id, std::string_view pak_hash);

// Soft-deletes the generator with its templates (seed 000's cascade) and its
// stacks, each as delete_stack does (Brokkr's cascade); answers the stacks
// that went. The caller touches the target state when any did.
ApiResult<std::vector<std::string>> delete_generator(store::Connection& connection, std::string_view id,
                                                     const std::string& now);

}  // namespace sindri::broker::db
