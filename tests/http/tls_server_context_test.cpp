// TlsServerContext: loading the certificate, key and client CA files (each
// error naming the setting, the file and what is wrong), serving a handshake
// with what it loaded, and the files read again when they change: a rotation
// that loads is used for the next connection, one that does not keeps the
// old context and is reported once.

#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "http/client.hpp"
#include "http/tls_server_context.hpp"
#include "support/test_certificates.hpp"

namespace sindri::http {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;
using sindri_test::TestCertificates;

constexpr auto kRecheck = 20ms;

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// As cert-manager and Kubernetes' Secret volumes do: the new file is
// written aside and renamed over the old, so that it has a new inode.
void install(const fs::path& from, const fs::path& to) {
  const fs::path aside = to.string() + ".new";
  fs::copy_file(from, aside, fs::copy_options::overwrite_existing);
  fs::rename(aside, to);
}

// The common name of the CA that issued the context's certificate.
std::string issuer_of(const std::shared_ptr<asio::ssl::context>& context) {
  X509* certificate = SSL_CTX_get0_certificate(context->native_handle());
  if (certificate == nullptr) return "";
  char name[256] = {};
  X509_NAME_get_text_by_NID(X509_get_issuer_name(certificate), NID_commonName, name, sizeof name);
  return name;
}

// Serves one connection with the context current() gives, answering each
// request (the client's GETs: a header, no body) "served", until the client goes.
class OneConnectionServer {
 public:
  explicit OneConnectionServer(TlsServerContext& tls)
      : acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    thread_ = std::thread([this, &tls] {
      tcp::socket socket(io_);
      boost::system::error_code error;
      acceptor_.accept(socket, error);
      if (error) return;
      asio::ssl::stream<tcp::socket> stream(std::move(socket), *tls.current());
      stream.handshake(asio::ssl::stream_base::server, error);
      if (error) return;
      std::string received;
      for (;;) {
        const size_t header_end = asio::read_until(stream, asio::dynamic_buffer(received), "\r\n\r\n", error);
        if (error) return;
        received.erase(0, header_end);
        asio::write(stream, asio::buffer(std::string_view("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nserved")),
                    error);
        if (error) return;
      }
    });
  }
  ~OneConnectionServer() { thread_.join(); }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()); }

 private:
  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::thread thread_;
};

class TlsServerContextTest : public ::testing::Test {
 protected:
  TestCertificates certificates_;
  const fs::path dir_ = certificates_.directory();
  // The files the context reads, copies the tests rewrite.
  const fs::path cert_ = dir_ / "tls.crt";
  const fs::path key_ = dir_ / "tls.key";

  void SetUp() override {
    fs::copy_file(certificates_.server.cert, cert_);
    fs::copy_file(certificates_.server.key, key_);
  }

  std::string load_error(TlsFiles files) {
    auto loaded = TlsServerContext::load(std::move(files), kRecheck);
    return loaded.ok() ? "loaded" : loaded.error().message;
  }

  std::shared_ptr<TlsServerContext> load(std::chrono::milliseconds recheck = kRecheck) {
    auto loaded = TlsServerContext::load({cert_.string(), key_.string(), ""}, recheck);
    EXPECT_TRUE(loaded.ok()) << loaded.error().message;
    return loaded.ok() ? std::move(loaded).value() : nullptr;
  }
};

TEST_F(TlsServerContextTest, ServesTls12AndLaterWithTheCertificateItLoaded) {
  auto tls = load();
  ASSERT_TRUE(tls);
  EXPECT_FALSE(tls->requires_client_certificate());
  EXPECT_EQ(tls->files().cert_file, cert_.string());
  EXPECT_EQ(SSL_CTX_get_min_proto_version(tls->current()->native_handle()), TLS1_2_VERSION);
  EXPECT_EQ(issuer_of(tls->current()), "sindri-test-ca");

  OneConnectionServer server(*tls);
  Client client(server.url());
  client.set_ca_file(certificates_.ca.cert.string());
  for (int i = 0; i < 2; ++i) {
    auto response = client.request("GET", "/x");
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->body, "served");
  }
}

TEST_F(TlsServerContextTest, TakesTheChainAndTheKeyFromOneFile) {
  write_file(dir_ / "both.pem", TestCertificates::read(cert_) + TestCertificates::read(certificates_.ca.cert) +
                                    TestCertificates::read(key_));
  const std::string both = (dir_ / "both.pem").string();
  EXPECT_EQ(load_error({both, both, ""}), "loaded");
}

TEST_F(TlsServerContextTest, NamesAFileThatIsMissing) {
  const std::string missing = (dir_ / "missing.crt").string();
  EXPECT_EQ(load_error({missing, key_.string(), ""}),
            "cannot read tls.cert_file " + missing + ": No such file or directory");
  EXPECT_EQ(load_error({cert_.string(), missing, ""}),
            "cannot read tls.key_file " + missing + ": No such file or directory");
  EXPECT_EQ(load_error({cert_.string(), key_.string(), missing}),
            "cannot read tls.client_ca_file " + missing + ": No such file or directory");
}

TEST_F(TlsServerContextTest, NamesAFileWithoutPem) {
  const fs::path text = dir_ / "text.txt";
  write_file(text, "not a certificate\n");
  EXPECT_EQ(load_error({text.string(), key_.string(), ""}),
            "tls.cert_file " + text.string() + ": no PEM certificate in it");
  EXPECT_EQ(load_error({cert_.string(), text.string(), ""}),
            "tls.key_file " + text.string() + ": no PEM private key in it");
  EXPECT_EQ(load_error({cert_.string(), key_.string(), text.string()}),
            "tls.client_ca_file " + text.string() + ": no PEM certificate in it");
  // A key file named as the certificate, and the other way round.
  EXPECT_EQ(load_error({key_.string(), cert_.string(), ""}),
            "tls.cert_file " + key_.string() + ": no PEM certificate in it");
}

TEST_F(TlsServerContextTest, NamesACertificateThatDoesNotParse) {
  const fs::path broken = dir_ / "broken.crt";
  write_file(broken, TestCertificates::read(cert_) +
                         "-----BEGIN CERTIFICATE-----\nbm90IERFUg==\n-----END CERTIFICATE-----\n");
  const std::string error = load_error({broken.string(), key_.string(), ""});
  EXPECT_EQ(error.rfind("tls.cert_file " + broken.string() + ": cannot read certificate 2 in it (", 0), 0u) << error;
}

TEST_F(TlsServerContextTest, RefusesAKeyThatDoesNotMatchTheCertificate) {
  EXPECT_EQ(load_error({cert_.string(), certificates_.second_server.key.string(), ""}),
            "tls.key_file " + certificates_.second_server.key.string() +
                ": the key does not match the certificate in tls.cert_file " + cert_.string());
}

TEST_F(TlsServerContextTest, RefusesAnEncryptedKeyRatherThanAskingForItsPassphrase) {
  const fs::path encrypted = dir_ / "encrypted.key";
  sindri_test::run_openssl(dir_, "pkey -in " + key_.string() + " -aes256 -passout pass:secret -out " +
                                     encrypted.string());
  EXPECT_EQ(load_error({cert_.string(), encrypted.string(), ""}),
            "tls.key_file " + encrypted.string() + ": the private key is encrypted; give it without a passphrase");
}

TEST_F(TlsServerContextTest, RefusesACertificateWithoutItsKey) {
  EXPECT_EQ(load_error({cert_.string(), "", ""}), "tls.cert_file and tls.key_file go together: both or neither");
}

TEST_F(TlsServerContextTest, RequiresAClientCertificateTheClientCaSigned) {
  auto loaded =
      TlsServerContext::load({cert_.string(), key_.string(), certificates_.client_ca.cert.string()}, kRecheck);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  auto tls = std::move(loaded).value();
  EXPECT_TRUE(tls->requires_client_certificate());
  {
    OneConnectionServer server(*tls);
    Client without(server.url());
    without.set_ca_file(certificates_.ca.cert.string());
    auto refused = without.request("GET", "/x");
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("the server requires a client certificate"), std::string::npos)
        << refused.error().message;
  }
  OneConnectionServer server(*tls);
  Client with(server.url());
  with.set_tls({.ca_pem = TestCertificates::read(certificates_.ca.cert),
                .client_certificate_pem = TestCertificates::read(certificates_.client.cert),
                .client_key_pem = TestCertificates::read(certificates_.client.key)});
  auto response = with.request("GET", "/x");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->body, "served");
}

TEST_F(TlsServerContextTest, UsesRotatedFilesForLaterConnections) {
  auto tls = load();
  ASSERT_TRUE(tls);
  std::vector<std::string> reports;
  tls->on_reload([&](const Status& status) { reports.push_back(status.ok() ? "ok" : status.error().message); });
  const auto before = tls->current();

  install(certificates_.second_server.cert, cert_);
  install(certificates_.second_server.key, key_);
  std::this_thread::sleep_for(kRecheck + 5ms);
  const auto after = tls->current();
  EXPECT_NE(after, before);
  EXPECT_EQ(issuer_of(after), "sindri-test-ca2");
  EXPECT_EQ(issuer_of(before), "sindri-test-ca");  // what connections already open hold
  EXPECT_EQ(reports, std::vector<std::string>{"ok"});

  OneConnectionServer server(*tls);
  Client client(server.url());
  client.set_ca_file(certificates_.second_ca.cert.string());
  auto response = client.request("GET", "/x");
  ASSERT_TRUE(response.ok()) << response.error().message;
}

TEST_F(TlsServerContextTest, SeesAFileRewrittenInPlace) {
  auto tls = load();
  ASSERT_TRUE(tls);
  const auto before = tls->current();
  write_file(key_, TestCertificates::read(certificates_.second_server.key));
  write_file(cert_, TestCertificates::read(certificates_.second_server.cert));
  std::this_thread::sleep_for(kRecheck + 5ms);
  const auto after = tls->current();
  EXPECT_NE(after, before);
  EXPECT_EQ(issuer_of(after), "sindri-test-ca2");
}

TEST_F(TlsServerContextTest, LooksAtTheFilesAtMostOncePerInterval) {
  auto tls = load(std::chrono::hours(1));
  ASSERT_TRUE(tls);
  const auto before = tls->current();
  install(certificates_.second_server.cert, cert_);
  install(certificates_.second_server.key, key_);
  EXPECT_EQ(tls->current(), before);
}

TEST_F(TlsServerContextTest, KeepsTheOldContextThroughAHalfWrittenRotationAndReportsItOnce) {
  auto tls = load();
  ASSERT_TRUE(tls);
  std::vector<std::string> reports;
  tls->on_reload([&](const Status& status) { reports.push_back(status.ok() ? "ok" : status.error().message); });
  const auto before = tls->current();

  // The new certificate beside the old key.
  install(certificates_.second_server.cert, cert_);
  for (int check = 0; check < 3; ++check) {
    std::this_thread::sleep_for(kRecheck + 5ms);
    EXPECT_EQ(tls->current(), before);
  }
  EXPECT_EQ(reports, std::vector<std::string>{"tls.key_file " + key_.string() +
                                              ": the key does not match the certificate in tls.cert_file " +
                                              cert_.string()});

  // The key follows: the rotation completes.
  install(certificates_.second_server.key, key_);
  std::this_thread::sleep_for(kRecheck + 5ms);
  EXPECT_EQ(issuer_of(tls->current()), "sindri-test-ca2");
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports.back(), "ok");
}

TEST_F(TlsServerContextTest, KeepsTheOldContextWhenAFileGoesAway) {
  auto tls = load();
  ASSERT_TRUE(tls);
  std::vector<std::string> reports;
  tls->on_reload([&](const Status& status) { reports.push_back(status.ok() ? "ok" : status.error().message); });
  const auto before = tls->current();
  fs::remove(key_);
  std::this_thread::sleep_for(kRecheck + 5ms);
  EXPECT_EQ(tls->current(), before);
  std::this_thread::sleep_for(kRecheck + 5ms);
  EXPECT_EQ(tls->current(), before);
  EXPECT_EQ(reports,
            std::vector<std::string>{"cannot read tls.key_file " + key_.string() + ": No such file or directory"});
}

}  // namespace
}  // namespace sindri::http
