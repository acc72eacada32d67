#pragma once
// Inside the server (server.cpp only): one connection, going round a
// read -> handle -> write loop on its own strand, over TCP or TLS.

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include <sys/sendfile.h>
#include <sys/socket.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>

#include "http/server_state.hpp"
#include "http/server_websocket.hpp"

namespace sindri::http::detail {

constexpr size_t kHeaderLimit = 16 * 1024;
// After an error response the server reads and drops what the client still
// sends (for a while, up to a size) before closing: closing with unread input
// resets the connection, and the client could lose the response.
constexpr size_t kDrainLimit = 8 * 1024 * 1024;
constexpr Clock::duration kDrainTime = std::chrono::seconds(2);
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

// `waiting`: between requests, nothing of the next one has arrived (before
// the first request, the TLS handshake too); `receiving_*`: part of a
// request is in, so a stop lets it finish.
enum class Phase : uint8_t { waiting, receiving_header, receiving_body, handling, writing, draining, websocket, closed };

inline bool is_receiving(Phase phase) { return phase == Phase::receiving_header || phase == Phase::receiving_body; }

// Why the sweep may close a session.
enum class CloseReason : uint8_t { none, idle, header_timeout, body_too_slow, stopping };

inline void append_decimal(std::string& out, uint64_t value) {
  char digits[24];
  const auto result = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, result.ptr);
}

// The Date header, formatted once a second per thread.
inline std::string_view http_date() {
  thread_local std::time_t formatted_second = -1;
  thread_local char text[40];
  thread_local size_t length = 0;
  const std::time_t now = std::time(nullptr);
  if (now != formatted_second) {
    std::tm utc{};
    gmtime_r(&now, &utc);
    length = std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &utc);
    formatted_second = now;
  }
  return {text, length};
}

inline bool is_header_safe(const Header& header) {
  auto clean = [](std::string_view text) { return text.find_first_of("\r\n") == std::string_view::npos; };
  return !header.name.empty() && clean(header.name) && clean(header.value);
}

// Framing headers are the server's to write; a handler's copy would contradict them.
inline bool is_framing_header(std::string_view name) {
  return beast::iequals(name, "content-length") || beast::iequals(name, "transfer-encoding") ||
         beast::iequals(name, "connection");
}

// The methods this server implements; any other is a 501 (RFC 9110 9.1),
// whatever Beast's parser knows of WebDAV.
inline bool is_implemented(bhttp::verb method) {
  switch (method) {
    case bhttp::verb::get:
    case bhttp::verb::head:
    case bhttp::verb::post:
    case bhttp::verb::put:
    case bhttp::verb::patch:
    case bhttp::verb::delete_:
    case bhttp::verb::options:
      return true;
    default:
      return false;
  }
}

constexpr size_t kReadBufferSize = 16 * 1024;
// The first byte of every TLS connection: a handshake record.
constexpr unsigned char kTlsHandshakeRecord = 0x16;
constexpr std::string_view kPlainHttpToTls =
    "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 77\r\n"
    "Connection: close\r\n\r\nThis port speaks HTTPS: the request came as plain HTTP. Use an https:// URL.\n";

// A session's state the registry and the sweep read from other threads,
// whatever its stream.
class SessionBase : public std::enable_shared_from_this<SessionBase> {
 public:
  explicit SessionBase(ServerState& server) : server_(server) {
    server_.open_connections.fetch_add(1, std::memory_order_relaxed);
  }
  // The derived session unregisters first thing in its destructor, while
  // the registry may still call its virtual functions.
  virtual ~SessionBase() {
    if (is_receiving(phase_.load(std::memory_order_relaxed))) {
      server_.receiving_requests.fetch_sub(1, std::memory_order_relaxed);
    }
    server_.open_connections.fetch_sub(1, std::memory_order_relaxed);
  }

  // Called by the sweep (and by stop, with stopping set) under the sessions
  // lock: queues a close on the session's strand if it may be closed.
  void close_if_idle_later(bool stopping, Clock::time_point now) {
    judge_body_rate(now);
    if (close_reason(stopping, now) != CloseReason::none) post_close(stopping, now);
  }
  // Under the sessions lock: closes the session to make room for another.
  virtual void evict_later() = 0;

  // Can be closed for room: it never completed an authenticated request and
  // is idle or still sending its first request's header.
  bool evictable() const {
    if (authenticated_.load(std::memory_order_relaxed)) return false;
    const Phase phase = phase_.load(std::memory_order_relaxed);
    return phase != Phase::handling && phase != Phase::closed;
  }

  const std::string& remote() const { return remote_; }
  // Set once, on the strand, when an answer marked authenticated is sent
  // and the identity may have one more spared connection.
  const std::string& identity() const { return identity_; }
  bool spared() const { return authenticated_.load(std::memory_order_relaxed); }

  // Registry bookkeeping, under the sessions lock.
  std::optional<std::list<SessionBase*>::iterator> in_sessions, in_unfinished;
  // The sweep's view of a body's progress: the bytes and time at the start
  // of the window it measures; on the server's strand.
  size_t window_bytes = 0;
  Clock::time_point window_start;

 protected:
  virtual void post_close(bool stopping, Clock::time_point now) = 0;

  // Waiting for a request is idle; so is a client that stopped reading our
  // response or sends a request too slowly. A stop closes idle connections
  // but lets a request that has begun to arrive be read and answered, for
  // the stop's grace at most, as it never interrupts a running handler.
  CloseReason close_reason(bool stopping, Clock::time_point now) const {
    const ServerOptions& options = server_.options;
    const Clock::duration waited = time_in_phase(now);
    const bool idle_too_long = options.idle_timeout.count() > 0 && waited >= options.idle_timeout;
    const bool header_too_late = options.header_timeout.count() > 0 && waited >= options.header_timeout;
    const bool out_of_grace =
        stopping && now >= Clock::time_point(Clock::duration(server_.stop_deadline.load(std::memory_order_relaxed)));
    switch (phase_.load(std::memory_order_relaxed)) {
      case Phase::waiting:
        if (stopping) return CloseReason::stopping;
        // Before the first request the header's deadline runs from the
        // connection's start: a connection that sends nothing is no better
        // than one that sends a little.
        if (!completed_header_ && header_too_late) return CloseReason::header_timeout;
        return idle_too_long ? CloseReason::idle : CloseReason::none;
      case Phase::receiving_header:
        if (options.header_timeout.count() > 0 ? header_too_late : idle_too_long) return CloseReason::header_timeout;
        return out_of_grace ? CloseReason::stopping : CloseReason::none;
      case Phase::receiving_body:
        if (body_too_slow_.load(std::memory_order_relaxed)) return CloseReason::body_too_slow;
        if (idle_too_long) return CloseReason::idle;
        return out_of_grace ? CloseReason::stopping : CloseReason::none;
      case Phase::writing:
        return idle_too_long ? CloseReason::idle : out_of_grace ? CloseReason::stopping : CloseReason::none;
      case Phase::draining:
        return stopping || idle_too_long || waited >= kDrainTime ? CloseReason::idle : CloseReason::none;
      case Phase::websocket:
        return stopping ? CloseReason::stopping : CloseReason::none;
      case Phase::handling:
      case Phase::closed:
        return CloseReason::none;
    }
    return CloseReason::none;
  }

  // Each window of a body (the first starts a window late) must bring the
  // minimum rate: a body sent fast and then stalled is cut as soon as one
  // that trickles. Called by the sweep alone.
  void judge_body_rate(Clock::time_point now) {
    const size_t rate = server_.options.min_body_rate;
    const Clock::duration window = server_.options.body_rate_window;
    if (rate == 0 || window.count() <= 0 || phase_.load(std::memory_order_relaxed) != Phase::receiving_body) return;
    const Clock::time_point body_start(Clock::duration(phase_since_.load(std::memory_order_relaxed)));
    const size_t bytes = body_bytes_.load(std::memory_order_relaxed);
    if (window_start < body_start) {
      window_start = body_start + window;
      window_bytes = 0;
    }
    if (now - window_start < window) return;
    const double seconds = std::chrono::duration<double>(now - window_start).count();
    if (static_cast<double>(bytes - window_bytes) < static_cast<double>(rate) * seconds) {
      body_too_slow_.store(true, std::memory_order_relaxed);
    }
    window_start = now;
    window_bytes = bytes;
  }

  Clock::duration time_in_phase(Clock::time_point now) const {
    return now - Clock::time_point(Clock::duration(phase_since_.load(std::memory_order_relaxed)));
  }

  void enter(Phase phase) {
    const Phase was = phase_.exchange(phase, std::memory_order_relaxed);
    if (!is_receiving(was) && is_receiving(phase)) {
      server_.receiving_requests.fetch_add(1, std::memory_order_relaxed);
    } else if (is_receiving(was) && !is_receiving(phase)) {
      server_.receiving_requests.fetch_sub(1, std::memory_order_relaxed);
    }
    phase_since_.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  }

  ServerState& server_;
  std::atomic<Phase> phase_{Phase::waiting};
  std::atomic<Clock::rep> phase_since_{Clock::now().time_since_epoch().count()};
  std::atomic<bool> authenticated_{false};
  std::string identity_;
  std::string remote_;
  std::atomic<size_t> body_bytes_{0};
  std::atomic<bool> body_too_slow_{false};
  // The first request's header has arrived whole.
  std::atomic<bool> completed_header_{false};
};

using PlainStream = tcp::socket;
// Asio's stream, not Beast's ssl_stream: Boost 1.74's flat_stream under it
// sent one TLS record of a larger answer and reported the write complete.
using TlsStream = asio::ssl::stream<tcp::socket>;

template <class Stream>
class Session final : public SessionBase, public WebSocketOwner {
 public:
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

  Session(ServerState& server, tcp::socket socket) requires(!kTls) : SessionBase(server), stream_(std::move(socket)) {
    init();
  }
  Session(ServerState& server, tcp::socket socket, std::shared_ptr<asio::ssl::context> tls) requires(kTls)
      : SessionBase(server), tls_(std::move(tls)), stream_(std::move(socket), *tls_) {
    init();
  }
  ~Session() override { server_.unregister(this); }

  void start() {
    if (!server_.admit(this)) return;  // the socket closes with the session
    asio::dispatch(socket().get_executor(), [self = self()] {
      if constexpr (kTls) {
        self->detect_tls();
      } else {
        self->read_request();
      }
    });
  }

  void evict_later() override {
    auto self = locked_self();
    if (!self) return;
    asio::post(socket().get_executor(), [self = std::move(self)] {
      // An authenticated answer may have gone out since it was chosen.
      if (self->evictable()) return self->close();
      self->server_.readmit(self.get());
    });
  }

 private:
  void init() {
    beast::error_code ec;
    const tcp::endpoint peer = socket().remote_endpoint(ec);
    if (!ec) remote_ = peer.address().to_string();
  }

  std::shared_ptr<Session> self() { return std::static_pointer_cast<Session>(shared_from_this()); }
  // Null when the session is being destroyed. Called under the sessions
  // lock: the reference must go into a posted handler, never be dropped
  // there, or the session's destructor would take the lock again.
  std::shared_ptr<Session> locked_self() { return std::static_pointer_cast<Session>(weak_from_this().lock()); }

  tcp::socket& socket() { return beast::get_lowest_layer(stream_); }

  void post_close(bool stopping, Clock::time_point now) override {
    auto self = locked_self();
    if (!self) return;
    asio::post(socket().get_executor(), [self = std::move(self), stopping, now] {
      const CloseReason reason = self->close_reason(stopping, now);
      if (reason == CloseReason::none) return;
      const bool may_be_idle = reason == CloseReason::idle || reason == CloseReason::stopping;
      if (may_be_idle && self->request_has_arrived()) return;
      if (reason == CloseReason::header_timeout) self->server_.count(Refusal::header_timeout);
      if (reason == CloseReason::body_too_slow) self->server_.count(Refusal::body_too_slow);
      self->close();
    });
  }

  // On the strand: bytes of a request the kernel holds that the queued read
  // has not delivered yet (every worker was busy) count as arrived.
  bool request_has_arrived() {
    if (phase_.load(std::memory_order_relaxed) != Phase::waiting) return false;
    beast::error_code ec;
    return socket().available(ec) > 0 && !ec;
  }

  // A client that sends plain HTTP to the TLS port gets a plain answer
  // saying so, rather than a handshake failure it cannot read.
  void detect_tls() {
    socket().async_wait(tcp::socket::wait_read, [self = self()](beast::error_code ec) {
      if (ec) return self->close();
      unsigned char first = 0;
      const ssize_t peeked = ::recv(self->socket().native_handle(), &first, 1, MSG_PEEK | MSG_DONTWAIT);
      // The wait can end before a byte is there; only an end or an error closes.
      if (peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return self->detect_tls();
      if (peeked <= 0) return self->close();
      if (first != kTlsHandshakeRecord) return self->refuse_plain_http();
      self->stream_.async_handshake(asio::ssl::stream_base::server, [self](beast::error_code handshake_ec) {
        if (handshake_ec) {
          self->server_.count(Refusal::tls_handshake);
          return self->close();
        }
        self->read_request();
      });
    });
  }

  void refuse_plain_http() {
    server_.count(Refusal::tls_handshake);
    enter(Phase::writing);
    asio::async_write(socket(), asio::buffer(kPlainHttpToTls.data(), kPlainHttpToTls.size()),
                      [self = self()](beast::error_code ec, size_t) {
                        if (ec) return self->close();
                        self->close_after_drain();
                      });
  }

  void read_request() {
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    if (server_.options.body_limit > 0) {
      parser_->body_limit(server_.options.body_limit);
    } else {
      parser_->body_limit(boost::none);
    }
    if (buffer_.size() > 0) return read_header();  // pipelined: the next request has begun
    if (server_.stopping.load(std::memory_order_relaxed)) return close();
    if (completed_header_) enter(Phase::waiting);
    // A connection takes no buffer before it sends something: thousands
    // that send nothing cost little.
    if constexpr (!kTls) {
      if (buffer_.capacity() == 0) {
        return socket().async_wait(tcp::socket::wait_read, [self = self()](beast::error_code ec) {
          if (ec) return self->close();
          self->read_start_of_request();
        });
      }
    }
    read_start_of_request();
  }

  void read_start_of_request() {
    // Beast reads max(512, free capacity) bytes at a time: without room a
    // request of a few kilobytes would take several reads.
    stream_.async_read_some(buffer_.prepare(kReadBufferSize), [self = self()](beast::error_code ec, size_t received) {
      if (ec) return self->close();  // the peer went away between requests
      self->buffer_.commit(received);
      self->read_header();
    });
  }

  void read_header() {
    // The first request's deadline runs from the connection's start.
    if (completed_header_) {
      enter(Phase::receiving_header);
    } else {
      const Phase was = phase_.exchange(Phase::receiving_header, std::memory_order_relaxed);
      if (!is_receiving(was)) server_.receiving_requests.fetch_add(1, std::memory_order_relaxed);
    }
    bhttp::async_read_header(stream_, buffer_, *parser_,
                             [self = self()](beast::error_code ec, size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (!completed_header_) {
      completed_header_ = true;
      server_.finished_first_header(this);
    }
    if (ec) return on_read_error(ec);
    const auto& message = parser_->get();
    if (!is_implemented(message.method())) {
      return fail(501, "not_implemented", "the method " + std::string(message.method_string()) +
                                              " is not implemented (methods are case-sensitive)");
    }
    // RFC 9112 3.2: exactly one Host in an HTTP/1.1 request.
    if (message.version() >= 11 && message.count(bhttp::field::host) != 1) {
      return fail(400, "bad_request", message.count(bhttp::field::host) == 0
                                          ? "an HTTP/1.1 request must have a Host header"
                                          : "a request must have one Host header, not several");
    }
    // Beast reads a body whose last coding is not chunked as empty, which
    // would leave the body to be read as the next request (RFC 9112 6.3:
    // answer 400 and close); and no coding but chunked is undone here.
    if (const auto coding = message.find(bhttp::field::transfer_encoding); coding != message.end()) {
      if (!parser_->chunked()) {
        return fail(400, "bad_request", "the last transfer coding of a request body must be chunked");
      }
      if (!beast::iequals(coding->value(), "chunked")) {
        return fail(501, "not_implemented", "no transfer coding but chunked is understood");
      }
    }
    if (parser_->is_done()) return handle();
    if (server_.options.refuse_before_body) {
      Request head = request_from(message);
      if (auto parsed = parse_target(head); !parsed) return fail(400, "bad_request", parsed.error().message);
      if (auto refusal = server_.options.refuse_before_body(head)) return refuse(std::move(*refusal));
    }
    if (message.version() >= 11 && beast::iequals(message[bhttp::field::expect], "100-continue")) {
      asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                        [self = self()](beast::error_code write_ec, size_t) {
                          if (write_ec) return self->close();
                          self->start_body();
                        });
      return;
    }
    start_body();
  }

  void start_body() {
    body_bytes_.store(0, std::memory_order_relaxed);
    body_too_slow_.store(false, std::memory_order_relaxed);
    enter(Phase::receiving_body);
    read_body();
  }

  // Piece by piece, so that the sweep sees how fast the body arrives.
  void read_body() {
    bhttp::async_read_some(stream_, buffer_, *parser_, [self = self()](beast::error_code ec, size_t parsed) {
      if (ec) return self->on_read_error(ec);
      self->body_bytes_.fetch_add(parsed, std::memory_order_relaxed);
      if (!self->parser_->is_done()) return self->read_body();
      self->handle();
    });
  }

  void on_read_error(beast::error_code ec) {
    if (ec == bhttp::error::body_limit) {
      return fail(413, "payload_too_large",
                  "the request body exceeds the limit of " + std::to_string(server_.options.body_limit) + " bytes");
    }
    if (ec == bhttp::error::header_limit) {
      return fail(431, "request_header_fields_too_large",
                  "the request line and headers exceed " + std::to_string(kHeaderLimit) + " bytes");
    }
    // A peer that closes between or during requests gets no answer; a parse error does.
    const bool parse_error = ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category() &&
                             ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message;
    if (parse_error) return fail(400, "bad_request", "malformed request: " + ec.message());
    close();
  }

  Request request_from(const bhttp::request<bhttp::string_body>& message) const {
    Request request;
    request.method = message.method_string();
    request.target = message.target();
    request.headers.reserve(static_cast<size_t>(std::distance(message.begin(), message.end())));
    for (const auto& field : message) {
      request.headers.push_back({std::string(field.name_string()), std::string(field.value())});
    }
    request.remote = remote_;
    return request;
  }

  void handle() {
    auto& message = parser_->get();
    Request request = request_from(message);
    request.body = std::move(message.body());
    head_only_ = message.method() == bhttp::verb::head;
    http_1_0_ = message.version() < 11;
    const bool keep_alive = message.keep_alive();
    if (auto parsed = parse_target(request); !parsed) return fail(400, "bad_request", parsed.error().message);

    enter(Phase::handling);
    server_.busy_workers.fetch_add(1, std::memory_order_relaxed);
    try {
      response_ = server_.handler(request);
    } catch (...) {
      response_ = server_.error_response(500, "internal_error", "the request handler failed");
    }
    server_.busy_workers.fetch_sub(1, std::memory_order_relaxed);
    if (response_.later) return answer_later(keep_alive);
    finish(keep_alive);
  }

  void finish(bool keep_alive) {
    if (response_.authenticated && !authenticated_.load(std::memory_order_relaxed) &&
        server_.spare(response_.identity)) {
      identity_ = response_.identity;
      authenticated_.store(true, std::memory_order_release);
    }
    if (response_.websocket) return upgrade(keep_alive);
    // Stopping: the last answer closes, after pipelined requests already here.
    if (server_.stopping.load(std::memory_order_relaxed) && buffer_.size() == 0) keep_alive = false;
    write_response(keep_alive, false);
  }

  // The stream moves to the WebSocket; this session stays registered, as
  // the connection, until the socket ends.
  void upgrade(bool keep_alive) {
    if (!websocket::is_upgrade(parser_->get())) {
      response_ = server_.error_response(426, "upgrade_required",
                                         "this path speaks WebSocket: ask with Upgrade: websocket");
      response_.headers.push_back({"Upgrade", "websocket"});
      return write_response(keep_alive, false);
    }
    if (server_.stopping.load(std::memory_order_relaxed)) {
      response_ = server_.error_response(503, "shutting_down", "the server is stopping");
      return write_response(false, false);
    }
    // A client sends frames only once it has read the 101.
    if (buffer_.size() > 0) {
      return fail(400, "bad_request", "bytes came after the WebSocket upgrade request before its answer");
    }
    auto handler = std::move(response_.websocket);
    std::erase_if(handler->headers, [](const Header& header) { return !is_header_safe(header); });
    const auto idle = std::chrono::duration_cast<Clock::duration>(server_.options.websocket_idle_timeout);
    const Clock::duration close_timeout = idle.count() > 0 ? std::min(idle, kDrainTime) : kDrainTime;
    enter(Phase::websocket);
    auto channel = std::make_shared<WebSocketChannel<Stream>>(std::move(stream_), tls_,
                                                              std::shared_ptr<WebSocketOwner>(self(), this),
                                                              std::move(handler), remote_, idle, close_timeout);
    channel_ = channel;
    response_ = Response{};
    channel->accept(parser_->release());
  }

  void websocket_ended() override { enter(Phase::closed); }

  // The handler's work goes on elsewhere; the answer comes back to this
  // session's strand. The io_context keeps running for it (a stop waits),
  // and an Answer dropped uncalled closes the connection.
  void answer_later(bool keep_alive) {
    auto later = std::move(response_.later);
    response_ = Response{};
    auto work = std::make_shared<asio::executor_work_guard<asio::io_context::executor_type>>(server_.io.get_executor());
    auto answered = std::make_shared<std::atomic<bool>>(false);
    Answer answer = [self = self(), work, answered, keep_alive](Response response) {
      if (answered->exchange(true)) return;
      asio::post(self->socket().get_executor(), [self, work, keep_alive, response = std::move(response)]() mutable {
        self->response_ = std::move(response);
        // Deferred again: the next stage runs here, on a request thread.
        if (self->response_.later) return self->answer_later(keep_alive);
        self->finish(keep_alive);
      });
    };
    try {
      later(std::move(answer));
    } catch (...) {
      // Unless the stage answered before it threw.
      if (answered->exchange(true)) return;
      response_ = server_.error_response(500, "internal_error", "the request handler failed");
      finish(keep_alive);
    }
  }

  // Answers an error the server found itself, then closes the connection.
  void fail(int status, std::string_view code, std::string_view message) {
    refuse(server_.error_response(status, code, message));
  }

  void refuse(Response response) {
    if (server_.options.on_refused) {
      const std::string_view method = parser_ ? parser_->get().method_string() : std::string_view();
      server_.options.on_refused(method, response.status, time_in_phase(Clock::now()));
    }
    response_ = std::move(response);
    response_.later = nullptr;
    head_only_ = false;
    write_response(false, true);
  }

  void write_response(bool keep_alive, bool drain_after) {
    if (response_.status < 200 || response_.status > 999) {
      response_ = server_.error_response(500, "internal_error", "the handler returned an invalid status");
    }
    const int status = response_.status;
    const bool has_body = status != 204 && status != 304;
    head_.clear();
    head_ += "HTTP/1.1 ";
    append_decimal(head_, static_cast<uint64_t>(status));
    head_ += ' ';
    const bhttp::status known = bhttp::int_to_status(static_cast<unsigned>(status));
    head_ += known == bhttp::status::unknown ? std::string_view("Unknown") : bhttp::obsolete_reason(known);
    head_ += "\r\nDate: ";
    head_ += http_date();
    head_ += "\r\n";
    if (has_body) {
      if (!response_.content_type.empty()) {
        head_ += "Content-Type: ";
        head_ += response_.content_type;
        head_ += "\r\n";
      }
      head_ += "Content-Length: ";
      append_decimal(head_, response_.payload().size());
      head_ += "\r\n";
    }
    for (const Header& header : response_.headers) {
      if (!is_header_safe(header)) continue;
      if (is_framing_header(header.name)) {
        if (beast::iequals(header.name, "connection") && beast::iequals(header.value, "close")) keep_alive = false;
        continue;
      }
      head_ += header.name;
      head_ += ": ";
      head_ += header.value;
      head_ += "\r\n";
    }
    if (!keep_alive) {
      head_ += "Connection: close\r\n";
    } else if (http_1_0_) {
      head_ += "Connection: keep-alive\r\n";
    }
    head_ += "\r\n";

    const bool send_body = has_body && !head_only_;
    enter(Phase::writing);
    if constexpr (!kTls) {
      if (send_body && response_.shared_body && response_.shared_body->file() >= 0) {
        head_sent_ = 0;
        file_offset_ = 0;
        return send_from_file(keep_alive, drain_after);
      }
    }
    const std::array<asio::const_buffer, 2> buffers = {
        asio::const_buffer(head_.data(), head_.size()),
        asio::const_buffer(response_.payload().data(), send_body ? response_.payload().size() : 0)};
    asio::async_write(stream_, buffers, [self = self(), keep_alive, drain_after](beast::error_code ec, size_t) {
      self->on_written(ec, keep_alive, drain_after);
    });
  }

  // The head goes with MSG_MORE, to leave in one segment with the start of
  // the body; the body goes from the memfd's pages with sendfile, never
  // copied through user space. When the socket is full, wait for room; a
  // reader that keeps taking bytes is not idle, however large the answer.
  void send_from_file(bool keep_alive, bool drain_after) {
    beast::error_code ec;
    if (!socket().native_non_blocking()) socket().native_non_blocking(true, ec);
    if (ec) return close();
    const int fd = socket().native_handle();
    const SharedBody& body = *response_.shared_body;
    const auto size = static_cast<off_t>(body.bytes().size());
    bool progressed = false;
    while (head_sent_ < head_.size() || file_offset_ < size) {
      ssize_t sent = 0;
      if (head_sent_ < head_.size()) {
        sent = ::send(fd, head_.data() + head_sent_, head_.size() - head_sent_, MSG_MORE | MSG_NOSIGNAL);
        if (sent > 0) head_sent_ += static_cast<size_t>(sent);
      } else {
        sent = ::sendfile(fd, body.file(), &file_offset_, static_cast<size_t>(size - file_offset_));
      }
      if (sent > 0) progressed = true;
      if (sent > 0 || (sent < 0 && errno == EINTR)) continue;
      if (sent == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return close();
      if (progressed) enter(Phase::writing);
      socket().async_wait(tcp::socket::wait_write,
                          [self = self(), keep_alive, drain_after](beast::error_code wait_ec) {
                            if (wait_ec) return self->close();
                            self->send_from_file(keep_alive, drain_after);
                          });
      return;
    }
    on_written({}, keep_alive, drain_after);
  }

  void on_written(beast::error_code ec, bool keep_alive, bool drain_after) {
    if (ec) return close();
    if constexpr (kTls) {
      if (!drain_after && !keep_alive) return close_tls();
    }
    if (drain_after) return close_after_drain();
    if (!keep_alive) return close();
    response_ = Response{};
    read_request();
  }

  // Sends close_notify and reads until the peer's, discarding what else it
  // sends, before the socket closes. Closed at once, a client's own
  // close_notify would meet a reset: OpenSSL clients then carry the error
  // into their next handshake (wrk counts a failed connect), and the
  // session would leave the cache unresumable.
  void close_tls() requires(kTls) {
    enter(Phase::draining);
    stream_.async_shutdown([self = self()](beast::error_code) { self->close(); });
  }

  // The peer may still be sending what it meant for the answered request:
  // closing now would reset the connection and could lose the answer.
  void close_after_drain() {
    beast::error_code ignored;
    socket().shutdown(tcp::socket::shutdown_send, ignored);
    buffer_.consume(buffer_.size());
    enter(Phase::draining);
    drain(0);
  }

  // Raw bytes from the socket, never decrypted: they are thrown away.
  void drain(size_t drained) {
    socket().async_read_some(buffer_.prepare(64 * 1024), [self = self(), drained](beast::error_code ec, size_t read) {
      if (ec || drained + read >= kDrainLimit) return self->close();
      self->drain(drained + read);
    });
  }

  void close() {
    // A stop closes a WebSocket with a handshake; making room drops it.
    if (phase_.load(std::memory_order_relaxed) == Phase::websocket) {
      if (auto channel = channel_.lock()) {
        if (server_.stopping.load(std::memory_order_relaxed)) {
          channel->close(1001, "the server is going away");
        } else {
          channel->abort();
        }
      }
      return;
    }
    if (phase_.load(std::memory_order_relaxed) == Phase::closed) return;
    enter(Phase::closed);
    // No longer one to make room from.
    if (!completed_header_) server_.finished_first_header(this);
    beast::error_code ignored;
    socket().shutdown(tcp::socket::shutdown_both, ignored);
    socket().close(ignored);
  }

  std::shared_ptr<asio::ssl::context> tls_;  // before stream_, which uses it
  Stream stream_;
  beast::flat_buffer buffer_;  // kept across requests: pipelined bytes wait here
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::weak_ptr<WebSocketControl> channel_;  // once upgraded
  Response response_;
  std::string head_;  // status line and headers of response_, reused
  size_t head_sent_ = 0;  // of head_, when the body goes with sendfile
  off_t file_offset_ = 0;  // of the body, sent with sendfile
  bool head_only_ = false;
  bool http_1_0_ = false;
};

}  // namespace sindri::http::detail
