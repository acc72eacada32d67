#pragma once
// Where a URL points: the scheme's TLS, host, port and path prefix. For the
// HTTP and WebSocket clients.

#include <optional>
#include <string>
#include <string_view>

namespace sindri::http {

struct Endpoint {
  bool tls = false;
  std::string host;  // without the brackets of an IPv6 literal
  std::string port;
  std::string host_header;
  std::string base_path;  // "" or "/prefix", never ending in '/'
};

enum class UrlSchemes { Http, WebSocket };  // http:// and https://, or ws:// and wss://

// "SCHEME://HOST[:PORT][/PATH]" with one of `schemes`; nullopt for anything
// else.
std::optional<Endpoint> parse_base_url(std::string_view url, UrlSchemes schemes);

}  // namespace sindri::http
