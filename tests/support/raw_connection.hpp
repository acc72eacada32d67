#pragma once
// A plain TCP connection to a local server, for what the HTTP client would
// never send or do: malformed requests, a request sent in parts, answers
// read slowly or left half read.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

#include <gtest/gtest.h>

namespace sindri_test {

class RawConnection {
 public:
  // A `receive_buffer` (bytes; 0: the kernel's default) small enough that an
  // answer cannot all wait in the kernel makes the server wait for room.
  // `source`: the loopback address to connect from (127.0.0.2, ...), so
  // that the server sees several clients.
  explicit RawConnection(uint16_t port, int receive_buffer = 0, const char* source = nullptr)
      : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    if (receive_buffer > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    if (source != nullptr) {
      sockaddr_in from{};
      from.sin_family = AF_INET;
      ::inet_pton(AF_INET, source, &from.sin_addr);
      ::bind(fd_, reinterpret_cast<const sockaddr*>(&from), sizeof from);
    }
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
  int fd() const { return fd_; }
  void send(std::string_view data) {
    ASSERT_EQ(::send(fd_, data.data(), data.size(), MSG_NOSIGNAL), ssize_t(data.size()));
  }
  // Whether all of `data` went out: false once the server has closed.
  bool try_send(std::string_view data) {
    return ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL) == ssize_t(data.size());
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
  // Reads one answer with a Content-Length, `chunk_size` bytes at a time with
  // `pause` after each; "" on failure. Bytes of the next answer wait for the
  // next call.
  std::string read_answer(size_t chunk_size, std::chrono::microseconds pause = {}) {
    std::string chunk(chunk_size, '\0');
    size_t body_start = std::string::npos;
    size_t length = 0;
    while (true) {
      if (body_start == std::string::npos && pending_.find("\r\n\r\n") != std::string::npos) {
        body_start = pending_.find("\r\n\r\n") + 4;
        const size_t at = pending_.find("Content-Length: ");
        if (at == std::string::npos || at > body_start) return "";
        length = std::stoul(pending_.substr(at + 16));
      }
      if (body_start != std::string::npos && pending_.size() >= body_start + length) break;
      const ssize_t got = ::recv(fd_, chunk.data(), chunk.size(), 0);
      if (got <= 0) return "";
      pending_.append(chunk.data(), static_cast<size_t>(got));
      std::this_thread::sleep_for(pause);
    }
    std::string answer = pending_.substr(0, body_start + length);
    pending_.erase(0, body_start + length);
    return answer;
  }
  // Reads what has arrived, up to 4 KiB, and leaves the rest unread.
  void read_some() {
    char chunk[4096];
    ::recv(fd_, chunk, sizeof chunk, 0);
  }
  // Ends this side of the connection: the server reads end of stream.
  void finish_sending() { ::shutdown(fd_, SHUT_WR); }

 private:
  int fd_;
  bool connected_ = false;
  std::string pending_;  // read by read_answer beyond the answer it returned
};

}  // namespace sindri_test
