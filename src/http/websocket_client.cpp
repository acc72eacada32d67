#include "http/websocket_client.hpp"

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <deque>
#include <functional>
#include <utility>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>

#include "http/endpoint.hpp"

namespace sindri::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = boost::beast::websocket;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

using Done = std::function<void(beast::error_code)>;

// The connection over plain TCP or TLS: Stream is beast::tcp_stream or an
// asio::ssl::stream over it (Asio's: Beast 1.74's ssl_stream could cut long
// writes short).
template <class Stream>
class Connection final : public WebSocketClient {
 public:
  template <class... Args>
  explicit Connection(std::shared_ptr<asio::io_context> io, std::shared_ptr<asio::ssl::context> tls, Args&&... args)
      : io_(std::move(io)), tls_(std::move(tls)), ws_(std::forward<Args>(args)...) {}

  ~Connection() override {
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).socket().close(ignored);
    io_->restart();
    io_->run();
  }

  websocket::stream<Stream>& ws() { return ws_; }
  asio::io_context& io() { return *io_; }

  // Runs what `start` launches until it completes or `deadline` passes;
  // then the connection is closed and the error is timed_out.
  beast::error_code run(const std::function<void(Done)>& start, Clock::time_point deadline) {
    std::optional<beast::error_code> outcome;
    start([&outcome](beast::error_code error) { outcome = error; });
    io_->restart();
    while (!outcome && io_->run_one_until(deadline) != 0) {
    }
    if (outcome) return *outcome;
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).socket().close(ignored);
    io_->restart();
    io_->run();
    return asio::error::timed_out;
  }

  void set_subprotocol(std::string subprotocol) { subprotocol_ = std::move(subprotocol); }
  const std::string& subprotocol() const override { return subprotocol_; }

  bool send(std::string_view message) override {
    if (ended_) return false;
    ws_.text(true);
    const beast::error_code error = run(
        [&](Done done) {
          ws_.async_write(asio::buffer(message.data(), message.size()),
                          [done](beast::error_code e, size_t) { done(e); });
        },
        Clock::now() + std::chrono::seconds(30));
    if (error) end(error);
    return !ended_;
  }

  std::optional<std::string> read(std::chrono::milliseconds timeout) override {
    if (!received_.empty()) return take_received();
    if (ended_) return std::nullopt;
    if (!reading_) start_read();
    io_->restart();
    const Clock::time_point deadline = Clock::now() + timeout;
    while (reading_ && io_->run_one_until(deadline) != 0) {
    }
    if (!received_.empty()) return take_received();
    return std::nullopt;
  }

  void close(uint16_t code) override {
    if (ended_) return;
    const beast::error_code error = run(
        [&](Done done) { ws_.async_close(websocket::close_reason(static_cast<websocket::close_code>(code)), done); },
        Clock::now() + std::chrono::seconds(1));
    // A read under way ends with the close.
    io_->restart();
    io_->run_for(std::chrono::milliseconds(100));
    end(error ? error : beast::error_code(websocket::error::closed));
  }

  const std::optional<WebSocketEnd>& ended() const override { return ended_; }

 private:
  void start_read() {
    reading_ = true;
    ws_.async_read(buffer_, [this](beast::error_code error, size_t) {
      reading_ = false;
      if (error) return end(error);
      received_.push_back(beast::buffers_to_string(buffer_.data()));
      buffer_.clear();
    });
  }

  std::string take_received() {
    std::string message = std::move(received_.front());
    received_.pop_front();
    return message;
  }

  void end(const beast::error_code& error) {
    if (ended_) return;
    WebSocketEnd end;
    if (error == websocket::error::closed) {
      end.close_code = static_cast<uint16_t>(ws_.reason().code);
      end.message = "the server closed the connection (" + std::to_string(end.close_code) +
                    (ws_.reason().reason.empty() ? "" : ": " + std::string(ws_.reason().reason)) + ")";
    } else {
      end.close_code = static_cast<uint16_t>(websocket::close_code::abnormal);
      end.message = "the connection ended: " + error.message();
    }
    ended_ = std::move(end);
  }

  std::shared_ptr<asio::io_context> io_;
  std::shared_ptr<asio::ssl::context> tls_;  // before ws_, which may use it
  websocket::stream<Stream> ws_;
  beast::flat_buffer buffer_;
  std::deque<std::string> received_;
  bool reading_ = false;
  std::string subprotocol_;
  std::optional<WebSocketEnd> ended_;
};

using PlainConnection = Connection<beast::tcp_stream>;
using TlsConnection = Connection<asio::ssl::stream<beast::tcp_stream>>;

std::shared_ptr<asio::ssl::context> client_tls(const WebSocketClientOptions& options, std::string& failure) {
  auto tls = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  SSL_CTX_set_min_proto_version(tls->native_handle(), TLS1_2_VERSION);
  if (options.insecure_skip_verify) {
    tls->set_verify_mode(asio::ssl::verify_none);
    return tls;
  }
  beast::error_code error;
  tls->set_default_verify_paths(error);
  if (!error && !options.ca_file.empty()) tls->load_verify_file(options.ca_file, error);
  if (error) {
    failure = "cannot read the CA certificates" + (options.ca_file.empty() ? "" : " of " + options.ca_file) + ": " +
              error.message();
    return nullptr;
  }
  tls->set_verify_mode(asio::ssl::verify_peer);
  return tls;
}

// Connects, shakes hands (TLS, then the upgrade) within the options'
// timeout; on failure fills `failure` and returns false.
template <class Conn>
bool open(Conn& connection, const Endpoint& endpoint, const WebSocketClientOptions& options, WebSocketEnd& failure,
          const std::string& url) {
  const Clock::time_point deadline = Clock::now() + options.connect_timeout;
  auto& ws = connection.ws();
  auto fail = [&](const std::string& why) {
    failure.message = url + ": " + why;
    return false;
  };
  tcp::resolver resolver(connection.io());
  tcp::resolver::results_type addresses;
  beast::error_code error = connection.run(
      [&](Done done) {
        resolver.async_resolve(endpoint.host, endpoint.port,
                               [&addresses, done](beast::error_code e, tcp::resolver::results_type found) {
                                 addresses = std::move(found);
                                 done(e);
                               });
      },
      deadline);
  if (error) return fail("cannot resolve " + endpoint.host + ": " + error.message());
  error = connection.run(
      [&](Done done) {
        beast::get_lowest_layer(ws).async_connect(addresses,
                                                  [done](beast::error_code e, const tcp::endpoint&) { done(e); });
      },
      deadline);
  if (error) return fail(error.message());
  if constexpr (std::is_same_v<Conn, TlsConnection>) {
    auto& secure = ws.next_layer();
    beast::error_code not_an_address;
    asio::ip::make_address(endpoint.host, not_an_address);
    if (not_an_address) SSL_set_tlsext_host_name(secure.native_handle(), endpoint.host.c_str());
    if (!options.insecure_skip_verify) {
      if (not_an_address) {
        SSL_set1_host(secure.native_handle(), endpoint.host.c_str());
      } else {
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(secure.native_handle()), endpoint.host.c_str());
      }
    }
    error = connection.run([&](Done done) { secure.async_handshake(asio::ssl::stream_base::client, done); }, deadline);
    if (error) {
      const long verified = SSL_get_verify_result(secure.native_handle());
      if (verified != X509_V_OK) {
        return fail(std::string("the server's certificate is not trusted (") +
                    X509_verify_cert_error_string(verified) + "); give its CA with the CA file setting");
      }
      return fail("TLS: " + error.message());
    }
  }
  ws.set_option(websocket::stream_base::decorator([headers = options.headers](websocket::request_type& request) {
    for (const Header& header : headers) request.set(header.name, header.value);
  }));
  ws.read_message_max(options.max_message_bytes);
  websocket::response_type answer;
  error = connection.run(
      [&](Done done) {
        ws.async_handshake(answer, endpoint.host_header, endpoint.base_path.empty() ? "/" : endpoint.base_path, done);
      },
      deadline);
  if (error) {
    if (answer.result_int() != 0 && answer.result_int() != 101) {
      failure.refused_status = answer.result_int();
      return fail("the upgrade was refused: " + std::to_string(answer.result_int()) + " " +
                  std::string(answer.reason()) + (answer.body().empty() ? "" : ": " + answer.body()));
    }
    return fail("the upgrade failed: " + error.message());
  }
  beast::get_lowest_layer(ws).expires_never();
  connection.set_subprotocol(std::string(answer[beast::http::field::sec_websocket_protocol]));
  return true;
}

}  // namespace

std::unique_ptr<WebSocketClient> WebSocketClient::connect(std::string_view url, const WebSocketClientOptions& options,
                                                          WebSocketEnd& failure) {
  failure = WebSocketEnd{};
  const std::optional<Endpoint> endpoint = parse_base_url(url, UrlSchemes::WebSocket);
  if (!endpoint) {
    failure.message = std::string(url) + ": not a ws:// or wss:// URL";
    return nullptr;
  }
  auto io = std::make_shared<asio::io_context>();
  if (!endpoint->tls) {
    auto connection = std::make_unique<PlainConnection>(io, nullptr, *io);
    if (!open(*connection, *endpoint, options, failure, std::string(url))) return nullptr;
    return connection;
  }
  std::string why;
  auto tls = client_tls(options, why);
  if (!tls) {
    failure.message = std::string(url) + ": " + why;
    return nullptr;
  }
  auto connection = std::make_unique<TlsConnection>(io, tls, *io, *tls);
  if (!open(*connection, *endpoint, options, failure, std::string(url))) return nullptr;
  return connection;
}

}  // namespace sindri::http
