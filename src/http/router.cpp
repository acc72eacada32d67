// Matching splits the path as sent on '/' and decodes each segment after,
// so an encoded slash belongs to its segment: label keys such as
// "app.kubernetes.io/name" travel inside one parameter.

#include "http/router.hpp"

#include <algorithm>
#include <optional>

namespace sindri::http {

namespace {

bool is_parameter(std::string_view segment) {
  return segment.size() >= 2 && segment.front() == '{' && segment.back() == '}';
}

// Calls visit(segment) for each '/'-separated segment after the leading '/':
// "/" is one empty segment, "/a/" is "a" then "". Stops early when visit
// returns false; returns false then.
template <class Visit>
bool for_each_segment(std::string_view path, Visit visit) {
  if (path.empty() || path.front() != '/') return false;
  size_t start = 1;
  while (true) {
    const size_t end = std::min(path.find('/', start), path.size());
    if (!visit(path.substr(start, end - start))) return false;
    if (end == path.size()) return true;
    start = end + 1;
  }
}

// The decoded segments of a path as sent; nullopt when it is not a path or
// a segment does not decode.
std::optional<std::vector<std::string>> decoded_segments(std::string_view path) {
  std::vector<std::string> segments;
  const bool walked = for_each_segment(path, [&](std::string_view segment) {
    if (segment.find('%') == std::string_view::npos) {
      segments.emplace_back(segment);
      return true;
    }
    auto decoded = percent_decode(segment);
    if (!decoded) return false;
    segments.push_back(std::move(decoded).value());
    return true;
  });
  if (!walked) return std::nullopt;
  return segments;
}

bool path_matches(const std::vector<std::string>& pattern, const std::vector<std::string>& path) {
  if (pattern.size() != path.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (is_parameter(pattern[i]) ? path[i].empty() : path[i] != pattern[i]) return false;
  }
  return true;
}

// A literal segment beats a parameter at the first position where two
// patterns differ, so "/agents/health" wins over "/agents/{id}".
bool more_specific(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const bool a_parameter = is_parameter(a[i]);
    if (a_parameter != is_parameter(b[i])) return !a_parameter;
  }
  return false;
}

}  // namespace

const std::string& PathParams::operator[](std::string_view name) const {
  for (const auto& [key, value] : values) {
    if (key == name) return value;
  }
  static const std::string missing;
  return missing;
}

void Router::add(std::string_view method, std::string_view pattern, RouteHandler handler) {
  Route route{std::string(method), std::string(pattern), {}, std::move(handler)};
  for_each_segment(pattern, [&](std::string_view segment) {
    route.segments.emplace_back(segment);
    return true;
  });
  routes_.push_back(std::move(route));
}

Router::Match Router::match(std::string_view method, std::string_view raw_path) const {
  Match match;
  const std::optional<std::vector<std::string>> decoded = decoded_segments(raw_path);
  if (!decoded) {
    match.status = 404;
    return match;
  }
  const std::vector<std::string>& path = *decoded;
  auto best_for = [&](std::string_view wanted) {
    const Route* best = nullptr;
    for (const Route& route : routes_) {
      if (route.method != wanted || !path_matches(route.segments, path)) continue;
      if (!best || more_specific(route.segments, best->segments)) best = &route;
    }
    return best;
  };
  const Route* best = best_for(method);
  // HEAD is GET without the body (the server drops it), unless a route says otherwise.
  if (!best && method == "HEAD") best = best_for("GET");

  if (best) {
    match.handler = &best->handler;
    match.pattern = best->pattern;
    for (size_t i = 0; i < path.size(); ++i) {
      const std::string& expected = best->segments[i];
      if (is_parameter(expected)) match.params.values.emplace_back(expected.substr(1, expected.size() - 2), path[i]);
    }
    return match;
  }

  // The methods every route matching this path accepts, in the order added.
  std::vector<std::string_view> allowed;
  for (const Route& route : routes_) {
    if (!path_matches(route.segments, path)) continue;
    if (std::find(allowed.begin(), allowed.end(), route.method) == allowed.end()) allowed.push_back(route.method);
  }
  match.status = allowed.empty() ? 404 : 405;
  for (std::string_view allowed_method : allowed) {
    if (!match.allow.empty()) match.allow += ", ";
    match.allow += allowed_method;
  }
  return match;
}

}  // namespace sindri::http
