#include "broker/api/request_body.hpp"

#include "broker/ids.hpp"
#include "value/json.hpp"
#include "value/pointer.hpp"
#include "value/rfc3339.hpp"
#include "value/utf8.hpp"

namespace sindri::broker {
namespace {

std::string field_pointer(std::string_view key) { return pointer_child("", key); }

std::string as_stored(std::string_view text, const TextRule& rule) {
  return rule.uuid ? stored_uuid(text) : std::string(text);
}

bool has_whitespace(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') return true;
  }
  return false;
}

ApiError out_of_range(const std::string& pointer, int64_t low, int64_t high, int64_t got) {
  return field_error("invalid_field",
                     pointer + " must be between " + std::to_string(low) + " and " + std::to_string(high) + ", got " +
                         std::to_string(got),
                     pointer);
}

// A 400 about several fields at once: details.pointer is the first,
// details.pointers all of them.
ApiError fields_error(std::string code, const std::string& message, Array pointers) {
  ApiError error = field_error(std::move(code), message, pointers[0].get_string());
  error.details.set("pointers", Value(std::move(pointers)));
  return error;
}

// Whether a read-only field given as `given` says what `stored` holds.
bool same_as_stored(const Value& given, const Value* stored, ReadOnlyKind kind) {
  const bool stored_null = stored == nullptr || stored->is_null();
  if (given.is_null() || stored_null) return given.is_null() && stored_null;
  switch (kind) {
    case ReadOnlyKind::Uuid:
      return stored->is_string() && stored_uuid(given.get_string()) == stored_uuid(stored->get_string());
    case ReadOnlyKind::Timestamp: {
      if (!stored->is_string()) return false;
      const auto instant = rfc3339::parse_micros(given.get_string());
      return instant && instant == rfc3339::parse_micros(stored->get_string());
    }
    case ReadOnlyKind::Boolean:
    case ReadOnlyKind::Count:
      return given == *stored;
  }
  return false;
}

}  // namespace

ApiResult<Value> parse_json_body(const http::Request& request) {
  if (request.body.empty()) return field_error("invalid_body", "the request body is empty; expected JSON", "");
  // Brokkr reads bodies into structs, which refuse a field given twice.
  auto parsed = parse_json(request.body, JsonOptions{.reject_duplicate_keys = true});
  if (!parsed.ok()) {
    return field_error("invalid_json", "the request body is not valid JSON: " + parsed.error().describe(), "");
  }
  return std::move(parsed).value();
}

ApiResult<Ok> check_text(std::string_view text, const TextRule& rule, std::string_view pointer) {
  const std::string where = pointer.empty() ? std::string("the value") : std::string(pointer);
  if (text.empty() && !rule.allow_empty) return field_error("invalid_field", where + " must not be empty", pointer);
  // PostgreSQL's text cannot hold one, and would end the string there.
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return field_error("invalid_field",
                       where + " contains a NUL character (\\u0000) at byte " + std::to_string(nul) +
                           "; text fields cannot hold one",
                       pointer);
  }
  // JSON strings are UTF-8 already; a raw YAML body need not be, and what
  // is stored is served to agents inside JSON.
  if (const size_t bad = first_invalid_utf8(text, 0, text.size()); bad != text.size()) {
    return field_error("invalid_field",
                       where + " is not UTF-8: byte " + std::to_string(bad) + " starts no valid character", pointer);
  }
  if (rule.uuid && !is_uuid(text)) {
    return field_error("invalid_field", where + " must be a UUID, got \"" + std::string(text) + "\"", pointer);
  }
  if (rule.max_length != 0 && text.size() > rule.max_length) {
    return field_error("invalid_field",
                       where + " is " + std::to_string(text.size()) + " bytes long (UTF-8); at most " +
                           std::to_string(rule.max_length) + " are allowed",
                       pointer);
  }
  if (!rule.allow_whitespace && has_whitespace(text)) {
    return field_error("invalid_field", where + " must not contain whitespace", pointer);
  }
  if (rule.single_line) {
    for (size_t at = 0; at < text.size(); ++at) {
      const auto c = static_cast<unsigned char>(text[at]);
      if (c < 0x20 || c == 0x7f) {
        return field_error("invalid_field",
                           where + " must be one line of text; it holds the control character " +
                               ascii_code_point(text[at]) + " at byte " + std::to_string(at),
                           pointer);
      }
    }
    if (text.find_first_not_of(' ') == std::string_view::npos) {
      return field_error("invalid_field", where + " must not be only spaces", pointer);
    }
  }
  return Ok{};
}

ApiResult<std::string> optional_uuid_query(const http::Request& request, std::string_view name) {
  const std::string* value = request.query_param(name);
  if (value == nullptr) return std::string();
  if (!is_uuid(*value)) {
    return bad_request("invalid_query_parameter", std::string(name) + " must be a UUID, got \"" + *value + "\"");
  }
  return stored_uuid(*value);
}

ApiResult<bool> optional_bool_query(const http::Request& request, std::string_view name) {
  const std::string* value = request.query_param(name);
  if (value == nullptr) return false;
  if (*value != "true" && *value != "false") {
    return bad_request("invalid_query_parameter", std::string(name) + " must be true or false, got \"" + *value + "\"");
  }
  return *value == "true";
}

ApiResult<BodyObject> BodyObject::parse(const http::Request& request, std::string_view schema) {
  SINDRI_TRY(value, parse_json_body(request));
  if (!value.is_object()) {
    return field_error("invalid_body",
                       "the request body must be a JSON object (" + std::string(schema) + "), got " +
                           value.kind_name(),
                       "");
  }
  return BodyObject(std::move(value), schema);
}

const Value* BodyObject::take(std::string_view key) {
  seen_.emplace(key);
  return object_.find(key);
}

ApiError BodyObject::wrong_type(std::string_view key, const char* expected, const Value& got) const {
  const std::string pointer = field_pointer(key);
  return field_error("invalid_field", pointer + " must be " + expected + ", got " + got.kind_name(), pointer);
}

ApiResult<Ok> BodyObject::require(std::initializer_list<std::string_view> keys) const {
  std::string missing;
  Array pointers;
  for (std::string_view key : keys) {
    const Value* value = object_.find(key);
    if (value != nullptr && !value->is_null()) continue;
    const std::string pointer = field_pointer(key);
    missing += (missing.empty() ? "" : ", ") + pointer;
    pointers.push_back(Value(pointer));
  }
  if (pointers.empty()) return Ok{};
  return fields_error("missing_field", missing + (pointers.size() == 1 ? " is" : " are") + " required by " + schema_,
                      std::move(pointers));
}

ApiResult<std::string> BodyObject::required_string(std::string_view key, const TextRule& rule) {
  const Value* value = take(key);
  const std::string pointer = field_pointer(key);
  if (value == nullptr || value->is_null()) {
    return field_error("missing_field", pointer + " is required by " + schema_, pointer);
  }
  if (!value->is_string()) return wrong_type(key, "a string", *value);
  SINDRI_CHECK(check_text(value->get_string(), rule, pointer));
  return as_stored(value->get_string(), rule);
}

ApiResult<Value> BodyObject::required_value(std::string_view key) {
  const Value* value = take(key);
  if (value == nullptr) {
    const std::string pointer = field_pointer(key);
    return field_error("missing_field", pointer + " is required by " + schema_, pointer);
  }
  return *value;
}

ApiResult<std::optional<std::string>> BodyObject::optional_string(std::string_view key, const TextRule& rule,
                                                                  bool nullable) {
  const Value* value = take(key);
  if (value == nullptr || (nullable && value->is_null())) return std::optional<std::string>();
  if (!value->is_string()) return wrong_type(key, nullable ? "a string or null" : "a string", *value);
  SINDRI_CHECK(check_text(value->get_string(), rule, field_pointer(key)));
  return std::optional<std::string>(as_stored(value->get_string(), rule));
}

ApiResult<std::optional<bool>> BodyObject::optional_bool(std::string_view key) {
  const Value* value = take(key);
  if (value == nullptr || value->is_null()) return std::optional<bool>();
  if (!value->is_bool()) return wrong_type(key, "a boolean", *value);
  return std::optional<bool>(value->get_bool());
}

ApiResult<std::optional<int64_t>> BodyObject::optional_int(std::string_view key) {
  const Value* value = take(key);
  if (value == nullptr || value->is_null()) return std::optional<int64_t>();
  if (!value->is_int()) return wrong_type(key, "an integer", *value);
  return std::optional<int64_t>(value->get_int());
}

ApiResult<std::vector<std::string>> BodyObject::optional_string_array(std::string_view key, const TextRule& rule) {
  const Value* value = take(key);
  std::vector<std::string> out;
  if (value == nullptr || value->is_null()) return out;
  if (!value->is_array()) return wrong_type(key, "an array of strings", *value);
  const std::string pointer = field_pointer(key);
  for (size_t i = 0; i < value->size(); ++i) {
    const Value& item = *value->at(i);
    const std::string item_pointer = pointer_child(pointer, std::to_string(i));
    if (!item.is_string()) {
      return field_error("invalid_field", item_pointer + " must be a string, got " + item.kind_name(), item_pointer);
    }
    SINDRI_CHECK(check_text(item.get_string(), rule, item_pointer));
    out.push_back(as_stored(item.get_string(), rule));
  }
  return out;
}

ApiResult<std::optional<int64_t>> BodyObject::optional_int(std::string_view key, int64_t low, int64_t high) {
  SINDRI_TRY(number, optional_int(key));
  if (number && (*number < low || *number > high)) return out_of_range(field_pointer(key), low, high, *number);
  return number;
}

void BodyObject::ignore(std::string_view key) { seen_.emplace(key); }

ApiResult<Ok> BodyObject::read_only(std::string_view key, ReadOnlyKind kind, bool required) {
  const Value* value = take(key);
  const std::string pointer = field_pointer(key);
  if (value == nullptr || (required && value->is_null())) {
    if (!required) return Ok{};
    return field_error("missing_field", pointer + " is required by " + schema_, pointer);
  }
  read_only_.emplace_back(std::string(key), kind);
  if (value->is_null()) return Ok{};
  switch (kind) {
    case ReadOnlyKind::Boolean:
      if (!value->is_bool()) return wrong_type(key, "a boolean", *value);
      return Ok{};
    case ReadOnlyKind::Count:
      if (!value->is_int()) return wrong_type(key, "an integer", *value);
      if (value->get_int() < 0 || value->get_int() > INT32_MAX) {
        return out_of_range(pointer, 0, INT32_MAX, value->get_int());
      }
      return Ok{};
    case ReadOnlyKind::Uuid:
    case ReadOnlyKind::Timestamp:
      break;
  }
  if (!value->is_string()) return wrong_type(key, "a string", *value);
  const std::string_view text = value->get_string();
  if (kind == ReadOnlyKind::Uuid) return check_text(text, kUuidRule, pointer);
  SINDRI_CHECK(check_text(text, TextRule{64, false, false, false}, pointer));
  if (!rfc3339::parse_micros(text)) {
    return field_error("invalid_field", pointer + " must be an RFC 3339 timestamp, got \"" + std::string(text) + "\"",
                       pointer);
  }
  return Ok{};
}

ApiResult<Ok> BodyObject::check_unchanged(const Value& stored) const {
  std::string changed;
  Array pointers;
  for (const auto& [key, kind] : read_only_) {
    const Value* stored_value = stored.find(key);
    if (same_as_stored(*object_.find(key), stored_value, kind)) continue;
    const std::string pointer = field_pointer(key);
    if (!changed.empty()) changed += ", ";
    changed += pointer + " (stored: " + (stored_value != nullptr ? to_json(*stored_value) : "absent") + ")";
    pointers.push_back(Value(pointer));
  }
  if (pointers.empty()) return Ok{};
  return fields_error("read_only_field", changed + " may not be changed: send what GET answers", std::move(pointers));
}

ApiResult<Ok> BodyObject::finish() const {
  for (const Member& member : object_.get_object()) {
    const std::string_view key = member.key.get_string();
    if (seen_.find(key) == seen_.end()) {
      const std::string pointer = field_pointer(key);
      return field_error("unknown_field", pointer + " is not a field of " + schema_, pointer);
    }
  }
  return Ok{};
}

}  // namespace sindri::broker
