// WebSockets accepted by the server, end to end over real sockets with
// Boost.Beast's client: messages both ways, the 101's headers, the limits
// (message size, text only, a reader too slow), keep-alive pings, a stop.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <gtest/gtest.h>

#include "http/client.hpp"
#include "http/server.hpp"
#include "http/tls_server_context.hpp"
#include "support/test_certificates.hpp"

namespace sindri::http {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = boost::beast::websocket;
using tcp = asio::ip::tcp;

void wait_until(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!condition() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
}

Response plain_error(int status, std::string_view, std::string_view message) {
  Response response;
  response.status = status;
  response.content_type = "text/plain";
  response.body = std::string(message);
  return response;
}

// A blocking client, as a test drives it.
class TestClient {
 public:
  // receive_buffer (bytes, 0: the kernel's default): small, for a client
  // that does not read, so that the server's writes block soon.
  explicit TestClient(uint16_t port, std::vector<std::pair<std::string, std::string>> headers = {},
                      int receive_buffer = 0)
      : ws_(io_) {
    if (receive_buffer > 0) {
      ws_.next_layer().open(tcp::v4());
      ws_.next_layer().set_option(asio::socket_base::receive_buffer_size(receive_buffer));
    }
    ws_.next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    ws_.set_option(websocket::stream_base::decorator([headers](websocket::request_type& request) {
      for (const auto& [name, value] : headers) request.set(name, value);
    }));
    ws_.handshake(upgrade_answer_, "127.0.0.1", "/ws");
  }
  void send(const std::string& message, bool binary = false) {
    ws_.binary(binary);
    ws_.write(asio::buffer(message));
  }
  // The next message, or "" with `ended` set to the close code.
  std::string read(int* ended = nullptr) {
    beast::flat_buffer buffer;
    beast::error_code ec;
    ws_.read(buffer, ec);
    if (ec) {
      if (ended != nullptr) *ended = ec == websocket::error::closed ? static_cast<int>(ws_.reason().code) : -1;
      return "";
    }
    return beast::buffers_to_string(buffer.data());
  }
  void close() { ws_.close(websocket::close_code::normal); }
  const websocket::response_type& upgrade_answer() const { return upgrade_answer_; }

 private:
  asio::io_context io_;
  websocket::stream<tcp::socket> ws_;
  websocket::response_type upgrade_answer_;
};

class WebSocketServerTest : public ::testing::Test {
 protected:
  void start(ServerOptions options = {}, size_t max_message = 1024 * 1024, size_t max_queued = 4 * 1024 * 1024) {
    max_message_ = max_message;
    max_queued_ = max_queued;
    server_ = std::make_unique<Server>(
        std::move(options), [this](Request& request) { return handle(request); }, plain_error);
    const Status started = server_->start();
    ASSERT_TRUE(started.ok()) << started.error().message;
  }

  // /ws: says hello, echoes each message, and records how it closed.
  Response handle(Request& request) {
    Response response;
    if (request.path != "/ws") {
      response.body = "plain " + request.path;
      return response;
    }
    if (!request.wants_websocket() && request.header("X-Force") != "yes") {
      response.status = 426;
      return response;
    }
    auto handler = std::make_shared<WebSocketHandler>();
    handler->headers = {{"Sec-WebSocket-Protocol", "sindri.test"}};
    handler->max_message_bytes = max_message_;
    handler->max_queued_bytes = max_queued_;
    handler->on_open = [this](const WebSocketPtr& socket) {
      {
        std::lock_guard lock(mutex_);
        sockets_.push_back(socket);
      }
      socket->send("hello " + socket->remote());
    };
    handler->on_message = [](const WebSocketPtr& socket, std::string message) {
      if (message == "throw") throw std::runtime_error("a handler's failure");
      socket->send("echo " + message);
    };
    handler->on_close = [this](const WebSocketPtr&, uint16_t code) {
      std::lock_guard lock(mutex_);
      close_codes_.push_back(code);
    };
    response.websocket = std::move(handler);
    return response;
  }

  std::vector<int> close_codes() {
    std::lock_guard lock(mutex_);
    return std::vector<int>(close_codes_.begin(), close_codes_.end());
  }
  WebSocketPtr first_socket() {
    std::lock_guard lock(mutex_);
    return sockets_.empty() ? nullptr : sockets_.front();
  }
  uint16_t port() const { return server_->port(); }

  size_t max_message_ = 0;
  size_t max_queued_ = 0;
  std::mutex mutex_;
  std::vector<WebSocketPtr> sockets_;
  std::vector<uint16_t> close_codes_;
  std::unique_ptr<Server> server_;
};

TEST_F(WebSocketServerTest, MessagesGoBothWaysAndANormalCloseIsReported) {
  start();
  TestClient client(port());
  EXPECT_EQ(client.upgrade_answer().result_int(), 101);
  EXPECT_EQ(client.upgrade_answer()["Sec-WebSocket-Protocol"], "sindri.test");
  EXPECT_EQ(client.read(), "hello 127.0.0.1");
  client.send("one");
  client.send("two");
  EXPECT_EQ(client.read(), "echo one");
  EXPECT_EQ(client.read(), "echo two");
  client.close();
  wait_until([&] { return close_codes().size() == 1; });
  EXPECT_EQ(close_codes(), std::vector<int>{1000});
  wait_until([&] { return server_->open_connections() == 0; });
  EXPECT_EQ(server_->open_connections(), 0u);
}

TEST_F(WebSocketServerTest, ARequestThatDoesNotAskForAWebSocketGetsAnAnswer) {
  start();
  Client client("http://127.0.0.1:" + std::to_string(port()));
  auto refused = client.request("GET", "/ws");
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_EQ(refused->status, 426);
  // A handler that offers a socket to a plain request: the server says 426.
  auto forced = client.request("GET", "/ws", "", "application/json", {{"X-Force", "yes"}});
  ASSERT_TRUE(forced.ok()) << forced.error().message;
  EXPECT_EQ(forced->status, 426);
  EXPECT_EQ(forced->header("Upgrade"), "websocket");
}

TEST_F(WebSocketServerTest, AMessageOverTheLimitClosesWith1009AndTheServerGoesOn) {
  start({}, 1000);
  TestClient client(port());
  client.read();
  client.send(std::string(1001, 'x'));
  int code = 0;
  EXPECT_EQ(client.read(&code), "");
  EXPECT_EQ(code, 1009);
  TestClient next(port());
  EXPECT_EQ(next.read(), "hello 127.0.0.1");
  next.send(std::string(1000, 'y'));
  EXPECT_EQ(next.read().size(), 1005u);
}

TEST_F(WebSocketServerTest, ABinaryMessageClosesWith1003AndAThrowingHandlerWith1011) {
  start();
  TestClient binary(port());
  binary.read();
  binary.send("\x01\x02", true);
  int code = 0;
  binary.read(&code);
  EXPECT_EQ(code, 1003);
  TestClient failing(port());
  failing.read();
  failing.send("throw");
  failing.read(&code);
  EXPECT_EQ(code, 1011);
}

// A client that never reads: the server's queue for it stays bounded, and
// the connection is closed (1013) rather than kept growing, though the close
// frame cannot get through: the close timeout drops it.
TEST_F(WebSocketServerTest, AClientThatNeverReadsIsDisconnectedAtTheQueueBound) {
  ServerOptions options;
  options.websocket_idle_timeout = 300ms;
  start(options, 1024 * 1024, 256 * 1024);
  TestClient client(port(), {}, 4096);
  wait_until([&] { return first_socket() != nullptr; });
  const WebSocketPtr socket = first_socket();
  ASSERT_NE(socket, nullptr);
  const std::string chunk(64 * 1024, 'z');
  size_t accepted = 0;
  while (accepted < 100000 && socket->send(chunk)) ++accepted;
  EXPECT_LT(accepted, 100000u) << "send() never refused";
  EXPECT_FALSE(socket->send("after"));
  wait_until([&] { return !close_codes().empty(); });
  EXPECT_EQ(close_codes(), std::vector<int>{1013});
  wait_until([&] { return server_->open_connections() == 0; });
  EXPECT_EQ(server_->open_connections(), 0u);
}

// A stop does not wait on a socket whose writes are blocked: its close
// handshake is bounded, then it is dropped.
TEST_F(WebSocketServerTest, AStopEndsASocketWhoseWritesAreBlocked) {
  ServerOptions options;
  options.websocket_idle_timeout = 300ms;
  start(options, 1024 * 1024, 64 * 1024 * 1024);
  TestClient client(port(), {}, 4096);
  wait_until([&] { return first_socket() != nullptr; });
  const WebSocketPtr socket = first_socket();
  ASSERT_NE(socket, nullptr);
  for (int i = 0; i < 64; ++i) ASSERT_TRUE(socket->send(std::string(64 * 1024, 's')));
  server_->stop();
  EXPECT_EQ(close_codes(), std::vector<int>{1001});
  EXPECT_EQ(server_->open_connections(), 0u);
  EXPECT_FALSE(socket->send("after the stop"));
}

// Pings go out halfway through the idle time: a client reading (Beast
// answers pings as it reads) outlives the timeout; one that never reads
// sends no pong and is closed when it runs out.
TEST_F(WebSocketServerTest, PingsKeepAReadingClientAndTheIdleTimeoutEndsASilentOne) {
  ServerOptions options;
  options.websocket_idle_timeout = 600ms;
  start(options);
  TestClient reading(port());
  EXPECT_EQ(reading.read(), "hello 127.0.0.1");
  std::thread later([&] {
    std::this_thread::sleep_for(1500ms);
    first_socket()->send("later");
  });
  EXPECT_EQ(reading.read(), "later");
  later.join();
  EXPECT_TRUE(close_codes().empty());

  // Neither reads now: both run out, with no close frame.
  TestClient silent(port());
  wait_until([&] { return close_codes().size() == 2; });
  EXPECT_EQ(close_codes(), (std::vector<int>{1006, 1006}));
}

TEST_F(WebSocketServerTest, AStopClosesEverySocketWith1001) {
  start();
  TestClient client(port());
  client.read();
  std::thread stopper([&] { server_->stop(); });
  int code = 0;
  EXPECT_EQ(client.read(&code), "");
  EXPECT_EQ(code, 1001);
  stopper.join();
  EXPECT_EQ(close_codes(), std::vector<int>{1001});
}

// wss://: the same socket over the TLS port.
TEST_F(WebSocketServerTest, ServesWebSocketsOverTls) {
  sindri_test::TestCertificates certificates;
  auto context = TlsServerContext::load(
      TlsFiles{certificates.server.cert.string(), certificates.server.key.string(), ""});
  ASSERT_TRUE(context.ok()) << context.error().message;
  ServerOptions options;
  options.tls = *context;
  start(options);

  asio::io_context io;
  asio::ssl::context client_tls(asio::ssl::context::tls_client);
  client_tls.load_verify_file(certificates.ca.cert.string());
  client_tls.set_verify_mode(asio::ssl::verify_peer);
  websocket::stream<asio::ssl::stream<tcp::socket>> ws(io, client_tls);
  asio::connect(beast::get_lowest_layer(ws), tcp::resolver(io).resolve("127.0.0.1", std::to_string(port())));
  ws.next_layer().handshake(asio::ssl::stream_base::client);
  ws.handshake("127.0.0.1", "/ws");
  beast::flat_buffer buffer;
  ws.read(buffer);
  EXPECT_EQ(beast::buffers_to_string(buffer.data()), "hello 127.0.0.1");
  buffer.clear();
  ws.write(asio::buffer(std::string(100000, 'w')));
  ws.read(buffer);
  EXPECT_EQ(buffer.size(), 100005u);
  ws.close(websocket::close_code::normal);
  wait_until([&] { return close_codes().size() == 1; });
  EXPECT_EQ(close_codes(), std::vector<int>{1000});
}

}  // namespace
}  // namespace sindri::http
