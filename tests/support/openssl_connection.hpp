#pragma once
// A blocking TLS connection made with OpenSSL itself, as wrk, curl and
// `openssl s_client` make theirs: for what the project's own client hides,
// how the server ends a connection (close_notify or not) and whether a
// session is resumed.

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <string_view>

#include "support/raw_connection.hpp"

namespace sindri_test {

using SslContextPtr = std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)>;
using SslSessionPtr = std::unique_ptr<SSL_SESSION, decltype(&SSL_SESSION_free)>;

// A client context that trusts `ca_file`.
inline SslContextPtr client_context(const std::string& ca_file) {
  SslContextPtr context(SSL_CTX_new(TLS_client_method()), &SSL_CTX_free);
  SSL_CTX_load_verify_locations(context.get(), ca_file.c_str(), nullptr);
  SSL_CTX_set_verify(context.get(), SSL_VERIFY_PEER, nullptr);
  return context;
}

class OpenSslConnection {
 public:
  // Connects and completes the handshake, offering `session` if given;
  // handshake_ok() says whether it succeeded.
  OpenSslConnection(uint16_t port, SSL_CTX* context, SSL_SESSION* session = nullptr)
      : tcp_(port), ssl_(SSL_new(context), &SSL_free) {
    ERR_clear_error();
    SSL_set_fd(ssl_.get(), tcp_.fd());
    if (session != nullptr) SSL_set_session(ssl_.get(), session);
    handshake_ok_ = tcp_.connected() && SSL_connect(ssl_.get()) == 1;
  }

  bool handshake_ok() const { return handshake_ok_; }
  bool resumed() const { return SSL_session_reused(ssl_.get()) == 1; }

  bool write(std::string_view data) {
    return SSL_write(ssl_.get(), data.data(), static_cast<int>(data.size())) == static_cast<int>(data.size());
  }

  // Reads until the connection ends; how it ended is SSL_get_error's code
  // for the last read: SSL_ERROR_ZERO_RETURN after the server's
  // close_notify, SSL_ERROR_SYSCALL or SSL_ERROR_SSL when it just closed.
  std::string read_to_end(int& ended_with) {
    std::string out;
    char chunk[4096];
    for (;;) {
      const int read = SSL_read(ssl_.get(), chunk, sizeof chunk);
      if (read <= 0) {
        ended_with = SSL_get_error(ssl_.get(), read);
        return out;
      }
      out.append(chunk, static_cast<size_t>(read));
    }
  }

  // The session to offer next time, taken after the answer (TLS 1.3 sends
  // its tickets after the handshake).
  SslSessionPtr session() const { return SslSessionPtr(SSL_get1_session(ssl_.get()), &SSL_SESSION_free); }

  // As well-behaved clients end: close_notify sent, then the socket closed.
  void shut_down() { SSL_shutdown(ssl_.get()); }

 private:
  RawConnection tcp_;
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl_;
  bool handshake_ok_ = false;
};

}  // namespace sindri_test
