#include "fleet/simulated_agent.hpp"

#include <boost/asio/connect.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <chrono>
#include <utility>

namespace sindri::bench {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using namespace std::chrono_literals;

namespace {

constexpr auto kRetryDelay = 1s;
constexpr auto kPollTimeout = 30s;

// The value of a frame's "type" member: the broker writes it first and
// compactly, and the simulation needs no more of the frame.
std::string frame_type(const std::string& frame) {
  const std::string key = "\"type\":\"";
  const auto start = frame.find(key);
  if (start == std::string::npos) return "unreadable";
  const auto end = frame.find('"', start + key.size());
  return end == std::string::npos ? "unreadable" : frame.substr(start + key.size(), end - start - key.size());
}

}  // namespace

SimulatedAgent::SimulatedAgent(asio::io_context& io, FleetCounters& counters, FleetWatch& watch,
                               asio::ip::tcp::endpoint broker, std::string id, std::string pak)
    : io_(io),
      counters_(counters),
      watch_(watch),
      broker_(std::move(broker)),
      id_(std::move(id)),
      pak_(std::move(pak)),
      target_state_path_("/api/v1/agents/" + id_ + "/target-state"),
      socket_retry_(io),
      poll_stream_(io),
      poll_timer_(io) {
  poll_request_.method(http::verb::get);
  poll_request_.target(target_state_path_);
  poll_request_.version(11);
  poll_request_.set(http::field::host, broker_.address().to_string() + ":" + std::to_string(broker_.port()));
  poll_request_.set(http::field::authorization, "Bearer " + pak_);
  poll_request_.set(http::field::user_agent, "sindri-bench-fleet");
}

void SimulatedAgent::open_socket(std::function<void()> opened) {
  opened_ = std::move(opened);
  connect_socket();
}

void SimulatedAgent::connect_socket() {
  socket_.emplace(io_);
  frame_.clear();
  beast::get_lowest_layer(*socket_).expires_after(kPollTimeout);
  beast::get_lowest_layer(*socket_).async_connect(broker_, [this](beast::error_code error) {
    if (error) return socket_failed("connect", error);
    // The WebSocket's own timeouts take over from the TCP stream's.
    beast::get_lowest_layer(*socket_).expires_never();
    socket_->set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
    socket_->set_option(websocket::stream_base::decorator([this](websocket::request_type& request) {
      request.set(http::field::authorization, "Bearer " + pak_);
      request.set(http::field::user_agent, "sindri-bench-fleet");
    }));
    const std::string host = broker_.address().to_string() + ":" + std::to_string(broker_.port());
    socket_->async_handshake(host, "/internal/ws/agent", [this](beast::error_code error) {
      if (error) return socket_failed("handshake", error);
      socket_is_open_ = true;
      ++counters_.sockets_open;
      if (opened_) std::exchange(opened_, nullptr)();
      read_frame();
    });
  });
}

void SimulatedAgent::socket_failed(const char* stage, beast::error_code error) {
  if (closing_) return;
  if (socket_is_open_) {
    socket_is_open_ = false;
    --counters_.sockets_open;
    ++counters_.sockets_lost;
    watch_.last_loss = std::string(stage) + ": " + error.message() + " (close code " +
                       std::to_string(socket_->reason().code) + " " + std::string(socket_->reason().reason) + ")";
  } else {
    ++counters_.handshake_failures;
    watch_.last_loss = std::string(stage) + ": " + error.message();
  }
  socket_retry_.expires_after(kRetryDelay);
  socket_retry_.async_wait([this](beast::error_code wait_error) {
    if (!wait_error && !closing_) connect_socket();
  });
}

void SimulatedAgent::read_frame() {
  socket_->async_read(frame_, [this](beast::error_code error, size_t) {
    if (error) return socket_failed("read", error);
    on_frame();
    read_frame();
  });
}

void SimulatedAgent::on_frame() {
  ++watch_.frames[frame_type(beast::buffers_to_string(frame_.data()))];
  frame_.consume(frame_.size());
  if (watch_.active && !sighting_.pushed_at) sighting_.pushed_at = Clock::now();
  // Every frame is a hint to poll, as Brokkr's agent takes it.
  poll(PollCause::push);
}

void SimulatedAgent::close_socket() {
  closing_ = true;
  poll_timer_.cancel();
  socket_retry_.cancel();
  if (!socket_is_open_) return;
  socket_->async_close(websocket::close_code::normal, [this](beast::error_code) {
    socket_is_open_ = false;
    --counters_.sockets_open;
  });
}

void SimulatedAgent::start_polling(Clock::duration first_delay, Clock::duration interval) {
  interval_ = interval;
  next_poll_ = Clock::now() + first_delay;
  poll_timer_.expires_at(next_poll_);
  poll_timer_.async_wait([this](beast::error_code error) { on_interval(error); });
}

void SimulatedAgent::on_interval(beast::error_code error) {
  if (error || closing_) return;
  poll(PollCause::interval);
  next_poll_ += interval_;
  poll_timer_.expires_at(next_poll_);
  poll_timer_.async_wait([this](beast::error_code wait_error) { on_interval(wait_error); });
}

void SimulatedAgent::poll(PollCause cause) {
  if (polling_) {
    // The poll under way may have been answered before the change: one more follows it.
    if (!wanted_ || cause == PollCause::push) wanted_ = cause;
    return;
  }
  polling_ = true;
  current_cause_ = cause;
  if (poll_connected_) return send_poll();
  poll_stream_.expires_after(kPollTimeout);
  poll_stream_.async_connect(broker_, [this](beast::error_code error) {
    if (error) return poll_failed("connect: " + error.message());
    poll_connected_ = true;
    send_poll();
  });
}

void SimulatedAgent::send_poll() {
  if (etag_.empty()) {
    poll_request_.erase(http::field::if_none_match);
  } else {
    poll_request_.set(http::field::if_none_match, etag_);
  }
  poll_stream_.expires_after(kPollTimeout);
  http::async_write(poll_stream_, poll_request_, [this](beast::error_code error, size_t) {
    if (error) return poll_failed("write: " + error.message());
    poll_answer_ = {};
    http::async_read(poll_stream_, poll_buffer_, poll_answer_,
                     [this](beast::error_code read_error, size_t) { on_poll_answer(read_error); });
  });
}

void SimulatedAgent::on_poll_answer(beast::error_code error) {
  if (error) return poll_failed("read: " + error.message());
  const unsigned status = poll_answer_.result_int();
  if (status != 200 && status != 304) return poll_failed("status " + std::to_string(status));
  ++counters_.polls;
  if (status == 200) {
    ++counters_.polls_changed;
    etag_ = std::string(poll_answer_[http::field::etag]);
    if (watch_.active && !sighting_.at && poll_answer_.body().find(watch_.token) != std::string::npos) {
      sighting_.at = Clock::now();
      sighting_.cause = current_cause_;
      ++counters_.watched_seen;
    }
  }
  if (!poll_answer_.keep_alive()) {
    beast::error_code ignored;
    poll_stream_.socket().close(ignored);
    poll_connected_ = false;
  }
  poll_done();
}

void SimulatedAgent::poll_failed(const std::string& why) {
  ++counters_.poll_failures;
  watch_.last_poll_failure = why;
  beast::error_code ignored;
  poll_stream_.socket().close(ignored);
  poll_connected_ = false;
  poll_buffer_.clear();
  poll_done();
}

void SimulatedAgent::poll_done() {
  polling_ = false;
  if (wanted_ && !closing_) poll(*std::exchange(wanted_, std::nullopt));
}

}  // namespace sindri::bench
