#include "broker/db/rows.hpp"

namespace sindri::broker::db {

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

Value generator_object(const store::Rows& rows, size_t index) {
  return row_object(rows, index, {"is_active", "is_system"});
}

Value deployment_object_object(const store::Rows& rows, size_t index) {
  return row_object(rows, index, {"is_deletion_marker"});
}

Value agent_object(const store::Rows& rows, size_t index) { return row_object(rows, index, {"k8s_reachable"}); }

bool is_true(const Value& cell) { return cell.is_bool() ? cell.get_bool() : cell.is_int() && cell.get_int() != 0; }

bool is_unique_violation(const ApiError& error) {
  return error.cause && error.cause->kind == store::DbError::Kind::Unique;
}

}  // namespace sindri::broker::db
