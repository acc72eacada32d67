#pragma once
// One simulated agent: a WebSocket to the broker's agent channel and a
// kept-alive HTTP connection polling its target state, as Brokkr's agent
// holds them. It polls every interval and at once when a frame arrives on
// the socket; a poll wanted while one is under way follows it. All of it
// runs on one io_context's thread.

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <functional>
#include <optional>
#include <string>

#include "fleet/fleet_counters.hpp"

namespace sindri::bench {

enum class PollCause { interval, push };

// When, while watching, the agent was first pushed a frame and first
// fetched a target state holding the watched token.
struct Sighting {
  std::optional<Clock::time_point> pushed_at;
  std::optional<Clock::time_point> at;
  PollCause cause = PollCause::interval;
};

class SimulatedAgent {
 public:
  SimulatedAgent(boost::asio::io_context& io, FleetCounters& counters, FleetWatch& watch,
                 boost::asio::ip::tcp::endpoint broker, std::string id, std::string pak);

  // Opens the socket, trying again each second until it is open; then calls opened once.
  void open_socket(std::function<void()> opened);
  // Polls first after first_delay, then every interval.
  void start_polling(Clock::duration first_delay, Clock::duration interval);
  void close_socket();
  void forget_sighting() { sighting_ = {}; }
  const Sighting& sighting() const { return sighting_; }

 private:
  using WebSocket = boost::beast::websocket::stream<boost::beast::tcp_stream>;

  void connect_socket();
  void socket_failed(const char* stage, boost::beast::error_code error);
  void read_frame();
  void on_frame();
  void on_interval(boost::beast::error_code error);
  void poll(PollCause cause);
  void send_poll();
  void on_poll_answer(boost::beast::error_code error);
  void poll_failed(const std::string& why);
  void poll_done();

  boost::asio::io_context& io_;
  FleetCounters& counters_;
  FleetWatch& watch_;
  boost::asio::ip::tcp::endpoint broker_;
  std::string id_, pak_, target_state_path_;

  std::optional<WebSocket> socket_;
  boost::beast::flat_buffer frame_;
  boost::asio::steady_timer socket_retry_;
  std::function<void()> opened_;
  bool socket_is_open_ = false;
  bool closing_ = false;

  boost::beast::tcp_stream poll_stream_;
  bool poll_connected_ = false;
  boost::beast::flat_buffer poll_buffer_;
  boost::beast::http::request<boost::beast::http::empty_body> poll_request_;
  boost::beast::http::response<boost::beast::http::string_body> poll_answer_;
  std::string etag_;
  boost::asio::steady_timer poll_timer_;
  Clock::time_point next_poll_;
  Clock::duration interval_{};
  bool polling_ = false;
  PollCause current_cause_ = PollCause::interval;
  std::optional<PollCause> wanted_;

  Sighting sighting_;
};

}  // namespace sindri::bench
