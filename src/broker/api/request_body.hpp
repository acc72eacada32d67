#pragma once
// Reading JSON request bodies field by field. Every complaint is a 400 that
// names the field by its JSON pointer: malformed JSON (with line and column),
// a missing required field, a wrong type, a value out of its rules, and any
// field the schema does not have.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker/api_error.hpp"
#include "http/server.hpp"
#include "value/value.hpp"

namespace sindri::broker {

// Any JSON document; an empty body is an error.
ApiResult<Value> parse_json_body(const http::Request& request);

struct TextRule {
  size_t max_length = 0;     // 0: no limit
  bool allow_empty = false;
  bool allow_whitespace = true;
  bool uuid = false;         // must be a UUID (8-4-4-4-12 hex)
  // A name shown in one table cell: no control character (line break, tab)
  // and not only spaces.
  bool single_line = false;
};

// Labels, annotation keys and values: 1 to 64 characters, no whitespace.
inline constexpr TextRule kTagRule{64, false, false, false};
inline constexpr TextRule kNameRule{255, false, true, false, true};
inline constexpr TextRule kUuidRule{0, false, false, true};
inline constexpr TextRule kDescriptionRule{4096, true, true, false};

// An optional query parameter that must be a UUID when present ("" when
// absent); 400 naming it otherwise.
ApiResult<std::string> optional_uuid_query(const http::Request& request, std::string_view name);

// An optional query parameter that must be `true` or `false` when present
// (false when absent); 400 naming it otherwise.
ApiResult<bool> optional_bool_query(const http::Request& request, std::string_view name);

// Checks one string against a rule; the error names `pointer`.
ApiResult<Ok> check_text(std::string_view text, const TextRule& rule, std::string_view pointer);

// What a field a request may not change holds, for comparing it with the
// stored value: timestamps compare as instants, ids in either case. A count
// is one of the API file's int32 figures, 0 to 2147483647.
enum class ReadOnlyKind { Uuid, Timestamp, Boolean, Count };

class BodyObject {
 public:
  // The body must be a JSON object; `schema` names it in messages ("NewStack").
  static ApiResult<BodyObject> parse(const http::Request& request, std::string_view schema);
  BodyObject(Value object, std::string_view schema) : object_(std::move(object)), schema_(schema) {}

  // A 400 naming by pointer every one of `keys` that is absent or null, so
  // that one answer lists all a body lacks.
  ApiResult<Ok> require(std::initializer_list<std::string_view> keys) const;
  ApiResult<std::string> required_string(std::string_view key, const TextRule& rule = {});
  // Any JSON value, null included; only absence is an error.
  ApiResult<Value> required_value(std::string_view key);
  // Absent gives nullopt, and so does null unless the field is not nullable.
  ApiResult<std::optional<std::string>> optional_string(std::string_view key, const TextRule& rule = {},
                                                        bool nullable = true);
  ApiResult<std::optional<bool>> optional_bool(std::string_view key);
  ApiResult<std::optional<int64_t>> optional_int(std::string_view key);
  // As optional_int, refusing a number outside [low, high] with a 400 that
  // names the field and the range.
  ApiResult<std::optional<int64_t>> optional_int(std::string_view key, int64_t low, int64_t high);
  ApiResult<std::vector<std::string>> optional_string_array(std::string_view key, const TextRule& rule = {});
  // Whether the body holds `key`, null or not.
  bool has(std::string_view key) const { return object_.find(key) != nullptr; }
  // A field read no further: its absence and null both leave things as they are.
  void ignore(std::string_view key);
  // A field the schema has but a request may not change (id, created_at,
  // is_system, ...): absent unless `required`, else of its kind (null when
  // the stored value may be); check_unchanged() compares it with the record.
  ApiResult<Ok> read_only(std::string_view key, ReadOnlyKind kind, bool required = false);
  // A 400 naming by pointer every read-only field given that differs from
  // the stored record's, never silently ignored.
  ApiResult<Ok> check_unchanged(const Value& stored) const;
  // An error for the first field that no call above asked for.
  ApiResult<Ok> finish() const;

 private:
  const Value* take(std::string_view key);
  ApiError wrong_type(std::string_view key, const char* expected, const Value& got) const;

  Value object_;
  std::string schema_;
  std::set<std::string, std::less<>> seen_;
  std::vector<std::pair<std::string, ReadOnlyKind>> read_only_;
};

}  // namespace sindri::broker
