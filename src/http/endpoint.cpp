#include "http/endpoint.hpp"

#include <cctype>

namespace sindri::http {
namespace {

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

}  // namespace

std::optional<Endpoint> parse_base_url(std::string_view url, UrlSchemes schemes) {
  const std::string_view plain = schemes == UrlSchemes::Http ? "http://" : "ws://";
  const std::string_view secure = schemes == UrlSchemes::Http ? "https://" : "wss://";
  Endpoint endpoint;
  if (starts_with_ignoring_case(url, secure)) {
    endpoint.tls = true;
    url.remove_prefix(secure.size());
  } else if (starts_with_ignoring_case(url, plain)) {
    url.remove_prefix(plain.size());
  } else {
    return std::nullopt;
  }
  const size_t slash = url.find('/');
  std::string_view authority = url.substr(0, slash);
  endpoint.base_path = slash == std::string_view::npos ? "" : std::string(url.substr(slash));
  while (!endpoint.base_path.empty() && endpoint.base_path.back() == '/') endpoint.base_path.pop_back();
  endpoint.host_header = std::string(authority);
  std::string_view port;
  if (authority.starts_with("[")) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    endpoint.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return std::nullopt;
      port = authority.substr(close + 2);
    }
  } else {
    const size_t colon = authority.rfind(':');
    endpoint.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (endpoint.host.empty()) return std::nullopt;
  endpoint.port = port.empty() ? (endpoint.tls ? "443" : "80") : std::string(port);
  return endpoint;
}

}  // namespace sindri::http
