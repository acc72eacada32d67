#pragma once
// Reading one member of an API object whose shape is not guaranteed: a
// missing member, a member of another type and a value that is no object
// all read as "absent", so callers say once what absence means.

#include <string_view>

#include "value/pointer.hpp"
#include "value/value.hpp"

namespace sindri {

// The member `key` of `object` when it is a string; "" otherwise.
inline std::string_view string_member(const Value& object, std::string_view key) {
  const Value* member = object.find(key);
  return member != nullptr && member->is_string() ? member->get_string() : std::string_view();
}

// The value at JSON pointer `pointer` in `root` when it is a string; "" otherwise.
inline std::string_view string_at(const Value& root, std::string_view pointer) {
  const Value* value = follow_pointer(root, pointer);
  return value != nullptr && value->is_string() ? value->get_string() : std::string_view();
}

}  // namespace sindri
