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

class TlsServerContext;  // http/tls_server_context.hpp

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
  // A GET asking to become a WebSocket (RFC 6455 4.1: Upgrade: websocket,
  // Connection: upgrade, a Sec-WebSocket-Key, version 13).
  bool wants_websocket() const;
};

// A WebSocket the server accepted: text messages both ways. Callable from
// any thread; the connection may have ended, when send() says false.
class WebSocket {
 public:
  virtual ~WebSocket() = default;
  // Queues a text message. False when the connection is closing, or when
  // the message would take the queue past WebSocketHandler::max_queued_bytes:
  // a reader that slow is disconnected (1013, try again later), never
  // allowed to grow the server's memory.
  virtual bool send(std::string message) = 0;
  // Sends a close frame with `code` (RFC 6455 7.4) and `reason`, after the
  // message being written; messages still queued are dropped.
  virtual void close(uint16_t code, std::string reason) = 0;
  virtual const std::string& remote() const = 0;
};
using WebSocketPtr = std::shared_ptr<WebSocket>;

// What a handler gives to accept a WebSocket (Response::websocket). The
// callbacks run on the connection's strand, one at a time. on_close runs
// once for each on_open, when the socket has ended, with the close code
// received or sent (1005 for a close frame without one, 1006 when there was
// no close frame); neither runs when the upgrade never completed. A
// callback that keeps its WebSocketPtr in the handler makes a cycle: keep
// it elsewhere, and drop it in on_close.
struct WebSocketHandler {
  std::vector<Header> headers;  // on the 101 answer (Sec-WebSocket-Protocol, ...)
  size_t max_message_bytes = 1024 * 1024;  // larger ones close the connection (1009)
  size_t max_queued_bytes = 4 * 1024 * 1024;
  std::function<void(const WebSocketPtr&)> on_open;
  std::function<void(const WebSocketPtr&, std::string message)> on_message;
  std::function<void(const WebSocketPtr&, uint16_t code)> on_close;
};

struct Response;
// Sends a deferred answer: callable from any thread, once.
using Answer = std::function<void(Response)>;

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // When set, sent instead of `body`: a cached answer shared between
  // requests, never copied (and sent with sendfile when it is in a file).
  std::shared_ptr<const SharedBody> shared_body;
  std::vector<Header> headers;  // extra headers

  // The caller proved who it is (a valid PAK): no cap on connections ever
  // closes this connection to make room for another.
  bool authenticated = false;
  // Who the caller is ("generator:<id>"), with `authenticated`: one identity
  // has at most max_connections_per_identity connections spared this way.
  std::string identity;
  // Set by a handler whose work runs elsewhere (a render pool): the server
  // calls it at once with the Answer that sends the response, and its
  // worker thread serves other connections meanwhile. The other fields of
  // this Response are then ignored. An answer may be deferred again: its
  // `later` is then called on a request thread (work that should not hold
  // the pool's thread, such as a database write after a render).
  std::function<void(Answer)> later;
  // Set by a handler that accepts a WebSocket (the request wants_websocket()):
  // the server answers 101 Switching Protocols with its headers, and the
  // connection carries the socket's messages from then on. Sent for a
  // request that did not ask for one, it is answered 426.
  std::shared_ptr<WebSocketHandler> websocket;

  std::string_view payload() const { return shared_body ? shared_body->bytes() : std::string_view(body); }
};

// `response`, with `finish` applied to its final answer: at once when it is
// not deferred, else when the last of its deferred stages answers.
Response on_final_answer(Response response, std::function<void(Response&)> finish);

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

  // Connections open at once, lowered to what the descriptor limit leaves
  // (0: that alone). A new connection past it closes a connection still
  // sending its first request (from the address holding most of them), else
  // the oldest connection no authenticated request has come through whose
  // handler is not running; when there is none, the new connection closes.
  size_t max_connections = 10000;
  // Connections one identity may hold that are never closed for room; its
  // further connections are treated as anonymous ones. 0: no cap.
  size_t max_connections_per_identity = 64;
  // Connections still sending their first request's line and headers; 0: no
  // cap. A new connection past it closes the oldest of them from the
  // address that holds most: a flood from one place makes room from its
  // own connections, not from a far client's slower handshake.
  size_t max_unfinished_connections = 1000;
  // A request's line and headers must have arrived this long after its
  // first byte (after the connection opened, for the first request, TLS
  // handshake included); 0: no deadline.
  std::chrono::milliseconds header_timeout{10000};
  // A request body must keep arriving at this many bytes a second, judged
  // over each second after its first; 0: no minimum.
  size_t min_body_rate = 1024;
  // The windows it is judged over, the first starting one window after the
  // body did (a client's own start-up).
  std::chrono::milliseconds body_rate_window{1000};
  // Called for each connection a limit closes or refuses, with the limit's
  // name (ConnectionRefusals' fields). Called on the server's threads, often
  // under attack: keep it cheap and rate-limit any logging.
  std::function<void(std::string_view reason)> on_connection_refused;
  // A WebSocket from which nothing arrives this long is closed; halfway, the
  // server pings it (a client's pong counts). 0: no pings, no limit. A
  // close handshake may take as long, at most 2 s; then the connection is
  // dropped.
  std::chrono::milliseconds websocket_idle_timeout{60000};
  // HTTPS with this context; null: plain HTTP.
  std::shared_ptr<TlsServerContext> tls;
};

// Connections each limit has closed or refused since start.
struct ConnectionRefusals {
  uint64_t connection_limit = 0;   // "connection_limit": max_connections
  uint64_t unfinished_limit = 0;   // "unfinished_limit": max_unfinished_connections
  uint64_t header_timeout = 0;     // "header_timeout"
  uint64_t body_too_slow = 0;      // "body_too_slow": min_body_rate
  uint64_t tls_handshake = 0;      // "tls_handshake": failed, or plain HTTP sent to the TLS port
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

  // Binds and listens without accepting yet, so that a program learns that
  // its address is taken before any other start-up work. Errors name the
  // address.
  Status bind();
  // Binds (unless bind() did) and starts the worker threads.
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
  ConnectionRefusals refused_connections() const;
  // max_connections as applied: at most what the descriptor limit leaves
  // after a reserve for the database and cached answers (0: no cap).
  size_t effective_max_connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sindri::http
