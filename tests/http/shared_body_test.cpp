// Large shared answers: kept in a sealed memfd and sent with sendfile, whole,
// to fast and slow readers alike, and to readers that go away mid-answer.

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "http/client.hpp"
#include "http/server.hpp"
#include "http/shared_body.hpp"
#include "support/raw_connection.hpp"

namespace sindri::http {
namespace {

using namespace std::chrono_literals;
using sindri_test::RawConnection;

// Bytes that differ along their length, so that a misplaced or repeated
// chunk shows.
std::string numbered_bytes(size_t size) {
  std::string bytes;
  bytes.reserve(size + 16);
  for (size_t line = 0; bytes.size() < size; ++line) bytes += std::to_string(line) + "\n";
  bytes.resize(size);
  return bytes;
}

TEST(SharedBodyTest, SmallBodiesStayInMemory) {
  const auto body = SharedBody::make("{\"small\":true}");
  EXPECT_EQ(body->bytes(), "{\"small\":true}");
  EXPECT_EQ(body->file(), -1);
}

TEST(SharedBodyTest, LargeBodiesLiveInASealedFile) {
  const size_t files_before = SharedBody::files_in_use();
  const std::string bytes = numbered_bytes(SharedBody::kFileThreshold + 12345);
  auto body = SharedBody::make(bytes);
  ASSERT_GE(body->file(), 0);
  EXPECT_EQ(body->bytes(), bytes);
  EXPECT_EQ(SharedBody::files_in_use(), files_before + 1);

  const int seals = fcntl(body->file(), F_GET_SEALS);
  EXPECT_EQ(seals & (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL),
            F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
  EXPECT_EQ(::pwrite(body->file(), "x", 1, 0), -1);
  EXPECT_EQ(errno, EPERM);
  EXPECT_EQ(body->bytes(), bytes);

  body.reset();
  EXPECT_EQ(SharedBody::files_in_use(), files_before);
}

// A receive buffer too small for the answer: the server must wait for room.
constexpr int kSmallReceiveBuffer = 16 * 1024;

class SharedBodyServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    big_ = SharedBody::make(numbered_bytes(8 * 1024 * 1024));
    ASSERT_GE(big_->file(), 0);
    start_server(ServerOptions{});
  }

  void start_server(ServerOptions options) {
    server_.reset();
    server_ = std::make_unique<Server>(
        options,
        [this](Request& request) {
          Response response;
          if (request.path == "/big") {
            response.shared_body = big_;
          } else {
            response.body = "small";
          }
          return response;
        },
        [](int status, std::string_view, std::string_view message) {
          Response response;
          response.status = status;
          response.body = message;
          return response;
        });
    const Status started = server_->start();
    ASSERT_TRUE(started.ok()) << started.error().message;
    base_url_ = "http://127.0.0.1:" + std::to_string(server_->port());
  }

  std::string_view big() const { return big_->bytes(); }

  // After readers went away mid-answer: the server still answers `client`
  // whole (whose connection stays open).
  void expect_the_whole_answer_still(Client& client) {
    std::this_thread::sleep_for(100ms);
    auto response = client.request("GET", "/big");
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_TRUE(response->body == big());
  }

  std::shared_ptr<const SharedBody> big_;
  std::unique_ptr<Server> server_;
  std::string base_url_;
};

TEST_F(SharedBodyServerTest, SendsItWholeAndKeepsTheConnectionInStep) {
  Client client(base_url_);
  for (int round = 0; round < 3; ++round) {
    auto response = client.request("GET", "/big");
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->header("content-length"), std::to_string(big().size()));
    EXPECT_TRUE(response->body == big()) << "round " << round << ": " << response->body.size() << " bytes";
  }
  auto head = client.request("HEAD", "/big");
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_EQ(head->body, "");
  EXPECT_EQ(head->header("content-length"), std::to_string(big().size()));
  EXPECT_EQ(client.request("GET", "/small")->body, "small");
  EXPECT_EQ(server_->open_connections(), 1u);
}

TEST_F(SharedBodyServerTest, WaitsForASlowReader) {
  RawConnection client(server_->port(), kSmallReceiveBuffer);
  ASSERT_TRUE(client.connected());
  // Both requests at once: the second waits behind the large answer.
  ASSERT_NO_FATAL_FAILURE(client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /small HTTP/1.1\r\nHost: t\r\n\r\n"));
  std::this_thread::sleep_for(200ms);  // the server fills the socket and must wait
  const std::string first = client.read_answer(4096);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << first.substr(0, 200);
  EXPECT_TRUE(std::string_view(first).substr(first.find("\r\n\r\n") + 4) == big());
  const std::string second = client.read_answer(4096);
  EXPECT_NE(second.find("\r\n\r\nsmall"), std::string::npos) << second;
}

// Idle means no progress: an answer that takes longer than the idle timeout
// to read, read steadily, arrives whole.
TEST_F(SharedBodyServerTest, ASteadyReaderOutlastsTheIdleTimeout) {
  ServerOptions options;
  options.idle_timeout = 1s;
  start_server(options);
  RawConnection client(server_->port(), kSmallReceiveBuffer);
  ASSERT_TRUE(client.connected());
  ASSERT_NO_FATAL_FAILURE(client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n"));
  const auto started = std::chrono::steady_clock::now();
  const std::string answer = client.read_answer(16 * 1024, 6ms);
  ASSERT_FALSE(answer.empty());
  EXPECT_GT(std::chrono::steady_clock::now() - started, 2s) << "the reader was not slow enough to show anything";
  EXPECT_TRUE(std::string_view(answer).substr(answer.find("\r\n\r\n") + 4) == big());
}

// A client that has finished sending and then goes away makes the next
// sendfile fail with EPIPE, which raises SIGPIPE unless it is ignored.
TEST_F(SharedBodyServerTest, OutlivesAReaderThatHungUpItsSideFirst) {
  for (int i = 0; i < 3; ++i) {
    RawConnection client(server_->port(), kSmallReceiveBuffer);
    ASSERT_TRUE(client.connected());
    ASSERT_NO_FATAL_FAILURE(client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n"));
    client.finish_sending();
    client.read_some();
  }
  Client client(base_url_);
  expect_the_whole_answer_still(client);
}

TEST_F(SharedBodyServerTest, OutlivesAReaderThatGoesAwayMidAnswer) {
  for (int i = 0; i < 3; ++i) {
    RawConnection client(server_->port(), kSmallReceiveBuffer);
    ASSERT_TRUE(client.connected());
    ASSERT_NO_FATAL_FAILURE(client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n"));
    client.read_some();
  }  // each closes with unread bytes: a reset under the server's sendfile
  Client client(base_url_);
  ASSERT_NO_FATAL_FAILURE(expect_the_whole_answer_still(client));
  for (int i = 0; i < 500 && server_->open_connections() > 1; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(server_->open_connections(), 1u);
}

}  // namespace
}  // namespace sindri::http
