// Matching works on the percent-decoded path the server hands over, split on
// '/'. A parameter therefore cannot hold an encoded slash ("%2F" decodes
// before the split and makes an extra segment); our ids never contain one.

#include "http/router.hpp"

#include <algorithm>

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

bool path_matches(const std::vector<std::string>& segments, std::string_view path) {
  size_t index = 0;
  const bool walked = for_each_segment(path, [&](std::string_view segment) {
    if (index == segments.size()) return false;
    const std::string& expected = segments[index++];
    return is_parameter(expected) ? !segment.empty() : segment == expected;
  });
  return walked && index == segments.size();
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

Router::Match Router::match(std::string_view method, std::string_view path) const {
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

  Match match;
  if (best) {
    match.handler = &best->handler;
    match.pattern = best->pattern;
    size_t index = 0;
    for_each_segment(path, [&](std::string_view segment) {
      const std::string& expected = best->segments[index++];
      if (is_parameter(expected)) {
        match.params.values.emplace_back(expected.substr(1, expected.size() - 2), segment);
      }
      return true;
    });
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
