#pragma once
// Query parameters that are numbers or timestamps: absent is nullopt, and
// anything but a well-formed value in range is a 400 naming the parameter.

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "value/rfc3339.hpp"
#include "http/server.hpp"

namespace sindri::broker {

inline ApiResult<std::optional<int64_t>> optional_int_query(const http::Request& request, std::string_view name,
                                                            int64_t min, int64_t max) {
  const std::string* text = request.query_param(name);
  if (text == nullptr) return std::optional<int64_t>();
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  const std::string range = "between " + std::to_string(min) + " and " + std::to_string(max);
  if (text->empty() || error != std::errc() || end != text->data() + text->size()) {
    return bad_request("invalid_query_parameter",
                       std::string(name) + " must be an integer " + range + ", got \"" + *text + "\"");
  }
  if (value < min || value > max) {
    return bad_request("invalid_query_parameter", std::string(name) + " must be " + range + ", got " + *text);
  }
  return std::optional<int64_t>(value);
}

// In the fixed-width form of now_timestamp(), so that it compares with stored
// timestamps as text.
inline ApiResult<std::optional<std::string>> optional_timestamp_query(const http::Request& request,
                                                                      std::string_view name) {
  const std::string* text = request.query_param(name);
  if (text == nullptr) return std::optional<std::string>();
  std::optional<std::string> normalized = rfc3339::normalized(*text);
  if (!normalized) {
    return bad_request("invalid_query_parameter", std::string(name) +
                                                      " must be an RFC 3339 timestamp (2026-01-02T03:04:05Z), got \"" +
                                                      *text + "\"");
  }
  return normalized;
}

}  // namespace sindri::broker
