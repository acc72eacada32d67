// The server's own rules and limits, end to end over real sockets: methods
// and Host, deferred answers, the caps on connections, the header deadline,
// the minimum body rate, and HTTPS (certificates made by openssl).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "http/client.hpp"
#include "http/server.hpp"
#include "http/tls_server_context.hpp"
#include "support/openssl_connection.hpp"
#include "support/raw_connection.hpp"
#include "support/test_certificates.hpp"

namespace sindri::http {
namespace {

using namespace std::chrono_literals;
using sindri_test::RawConnection;

Response text(std::string body, int status = 200) {
  Response response;
  response.status = status;
  response.content_type = "text/plain";
  response.body = std::move(body);
  return response;
}

Response plain_error(int status, std::string_view, std::string_view message) {
  return text(std::string(message), status);
}

void wait_until(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!condition() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
}

std::string status_line(const std::string& answer) { return answer.substr(0, answer.find("\r\n")); }

// Answers that the test holds back until it lets them go, from its own thread.
class HeldAnswers {
 public:
  void hold(Answer answer) {
    std::lock_guard lock(mutex_);
    held_.push_back(std::move(answer));
    changed_.notify_all();
  }
  size_t count() {
    std::lock_guard lock(mutex_);
    return held_.size();
  }
  // Answers every held request from a thread of the test's.
  void release(const std::string& body) {
    std::vector<Answer> answers;
    {
      std::lock_guard lock(mutex_);
      answers.swap(held_);
    }
    std::thread([&answers, body] {
      for (Answer& answer : answers) answer(text(body));
    }).join();
  }
  void drop() {
    std::lock_guard lock(mutex_);
    held_.clear();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Answer> held_;
};

class ServerLimitsTest : public ::testing::Test {
 protected:
  void start(ServerOptions options) {
    options.on_connection_refused = [this](std::string_view reason) {
      std::lock_guard lock(reasons_mutex_);
      reasons_.emplace_back(reason);
    };
    server_ = std::make_unique<Server>(
        std::move(options), [this](Request& request) { return handle(request); }, plain_error);
    const Status started = server_->start();
    ASSERT_TRUE(started.ok()) << started.error().message;
  }

  Response handle(Request& request) {
    if (request.path == "/later") {
      Response response;
      response.later = [this](Answer answer) { held_.hold(std::move(answer)); };
      return response;
    }
    if (request.path == "/later-twice") return deferred_twice();
    if (request.path.starts_with("/size/")) return text(std::string(std::stoul(request.path.substr(6)), 'Z'));
    if (request.path == "/large-shared") {
      Response response;
      response.shared_body = SharedBody::make(std::string(300000, 'S'));
      return response;
    }
    Response response = text("seen " + request.method + " " + request.path);
    response.authenticated = request.path == "/signed-in";
    return response;
  }

  // Deferred, then deferred again by the held stage's answer (on the
  // test's thread); the final answer carries one X-Final header.
  Response deferred_twice() {
    Response response;
    response.later = [this](Answer answer) {
      held_.hold([this, answer](Response) {
        first_stage_thread_ = std::this_thread::get_id();
        Response next;
        next.later = [this](Answer last) {
          second_stage_thread_ = std::this_thread::get_id();
          last(text("second stage"));
        };
        answer(std::move(next));
      });
    };
    return on_final_answer(std::move(response), [this](Response& final_answer) {
      ++final_answers_;
      final_answer.headers.push_back({"X-Final", "yes"});
    });
  }

  std::vector<std::string> reasons() {
    std::lock_guard lock(reasons_mutex_);
    return reasons_;
  }

  uint16_t port() const { return server_->port(); }

  static std::string get(std::string_view path) {
    return "GET " + std::string(path) + " HTTP/1.1\r\nHost: x\r\n\r\n";
  }

  HeldAnswers held_;
  std::atomic<std::thread::id> first_stage_thread_;
  std::atomic<std::thread::id> second_stage_thread_;
  std::atomic<int> final_answers_{0};
  std::unique_ptr<Server> server_;
  std::mutex reasons_mutex_;
  std::vector<std::string> reasons_;
};

TEST_F(ServerLimitsTest, AMethodTheServerDoesNotImplementIs501AndLowerCaseIsNotAMethod) {
  start({});
  for (const char* method : {"get", "PROPFIND", "BREW"}) {
    RawConnection connection(port());
    connection.send(std::string(method) + " /x HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string answer = connection.read_all();
    EXPECT_EQ(status_line(answer), "HTTP/1.1 501 Not Implemented") << method;
    EXPECT_NE(answer.find(method), std::string::npos) << answer;
  }
  RawConnection connection(port());
  connection.send(get("/x"));
  EXPECT_EQ(status_line(connection.read_until("seen")), "HTTP/1.1 200 OK");
}

TEST_F(ServerLimitsTest, AnHttp11RequestNeedsExactlyOneHost) {
  start({});
  {
    RawConnection connection(port());
    connection.send("GET /x HTTP/1.1\r\n\r\n");
    const std::string answer = connection.read_all();
    EXPECT_EQ(status_line(answer), "HTTP/1.1 400 Bad Request");
    EXPECT_NE(answer.find("must have a Host header"), std::string::npos) << answer;
  }
  {
    RawConnection connection(port());
    connection.send("GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n");
    const std::string answer = connection.read_all();
    EXPECT_EQ(status_line(answer), "HTTP/1.1 400 Bad Request");
    EXPECT_NE(answer.find("one Host header"), std::string::npos) << answer;
  }
  RawConnection old_client(port());
  old_client.send("GET /x HTTP/1.0\r\n\r\n");
  EXPECT_EQ(status_line(old_client.read_all()), "HTTP/1.1 200 OK");
}

TEST_F(ServerLimitsTest, ADeferredAnswerLeavesTheOnlyWorkerFreeForOthers) {
  ServerOptions options;
  options.threads = 1;
  start(options);
  RawConnection waiting(port());
  waiting.send(get("/later"));
  wait_until([&] { return held_.count() == 1; });
  ASSERT_EQ(held_.count(), 1u);

  Client other("http://127.0.0.1:" + std::to_string(port()));
  auto answered = other.request("GET", "/meanwhile");
  ASSERT_TRUE(answered.ok()) << answered.error().message;
  EXPECT_EQ(answered->body, "seen GET /meanwhile");
  EXPECT_EQ(server_->busy_workers(), 0u);

  held_.release("answered later");
  EXPECT_NE(waiting.read_until("answered later").find("HTTP/1.1 200 OK"), std::string::npos);
  // The connection is kept alive after a deferred answer.
  waiting.send(get("/again"));
  EXPECT_NE(waiting.read_until("seen GET /again").find("200 OK"), std::string::npos);
}

// A render's write goes this way: the answer from the pool's thread is
// itself deferred, and its next stage runs on a request thread.
TEST_F(ServerLimitsTest, AnAnswerDeferredAgainRunsItsNextStageOnARequestThread) {
  start({});
  RawConnection waiting(port());
  waiting.send(get("/later-twice"));
  wait_until([&] { return held_.count() == 1; });
  held_.release("first stage");
  const std::string answer = waiting.read_until("second stage");
  EXPECT_NE(answer.find("HTTP/1.1 200 OK"), std::string::npos) << answer;
  EXPECT_EQ(answer.find("X-Final: yes"), answer.rfind("X-Final: yes")) << answer;
  EXPECT_NE(answer.find("X-Final: yes"), std::string::npos) << answer;
  EXPECT_EQ(final_answers_.load(), 1);
  EXPECT_NE(second_stage_thread_.load(), std::thread::id());
  EXPECT_NE(second_stage_thread_.load(), first_stage_thread_.load());
  waiting.send(get("/again"));
  EXPECT_NE(waiting.read_until("seen GET /again").find("200 OK"), std::string::npos);
}

TEST_F(ServerLimitsTest, ADeferredAnswerDroppedUncalledClosesTheConnection) {
  start({});
  RawConnection waiting(port());
  waiting.send(get("/later"));
  wait_until([&] { return held_.count() == 1; });
  held_.drop();
  EXPECT_TRUE(waiting.closed_without_answer());
}

TEST_F(ServerLimitsTest, AStopWaitsForADeferredAnswer) {
  start({});
  RawConnection waiting(port());
  waiting.send(get("/later"));
  wait_until([&] { return held_.count() == 1; });
  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    server_->stop();
    stopped.store(true);
  });
  // The listener closes once the stop has begun.
  wait_until([&] { return !RawConnection(port()).connected(); });
  EXPECT_FALSE(stopped.load());
  held_.release("the last answer");
  const std::string answer = waiting.read_all();
  stopper.join();
  EXPECT_NE(answer.find("the last answer"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
}

TEST_F(ServerLimitsTest, AHeaderThatDoesNotArriveInTimeClosesTheConnection) {
  ServerOptions options;
  options.header_timeout = 150ms;
  start(options);
  RawConnection silent(port());
  RawConnection trickling(port());
  trickling.send("GET /x HTTP/1.1\r\n");
  EXPECT_TRUE(silent.closed_without_answer());
  EXPECT_TRUE(trickling.closed_without_answer());
  EXPECT_EQ(server_->refused_connections().header_timeout, 2u);
  // A keep-alive connection between requests is idle, not late.
  RawConnection kept(port());
  kept.send(get("/one"));
  kept.read_until("seen GET /one");
  std::this_thread::sleep_for(300ms);
  kept.send(get("/two"));
  EXPECT_NE(kept.read_until("seen GET /two").find("200 OK"), std::string::npos);
}

TEST_F(ServerLimitsTest, PastTheUnfinishedCapTheOldestUnfinishedConnectionMakesRoom) {
  ServerOptions options;
  options.max_unfinished_connections = 2;
  start(options);
  RawConnection oldest(port());
  oldest.send("GET /x HTTP/1.1\r\n");
  RawConnection second(port());
  second.send("GET /x HTTP/1.1\r\n");
  wait_until([&] { return server_->open_connections() == 2; });
  RawConnection newest(port());
  EXPECT_TRUE(oldest.closed_without_answer());
  newest.send(get("/newest"));
  EXPECT_NE(newest.read_until("seen GET /newest").find("200 OK"), std::string::npos);
  second.send("Host: x\r\n\r\n");
  EXPECT_NE(second.read_until("seen GET /x").find("200 OK"), std::string::npos);
  EXPECT_EQ(server_->refused_connections().unfinished_limit, 1u);
  EXPECT_EQ(reasons(), std::vector<std::string>{"unfinished_limit"});
}

TEST_F(ServerLimitsTest, PastTheConnectionCapAnAuthenticatedConnectionIsNeverTheOneClosed) {
  ServerOptions options;
  options.max_connections = 3;
  start(options);
  RawConnection agent(port());
  agent.send(get("/signed-in"));
  agent.read_until("seen GET /signed-in");
  RawConnection idle(port());
  idle.send(get("/anonymous"));
  idle.read_until("seen GET /anonymous");
  // Connections that completed an anonymous request make room, oldest first.
  RawConnection later(port());
  later.send(get("/later-anonymous"));
  later.read_until("seen GET /later-anonymous");
  RawConnection newest(port());
  EXPECT_TRUE(idle.closed_without_answer());
  newest.send(get("/newest"));
  newest.read_until("seen GET /newest");
  {
    // Then connections still sending their first request, each making room for the next.
    std::vector<std::unique_ptr<RawConnection>> crowd;
    for (int i = 0; i < 20; ++i) crowd.push_back(std::make_unique<RawConnection>(port()));
    wait_until([&] { return server_->refused_connections().connection_limit >= 21; });
    EXPECT_TRUE(later.closed_without_answer());
    agent.send(get("/signed-in/still"));
    EXPECT_NE(agent.read_until("seen GET /signed-in/still").find("200 OK"), std::string::npos);
  }
  EXPECT_EQ(server_->refused_connections().connection_limit, 21u);
}

TEST_F(ServerLimitsTest, WhenNothingCanMakeRoomTheNewConnectionIsClosed) {
  ServerOptions options;
  options.max_connections = 2;
  start(options);
  RawConnection first(port());
  first.send(get("/signed-in"));
  first.read_until("seen GET /signed-in");
  RawConnection second(port());
  second.send(get("/signed-in"));
  second.read_until("seen GET /signed-in");
  RawConnection refused(port());
  EXPECT_TRUE(refused.closed_without_answer());
  EXPECT_EQ(server_->refused_connections().connection_limit, 1u);
  first.send(get("/signed-in/again"));
  EXPECT_NE(first.read_until("seen GET /signed-in/again").find("200 OK"), std::string::npos);
}

TEST_F(ServerLimitsTest, ABodySlowerThanTheMinimumRateIsCut) {
  ServerOptions options;
  options.min_body_rate = 1000;
  options.body_rate_window = 100ms;
  start(options);
  RawConnection slow(port());
  slow.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
  // 100 bytes a second, a tenth of the minimum, until the server cuts it.
  for (int i = 0; i < 600 && server_->refused_connections().body_too_slow == 0; ++i) {
    if (!slow.try_send("x")) break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(server_->refused_connections().body_too_slow, 1u);
  EXPECT_EQ(reasons(), std::vector<std::string>{"body_too_slow"});
}

TEST_F(ServerLimitsTest, ABodyThatStallsAfterAFastStartIsCut) {
  ServerOptions options;
  options.min_body_rate = 1000;
  options.body_rate_window = 100ms;
  start(options);
  RawConnection stalled(port());
  stalled.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n" + std::string(50000, 'x'));
  EXPECT_TRUE(stalled.closed_without_answer());
  EXPECT_EQ(server_->refused_connections().body_too_slow, 1u);
}

TEST_F(ServerLimitsTest, ABodyAtTheMinimumRateIsRead) {
  ServerOptions options;
  options.min_body_rate = 1000;
  options.body_rate_window = 100ms;
  start(options);
  RawConnection steady(port());
  steady.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\n\r\n");
  for (int i = 0; i < 40; ++i) {
    steady.send(std::string(100, 'x'));
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_NE(steady.read_until("seen POST /upload").find("200 OK"), std::string::npos);
  EXPECT_EQ(server_->refused_connections().body_too_slow, 0u);
}

TEST_F(ServerLimitsTest, OneIdentityHasOnlyItsShareOfSparedConnections) {
  ServerOptions options;
  options.max_connections = 2;
  options.max_connections_per_identity = 1;
  start(options);
  RawConnection first(port());
  first.send(get("/signed-in"));
  first.read_until("seen GET /signed-in");
  RawConnection second(port());
  second.send(get("/signed-in"));
  second.read_until("seen GET /signed-in");
  RawConnection newcomer(port());
  EXPECT_TRUE(second.closed_without_answer());
  newcomer.send(get("/newcomer"));
  EXPECT_NE(newcomer.read_until("seen GET /newcomer").find("200 OK"), std::string::npos);
  first.send(get("/signed-in/again"));
  EXPECT_NE(first.read_until("seen GET /signed-in/again").find("200 OK"), std::string::npos);
}

TEST_F(ServerLimitsTest, AFloodFromOneAddressMakesRoomFromItsOwnConnections) {
  ServerOptions options;
  options.max_unfinished_connections = 4;
  start(options);
  RawConnection far_client(port(), 0, "127.0.0.2");
  far_client.send("GET /far HTTP/1.1\r\n");
  std::vector<std::unique_ptr<RawConnection>> flood;
  for (int i = 0; i < 12; ++i) {
    flood.push_back(std::make_unique<RawConnection>(port(), 0, "127.0.0.3"));
    flood.back()->send("GET / HTTP/1.1\r\n");
  }
  wait_until([&] { return server_->refused_connections().unfinished_limit >= 9; });
  far_client.send("Host: x\r\n\r\n");
  EXPECT_NE(far_client.read_until("seen GET /far").find("200 OK"), std::string::npos);
  EXPECT_EQ(server_->refused_connections().unfinished_limit, 9u);
}

class ServerTlsTest : public ServerLimitsTest {
 protected:
  void start_tls(const sindri_test::CertificateFiles& served, ServerOptions options = {}) {
    auto context = TlsServerContext::load(TlsFiles{served.cert.string(), served.key.string(), ""}, 10ms);
    ASSERT_TRUE(context.ok()) << context.error().message;
    options.tls = *context;
    start(options);
  }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port()); }

  sindri_test::TestCertificates certificates_;
};

TEST_F(ServerTlsTest, ServesHttpsToAClientThatTrustsItsCa) {
  start_tls(certificates_.server);
  Client client(url());
  client.set_ca_file(certificates_.ca.cert.string());
  for (const char* path : {"/one", "/two"}) {
    auto answered = client.request("GET", path);
    ASSERT_TRUE(answered.ok()) << answered.error().message;
    EXPECT_EQ(answered->body, "seen GET " + std::string(path));
  }
}

// Answers past one TLS record (16 KiB), from memory and from a memfd.
TEST_F(ServerTlsTest, ServesLargeAnswersWhole) {
  start_tls(certificates_.server);
  Client client(url());
  client.set_ca_file(certificates_.ca.cert.string());
  const std::pair<const char*, size_t> answers[] = {
      {"/size/16384", 16384}, {"/size/16385", 16385}, {"/size/300000", 300000}, {"/large-shared", 300000}};
  for (const auto& [path, size] : answers) {
    auto answered = client.request("GET", path);
    ASSERT_TRUE(answered.ok()) << path << ": " << answered.error().message;
    EXPECT_EQ(answered->body.size(), size) << path;
  }
}

// A connection the server ends sends close_notify first: without it,
// OpenSSL drops the session from its cache, and a client's own
// close_notify meets a reset whose error spoils its next handshake.
TEST_F(ServerTlsTest, AnAnswerThatClosesTheConnectionEndsWithCloseNotify) {
  start_tls(certificates_.server);
  const auto context = sindri_test::client_context(certificates_.ca.cert.string());
  sindri_test::OpenSslConnection connection(port(), context.get());
  ASSERT_TRUE(connection.handshake_ok());
  ASSERT_TRUE(connection.write("GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  int ended_with = 0;
  const std::string answer = connection.read_to_end(ended_with);
  EXPECT_NE(answer.find("seen GET /x"), std::string::npos) << answer;
  EXPECT_EQ(ended_with, SSL_ERROR_ZERO_RETURN);
}

// As wrk and s_time connect: a new connection for each request, each
// offering the session of the one before. Every handshake succeeds, and
// every one after the first is resumed.
TEST_F(ServerTlsTest, ConnectionsOneAfterAnotherAllSucceedAndResumeTheSession) {
  start_tls(certificates_.server);
  const auto context = sindri_test::client_context(certificates_.ca.cert.string());
  sindri_test::SslSessionPtr session(nullptr, &SSL_SESSION_free);
  size_t answered = 0;
  size_t resumed = 0;
  constexpr size_t kConnections = 200;
  for (size_t i = 0; i < kConnections; ++i) {
    sindri_test::OpenSslConnection connection(port(), context.get(), session.get());
    ASSERT_TRUE(connection.handshake_ok()) << "connection " << i;
    if (connection.resumed()) ++resumed;
    ASSERT_TRUE(connection.write("GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    int ended_with = 0;
    if (connection.read_to_end(ended_with).find("seen GET /x") != std::string::npos) ++answered;
    connection.shut_down();
    session = connection.session();
  }
  EXPECT_EQ(answered, kConnections);
  EXPECT_EQ(resumed, kConnections - 1);
  EXPECT_EQ(server_->refused_connections().tls_handshake, 0u);
}

// A body over the limit is answered 413 while the rest of it still
// arrives: the server reads and drops what follows rather than reset the
// connection under the answer.
TEST_F(ServerTlsTest, ABodyOverTheLimitIsAnswered413WhileItStillArrives) {
  ServerOptions options;
  options.body_limit = 1000;
  start_tls(certificates_.server, options);
  const auto client = sindri_test::client_context(certificates_.ca.cert.string());
  sindri_test::OpenSslConnection connection(port(), client.get());
  ASSERT_TRUE(connection.handshake_ok());
  const std::string body(200000, 'b');
  ASSERT_TRUE(connection.write("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) +
                               "\r\n\r\n" + body));
  int ended_with = 0;
  const std::string answer = connection.read_to_end(ended_with);
  EXPECT_EQ(status_line(answer), "HTTP/1.1 413 Payload Too Large") << answer.substr(0, 200);
}

TEST_F(ServerTlsTest, PlainHttpToTheTlsPortGetsAPlainAnswerSayingSo) {
  start_tls(certificates_.server);
  RawConnection connection(port());
  connection.send(get("/x"));
  const std::string answer = connection.read_all();
  EXPECT_EQ(status_line(answer), "HTTP/1.1 400 Bad Request");
  EXPECT_NE(answer.find("This port speaks HTTPS"), std::string::npos) << answer;
  EXPECT_EQ(server_->refused_connections().tls_handshake, 1u);
}

TEST_F(ServerTlsTest, AClientThatDoesNotTrustTheCertificateFailsTheHandshake) {
  start_tls(certificates_.self_signed);
  Client client(url());
  client.set_ca_file(certificates_.ca.cert.string());
  auto answered = client.request("GET", "/x");
  ASSERT_FALSE(answered.ok());
  wait_until([&] { return server_->refused_connections().tls_handshake == 1; });
  EXPECT_EQ(server_->refused_connections().tls_handshake, 1u);
}

TEST_F(ServerTlsTest, AHandshakeThatNeverEndsMeetsTheHeaderDeadline) {
  ServerOptions options;
  options.header_timeout = 150ms;
  start_tls(certificates_.server, options);
  RawConnection stalled(port());
  stalled.send(std::string(1, '\x16'));
  EXPECT_TRUE(stalled.closed_without_answer());
  EXPECT_EQ(server_->refused_connections().header_timeout, 1u);
}

}  // namespace
}  // namespace sindri::http
