#pragma once
// Labels and annotations of stacks, agents and templates: six tables with
// one shape, so one set of statements per owner serves all three.

#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

enum class TagOwner { Stack, Agent, Template };

// By label, or by key.
ApiResult<Value> list_labels(store::Connection& connection, TagOwner owner, std::string_view owner_id);
ApiResult<Value> list_annotations(store::Connection& connection, TagOwner owner, std::string_view owner_id);
// A unique violation (the label or key is there already) is the caller's to
// answer.
ApiResult<Value> insert_label(store::Connection& connection, TagOwner owner, std::string_view owner_id,
                              std::string_view label);
ApiResult<Value> insert_annotation(store::Connection& connection, TagOwner owner, std::string_view owner_id,
                                   std::string_view key, std::string_view value);
// False when there was none.
ApiResult<bool> delete_label(store::Connection& connection, TagOwner owner, std::string_view owner_id,
                             std::string_view label);
ApiResult<bool> delete_annotation(store::Connection& connection, TagOwner owner, std::string_view owner_id,
                                  std::string_view key);

}  // namespace sindri::broker::db
