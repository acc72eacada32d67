#pragma once
// A plain TCP connection to a local server, for what the HTTP client would
// never send: malformed requests, or a request sent in parts.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace sindri_test {

class RawConnection {
 public:
  explicit RawConnection(uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    timeval timeout{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  }
  ~RawConnection() { ::close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }
  void send(std::string_view data) {
    ASSERT_EQ(::send(fd_, data.data(), data.size(), MSG_NOSIGNAL), ssize_t(data.size()));
  }
  // Reads until the server closes the connection (or 5 s pass).
  std::string read_all() {
    std::string out;
    char chunk[4096];
    ssize_t got = 0;
    while ((got = ::recv(fd_, chunk, sizeof chunk, 0)) > 0) out.append(chunk, static_cast<size_t>(got));
    return out;
  }
  // Whether the server closed the connection without sending anything:
  // end of stream at once, not a timeout.
  bool closed_without_answer() {
    char byte = 0;
    return ::recv(fd_, &byte, 1, 0) == 0;
  }
  // Reads until `marker` has arrived.
  std::string read_until(std::string_view marker) {
    std::string out;
    char chunk[4096];
    while (out.find(marker) == std::string::npos) {
      const ssize_t got = ::recv(fd_, chunk, sizeof chunk, 0);
      if (got <= 0) break;
      out.append(chunk, static_cast<size_t>(got));
    }
    return out;
  }

 private:
  int fd_;
  bool connected_ = false;
};

}  // namespace sindri_test
