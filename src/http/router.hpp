#pragma once
// Routes by method and path pattern ("/api/v1/stacks/{id}/labels/{label}").
// A path that matches no pattern is 404; one that matches a pattern but not
// its method is 405 with an Allow header. The matched pattern names the route
// in metrics and logs, so ids never blow up label cardinality.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/server.hpp"

namespace sindri::http {

struct PathParams {
  std::vector<std::pair<std::string, std::string>> values;
  // The value of {name}; the pattern must have it.
  const std::string& operator[](std::string_view name) const;
};

using RouteHandler = std::function<Response(Request&, const PathParams&)>;

class Router {
 public:
  void add(std::string_view method, std::string_view pattern, RouteHandler handler);

  struct Match {
    const RouteHandler* handler = nullptr;  // null: see status
    PathParams params;
    std::string pattern;      // the route's pattern, or "" when none matched
    int status = 0;           // 404 or 405 when handler is null
    std::string allow;        // for 405: "GET, POST"
  };
  // `raw_path` as sent, percent-encoded (Request::raw_path): it is split on
  // '/' first and each segment decoded after, so a parameter may hold an
  // encoded slash ("app.kubernetes.io%2Fname"). A segment that does not
  // decode matches nothing.
  Match match(std::string_view method, std::string_view raw_path) const;

 private:
  struct Route {
    std::string method;
    std::string pattern;
    std::vector<std::string> segments;  // "{name}" for a parameter
    RouteHandler handler;
  };
  std::vector<Route> routes_;
};

}  // namespace sindri::http
