#pragma once
// Inside the server (server.cpp only): a connection after its upgrade to a
// WebSocket. It takes the session's stream; the session stays registered
// (the caps and the stop still see the connection) until the socket ends.

#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/error.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>

#include "http/server.hpp"
#include "http/server_state.hpp"

namespace sindri::http::detail {

namespace websocket = beast::websocket;

// What the session asks of its socket once upgraded; from any thread.
class WebSocketControl {
 public:
  virtual ~WebSocketControl() = default;
  // A close handshake (1001 at a stop), bounded in time.
  virtual void close(uint16_t code, std::string reason) = 0;
  // Drops the connection at once (no close frame): to make room.
  virtual void abort() = 0;
};

// Told by the socket when it has ended, so that the connection leaves the
// registry.
class WebSocketOwner {
 public:
  virtual ~WebSocketOwner() = default;
  virtual void websocket_ended() = 0;
};

// A code a close frame may carry (RFC 6455 7.4): anything else is sent as 1011.
inline uint16_t sendable_close_code(uint16_t code) {
  const bool defined = (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014);
  return defined || (code >= 3000 && code <= 4999) ? code : 1011;
}

// At most the 123 bytes a close frame's reason holds, not cutting a UTF-8
// character.
inline std::string sendable_close_reason(std::string reason) {
  if (reason.size() <= 123) return reason;
  size_t end = 123;
  while (end > 0 && (static_cast<unsigned char>(reason[end]) & 0xC0) == 0x80) --end;
  reason.resize(end);
  return reason;
}

template <class Stream>
class WebSocketChannel;

// What handlers hold: the channel lives only as long as its operations, on
// the server's threads, so a handle kept past the end (or past the server)
// holds nothing of the connection and sends nothing.
template <class Stream>
class WebSocketHandle final : public WebSocket {
 public:
  WebSocketHandle(std::weak_ptr<WebSocketChannel<Stream>> channel, std::string remote)
      : channel_(std::move(channel)), remote_(std::move(remote)) {}
  bool send(std::string message) override {
    auto channel = channel_.lock();
    return channel && channel->send(std::move(message));
  }
  void close(uint16_t code, std::string reason) override {
    if (auto channel = channel_.lock()) channel->close(code, std::move(reason));
  }
  const std::string& remote() const override { return remote_; }

 private:
  std::weak_ptr<WebSocketChannel<Stream>> channel_;
  const std::string remote_;
};

template <class Stream>
class WebSocketChannel final : public WebSocketControl, public std::enable_shared_from_this<WebSocketChannel<Stream>> {
 public:
  // idle_timeout 0: no pings and no idle limit. A close handshake may take
  // close_timeout; then the connection is dropped.
  WebSocketChannel(Stream stream, std::shared_ptr<asio::ssl::context> tls, std::shared_ptr<WebSocketOwner> owner,
                   std::shared_ptr<WebSocketHandler> handler, std::string remote, Clock::duration idle_timeout,
                   Clock::duration close_timeout)
      : tls_(std::move(tls)),
        ws_(std::move(stream)),
        close_timer_(ws_.get_executor()),
        owner_(std::move(owner)),
        handler_(std::move(handler)),
        remote_(std::move(remote)),
        close_timeout_(close_timeout) {
    if (idle_timeout.count() > 0) {
      // A ping halfway through the idle time.
      ws_.set_option(websocket::stream_base::timeout{close_timeout, idle_timeout, true});
    } else {
      ws_.set_option(websocket::stream_base::timeout{close_timeout, websocket::stream_base::none(), false});
    }
    ws_.set_option(websocket::stream_base::decorator([headers = handler_->headers](websocket::response_type& answer) {
      for (const Header& header : headers) answer.set(header.name, header.value);
    }));
    ws_.read_message_max(handler_->max_message_bytes);
    ws_.auto_fragment(false);
  }

  // Answers the upgrade request (already checked to be one) with 101.
  void accept(bhttp::request<bhttp::string_body> request) {
    handle_ = std::make_shared<WebSocketHandle<Stream>>(this->weak_from_this(), remote_);
    request_ = std::move(request);
    ws_.async_accept(request_, [self = this->shared_from_this()](beast::error_code ec) {
      self->request_ = {};
      if (ec) return self->ended(static_cast<uint16_t>(websocket::close_code::abnormal));
      self->accepted_ = true;
      // Closed while the handshake ran (a stop, an eviction): no on_open.
      if (!self->close_started_) {
        self->opened_ = true;
        self->call([&] {
          if (self->handler_->on_open) self->handler_->on_open(self->handle_);
        });
      }
      self->read();
      if (self->close_started_ && !self->writing_) self->send_close();
    });
  }

  bool send(std::string message) {
    if (closing_.load(std::memory_order_acquire)) return false;
    const size_t size = message.size();
    if (queued_bytes_.fetch_add(size, std::memory_order_acq_rel) + size > handler_->max_queued_bytes) {
      queued_bytes_.fetch_sub(size, std::memory_order_acq_rel);
      close(static_cast<uint16_t>(websocket::close_code::try_again_later), "the client reads too slowly");
      return false;
    }
    asio::post(ws_.get_executor(), [self = this->shared_from_this(), message = std::move(message)]() mutable {
      if (self->close_started_ || self->ended_) {
        self->queued_bytes_.fetch_sub(message.size(), std::memory_order_acq_rel);
        return;
      }
      self->queue_.push_back(std::move(message));
      if (!self->writing_ && self->opened_) self->write_next();
    });
    return true;
  }

  void close(uint16_t code, std::string reason) override {
    if (closing_.exchange(true, std::memory_order_acq_rel)) return;
    asio::post(ws_.get_executor(), [self = this->shared_from_this(), code, reason = std::move(reason)]() mutable {
      if (self->close_started_ || self->ended_) return;
      self->close_started_ = true;
      self->close_reason_ = websocket::close_reason(static_cast<websocket::close_code>(sendable_close_code(code)),
                                                    sendable_close_reason(std::move(reason)));
      // A peer that never answers (nor reads) is dropped.
      self->close_timer_.expires_after(self->close_timeout_);
      self->close_timer_.async_wait([self](beast::error_code ec) {
        if (!ec) self->drop();
      });
      if (self->accepted_ && !self->writing_) self->send_close();
    });
  }

  void abort() override {
    closing_.store(true, std::memory_order_release);
    asio::post(ws_.get_executor(), [self = this->shared_from_this()] { self->drop(); });
  }


 private:
  void read() {
    ws_.async_read(buffer_, [self = this->shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->ended(self->code_of(ec));
      if (self->close_started_) {
        self->buffer_.clear();
        return self->read();  // until the peer's close frame
      }
      if (!self->ws_.got_text()) {
        self->buffer_.clear();
        self->close(static_cast<uint16_t>(websocket::close_code::unknown_data), "text messages only");
        return self->read();
      }
      std::string message = beast::buffers_to_string(self->buffer_.data());
      self->buffer_.clear();
      self->call([&] {
        if (self->handler_->on_message) self->handler_->on_message(self->handle_, std::move(message));
      });
      self->read();
    });
  }

  // The message being written leaves the queue, so that dropping the queue
  // never touches it.
  void write_next() {
    writing_ = true;
    in_flight_ = std::move(queue_.front());
    queue_.pop_front();
    ws_.text(true);
    ws_.async_write(asio::buffer(in_flight_), [self = this->shared_from_this()](beast::error_code ec, size_t) {
      self->writing_ = false;
      self->queued_bytes_.fetch_sub(self->in_flight_.size(), std::memory_order_acq_rel);
      self->in_flight_.clear();
      if (self->ended_) return;
      if (ec) return self->drop_queue();  // the read sees the end
      if (self->close_started_) return self->send_close();
      if (!self->queue_.empty()) self->write_next();
    });
  }

  // The close frame goes after the message being written; the rest of the
  // queue is dropped. The read then ends when the peer answers the close,
  // or the close timer drops the connection.
  void send_close() {
    if (close_sent_) return;
    close_sent_ = true;
    drop_queue();
    ws_.async_close(close_reason_, [self = this->shared_from_this()](beast::error_code) {});
  }

  void drop_queue() {
    for (const std::string& message : queue_) queued_bytes_.fetch_sub(message.size(), std::memory_order_acq_rel);
    queue_.clear();
  }

  // Closing the socket ends every operation under way; the read's end
  // calls ended().
  void drop() {
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).close(ignored);
  }

  uint16_t code_of(beast::error_code ec) const {
    if (ec == websocket::error::closed) {
      const auto code = static_cast<uint16_t>(ws_.reason().code);
      return code == 0 ? static_cast<uint16_t>(websocket::close_code::no_status) : code;
    }
    if (ec == websocket::error::message_too_big) return static_cast<uint16_t>(websocket::close_code::too_big);
    if (close_started_) return static_cast<uint16_t>(close_reason_.code);
    return static_cast<uint16_t>(websocket::close_code::abnormal);
  }

  // A handler's exception closes the socket (1011), never the server.
  template <class Call>
  void call(Call&& callback) {
    try {
      callback();
    } catch (...) {
      close(static_cast<uint16_t>(websocket::close_code::internal_error), "the server failed");
    }
  }

  void ended(uint16_t code) {
    if (ended_) return;
    ended_ = true;
    closing_.store(true, std::memory_order_release);
    drop_queue();
    close_timer_.cancel();
    // Beast's idle timer would keep the channel, and the server's threads,
    // running until it fires.
    ws_.set_option(websocket::stream_base::timeout{websocket::stream_base::none(), websocket::stream_base::none(),
                                                   false});
    if (opened_) {
      call([&] {
        if (handler_->on_close) handler_->on_close(handle_, code);
      });
    }
    drop();
    owner_->websocket_ended();
    owner_.reset();
  }

  std::shared_ptr<asio::ssl::context> tls_;  // before ws_, whose TLS stream uses it
  websocket::stream<Stream> ws_;
  asio::steady_timer close_timer_;
  std::shared_ptr<WebSocketOwner> owner_;
  std::shared_ptr<WebSocketHandler> handler_;
  std::string remote_;
  std::shared_ptr<WebSocket> handle_;
  const Clock::duration close_timeout_;
  bhttp::request<bhttp::string_body> request_;
  beast::flat_buffer buffer_;
  std::deque<std::string> queue_;
  std::string in_flight_;
  std::atomic<size_t> queued_bytes_{0};
  std::atomic<bool> closing_{false};
  websocket::close_reason close_reason_;
  bool writing_ = false;
  bool close_started_ = false;
  bool close_sent_ = false;
  bool accepted_ = false;
  bool opened_ = false;
  bool ended_ = false;
};

}  // namespace sindri::http::detail
