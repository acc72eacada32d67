#include "broker/db/tags.hpp"

#include <vector>

#include "broker/db/rows.hpp"
#include "broker/ids.hpp"

namespace sindri::broker::db {
namespace {

struct TagStatements {
  bool timestamped;  // the inserts take created_at as their last parameter
  const char* list_labels;
  const char* insert_label;
  const char* delete_label;
  const char* list_annotations;
  const char* insert_annotation;
  const char* delete_annotation;
};

constexpr TagStatements kStack{
    false,
    "SELECT id, stack_id, label FROM stack_labels WHERE stack_id = $1 ORDER BY label",
    "INSERT INTO stack_labels (id, stack_id, label) VALUES ($1, $2, $3) RETURNING id, stack_id, label",
    "DELETE FROM stack_labels WHERE stack_id = $1 AND label = $2 RETURNING id",
    "SELECT id, stack_id, key, value FROM stack_annotations WHERE stack_id = $1 ORDER BY key",
    "INSERT INTO stack_annotations (id, stack_id, key, value) VALUES ($1, $2, $3, $4) "
    "RETURNING id, stack_id, key, value",
    "DELETE FROM stack_annotations WHERE stack_id = $1 AND key = $2 RETURNING id"};

constexpr TagStatements kAgent{
    false,
    "SELECT id, agent_id, label FROM agent_labels WHERE agent_id = $1 ORDER BY label",
    "INSERT INTO agent_labels (id, agent_id, label) VALUES ($1, $2, $3) RETURNING id, agent_id, label",
    "DELETE FROM agent_labels WHERE agent_id = $1 AND label = $2 RETURNING id",
    "SELECT id, agent_id, key, value FROM agent_annotations WHERE agent_id = $1 ORDER BY key",
    "INSERT INTO agent_annotations (id, agent_id, key, value) VALUES ($1, $2, $3, $4) "
    "RETURNING id, agent_id, key, value",
    "DELETE FROM agent_annotations WHERE agent_id = $1 AND key = $2 RETURNING id"};

constexpr TagStatements kTemplate{
    true,
    "SELECT id, template_id, label, created_at FROM template_labels WHERE template_id = $1 ORDER BY label",
    "INSERT INTO template_labels (id, template_id, label, created_at) VALUES ($1, $2, $3, $4) "
    "RETURNING id, template_id, label, created_at",
    "DELETE FROM template_labels WHERE template_id = $1 AND label = $2 RETURNING id",
    "SELECT id, template_id, key, value, created_at FROM template_annotations WHERE template_id = $1 ORDER BY key",
    "INSERT INTO template_annotations (id, template_id, key, value, created_at) VALUES ($1, $2, $3, $4, $5) "
    "RETURNING id, template_id, key, value, created_at",
    "DELETE FROM template_annotations WHERE template_id = $1 AND key = $2 RETURNING id"};

const TagStatements& statements(TagOwner owner) {
  switch (owner) {
    case TagOwner::Stack: return kStack;
    case TagOwner::Agent: return kAgent;
    case TagOwner::Template: return kTemplate;
  }
  return kStack;
}

ApiResult<Value> insert(store::Connection& connection, TagOwner owner, const char* sql, std::vector<Value> params) {
  if (statements(owner).timestamped) params.push_back(Value(now_timestamp()));
  SINDRI_TRY(rows, connection.query(sql, params));
  return row_object(rows, 0);
}

ApiResult<bool> remove(store::Connection& connection, const char* sql, std::string_view owner_id,
                       std::string_view tag) {
  SINDRI_TRY(rows, connection.query(sql, {Value(owner_id), Value(tag)}));
  return !rows.empty();
}

}  // namespace

ApiResult<Value> list_labels(store::Connection& connection, TagOwner owner, std::string_view owner_id) {
  SINDRI_TRY(rows, connection.query(statements(owner).list_labels, {Value(owner_id)}));
  return rows_array(rows);
}

ApiResult<Value> list_annotations(store::Connection& connection, TagOwner owner, std::string_view owner_id) {
  SINDRI_TRY(rows, connection.query(statements(owner).list_annotations, {Value(owner_id)}));
  return rows_array(rows);
}

ApiResult<Value> insert_label(store::Connection& connection, TagOwner owner, std::string_view owner_id,
                              std::string_view label) {
  return insert(connection, owner, statements(owner).insert_label, {Value(new_uuid()), Value(owner_id), Value(label)});
}

ApiResult<Value> insert_annotation(store::Connection& connection, TagOwner owner, std::string_view owner_id,
                                   std::string_view key, std::string_view value) {
  return insert(connection, owner, statements(owner).insert_annotation,
                {Value(new_uuid()), Value(owner_id), Value(key), Value(value)});
}

ApiResult<bool> delete_label(store::Connection& connection, TagOwner owner, std::string_view owner_id,
                             std::string_view label) {
  return remove(connection, statements(owner).delete_label, owner_id, label);
}

ApiResult<bool> delete_annotation(store::Connection& connection, TagOwner owner, std::string_view owner_id,
                                  std::string_view key) {
  return remove(connection, statements(owner).delete_annotation, owner_id, key);
}

}  // namespace sindri::broker::db
