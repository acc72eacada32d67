#pragma once
// Cross-origin requests from browsers (a console or SDK served from another
// origin): only the origins in cors.allowed_origins ("*" for any) are
// answered with CORS headers, none by default. The settings are read from
// the live configuration at each request, so a reload applies at once, and
// only for requests that carry an Origin header.
//
// A preflight (OPTIONS with Access-Control-Request-Method) is answered 204
// before authentication, naming the methods the path allows; one from an
// origin not allowed is answered 403 origin_not_allowed without CORS headers
// (a browser refuses it either way; the message tells whoever debugs it with
// curl which setting to change).

#include <optional>

#include "broker/config.hpp"
#include "http/router.hpp"
#include "http/server.hpp"

namespace sindri::broker::cors {

bool is_preflight(const http::Request& request);

// The answer to a preflight. `match` is the router's match of the path for a
// method no route has (its `allow` lists the path's methods); `own_methods`
// is used instead for a path the broker answers itself ("GET, HEAD").
http::Response answer_preflight(const http::Request& request, const LiveConfig& config,
                                const http::Router::Match& match, std::string_view own_methods = {});

// Adds Access-Control-Allow-Origin and its companions to the answer of an
// actual request from an allowed origin (a preflight's answer has them).
void add_headers(const http::Request& request, const LiveConfig& config, http::Response& response);

}  // namespace sindri::broker::cors
