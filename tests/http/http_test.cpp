// The HTTP layer end to end: a real server on an ephemeral port, the real
// client, and raw sockets for what the client would never send.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "http/client.hpp"
#include "http/metrics.hpp"
#include "http/router.hpp"
#include "http/server.hpp"
#include "support/raw_connection.hpp"
#include "value/json.hpp"

namespace sindri::http {
namespace {

using namespace std::chrono_literals;
using sindri_test::RawConnection;

// The API's error shape, as the broker renders it.
Response render_error(int status, std::string_view code, std::string_view message) {
  Response response;
  response.status = status;
  response.body = "{\"error\":{\"code\":";
  append_json_string(response.body, code);
  response.body += ",\"message\":";
  append_json_string(response.body, message);
  response.body += "}}";
  return response;
}

Response answer_nothing(Request&) { return Response{}; }

Response text(std::string body, int status = 200) {
  Response response;
  response.status = status;
  response.content_type = "text/plain";
  response.body = std::move(body);
  return response;
}

// The error code from a body in the shape above, or "" when it is not one.
std::string error_code(const std::string& body) {
  auto parsed = parse_json(body);
  if (!parsed) return "";
  const Value* error = parsed->find("error");
  const Value* code = error ? error->find("code") : nullptr;
  return code && code->is_string() ? std::string(code->get_string()) : "";
}

// Polls `condition` until it holds or 5 s pass; the caller asserts on it.
void wait_until(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!condition() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
}

size_t count_of(std::string_view text, std::string_view needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.add("GET", "/api/v1/stacks/{id}/labels/{label}",
                [](Request&, const PathParams& params) { return text(params["id"] + "|" + params["label"]); });
    router_.add("POST", "/api/v1/stacks/{id}/labels/{label}",
                [](Request& request, const PathParams&) { return text("posted " + request.body, 201); });
    router_.add("GET", "/api/v1/agents/", [](Request&, const PathParams&) { return text("agent list"); });
    router_.add("GET", "/api/v1/agents/{id}",
                [](Request&, const PathParams& params) { return text("agent " + params["id"]); });
    router_.add("GET", "/api/v1/agents/health", [](Request&, const PathParams&) { return text("healthy"); });
    router_.add("GET", "/echo/{word}", [](Request& request, const PathParams& params) {
      std::string out = "path=" + request.path + " word=" + params["word"];
      for (const auto& [key, value] : request.query) out += " [" + key + "=" + value + "]";
      return text(out);
    });
    router_.add("POST", "/echo", [](Request& request, const PathParams&) {
      return text(std::string(request.header("content-type")) + "|" + std::string(request.header("AUTHORIZATION")) +
                  "|" + request.body);
    });
    router_.add("PUT", "/echo", [](Request& request, const PathParams&) { return text("put " + request.body); });
    router_.add("DELETE", "/echo", [](Request& request, const PathParams&) { return text("deleted " + request.body); });
    router_.add("GET", "/throw", [](Request&, const PathParams&) -> Response { throw std::runtime_error("boom"); });
    router_.add("GET", "/slow", [](Request&, const PathParams&) {
      std::this_thread::sleep_for(300ms);
      return text("slow and complete");
    });
    router_.add("GET", "/count/{n}", [](Request&, const PathParams& params) { return text("n=" + params["n"]); });
    router_.add("GET", "/empty", [](Request&, const PathParams&) { return text("", 204); });
    router_.add("GET", "/custom-header", [](Request&, const PathParams&) {
      Response response = text("with header");
      response.headers.push_back({"X-Sindri", "yes"});
      response.headers.push_back({"X-Broken", "a\r\nInjected: 1"});
      return response;
    });
  }

  void start(ServerOptions options = {}) {
    server_ = std::make_unique<Server>(
        options, [this](Request& request) { return dispatch(request); }, render_error);
    const Status started = server_->start();
    ASSERT_TRUE(started.ok()) << started.error().message;
    ASSERT_NE(server_->port(), 0);
    base_url_ = "http://127.0.0.1:" + std::to_string(server_->port());
  }

  // No idle sweep until a stop starts one; a request that has begun gets
  // `grace` to finish once the stop begins.
  void start_with_stop_grace(std::chrono::seconds grace) {
    ServerOptions options;
    options.idle_timeout = 0s;
    options.stop_grace = grace;
    start(options);
  }

  // A request begun on `connection` and left unfinished, once the server
  // has read its first byte (an open connection alone is still idle).
  void stall(RawConnection& connection) {
    const size_t before = server_->receiving_requests();
    connection.send("P");
    wait_until([&] { return server_->receiving_requests() > before; });
  }

  Response dispatch(Request& request) {
    const auto began = std::chrono::steady_clock::now();
    Router::Match match = router_.match(request.method, request.raw_path);
    Response response;
    if (match.handler) {
      response = (*match.handler)(request, match.params);
    } else if (match.status == 405) {
      response = render_error(405, "method_not_allowed", "method not allowed");
      response.headers.push_back({"Allow", match.allow});
    } else {
      response = render_error(404, "not_found", "no such route");
    }
    metrics_.observe(match.pattern, request.method, response.status, std::chrono::steady_clock::now() - began);
    return response;
  }

  Router router_;
  Metrics metrics_;
  std::unique_ptr<Server> server_;
  std::string base_url_;
};

TEST(RouterTest, MatchesParametersAndPrefersLiteralSegments) {
  Router router;
  router.add("GET", "/agents/{id}", [](Request&, const PathParams&) { return Response{}; });
  router.add("GET", "/agents/health", [](Request&, const PathParams&) { return Response{}; });
  router.add("GET", "/agents/", [](Request&, const PathParams&) { return Response{}; });
  router.add("POST", "/agents/{id}/events/{event}", [](Request&, const PathParams&) { return Response{}; });

  Router::Match health = router.match("GET", "/agents/health");
  ASSERT_NE(health.handler, nullptr);
  EXPECT_EQ(health.pattern, "/agents/health");
  EXPECT_TRUE(health.params.values.empty());

  Router::Match by_id = router.match("GET", "/agents/a1");
  ASSERT_NE(by_id.handler, nullptr);
  EXPECT_EQ(by_id.pattern, "/agents/{id}");
  EXPECT_EQ(by_id.params["id"], "a1");
  EXPECT_EQ(by_id.params["missing"], "");

  EXPECT_EQ(router.match("GET", "/agents/").pattern, "/agents/");
  EXPECT_EQ(router.match("GET", "/agents").status, 404);
  EXPECT_EQ(router.match("GET", "/agents/a1/").status, 404);
  EXPECT_EQ(router.match("GET", "/agents//events/e").status, 404);  // a parameter is never empty

  Router::Match event = router.match("POST", "/agents/a%201/events/e/2");
  EXPECT_EQ(event.status, 404);  // a '/' as sent separates segments
  event = router.match("POST", "/agents/a%201/events/e%2F2");
  ASSERT_NE(event.handler, nullptr);  // an encoded one belongs to its segment
  EXPECT_EQ(event.params["id"], "a 1");
  EXPECT_EQ(event.params["event"], "e/2");
  EXPECT_EQ(router.match("GET", "/%61gents/health").pattern, "/agents/health");  // literals decode too
  EXPECT_EQ(router.match("GET", "/agents/a%2").status, 404);                     // and a bad escape matches nothing
}

TEST(RouterTest, ReportsAllowedMethodsInTheOrderAdded) {
  Router router;
  router.add("GET", "/stacks/{id}", [](Request&, const PathParams&) { return Response{}; });
  router.add("POST", "/stacks/{id}", [](Request&, const PathParams&) { return Response{}; });
  router.add("GET", "/stacks/{id}/labels", [](Request&, const PathParams&) { return Response{}; });
  router.add("DELETE", "/stacks/special", [](Request&, const PathParams&) { return Response{}; });

  Router::Match put = router.match("PUT", "/stacks/s1");
  EXPECT_EQ(put.handler, nullptr);
  EXPECT_EQ(put.status, 405);
  EXPECT_EQ(put.allow, "GET, POST");
  EXPECT_EQ(router.match("PUT", "/stacks/special").allow, "GET, POST, DELETE");
  // The literal route lacks GET; the parameter route has it.
  EXPECT_EQ(router.match("GET", "/stacks/special").pattern, "/stacks/{id}");
  EXPECT_EQ(router.match("DELETE", "/stacks/special").pattern, "/stacks/special");

  Router::Match missing = router.match("GET", "/nothing");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.pattern, "");
  EXPECT_EQ(router.match("HEAD", "/stacks/s1").pattern, "/stacks/{id}");  // HEAD falls back to GET
}

TEST(RequestTest, DecodesPathAndQuery) {
  EXPECT_EQ(*percent_decode("a%20b%2Fc+d"), "a b/c+d");
  EXPECT_EQ(*percent_decode("a+b%2b", true), "a b+");
  EXPECT_FALSE(percent_decode("%zz").ok());
  EXPECT_FALSE(percent_decode("abc%4").ok());
  EXPECT_FALSE(percent_decode("abc%").ok());

  Request request;
  request.target = "/a%20b/c?x=1&y=two+words&&flag&z=%3D%26&x=again";
  ASSERT_TRUE(parse_target(request).ok());
  EXPECT_EQ(request.path, "/a b/c");
  ASSERT_EQ(request.query.size(), 5u);
  EXPECT_EQ(request.query[1], (std::pair<std::string, std::string>("y", "two words")));
  EXPECT_EQ(request.query[2], (std::pair<std::string, std::string>("flag", "")));
  EXPECT_EQ(*request.query_param("z"), "=&");
  EXPECT_EQ(*request.query_param("x"), "1");
  EXPECT_EQ(request.query_param("nope"), nullptr);

  request.target = "http://example.com:8080/abs?q=1";
  ASSERT_TRUE(parse_target(request).ok());
  EXPECT_EQ(request.path, "/abs");
  EXPECT_EQ(*request.query_param("q"), "1");

  for (const char* bad : {"/bad%zz", "/nul%00", "no-slash", "/ok?x=%g1"}) {
    request.target = bad;
    EXPECT_FALSE(parse_target(request).ok()) << bad;
  }

  request.headers = {{"Content-Type", "text/plain"}, {"X-Twice", "first"}, {"x-twice", "second"}};
  EXPECT_EQ(request.header("content-type"), "text/plain");
  EXPECT_EQ(request.header("X-TWICE"), "first");
  EXPECT_EQ(request.header("absent"), "");
}

TEST_F(HttpServerTest, RoutesWithParameters) {
  start();
  Client client(base_url_);
  auto response = client.request("GET", "/api/v1/stacks/s-1/labels/env");
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "s-1|env");
  EXPECT_EQ(response->header("content-type"), "text/plain");
  EXPECT_EQ(response->header("Content-Length"), "7");

  response = client.request("POST", "/api/v1/stacks/s-1/labels/env", "{\"a\":1}");
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 201);
  EXPECT_EQ(response->body, "posted {\"a\":1}");

  EXPECT_EQ(client.request("GET", "/api/v1/agents/health")->body, "healthy");
  EXPECT_EQ(client.request("GET", "/api/v1/agents/a7")->body, "agent a7");
  EXPECT_EQ(client.request("GET", "/api/v1/agents/")->body, "agent list");
}

TEST_F(HttpServerTest, AnswersNotFoundAndMethodNotAllowed) {
  start();
  Client client(base_url_);
  auto missing = client.request("GET", "/api/v1/nothing");
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(error_code(missing->body), "not_found");

  auto wrong_method = client.request("DELETE", "/api/v1/stacks/s/labels/l");
  ASSERT_TRUE(wrong_method.ok());
  EXPECT_EQ(wrong_method->status, 405);
  EXPECT_EQ(wrong_method->header("allow"), "GET, POST");
  EXPECT_EQ(error_code(wrong_method->body), "method_not_allowed");
}

TEST_F(HttpServerTest, ClientSendsMethodsBodiesAndAuthorization) {
  start();
  Client client(base_url_);
  client.set_authorization("Bearer pak_123");
  auto posted = client.request("POST", "/echo", "hello", "text/plain");
  ASSERT_TRUE(posted.ok());
  EXPECT_EQ(posted->body, "text/plain|Bearer pak_123|hello");

  auto json = client.request("POST", "/echo", "{}");
  EXPECT_EQ(json->body, "application/json|Bearer pak_123|{}");

  client.set_authorization("");
  auto empty = client.request("POST", "/echo");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->status, 200);
  EXPECT_EQ(empty->body, "||");

  EXPECT_EQ(client.request("PUT", "/echo", "v2")->body, "put v2");
  EXPECT_EQ(client.request("DELETE", "/echo")->body, "deleted ");
  // After a request with a body, a GET is a GET again.
  EXPECT_EQ(client.request("GET", "/echo/w")->body, "path=/echo/w word=w");
}

TEST_F(HttpServerTest, HeadAnswersHeadersWithoutBody) {
  start();
  Client client(base_url_);
  auto head = client.request("HEAD", "/api/v1/stacks/s-1/labels/env");
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->body, "");
  EXPECT_EQ(head->header("content-length"), "7");
  // The connection is still in step: the next answer is the right one.
  EXPECT_EQ(client.request("GET", "/api/v1/agents/health")->body, "healthy");

  auto no_content = client.request("GET", "/empty");
  EXPECT_EQ(no_content->status, 204);
  EXPECT_EQ(no_content->header("content-length"), "");
}

TEST_F(HttpServerTest, WritesSafeExtraHeadersOnly) {
  start();
  Client client(base_url_);
  auto response = client.request("GET", "/custom-header");
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->header("x-sindri"), "yes");
  EXPECT_EQ(response->header("x-broken"), "");
  EXPECT_EQ(response->header("injected"), "");
  EXPECT_FALSE(response->header("date").empty());
}

TEST_F(HttpServerTest, KeepsTheConnectionAlive) {
  start();
  Client client(base_url_);
  for (int i = 0; i < 50; ++i) {
    auto response = client.request("GET", "/count/" + std::to_string(i));
    ASSERT_TRUE(response.ok());
    EXPECT_EQ(response->body, "n=" + std::to_string(i));
  }
  EXPECT_EQ(server_->open_connections(), 1u);
}

TEST_F(HttpServerTest, ClosesIdleConnections) {
  ServerOptions options;
  options.idle_timeout = 1s;
  start(options);
  Client client(base_url_);
  ASSERT_TRUE(client.request("GET", "/count/1").ok());
  EXPECT_EQ(server_->open_connections(), 1u);
  wait_until([&] { return server_->open_connections() == 0; });
  EXPECT_EQ(server_->open_connections(), 0u);
  // The client notices and connects again.
  auto again = client.request("GET", "/count/2");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->body, "n=2");
}

TEST_F(HttpServerTest, RejectsBodiesOverTheLimit) {
  ServerOptions options;
  options.body_limit = 1024;
  start(options);
  Client client(base_url_);
  auto at_limit = client.request("POST", "/echo", std::string(1024, 'a'), "text/plain");
  ASSERT_TRUE(at_limit.ok());
  EXPECT_EQ(at_limit->status, 200);

  auto too_big = client.request("POST", "/echo", std::string(64 * 1024, 'b'), "text/plain");
  ASSERT_TRUE(too_big.ok()) << too_big.error().message;
  EXPECT_EQ(too_big->status, 413);
  EXPECT_EQ(error_code(too_big->body), "payload_too_large");
  EXPECT_NE(too_big->body.find("1024 bytes"), std::string::npos) << too_big->body;
  EXPECT_EQ(too_big->header("connection"), "close");

  // A chunked body is counted as it arrives.
  RawConnection raw(server_->port());
  raw.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" + std::string(0x800, 'c') +
           "\r\n0\r\n\r\n");
  const std::string answer = raw.read_all();
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 413 ")) << answer;

  EXPECT_EQ(client.request("GET", "/count/3")->body, "n=3");
}

TEST_F(HttpServerTest, AnswersMalformedRequestsWithBadRequest) {
  start();
  {
    RawConnection raw(server_->port());
    raw.send("GARBAGE\r\n\r\n");
    const std::string answer = raw.read_all();
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 400 Bad Request\r\n")) << answer;
    EXPECT_NE(answer.find("Connection: close\r\n"), std::string::npos);
    EXPECT_EQ(error_code(answer.substr(answer.find("\r\n\r\n") + 4)), "bad_request");
  }
  {
    RawConnection raw(server_->port());
    raw.send("GET /x HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20 * 1024, 'h') + "\r\n\r\n");
    const std::string answer = raw.read_all();
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n")) << answer;
    EXPECT_EQ(error_code(answer.substr(answer.find("\r\n\r\n") + 4)), "request_header_fields_too_large");
  }
  {
    RawConnection raw(server_->port());
    raw.send("GET /echo/%zz HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string answer = raw.read_all();
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 400 ")) << answer;
    EXPECT_NE(answer.find("percent"), std::string::npos) << answer;
  }
  Client client(base_url_);
  EXPECT_EQ(client.request("GET", "/count/4")->body, "n=4");
}

// A body whose last transfer coding is not chunked has no length Beast
// reads (it took it as empty), so its bytes would be read as the next
// request: refused, and the connection closed (RFC 9112 6.3).
TEST_F(HttpServerTest, RefusesTransferCodingsThatCouldSmuggleARequest) {
  start();
  const std::string smuggled = "GET /count/9 HTTP/1.1\r\nHost: x\r\n\r\n";
  for (const std::string coding : {"gzip", "chunked, gzip", "xchunked"}) {
    RawConnection raw(server_->port());
    raw.send("POST /count/1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: " + coding + "\r\n\r\n" + smuggled);
    const std::string answer = raw.read_all();
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 400 Bad Request\r\n")) << coding << ": " << answer;
    EXPECT_NE(answer.find("Connection: close\r\n"), std::string::npos) << coding << ": " << answer;
    EXPECT_EQ(answer.find("n=9"), std::string::npos) << coding << ": the smuggled request was answered";
  }
  {
    RawConnection raw(server_->port());
    raw.send("POST /count/1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + smuggled);
    const std::string answer = raw.read_all();
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 501 ")) << answer;
    EXPECT_EQ(answer.find("n=9"), std::string::npos) << answer;
  }
  RawConnection chunked(server_->port());
  chunked.send("PUT /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n" +
               std::string("GET /count/3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  const std::string answers = chunked.read_all();
  EXPECT_NE(answers.find("put abc"), std::string::npos) << answers;
  EXPECT_NE(answers.find("n=3"), std::string::npos) << answers;
}

TEST_F(HttpServerTest, AnswersAThrowingHandlerWithInternalError) {
  start();
  Client client(base_url_);
  auto failed = client.request("GET", "/throw");
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->status, 500);
  EXPECT_EQ(error_code(failed->body), "internal_error");
  EXPECT_EQ(client.request("GET", "/count/5")->body, "n=5");
  EXPECT_EQ(server_->busy_workers(), 0u);
}

TEST_F(HttpServerTest, DecodesPathAndQueryForTheHandler) {
  start();
  Client client(base_url_);
  auto response = client.request("GET", "/echo/caf%C3%A9%20au%20lait?q=a+b&empty=&flag&enc=%26%3D");
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->body, "path=/echo/café au lait word=café au lait [q=a b] [empty=] [flag=] [enc=&=]");
}

TEST_F(HttpServerTest, AnswersPipelinedRequestsInOrder) {
  start();
  RawConnection raw(server_->port());
  raw.send(
      "GET /count/1 HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /count/3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const std::string answers = raw.read_all();
  const size_t first = answers.find("n=1");
  const size_t second = answers.find("slow and complete");
  const size_t third = answers.find("n=3");
  ASSERT_NE(third, std::string::npos) << answers;
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  EXPECT_EQ(count_of(answers, "HTTP/1.1 200 OK"), 3u);
}

TEST_F(HttpServerTest, FollowsConnectionRulesOfBothVersions) {
  start();
  {
    RawConnection raw(server_->port());
    raw.send("GET /count/1 HTTP/1.0\r\n\r\n");
    const std::string answer = raw.read_all();  // returns because the server closes
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 200 OK\r\n")) << answer;
    EXPECT_NE(answer.find("Connection: close\r\n"), std::string::npos);
  }
  {
    RawConnection raw(server_->port());
    raw.send("GET /count/1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    EXPECT_NE(raw.read_until("n=1").find("Connection: keep-alive\r\n"), std::string::npos);
    raw.send("GET /count/2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    EXPECT_NE(raw.read_all().find("n=2"), std::string::npos);
  }
  {
    RawConnection raw(server_->port());
    raw.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
    EXPECT_EQ(raw.read_until("\r\n\r\n"), "HTTP/1.1 100 Continue\r\n\r\n");
    raw.send("body");
    EXPECT_NE(raw.read_until("|body").find("HTTP/1.1 200 OK"), std::string::npos);
  }
}

TEST_F(HttpServerTest, AnswersManyClientsAtOnce) {
  start();
  constexpr int kThreads = 8;
  constexpr int kRequests = 200;
  std::atomic<int> correct{0};
  std::vector<std::unique_ptr<Client>> clients;
  for (int t = 0; t < kThreads; ++t) clients.push_back(std::make_unique<Client>(base_url_));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRequests; ++i) {
        const std::string n = std::to_string(t * 1000 + i);
        auto response = clients[t]->request("GET", "/count/" + n);
        if (response.ok() && response->status == 200 && response->body == "n=" + n) ++correct;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(correct.load(), kThreads * kRequests);
  EXPECT_EQ(server_->open_connections(), size_t(kThreads));  // one kept-alive connection per client
}

TEST_F(HttpServerTest, StopsGracefully) {
  start();
  Client idle_client(base_url_);
  ASSERT_TRUE(idle_client.request("GET", "/count/1").ok());

  Result<ClientResponse> slow = make_error("not answered");
  std::thread slow_caller([&] {
    Client client(base_url_);
    slow = client.request("GET", "/slow");
  });
  wait_until([&] { return server_->busy_workers() != 0; });
  ASSERT_EQ(server_->busy_workers(), 1u);

  const auto stop_began = std::chrono::steady_clock::now();
  server_->stop();
  const auto stop_took = std::chrono::steady_clock::now() - stop_began;
  slow_caller.join();

  ASSERT_TRUE(slow.ok()) << slow.error().message;
  EXPECT_EQ(slow->status, 200);
  EXPECT_EQ(slow->body, "slow and complete");
  EXPECT_EQ(slow->header("connection"), "close");
  EXPECT_LT(stop_took, 3s);  // the idle connection did not hold stop up
  EXPECT_EQ(server_->open_connections(), 0u);

  Client late(base_url_);
  auto refused = late.request("GET", "/count/2");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find(base_url_ + "/count/2"), std::string::npos) << refused.error().message;

  server_->stop();  // harmless
  server_->wait();  // returns at once
}

TEST_F(HttpServerTest, StopAnswersARequestThatHasBegunToArrive) {
  start();
  RawConnection idle(server_->port());
  RawConnection uploading(server_->port());
  ASSERT_TRUE(idle.connected());
  ASSERT_TRUE(uploading.connected());
  // The server answers 100 Continue once it has read the headers: the
  // request has begun to arrive before the stop, however loaded the machine.
  uploading.send(
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n"
      "Expect: 100-continue\r\n\r\n");
  ASSERT_NE(uploading.read_until("\r\n\r\n").find("100 Continue"), std::string::npos);

  std::thread stopper([&] { server_->stop(); });
  EXPECT_TRUE(idle.closed_without_answer());
  uploading.send("helloworld");
  const std::string answer = uploading.read_all();
  stopper.join();

  EXPECT_NE(answer.find("HTTP/1.1 200 OK"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  EXPECT_NE(answer.find("text/plain||helloworld"), std::string::npos) << answer;
  EXPECT_EQ(server_->open_connections(), 0u);
}

TEST_F(HttpServerTest, StopWaitsForAStalledRequestOnlyForItsGrace) {
  start_with_stop_grace(1s);
  RawConnection stalled(server_->port());
  stall(stalled);

  const auto stop_began = std::chrono::steady_clock::now();
  server_->stop();
  const auto stop_took = std::chrono::steady_clock::now() - stop_began;
  EXPECT_GE(stop_took, 900ms);  // the request had begun: it had its grace
  EXPECT_LT(stop_took, 4s);
  EXPECT_TRUE(stalled.closed_without_answer());
  EXPECT_EQ(server_->open_connections(), 0u);
}

// end_grace cuts the grace short, whether the stop has begun or not (two
// signals may arrive before the stop starts).
TEST_F(HttpServerTest, EndGraceClosesAStalledRequestAtOnce) {
  for (const bool before_stop : {true, false}) {
    SCOPED_TRACE(before_stop ? "end_grace before stop" : "end_grace during stop");
    start_with_stop_grace(60s);
    RawConnection stalled(server_->port());
    stall(stalled);

    const auto stop_began = std::chrono::steady_clock::now();
    if (before_stop) {
      server_->end_grace();
      server_->stop();
    } else {
      std::thread stopper([&] { server_->stop(); });
      std::this_thread::sleep_for(300ms);
      EXPECT_EQ(server_->open_connections(), 1u) << "the grace had begun";
      server_->end_grace();
      stopper.join();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - stop_began, 10s);
    EXPECT_TRUE(stalled.closed_without_answer());
    EXPECT_EQ(server_->open_connections(), 0u);
  }
}

TEST_F(HttpServerTest, StopAnswersPipelinedRequestsAlreadyReceived) {
  start();
  RawConnection pipelined(server_->port());
  // The slow request holds a worker while the second one waits in the buffer.
  pipelined.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /count/7 HTTP/1.1\r\nHost: x\r\n\r\n");
  wait_until([&] { return server_->busy_workers() != 0; });
  server_->stop();
  const std::string answers = pipelined.read_all();
  EXPECT_NE(answers.find("slow and complete"), std::string::npos) << answers;
  EXPECT_NE(answers.find("n=7"), std::string::npos) << answers;
  EXPECT_EQ(count_of(answers, "Connection: close"), 1u) << answers;
}

TEST_F(HttpServerTest, TellsWhatItRefusesBeforeAnyHandler) {
  std::vector<std::tuple<std::string, int, std::chrono::nanoseconds>> refused;
  std::mutex refused_mutex;
  ServerOptions options;
  options.body_limit = 1024;
  options.on_refused = [&](std::string_view method, int status, std::chrono::nanoseconds elapsed) {
    std::lock_guard lock(refused_mutex);
    refused.emplace_back(std::string(method), status, elapsed);
  };
  start(options);
  Client client(base_url_);
  ASSERT_EQ(client.request("POST", "/echo", std::string(4096, 'b'), "text/plain")->status, 413);
  RawConnection garbled(server_->port());
  garbled.send("NOT HTTP\r\n\r\n");
  EXPECT_TRUE(garbled.read_all().starts_with("HTTP/1.1 400 "));
  ASSERT_EQ(client.request("GET", "/count/1")->status, 200);  // a handler's answer is not a refusal

  std::lock_guard lock(refused_mutex);
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(std::get<0>(refused[0]), "POST");
  EXPECT_EQ(std::get<1>(refused[0]), 413);
  EXPECT_EQ(std::get<0>(refused[1]), "");
  EXPECT_EQ(std::get<1>(refused[1]), 400);
  EXPECT_GE(std::get<2>(refused[0]).count(), 0);
}

TEST_F(HttpServerTest, WaitReturnsAfterStopFromAnotherThread) {
  start();
  std::thread stopper([&] {
    std::this_thread::sleep_for(50ms);
    server_->stop();
  });
  server_->wait();
  stopper.join();
  EXPECT_EQ(server_->open_connections(), 0u);
}

TEST(ServerStartTest, NamesTheAddressWhenItCannotListen) {
  Server first({}, answer_nothing, render_error);
  ASSERT_TRUE(first.start().ok());
  ServerOptions taken;
  taken.port = first.port();
  Server second(taken, answer_nothing, render_error);
  const Status started = second.start();
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.error().message.find("127.0.0.1:" + std::to_string(first.port())), std::string::npos)
      << started.error().message;
}

TEST_F(HttpServerTest, RendersMetrics) {
  start();
  Client client(base_url_);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(client.request("GET", "/api/v1/stacks/s" + std::to_string(i) + "/labels/x").ok());
  ASSERT_TRUE(client.request("POST", "/api/v1/stacks/s/labels/x", "{}").ok());
  ASSERT_TRUE(client.request("GET", "/nothing").ok());
  ASSERT_TRUE(client.request("GET", "/slow").ok());

  const std::string text = metrics_.render({{"sindri_db_pool_in_use", "Connections in use.", 2},
                                            {"sindri_http_open_connections", "Open connections.", 1.5},
                                            {"sindri_db_writes_total", "Writes.", 7, true}});
  const std::string route = "route=\"/api/v1/stacks/{id}/labels/{label}\"";
  EXPECT_NE(text.find("# TYPE sindri_http_requests_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("sindri_http_requests_total{" + route + ",method=\"GET\",status=\"200\"} 3\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("sindri_http_requests_total{" + route + ",method=\"POST\",status=\"201\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("sindri_http_requests_total{route=\"\",method=\"GET\",status=\"404\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE sindri_http_request_duration_seconds histogram\n"), std::string::npos);
  const std::string get_200 = route + ",method=\"GET\",status=\"200\"";
  EXPECT_NE(text.find("sindri_http_request_duration_seconds_bucket{" + get_200 + ",le=\"+Inf\"} 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("sindri_http_request_duration_seconds_count{" + get_200 + "} 3\n"), std::string::npos);
  EXPECT_NE(text.find("sindri_http_request_duration_seconds_sum{" + get_200 + "} "), std::string::npos);
  EXPECT_NE(text.find("sindri_http_request_duration_seconds_count{route=\"\",method=\"GET\",status=\"404\"} 1\n"),
            std::string::npos);
  // The slow handler sleeps 300 ms: above the 0.25 s bucket, inside the 0.5 s one.
  const std::string slow = "route=\"/slow\",method=\"GET\",status=\"200\"";
  EXPECT_NE(text.find("sindri_http_request_duration_seconds_bucket{" + slow + ",le=\"0.25\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("sindri_http_request_duration_seconds_bucket{" + slow + ",le=\"0.5\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("# HELP sindri_db_pool_in_use Connections in use.\n# TYPE sindri_db_pool_in_use gauge\n"
                      "sindri_db_pool_in_use 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("sindri_http_open_connections 1.5\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE sindri_db_writes_total counter\nsindri_db_writes_total 7\n"), std::string::npos);
  EXPECT_EQ(count_of(text, "le=\""), 15u * 4);  // 15 buckets for each of 4 route/method/status series
}

TEST(MetricsTest, HistogramAddsUpUnderConcurrency) {
  Metrics metrics;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&metrics, t] {
      for (int i = 0; i < 1000; ++i) {
        metrics.observe("/r", "GET", i % 2 == 0 ? 200 : 500, std::chrono::microseconds(100 * (i % 50 + t)));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::string text = metrics.render({});
  EXPECT_NE(text.find("sindri_http_requests_total{route=\"/r\",method=\"GET\",status=\"200\"} 2000\n"),
            std::string::npos);
  EXPECT_NE(text.find("sindri_http_requests_total{route=\"/r\",method=\"GET\",status=\"500\"} 2000\n"),
            std::string::npos);
  EXPECT_NE(text.find("sindri_http_request_duration_seconds_count{route=\"/r\",method=\"GET\",status=\"500\"} 2000\n"),
            std::string::npos);
  EXPECT_NE(text.find("status=\"200\",le=\"+Inf\"} 2000\n"), std::string::npos);
  // Within a series, cumulative buckets never go down.
  uint64_t previous = 0;
  std::string series;
  for (size_t at = text.find("_bucket{"); at != std::string::npos; at = text.find("_bucket{", at + 1)) {
    const std::string labels = text.substr(at, text.find(",le=", at) - at);
    if (labels != series) previous = 0;
    series = labels;
    const size_t value_at = text.find("} ", at) + 2;
    const uint64_t value = std::stoull(text.substr(value_at, text.find('\n', value_at) - value_at));
    EXPECT_GE(value, previous);
    previous = value;
  }
  // Every latency here is between 0.1 and 5.2 ms.
  EXPECT_EQ(count_of(text, "le=\"0.01\"} 2000\n"), 2u);
}

TEST(MetricsTest, EscapesLabelValues) {
  Metrics metrics;
  metrics.observe("/a\"b\\c\nd", "GET", 200, std::chrono::milliseconds(1));
  const std::string text = metrics.render({{"g", "line one\nline \\two", -1}});
  EXPECT_NE(text.find("route=\"/a\\\"b\\\\c\\nd\""), std::string::npos) << text;
  EXPECT_NE(text.find("le=\"0.001\"} 1\n"), std::string::npos);  // 1 ms falls in the 1 ms bucket
  EXPECT_NE(text.find("# HELP g line one\\nline \\\\two\n"), std::string::npos);
  EXPECT_NE(text.find("\ng -1\n"), std::string::npos);
}

TEST(ClientTest, ReportsTransportFailuresWithTheUrl) {
  uint16_t closed_port = 0;
  {
    Server server({}, answer_nothing, render_error);
    ASSERT_TRUE(server.start().ok());
    closed_port = server.port();
  }
  Client client("http://127.0.0.1:" + std::to_string(closed_port) + "/");
  client.set_timeout_ms(2000);
  auto response = client.request("GET", "/x");
  ASSERT_FALSE(response.ok());
  EXPECT_NE(response.error().message.find("GET http://127.0.0.1:" + std::to_string(closed_port) + "/x"),
            std::string::npos)
      << response.error().message;
}

TEST(ClientTest, TimesOut) {
  const Handler answer_late = [](Request&) {
    std::this_thread::sleep_for(500ms);
    return Response{};
  };
  Server server({}, answer_late, render_error);
  ASSERT_TRUE(server.start().ok());
  Client client("http://127.0.0.1:" + std::to_string(server.port()));
  client.set_timeout_ms(100);
  auto response = client.request("GET", "/x");
  ASSERT_FALSE(response.ok());
  EXPECT_NE(response.error().message.find("timed out"), std::string::npos) << response.error().message;
}

}  // namespace
}  // namespace sindri::http
