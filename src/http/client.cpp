#include "http/client.hpp"
#include "http/endpoint.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <cctype>
#include <chrono>
#include <functional>
#include <optional>

#include "http/gzip.hpp"

namespace sindri::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// A response body larger than this is refused rather than held: the broker's
// largest answers (an agent's whole target state) stay far below it.
constexpr size_t kMaxResponseBytes = size_t(1) << 30;

bool sends_body(std::string_view method, std::string_view body) {
  // POST, PUT and PATCH always carry a body, if only an empty one (Content-Length: 0).
  return !body.empty() || method == "POST" || method == "PUT" || method == "PATCH";
}

// A reused connection the server had already closed fails at once, before
// any answer: the request is sent again on a new one, as curl and browsers do.
bool closed_under_us(const beast::error_code& error) {
  return error == bhttp::error::end_of_stream || error == asio::error::connection_reset ||
         error == asio::error::broken_pipe || error == asio::error::eof ||
         error == asio::ssl::error::stream_truncated;
}

// Whether the certificate failed for want of a trusted CA (a private CA, a
// self-signed certificate), which trusting the right CA mends.
bool is_unknown_issuer(long verify_result) {
  return verify_result == X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT ||
         verify_result == X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN ||
         verify_result == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY ||
         verify_result == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT ||
         verify_result == X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE;
}

bool is_name_mismatch(long verify_result) {
  return verify_result == X509_V_ERR_HOSTNAME_MISMATCH || verify_result == X509_V_ERR_IP_ADDRESS_MISMATCH;
}

std::string describe(const beast::error_code& error) {
  if (error.category() == asio::error::get_ssl_category()) {
    std::string reason = error.message();
    const int code = ERR_GET_REASON(static_cast<unsigned long>(error.value()));
    if (code == SSL_R_WRONG_VERSION_NUMBER) {
      return "the server does not speak TLS there (" + reason + "): is it an http:// URL?";
    }
    if (code == SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED) {
      return "the server requires a client certificate (" + reason + ")";
    }
    if (const char* library = ERR_lib_error_string(static_cast<unsigned long>(error.value()))) {
      reason += std::string(" (") + library + ")";
    }
    return "TLS: " + reason;
  }
  return error.message();
}

}  // namespace

std::string_view ClientResponse::header(std::string_view name) const { return find_header(headers, name); }

struct Client::Impl {
  std::string base_url;
  std::optional<Endpoint> endpoint;
  std::string authorization;
  std::vector<Header> headers;
  std::string ca_file;
  Client::TlsSettings tls_settings;
  std::string untrusted_advice = "give the CA that signed it";
  long timeout_ms = 30'000;
  bool accept_gzip = false;

  asio::io_context io;
  std::optional<asio::ssl::context> tls;
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
  // Beast reads at most what the buffer has room for, and no less than 512
  // bytes: room for 64 KiB reads a large answer (a target state, a list) in
  // a few hundred system calls fewer.
  beast::flat_buffer buffer = [] {
    beast::flat_buffer reserved;
    reserved.reserve(64 * 1024);
    return reserved;
  }();
  bool connected = false;
  Clock::time_point deadline;

  std::string reason(const beast::error_code& error) const {
    if (error == asio::error::timed_out) return "timed out after " + std::to_string(timeout_ms) + " ms";
    return describe(error);
  }

  beast::tcp_stream& socket() { return secure ? beast::get_lowest_layer(*secure) : *plain; }

  void disconnect() {
    if (plain || secure) {
      beast::error_code ignored;
      socket().socket().close(ignored);
    }
    secure.reset();
    plain.reset();
    buffer.clear();
    connected = false;
  }

  using Done = std::function<void(beast::error_code)>;
  // Runs the asynchronous operation `start` launches to its end, or until
  // the request's deadline, when `cancel` (by default: closing the
  // connection) stops it.
  beast::error_code run(const std::function<void(Done)>& start, const std::function<void()>& cancel = {}) {
    std::optional<beast::error_code> outcome;
    start([&outcome](beast::error_code error) { outcome = error; });
    io.restart();
    while (!outcome && io.run_one_until(deadline) != 0) {
    }
    if (outcome) return *outcome;
    if (cancel) cancel();
    disconnect();
    io.restart();
    io.run();
    return asio::error::timed_out;
  }

  Status set_up_tls() {
    if (tls) return Ok{};
    tls.emplace(asio::ssl::context::tls_client);
    SSL_CTX_set_min_proto_version(tls->native_handle(), TLS1_2_VERSION);
    if (auto loaded = load_tls_material(); !loaded.ok()) {
      tls.reset();
      return loaded;
    }
    tls->set_verify_mode(tls_settings.insecure_skip_verify ? asio::ssl::verify_none : asio::ssl::verify_peer);
    return Ok{};
  }

  Status load_trusted_authorities() {
    beast::error_code error;
    if (!tls_settings.ca_pem.empty()) {
      tls->add_certificate_authority(asio::buffer(tls_settings.ca_pem), error);
      if (error) return make_error("cannot read the CA certificate data: " + describe(error));
      return Ok{};
    }
    tls->set_default_verify_paths(error);
    if (!error && !ca_file.empty()) tls->load_verify_file(ca_file, error);
    if (error) {
      return make_error("cannot read the CA certificates" + (ca_file.empty() ? "" : " of " + ca_file) + ": " +
                        describe(error));
    }
    return Ok{};
  }

  Status load_tls_material() {
    beast::error_code error;
    const Client::TlsSettings& settings = tls_settings;
    if (!settings.insecure_skip_verify) SINDRI_CHECK(load_trusted_authorities());
    if (settings.client_certificate_pem.empty() != settings.client_key_pem.empty()) {
      return make_error("a client certificate needs its key and a key its certificate");
    }
    if (!settings.client_certificate_pem.empty()) {
      tls->use_certificate_chain(asio::buffer(settings.client_certificate_pem), error);
      if (error) return make_error("cannot read the client certificate data: " + describe(error));
      tls->use_private_key(asio::buffer(settings.client_key_pem), asio::ssl::context::pem, error);
      if (error) return make_error("cannot read the client key data: " + describe(error));
    }
    return Ok{};
  }

  Status connect() {
    tcp::resolver resolver(io);
    tcp::resolver::results_type addresses;
    beast::error_code error = run(
        [&](Done done) {
          resolver.async_resolve(endpoint->host, endpoint->port,
                                 [&addresses, done](beast::error_code e, tcp::resolver::results_type found) {
                                   addresses = std::move(found);
                                   done(e);
                                 });
        },
        [&resolver] { resolver.cancel(); });
    if (error) return make_error("cannot resolve " + endpoint->host + ": " + reason(error));
    if (endpoint->tls) {
      if (auto ready = set_up_tls(); !ready.ok()) return ready;
      secure.emplace(io, *tls);
    } else {
      plain.emplace(io);
    }
    error = run([&](Done done) {
      socket().async_connect(addresses, [done](beast::error_code e, const tcp::endpoint&) { done(e); });
    });
    if (error) {
      disconnect();
      return make_error(reason(error));
    }
    if (secure) {
      // SNI (never an IP address, RFC 6066), and the certificate must name the host.
      beast::error_code not_an_address;
      asio::ip::make_address(endpoint->host, not_an_address);
      if (not_an_address && !SSL_set_tlsext_host_name(secure->native_handle(), endpoint->host.c_str())) {
        disconnect();
        return make_error("TLS: cannot set the server name " + endpoint->host);
      }
      // OpenSSL checks the name (or an IP address against the IP SANs)
      // while it verifies the chain, and says which check failed.
      if (!tls_settings.insecure_skip_verify) {
        const bool named = not_an_address ? SSL_set1_host(secure->native_handle(), endpoint->host.c_str()) == 1
                                          : X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(secure->native_handle()),
                                                                          endpoint->host.c_str()) == 1;
        if (!named) {
          disconnect();
          return make_error("TLS: cannot check the certificate against " + endpoint->host);
        }
      }
      error = run([&](Done done) { secure->async_handshake(asio::ssl::stream_base::client, done); });
      if (error) {
        const long verify_result = SSL_get_verify_result(secure->native_handle());
        disconnect();
        if (verify_result != X509_V_OK) return make_error(certificate_refusal(verify_result, error));
        return make_error(reason(error));
      }
    }
    connected = true;
    return Ok{};
  }

  // "the server's certificate is not trusted (certificate verify failed:
  // self-signed certificate); ADVICE".
  std::string certificate_refusal(long verify_result, const beast::error_code& error) const {
    const std::string detail = "(" + error.message() + ": " + X509_verify_cert_error_string(verify_result) + ")";
    if (is_unknown_issuer(verify_result)) {
      return "the server's certificate is not trusted " + detail + "; " + untrusted_advice;
    }
    if (is_name_mismatch(verify_result)) {
      return "the server's certificate is not for " + endpoint->host + " " + detail;
    }
    return "the server's certificate is refused " + detail;
  }

  template <class Message>
  beast::error_code write(const Message& message) {
    return run([&](Done done) {
      auto written = [done](beast::error_code e, size_t) { done(e); };
      if (secure) {
        bhttp::async_write(*secure, message, written);
      } else {
        bhttp::async_write(*plain, message, written);
      }
    });
  }

  beast::error_code read(bhttp::response_parser<bhttp::string_body>& parser) {
    return run([&](Done done) {
      auto read = [done](beast::error_code e, size_t) { done(e); };
      if (secure) {
        bhttp::async_read(*secure, buffer, parser, read);
      } else {
        bhttp::async_read(*plain, buffer, parser, read);
      }
    });
  }
};

Client::Client(std::string base_url) : impl_(std::make_unique<Impl>()) {
  while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();
  impl_->endpoint = parse_base_url(base_url, UrlSchemes::Http);
  impl_->base_url = std::move(base_url);
}

Client::~Client() { impl_->disconnect(); }

void Client::set_authorization(std::string value) { impl_->authorization = std::move(value); }

void Client::set_headers(std::vector<Header> headers) { impl_->headers = std::move(headers); }

void Client::set_timeout_ms(long ms) { impl_->timeout_ms = ms; }

void Client::set_accept_gzip(bool accept) { impl_->accept_gzip = accept; }

void Client::set_ca_file(std::string path) {
  impl_->ca_file = std::move(path);
  impl_->tls.reset();
  impl_->disconnect();
}

void Client::set_untrusted_certificate_advice(std::string advice) { impl_->untrusted_advice = std::move(advice); }

void Client::set_tls(TlsSettings settings) {
  impl_->tls_settings = std::move(settings);
  impl_->tls.reset();
  impl_->disconnect();
}

Result<ClientResponse> Client::request(std::string_view method, std::string_view path_and_query, std::string_view body,
                                       std::string_view content_type, const std::vector<Header>& request_headers) {
  Impl& impl = *impl_;
  const std::string url = impl.base_url + std::string(path_and_query);
  const std::string what = std::string(method) + " " + url + ": ";
  if (!impl.endpoint) return make_error(what + "not an http:// or https:// URL");
  impl.deadline = Clock::now() + std::chrono::milliseconds(impl.timeout_ms);

  bhttp::request<bhttp::string_body> message;
  message.method_string(method);
  message.target(impl.endpoint->base_path + std::string(path_and_query));
  message.version(11);
  message.set(bhttp::field::host, impl.endpoint->host_header);
  message.set(bhttp::field::user_agent, "sindri");
  if (impl.accept_gzip) message.set(bhttp::field::accept_encoding, "gzip");
  if (!impl.authorization.empty()) message.set(bhttp::field::authorization, impl.authorization);
  for (const Header& header : impl.headers) message.set(header.name, header.value);
  for (const Header& header : request_headers) message.set(header.name, header.value);
  if (method != "HEAD" && sends_body(method, body)) {
    if (!body.empty()) message.set(bhttp::field::content_type, content_type);
    message.body() = std::string(body);
    message.content_length(body.size());
  }

  for (int attempt = 0;; ++attempt) {
    const bool reused = impl.connected;
    if (!impl.connected) {
      if (auto connected = impl.connect(); !connected.ok()) {
        return make_error(what + connected.error().message);
      }
    }
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(kMaxResponseBytes);
    parser.header_limit(64 * 1024);
    if (method == "HEAD") parser.skip(true);
    beast::error_code error = impl.write(message);
    if (!error) error = impl.read(parser);
    if (error) {
      impl.disconnect();
      if (reused && attempt == 0 && closed_under_us(error)) continue;
      return make_error(what + impl.reason(error));
    }
    auto answer = parser.release();
    ClientResponse response;
    response.status = static_cast<int>(answer.result_int());
    for (const auto& field : answer) {
      response.headers.push_back({std::string(field.name_string()), std::string(field.value())});
    }
    response.body = std::move(answer.body());
    if (!answer.keep_alive()) impl.disconnect();
    if (impl.accept_gzip && is_gzip_encoded(response.header("Content-Encoding"))) {
      auto decoded = gzip_decompress(response.body, kMaxResponseBytes);
      if (!decoded.ok()) return make_error(what + decoded.error().message);
      response.body = std::move(decoded).value();
    }
    return response;
  }
}

}  // namespace sindri::http
