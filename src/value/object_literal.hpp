#pragma once
// An object written as a literal, key by key:
//   make_object({{"pointer", Value(pointer)}, {"line", Value(line)}})
// in place of an Object filled by a run of push_backs. Value(Object) sorts
// the members by key (of duplicate keys the last written wins), so the JSON
// an object prints does not depend on the order written here.

#include <initializer_list>
#include <string>
#include <vector>

#include "value/value.hpp"

namespace sindri {

inline Value make_object(std::initializer_list<Member> members) { return Value(Object(members)); }

// An array of the strings, in order.
inline Value string_array(const std::vector<std::string>& items) {
  Array array;
  array.reserve(items.size());
  for (const std::string& item : items) array.push_back(Value(item));
  return Value(std::move(array));
}

}  // namespace sindri
