#pragma once
// The server's TLS settings as files: a certificate chain and its key, and
// optionally the CAs whose client certificates are required. The files are
// read again when they change (cert-manager rotates them in place), so a
// rotation needs no restart. OpenSSL and Asio stay in the .cpp files.

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "value/result.hpp"

namespace boost::asio::ssl {
class context;
}

namespace sindri::http {

struct TlsFiles {
  std::string cert_file;       // PEM: the certificate, then its chain
  std::string key_file;        // PEM: the private key
  std::string client_ca_file;  // PEM: when set, clients must present a certificate these CAs signed
};

class TlsServerContext {
 public:
  // Reads the files and builds the context (TLS 1.2 and 1.3 only). Errors
  // name the file and what is wrong with it (missing, not PEM, a key that
  // does not match the certificate).
  static Result<std::shared_ptr<TlsServerContext>> load(TlsFiles files,
                                                        std::chrono::milliseconds recheck_interval = std::chrono::seconds(1));
  ~TlsServerContext();
  TlsServerContext(const TlsServerContext&) = delete;
  TlsServerContext& operator=(const TlsServerContext&) = delete;

  // The context for a new connection. At most once per recheck_interval it
  // looks whether a file changed (modification time, size, inode); a change
  // that loads replaces the context for later connections, one that does not
  // keeps the old context and is reported once to the observer.
  std::shared_ptr<boost::asio::ssl::context> current();
  // Told of each reload: Ok when the new files are in use, else why not.
  void on_reload(std::function<void(const Status&)> observer);
  bool requires_client_certificate() const;
  const TlsFiles& files() const;

 private:
  struct Impl;
  explicit TlsServerContext(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sindri::http
