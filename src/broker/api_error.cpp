#include "broker/api_error.hpp"

#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {

ApiError bad_request(std::string code, std::string message) {
  return ApiError{400, std::move(code), std::move(message), Value(), std::nullopt};
}

ApiError field_error(std::string code, std::string message, std::string_view pointer) {
  return ApiError{400, std::move(code), std::move(message), make_object({{"pointer", Value(pointer)}}), std::nullopt};
}

ApiError unauthorized(std::string message) { return ApiError{401, "unauthorized", std::move(message), Value(), std::nullopt}; }

ApiError forbidden(std::string code, std::string message) {
  return ApiError{403, std::move(code), std::move(message), Value(), std::nullopt};
}

ApiError not_found(std::string_view entity, std::string_view id) {
  std::string code(entity);
  code += "_not_found";
  std::string message(entity);
  message += " ";
  message += id;
  message += " not found";
  return ApiError{404, std::move(code), std::move(message), Value(), std::nullopt};
}

ApiError conflict(std::string code, std::string message) {
  return ApiError{409, std::move(code), std::move(message), Value(), std::nullopt};
}

ApiError database_error(store::DbError error) {
  using Kind = store::DbError::Kind;
  ApiError out;
  switch (error.kind) {
    case Kind::Unique:
      out = ApiError{409, "conflict", "a record with the same unique fields already exists", Value(), std::nullopt};
      break;
    case Kind::Unavailable:
    case Kind::Busy:
      out = ApiError{503, "database_unavailable", "the database is unavailable or busy; retry", Value(), std::nullopt};
      break;
    case Kind::ForeignKey:
    case Kind::Invalid:
      out = ApiError{500, "internal_error", "internal database error", Value(), std::nullopt};
      break;
  }
  out.cause = std::move(error);
  return out;
}

Value error_body(const ApiError& error) {
  Object body{{"code", Value(error.code)}, {"message", Value(error.message)}};
  if (!error.details.is_null()) body.push_back({"details", error.details});
  return Value(std::move(body));
}

http::Response error_response(const ApiError& error) { return json_response(error.status, error_body(error)); }

http::Response json_response(int status, const Value& body) {
  http::Response response;
  response.status = status;
  response.body = to_json(body);
  return response;
}

http::Response empty_response(int status) {
  http::Response response;
  response.status = status;
  response.content_type.clear();
  return response;
}

}  // namespace sindri::broker
