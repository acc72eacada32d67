#pragma once
// Inside the server (server.cpp only): a connection after its upgrade to a
// WebSocket. It takes the session's stream; the session stays registered
// (the caps and the stop still see the connection) until the socket ends.

#include <atomic>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/ssl/stream.hpp>
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

// What the session asks of its socket once upgraded.
class WebSocketControl {
 public:
  virtual ~WebSocketControl() = default;
  // Closes with `code` (1001 at a stop); from any thread.
  virtual void close(uint16_t code, std::string reason) = 0;
};

// Told by the socket when it has ended, so that the connection leaves the
// registry.
class WebSocketOwner {
 public:
  virtual ~WebSocketOwner() = default;
  virtual void websocket_ended() = 0;
};

template <class Stream>
class WebSocketChannel final : public WebSocket,
                               public WebSocketControl,
                               public std::enable_shared_from_this<WebSocketChannel<Stream>> {
 public:
  WebSocketChannel(Stream stream, std::shared_ptr<asio::ssl::context> tls, std::shared_ptr<WebSocketOwner> owner,
                   std::shared_ptr<WebSocketHandler> handler, std::string remote, Clock::duration idle_timeout)
      : tls_(std::move(tls)),
        ws_(std::in_place, std::move(stream)),
        executor_(ws_->get_executor()),
        owner_(std::move(owner)),
        handler_(std::move(handler)),
        remote_(std::move(remote)) {
    // A ping halfway through the idle time; the close handshake gets as long.
    websocket::stream_base::timeout timeouts{idle_timeout, idle_timeout, true};
    ws_->set_option(timeouts);
    ws_->set_option(websocket::stream_base::decorator([headers = handler_->headers](websocket::response_type& answer) {
      for (const Header& header : headers) answer.set(header.name, header.value);
    }));
    ws_->read_message_max(handler_->max_message_bytes);
    ws_->auto_fragment(false);
  }

  // Answers the upgrade request (already checked to be one) with 101.
  void accept(bhttp::request<bhttp::string_body> request) {
    request_ = std::move(request);
    ws_->async_accept(request_, [self = this->shared_from_this()](beast::error_code ec) {
      self->request_ = {};
      if (ec) return self->ended(static_cast<uint16_t>(websocket::close_code::abnormal));
      self->opened_ = true;
      self->call([&] {
        if (self->handler_->on_open) self->handler_->on_open(self);
      });
      self->read();
    });
  }

  bool send(std::string message) override {
    if (closing_.load(std::memory_order_acquire)) return false;
    const size_t size = message.size();
    if (queued_bytes_.fetch_add(size, std::memory_order_acq_rel) + size > handler_->max_queued_bytes) {
      queued_bytes_.fetch_sub(size, std::memory_order_acq_rel);
      close(static_cast<uint16_t>(websocket::close_code::try_again_later), "the client reads too slowly");
      return false;
    }
    asio::post(executor_, [self = this->shared_from_this(), message = std::move(message)]() mutable {
      if (self->close_started_ || self->ended_) {
        self->queued_bytes_.fetch_sub(message.size(), std::memory_order_acq_rel);
        return;
      }
      self->queue_.push_back(std::move(message));
      if (!self->writing_) self->write_next();
    });
    return true;
  }

  void close(uint16_t code, std::string reason) override {
    closing_.store(true, std::memory_order_release);
    asio::post(executor_, [self = this->shared_from_this(), code, reason = std::move(reason)]() mutable {
      if (self->close_started_ || self->ended_) return;
      self->close_started_ = true;
      self->close_reason_ = websocket::close_reason(static_cast<websocket::close_code>(code), reason.substr(0, 123));
      if (!self->writing_) self->send_close();
    });
  }

  const std::string& remote() const override { return remote_; }

 private:
  void read() {
    ws_->async_read(buffer_, [self = this->shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->ended(self->code_of(ec));
      if (!self->ws_->got_text()) {
        self->buffer_.clear();
        // The read goes on: it ends when the peer answers the close.
        self->close(static_cast<uint16_t>(websocket::close_code::unknown_data), "text messages only");
        return self->read();
      }
      std::string message = beast::buffers_to_string(self->buffer_.data());
      self->buffer_.clear();
      self->call([&] {
        if (self->handler_->on_message) self->handler_->on_message(self, std::move(message));
      });
      self->read();
    });
  }

  void write_next() {
    writing_ = true;
    ws_->text(true);
    ws_->async_write(asio::buffer(queue_.front()), [self = this->shared_from_this()](beast::error_code ec, size_t) {
      self->queued_bytes_.fetch_sub(self->queue_.front().size(), std::memory_order_acq_rel);
      self->queue_.pop_front();
      self->writing_ = false;
      if (ec) return self->drop_queue();  // the read sees the end
      if (self->close_started_) return self->send_close();
      if (!self->queue_.empty()) self->write_next();
    });
  }

  // The close frame goes after the message being written; the rest of the
  // queue is dropped. The read then ends when the peer answers the close
  // (or the close handshake times out).
  void send_close() {
    drop_queue();
    ws_->async_close(close_reason_, [self = this->shared_from_this()](beast::error_code) {});
  }

  void drop_queue() {
    for (const std::string& message : queue_) queued_bytes_.fetch_sub(message.size(), std::memory_order_acq_rel);
    queue_.clear();
  }

  uint16_t code_of(beast::error_code ec) const {
    if (ec == websocket::error::closed) return static_cast<uint16_t>(ws_->reason().code);
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
    if (opened_) {
      auto self = this->shared_from_this();
      call([&] {
        if (handler_->on_close) handler_->on_close(self, code);
      });
    }
    beast::error_code ignored;
    beast::get_lowest_layer(*ws_).close(ignored);
    owner_->websocket_ended();
    owner_.reset();
    // The stream's timer would keep the server's threads running (a stop
    // waiting) as long as someone holds this socket: it goes once the
    // handler that called here has returned.
    asio::post(executor_, [self = this->shared_from_this()] { self->ws_.reset(); });
  }

  std::shared_ptr<asio::ssl::context> tls_;  // before ws_, whose TLS stream uses it
  std::optional<websocket::stream<Stream>> ws_;  // reset once ended
  typename websocket::stream<Stream>::executor_type executor_;
  std::shared_ptr<WebSocketOwner> owner_;
  std::shared_ptr<WebSocketHandler> handler_;
  std::string remote_;
  bhttp::request<bhttp::string_body> request_;
  beast::flat_buffer buffer_;
  std::deque<std::string> queue_;
  std::atomic<size_t> queued_bytes_{0};
  std::atomic<bool> closing_{false};
  websocket::close_reason close_reason_;
  bool writing_ = false;
  bool close_started_ = false;
  bool opened_ = false;
  bool ended_ = false;
};

}  // namespace sindri::http::detail
