#pragma once
// Errors of the API as values: a status, a stable code and a message, in the
// ErrorResponse shape of brokkr-v1.json. A database failure keeps its cause so
// that a write transaction can be retried on a serialization conflict.

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "http/server.hpp"
#include "store/database.hpp"
#include "value/value.hpp"

namespace sindri::broker {

struct ApiError {
  int status = 500;
  std::string code;     // machine-readable, e.g. "stack_not_found"
  std::string message;  // for a person
  Value details;        // null or an object, e.g. {"pointer": "/name"}
  std::optional<store::DbError> cause;
};

ApiError bad_request(std::string code, std::string message);
// A 400 about one place in the request body; details.pointer is its JSON
// pointer ("" for the whole body).
ApiError field_error(std::string code, std::string message, std::string_view pointer);
ApiError unauthorized(std::string message);
// 403 with Brokkr's code for the rule, e.g. "stack_not_owned".
ApiError forbidden(std::string code, std::string message);
// "<entity>_not_found", e.g. not_found("stack", id).
ApiError not_found(std::string_view entity, std::string_view id);
ApiError conflict(std::string code, std::string message);
// 409 for a unique violation, 503 when the database is unavailable or busy,
// 500 otherwise (the message is logged, the client sees a generic one).
ApiError database_error(store::DbError error);

// How SINDRI_TRY and SINDRI_CHECK hand a database failure on as an API error.
inline ApiError convert_error(std::type_identity<ApiError>, store::DbError error) {
  return database_error(std::move(error));
}

// ErrorResponse {code, message, details?}, and the answer carrying it.
Value error_body(const ApiError& error);
http::Response error_response(const ApiError& error);
http::Response json_response(int status, const Value& body);
http::Response empty_response(int status);

template <class T>
using ApiResult = Result<T, ApiError>;

}  // namespace sindri::broker
