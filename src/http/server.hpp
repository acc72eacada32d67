#pragma once
// An HTTP/1.1 server: keep-alive, a fixed pool of worker threads, a bounded
// request body, graceful shutdown. Boost.Beast stays inside server.cpp; this
// header shows only plain types. Handlers run synchronously on a worker
// thread and may block (database calls); the pool size bounds how many run at
// once.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/shared_body.hpp"
#include "value/result.hpp"

namespace sindri::http {

struct Header {
  std::string name;
  std::string value;
};

struct Request {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent: path and query
  std::string path;    // percent-decoded path, without the query
  // The path as sent, still percent-encoded: what the router splits, so
  // that "%2F" in a segment is a '/' inside a parameter, not a separator.
  std::string raw_path;
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order
  std::vector<Header> headers;
  std::string body;
  std::string remote;  // peer address, for logs

  // First header of that name, compared case-insensitively; empty if absent.
  std::string_view header(std::string_view name) const;
  // First query parameter of that name, or nullptr.
  const std::string* query_param(std::string_view name) const;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // When set, sent instead of `body`: a cached answer shared between
  // requests, never copied (and sent with sendfile when it is in a file).
  std::shared_ptr<const SharedBody> shared_body;
  std::vector<Header> headers;  // extra headers

  std::string_view payload() const { return shared_body ? shared_body->bytes() : std::string_view(body); }
};

using Handler = std::function<Response(Request&)>;

// First header of that name, compared case-insensitively; empty if absent.
std::string_view find_header(const std::vector<Header>& headers, std::string_view name);
// Decodes %XX escapes, and '+' as a space when plus_is_space (query strings).
// A truncated or non-hex escape is an error.
Result<std::string> percent_decode(std::string_view text, bool plus_is_space = false);
// Text as one URL path segment or query value: every byte but the unreserved
// A-Z, a-z, 0-9 and -._~ (RFC 3986) as %XX.
std::string percent_encode(std::string_view text);
// Fills request.path and request.query from request.target. Fails when the
// target is not a path (or absolute URL), or when either part does not decode.
Status parse_target(Request& request);

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0: any free port; port() tells which
  unsigned threads = 4;
  size_t body_limit = 10 * 1024 * 1024;  // bytes; larger bodies get 413
  std::chrono::seconds idle_timeout{60};  // keep-alive connections idle this long are closed
  // How long a stop waits for requests that have begun to arrive, and for
  // answers a client is slow to read, before it closes their connections.
  std::chrono::seconds stop_grace{10};
  // Called for each request the server refuses itself, before any handler
  // (malformed, or over a limit): its method ("" when the request line was
  // not read), status and time since it began to arrive. For metrics.
  std::function<void(std::string_view method, int status, std::chrono::nanoseconds elapsed)> on_refused;
  // Called with a request's line and headers (an empty body) before its body
  // is read, when it has one: an answer given here is sent instead, the body
  // is not kept, and the connection closes (counted by on_refused). So that
  // a client who may not call anything cannot make the server hold bodies.
  std::function<std::optional<Response>(const Request& head)> refuse_before_body;
};

// Errors the server answers itself, before any handler runs (a malformed
// request line, a body over the limit, ...). The function turns a status and a
// message into the response; the broker uses it to keep every error body in
// the API's JSON shape.
using ErrorRenderer = std::function<Response(int status, std::string_view code, std::string_view message)>;

class Server {
 public:
  Server(ServerOptions options, Handler handler, ErrorRenderer render_error);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and starts the worker threads. Errors name the address.
  Status start();
  uint16_t port() const;
  // Graceful stop: stop accepting, let in-flight requests finish and be
  // answered (with `Connection: close`), then close idle connections. Safe to
  // call from a signal-watching thread; returns once the workers have exited.
  void stop();
  // Ends a stop's grace at once: connections still receiving a request or
  // sending an answer close now. Handlers already running still finish.
  // Called before stop(), it leaves the coming stop no grace.
  void end_grace();
  // Blocks until stop() has completed.
  void wait();

  // Connections open and requests being handled right now, for /metrics.
  size_t open_connections() const;
  // Connections with a request begun and not yet read whole.
  size_t receiving_requests() const;
  size_t busy_workers() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sindri::http
