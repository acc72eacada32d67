#pragma once
// JSON text to Value and back.

#include <string>
#include <string_view>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri {

struct TextError {
  std::string message;  // what is wrong, without the position
  size_t line = 0;      // 1-based
  size_t column = 0;    // 1-based, in bytes
  std::string describe() const;  // "line L column C: message"
};

struct JsonOptions {
  // Nesting deeper is an error rather than a stack overflow.
  size_t max_depth = 512;
  // Of duplicate keys the last wins (as serde_json::Value reads them), unless
  // this is set: then the second is an error naming where the first is (as
  // serde reads a struct, and so Brokkr a request body).
  bool reject_duplicate_keys = false;
};

// Strict RFC 8259 JSON: UTF-8, no trailing commas, no comments. Integers
// that fit in int64 stay integers, other numbers become doubles.
Result<Value, TextError> parse_json(std::string_view text, const JsonOptions& options = {});

// Compact JSON as serde_json writes it: no spaces, members in key order.
std::string to_json(const Value& value);
// Indented by two spaces, `"key": value`, as serde_json's pretty printer.
std::string to_json_pretty(const Value& value);

void append_json(std::string& out, const Value& value);
void append_json_pretty(std::string& out, const Value& value, int depth = 0);
void append_json_string(std::string& out, std::string_view s);

// As append_json and append_json_pretty, unless the text would make `out`
// longer than `max_size` bytes: false then, with the part that fitted
// appended. Values share what they hold, so a small value can stand for a
// text of gigabytes; these stop before building it.
bool append_json_within(std::string& out, const Value& value, size_t max_size);
bool append_json_pretty_within(std::string& out, const Value& value, size_t max_size);

}  // namespace sindri
