// The client over HTTPS against a real TLS server (Boost.Asio with OpenSSL)
// holding a certificate made by the openssl command for this test: the
// certificate must chain to a trusted CA and name the host, unless told to
// skip verification, and a refusal says why and how to mend it; a reused
// connection carries the next request. Also gzip answers, decoded.

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "http/client.hpp"
#include "http/gzip.hpp"
#include "support/test_certificates.hpp"

namespace sindri::http {
namespace {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
namespace fs = std::filesystem;
using tcp = asio::ip::tcp;

// A key and a self-signed certificate for `names` (subjectAltName entries).
struct Certificate {
  fs::path cert;
  fs::path key;
};

Certificate make_certificate(const fs::path& dir, const std::string& names) {
  fs::create_directories(dir);
  Certificate made{dir / "cert.pem", dir / "key.pem"};
  const std::string command = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=sindri-test -keyout " +
                              made.key.string() + " -out " + made.cert.string() + " -addext subjectAltName=" + names +
                              " 2>/dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return made;
}

// Answers every request of every connection with `body` (gzip when asked
// for it), counting the connections it accepted, until stopped.
class TlsServer {
 public:
  TlsServer(const Certificate& certificate, std::string body)
      : tls_(asio::ssl::context::tls_server), acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)),
        body_(std::move(body)) {
    tls_.use_certificate_chain_file(certificate.cert.string());
    tls_.use_private_key_file(certificate.key.string(), asio::ssl::context::pem);
    thread_ = std::thread([this] { serve(); });
  }
  ~TlsServer() {
    stopping_ = true;
    boost::system::error_code ignored;
    // Wakes the accept with a connection of our own.
    tcp::socket waker(io_);
    waker.connect(acceptor_.local_endpoint(), ignored);
    thread_.join();
  }
  int port() const { return acceptor_.local_endpoint().port(); }
  int connections() const { return connections_; }

 private:
  void serve() {
    while (!stopping_) {
      tcp::socket socket(io_);
      boost::system::error_code error;
      acceptor_.accept(socket, error);
      if (error || stopping_) return;
      ++connections_;
      asio::ssl::stream<tcp::socket> stream(std::move(socket), tls_);
      stream.handshake(asio::ssl::stream_base::server, error);
      if (error) continue;
      boost::beast::flat_buffer buffer;
      for (;;) {
        bhttp::request<bhttp::string_body> request;
        bhttp::read(stream, buffer, request, error);
        if (error) break;
        bhttp::response<bhttp::string_body> response{bhttp::status::ok, 11};
        const bool gzip = request[bhttp::field::accept_encoding] == "gzip";
        response.body() = gzip ? gzip_compress(body_) : body_;
        if (gzip) response.set(bhttp::field::content_encoding, "gzip");
        response.set(bhttp::field::content_type, "text/plain");
        response.keep_alive(true);
        response.prepare_payload();
        bhttp::write(stream, response, error);
        if (error) break;
      }
    }
  }

  asio::io_context io_;
  asio::ssl::context tls_;
  tcp::acceptor acceptor_;
  std::string body_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
};

class ClientTlsTest : public ::testing::Test {
 protected:
  fs::path dir_ = fs::temp_directory_path() / ("sindri-tls-" + std::to_string(::getpid()) + "-" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void TearDown() override { fs::remove_all(dir_); }
};

TEST_F(ClientTlsTest, TrustsACertificateThatChainsToTheCaFileAndReusesTheConnection) {
  const Certificate certificate = make_certificate(dir_, "IP:127.0.0.1,DNS:localhost");
  TlsServer server(certificate, "over TLS");
  {
    Client client("https://127.0.0.1:" + std::to_string(server.port()));
    client.set_ca_file(certificate.cert.string());
    for (int i = 0; i < 3; ++i) {
      auto response = client.request("GET", "/x");
      ASSERT_TRUE(response.ok()) << response.error().message;
      EXPECT_EQ(response->status, 200);
      EXPECT_EQ(response->body, "over TLS");
    }
    EXPECT_EQ(server.connections(), 1);
  }
  // By name too: the certificate names localhost. (The server takes one
  // connection at a time: the first client has gone.)
  Client by_name("https://localhost:" + std::to_string(server.port()));
  by_name.set_ca_file(certificate.cert.string());
  auto response = by_name.request("GET", "/x");
  ASSERT_TRUE(response.ok()) << response.error().message;
}

TEST_F(ClientTlsTest, TrustsACertificateItsCaSigned) {
  const sindri_test::TestCertificates certificates;
  TlsServer server({certificates.server.cert, certificates.server.key}, "signed");
  Client client("https://localhost:" + std::to_string(server.port()));
  client.set_ca_file(certificates.ca.cert.string());
  auto response = client.request("GET", "/x");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->body, "signed");
}

TEST_F(ClientTlsTest, RefusesACertificateNoTrustedCaSignedSayingHowToTrustIt) {
  const Certificate certificate = make_certificate(dir_, "IP:127.0.0.1");
  TlsServer server(certificate, "secret");
  const std::string url = "https://127.0.0.1:" + std::to_string(server.port());
  Client client(url);
  auto response = client.request("GET", "/x");
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().message, "GET " + url +
                                          "/x: the server's certificate is not trusted (certificate verify failed: "
                                          "self-signed certificate); give the CA that signed it");

  client.set_untrusted_certificate_advice("give its CA with --ca-file");
  response = client.request("GET", "/x");
  ASSERT_FALSE(response.ok());
  EXPECT_TRUE(response.error().message.ends_with("; give its CA with --ca-file")) << response.error().message;
}

TEST_F(ClientTlsTest, RefusesACertificateAnotherCaSigned) {
  const sindri_test::TestCertificates certificates;
  TlsServer server({certificates.second_server.cert, certificates.second_server.key}, "secret");
  Client client("https://127.0.0.1:" + std::to_string(server.port()));
  client.set_ca_file(certificates.ca.cert.string());
  auto response = client.request("GET", "/x");
  ASSERT_FALSE(response.ok());
  EXPECT_NE(response.error().message.find("the server's certificate is not trusted (certificate verify failed: "
                                          "unable to get local issuer certificate)"),
            std::string::npos)
      << response.error().message;
}

TEST_F(ClientTlsTest, TakesAnyCertificateWhenToldToSkipVerification) {
  const Certificate certificate = make_certificate(dir_, "DNS:other.example");
  TlsServer server(certificate, "unverified");
  Client client("https://127.0.0.1:" + std::to_string(server.port()));
  Client::TlsSettings skip;
  skip.insecure_skip_verify = true;
  client.set_tls(skip);
  auto response = client.request("GET", "/x");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->body, "unverified");
}

TEST_F(ClientTlsTest, RefusesACertificateForAnotherHost) {
  const Certificate certificate = make_certificate(dir_, "DNS:other.example");
  TlsServer server(certificate, "secret");
  Client client("https://127.0.0.1:" + std::to_string(server.port()));
  client.set_ca_file(certificate.cert.string());
  auto response = client.request("GET", "/x");
  ASSERT_FALSE(response.ok());
  EXPECT_NE(response.error().message.find(
                "the server's certificate is not for 127.0.0.1 (certificate verify failed: IP address mismatch)"),
            std::string::npos)
      << response.error().message;

  Client by_name("https://localhost:" + std::to_string(server.port()));
  by_name.set_ca_file(certificate.cert.string());
  response = by_name.request("GET", "/x");
  ASSERT_FALSE(response.ok());
  EXPECT_NE(response.error().message.find(
                "the server's certificate is not for localhost (certificate verify failed: hostname mismatch)"),
            std::string::npos)
      << response.error().message;
}

// A server that answers plain HTTP to whatever it is sent, then closes.
TEST(ClientPlainServerTest, SaysThatAnHttpsUrlReachedAServerThatDoesNotSpeakTls) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  std::thread server([&] {
    tcp::socket socket(io);
    acceptor.accept(socket);
    char hello[512];
    boost::system::error_code ignored;
    socket.read_some(asio::buffer(hello), ignored);
    asio::write(socket, asio::buffer(std::string_view("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")),
                ignored);
  });
  Client client("https://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()));
  auto response = client.request("GET", "/x");
  server.join();
  ASSERT_FALSE(response.ok());
  EXPECT_NE(response.error().message.find("the server does not speak TLS there (wrong version number)"),
            std::string::npos)
      << response.error().message;
}

TEST_F(ClientTlsTest, NamesACaFileItCannotRead) {
  Client client("https://127.0.0.1:1");
  client.set_ca_file((dir_ / "missing.pem").string());
  auto response = client.request("GET", "/x");
  ASSERT_FALSE(response.ok());
  EXPECT_NE(response.error().message.find("cannot read the CA certificates of " + (dir_ / "missing.pem").string()),
            std::string::npos)
      << response.error().message;
}

TEST_F(ClientTlsTest, DecodesAGzipAnswer) {
  const Certificate certificate = make_certificate(dir_, "IP:127.0.0.1");
  const std::string body(100'000, 'z');
  TlsServer server(certificate, body);
  Client client("https://127.0.0.1:" + std::to_string(server.port()));
  client.set_ca_file(certificate.cert.string());
  client.set_accept_gzip(true);
  auto response = client.request("GET", "/x");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->header("Content-Encoding"), "gzip");
  EXPECT_EQ(response->body, body);
}

TEST(ClientUrlTest, RefusesAUrlThatIsNotHttp) {
  Client client("ftp://127.0.0.1:1");
  auto response = client.request("GET", "/x");
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().message, "GET ftp://127.0.0.1:1/x: not an http:// or https:// URL");
}

}  // namespace
}  // namespace sindri::http
