#include "http/server.hpp"

#include <algorithm>
#include <optional>

#include "value/utf8.hpp"

namespace sindri::http {

namespace {

char lower_ascii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower_ascii(x) == lower_ascii(y); });
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "http://host:8080/a?b" -> "/a?b"; an absolute URL without a path means "/".
bool strip_scheme_and_authority(std::string_view& target) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (target.size() >= scheme.size() && equals_ignoring_case(target.substr(0, scheme.size()), scheme)) {
      const size_t path_start = target.find_first_of("/?", scheme.size());
      target = path_start == std::string_view::npos ? std::string_view("/") : target.substr(path_start);
      return true;
    }
  }
  return false;
}

// Ids, names and labels are text: bytes that are not UTF-8 could be neither
// stored (PostgreSQL refuses them) nor quoted back in a JSON error.
std::optional<std::string> not_utf8(std::string_view decoded) {
  const size_t bad = first_invalid_utf8(decoded, 0, decoded.size());
  if (bad == decoded.size()) return std::nullopt;
  return "is not UTF-8: " + invalid_utf8_message(decoded[bad]) + " at byte " + std::to_string(bad);
}

}  // namespace

std::string_view find_header(const std::vector<Header>& headers, std::string_view name) {
  for (const Header& header : headers) {
    if (equals_ignoring_case(header.name, name)) return header.value;
  }
  return {};
}

std::string_view Request::header(std::string_view name) const { return find_header(headers, name); }

namespace {

// Whether a comma-separated header value lists `token`, case-insensitively.
bool lists_token(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    std::string_view item = value.substr(0, comma);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (equals_ignoring_case(item, token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

bool Request::wants_websocket() const {
  return method == "GET" && lists_token(header("Upgrade"), "websocket") &&
         lists_token(header("Connection"), "upgrade") && !header("Sec-WebSocket-Key").empty() &&
         header("Sec-WebSocket-Version") == "13";
}

const std::string* Request::query_param(std::string_view name) const {
  for (const auto& [key, value] : query) {
    if (key == name) return &value;
  }
  return nullptr;
}

std::string percent_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    }
  }
  return out;
}

Result<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      const int high = i + 2 < text.size() ? hex_digit(text[i + 1]) : -1;
      const int low = high >= 0 ? hex_digit(text[i + 2]) : -1;
      if (low < 0) {
        return make_error("malformed percent-escape \"" + std::string(text.substr(i, 3)) + "\"");
      }
      out += static_cast<char>(high * 16 + low);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

Status parse_target(Request& request) {
  std::string_view target = request.target;
  if (target.empty() || (target.front() != '/' && !strip_scheme_and_authority(target))) {
    return make_error("the request target must be a path");
  }
  const size_t query_start = target.find('?');
  request.raw_path = target.substr(0, query_start);
  if (request.raw_path.empty()) request.raw_path = "/";
  auto path = percent_decode(request.raw_path);
  if (!path) return make_error("malformed request path: " + path.error().message);
  if (path->find('\0') != std::string::npos) return make_error("the request path contains a NUL byte");
  if (auto problem = not_utf8(*path)) return make_error("the request path, decoded, " + *problem);
  if (path->empty()) *path = "/";
  request.path = std::move(path).value();

  request.query.clear();
  if (query_start == std::string_view::npos) return Ok{};
  std::string_view query = target.substr(query_start + 1);
  while (!query.empty()) {
    const size_t end = std::min(query.find('&'), query.size());
    const std::string_view pair = query.substr(0, end);
    query.remove_prefix(std::min(end + 1, query.size()));
    if (pair.empty()) continue;
    const size_t equals = std::min(pair.find('='), pair.size());
    auto key = percent_decode(pair.substr(0, equals), true);
    auto value = percent_decode(pair.substr(std::min(equals + 1, pair.size())), true);
    if (!key) return make_error("malformed query string: " + key.error().message);
    if (!value) return make_error("malformed query string: " + value.error().message);
    if (key->find('\0') != std::string::npos || value->find('\0') != std::string::npos) {
      return make_error("the query string contains a NUL byte");
    }
    for (const std::string* part : {&*key, &*value}) {
      if (auto problem = not_utf8(*part)) return make_error("the query string, decoded, " + *problem);
    }
    request.query.emplace_back(std::move(key).value(), std::move(value).value());
  }
  return Ok{};
}

}  // namespace sindri::http
