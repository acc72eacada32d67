#pragma once
// Comparing values as JSON does: numbers by mathematical value (1 and 1.0
// are the same number; an int64 and a double are compared exactly, so
// 2^53 + 1 is not 2^53.0), strings by bytes, arrays item by item, objects
// member by member whatever their key order. For JSON Schema's const, enum
// and uniqueItems and for JSON Patch's test.

#include <compare>

#include "value/value.hpp"

namespace sindri {

// Unordered when either is NaN.
std::partial_ordering compare_numbers(const Value& a, const Value& b);

bool json_equal(const Value& a, const Value& b);

// A total order of values to sort them by, agreeing with json_equal: two
// values are equivalent when json_equal, or when they differ only in
// holding a NaN at the same places (a NaN equals nothing, not even a NaN).
std::weak_ordering json_order(const Value& a, const Value& b);

}  // namespace sindri
