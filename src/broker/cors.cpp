#include "broker/cors.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "broker/api_error.hpp"

namespace sindri::broker::cors {
namespace {

// Request headers a page may send beside the safelisted ones: the PAK and
// the JSON body's type, and conditional or compressed reads.
constexpr std::array<std::string_view, 4> kAllowedHeaders = {"Authorization", "Content-Type", "Accept-Encoding",
                                                            "If-None-Match"};
// Response headers a page may read beside the safelisted ones.
constexpr std::string_view kExposedHeaders = "Allow, Content-Encoding";

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool origin_allowed(const BrokerConfig& config, std::string_view origin) {
  return std::any_of(config.cors_allowed_origins.begin(), config.cors_allowed_origins.end(),
                     [&](const std::string& allowed) { return allowed == "*" || allowed == origin; });
}

// Authorization and Content-Type always, and those requested that are
// allowed; a browser refuses the request if one it asked for is missing.
std::string allowed_headers(std::string_view requested) {
  std::string names = "Authorization, Content-Type";
  while (!requested.empty()) {
    const size_t comma = requested.find(',');
    const std::string_view name = trim(requested.substr(0, comma));
    requested = comma == std::string_view::npos ? std::string_view() : requested.substr(comma + 1);
    const bool always = equal_ignoring_case(name, "Authorization") || equal_ignoring_case(name, "Content-Type");
    const auto known = std::find_if(kAllowedHeaders.begin(), kAllowedHeaders.end(),
                                    [&](std::string_view allowed) { return equal_ignoring_case(allowed, name); });
    if (!always && known != kAllowedHeaders.end()) names += ", " + std::string(*known);
  }
  return names;
}

void add_origin(http::Response& response, std::string_view origin) {
  response.headers.push_back({"Access-Control-Allow-Origin", std::string(origin)});
  response.headers.push_back({"Vary", "Origin"});
}

}  // namespace

bool is_preflight(const http::Request& request) {
  return request.method == "OPTIONS" && !request.header("Origin").empty() &&
         !request.header("Access-Control-Request-Method").empty();
}

http::Response answer_preflight(const http::Request& request, const LiveConfig& config,
                                const http::Router::Match& match, std::string_view own_methods) {
  const std::string_view origin = request.header("Origin");
  const auto settings = config.current();
  if (!origin_allowed(*settings, origin)) {
    return error_response(forbidden("origin_not_allowed", "the origin " + std::string(origin) +
                                                              " is not in cors.allowed_origins"));
  }
  if (own_methods.empty() && match.status != 405) {
    http::Response missing =
        error_response(ApiError{404, "not_found", "no such path: " + request.raw_path, Value(), std::nullopt});
    add_origin(missing, origin);
    return missing;
  }
  http::Response response;
  response.status = 204;
  response.content_type.clear();
  add_origin(response, origin);
  response.headers.push_back({"Access-Control-Allow-Methods", std::string(own_methods.empty() ? match.allow : own_methods)});
  response.headers.push_back(
      {"Access-Control-Allow-Headers", allowed_headers(request.header("Access-Control-Request-Headers"))});
  response.headers.push_back({"Access-Control-Max-Age", std::to_string(settings->cors_max_age_seconds)});
  return response;
}

void add_headers(const http::Request& request, const LiveConfig& config, http::Response& response) {
  const std::string_view origin = request.header("Origin");
  if (origin.empty() || !http::find_header(response.headers, "Access-Control-Allow-Origin").empty()) return;
  const auto settings = config.current();
  if (!origin_allowed(*settings, origin)) {
    // The answer depends on the origin here too: a cache must not hand it
    // to an allowed one.
    if (!settings->cors_allowed_origins.empty()) response.headers.push_back({"Vary", "Origin"});
    return;
  }
  add_origin(response, origin);
  response.headers.push_back({"Access-Control-Expose-Headers", std::string(kExposedHeaders)});
}

}  // namespace sindri::broker::cors
