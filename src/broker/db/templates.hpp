#pragma once
// The stack_templates table (seed 000): reusable Tera templates with a JSON
// Schema for their parameters, versioned immutably per (owner, name).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

// The live template `id`; 404 when missing or deleted.
ApiResult<Value> load_template(store::Connection& connection, std::string_view id);
// The template `id`, superseded or deleted too; 404 when it never existed.
ApiResult<Value> load_any_template(store::Connection& connection, std::string_view id);

// What rendering a version needs, live or not; none when `id` never existed.
struct TemplateSource {
  std::string name;
  int64_t version = 0;
  std::string content;
  std::string parameters_schema;
};
ApiResult<std::optional<TemplateSource>> load_template_source(store::Connection& connection, std::string_view id);

struct TemplateFilter {
  std::string_view generator_id;  // empty: any owner
  const std::string* name = nullptr;
  bool all_versions = false;  // superseded and deleted versions too
};
// By name, then owner (system templates first), then version.
ApiResult<Value> list_templates(store::Connection& connection, const TemplateFilter& filter);
ApiResult<std::vector<std::string>> live_template_ids(store::Connection& connection);

// Versions of one (owner, name) are numbered, retired and relabelled one
// writer at a time. SQLite has a single writer anyway; on PostgreSQL (READ
// COMMITTED) a transaction-scoped advisory lock makes concurrent brokers wait
// for each other, and the statements after it see what the winner committed.
ApiResult<Ok> lock_template_name(store::Connection& connection, const Value& owner, std::string_view name);

struct TemplateText {
  std::optional<std::string> description;
  std::string content;
  std::string parameters_schema;
};
// Inserts the next version of (owner, null for a system template; name); the
// caller holds the name's lock.
ApiResult<Value> insert_template_version(store::Connection& connection, const Value& owner, std::string_view name,
                                         const TemplateText& text);
// Gives version `to` the labels and annotations of version `from`.
ApiResult<Ok> copy_template_tags(store::Connection& connection, std::string_view from, std::string_view to);
// Soft-deletes a version; it targets no stack any more.
ApiResult<Ok> retire_template(store::Connection& connection, std::string_view id);

// Whether `template_id` may go into `stack_id`, in one query: the stack's
// owner, whether the template is live and whether the stack carries its
// labels and annotations. None when the stack is missing or deleted.
struct InstantiationTarget {
  Value stack_generator_id;
  bool template_live = false;
  bool labels_match = false;
};
ApiResult<std::optional<InstantiationTarget>> load_instantiation_target(store::Connection& connection,
                                                                        std::string_view template_id,
                                                                        std::string_view stack_id);

}  // namespace sindri::broker::db
