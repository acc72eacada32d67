#pragma once
// A blocking HTTP client over libcurl, for the `sindri` client verbs, the
// agent and the tests. One Client per thread; it keeps its connection alive
// between requests.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/server.hpp"
#include "value/result.hpp"

namespace sindri::http {

struct ClientResponse {
  int status = 0;
  std::string body;
  std::vector<Header> headers;
  std::string_view header(std::string_view name) const;  // case-insensitive, "" if absent
};

class Client {
 public:
  // base_url: "http://127.0.0.1:8080" (no trailing slash needed).
  explicit Client(std::string base_url);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sets the Authorization header sent with every request ("" for none).
  void set_authorization(std::string value);
  void set_timeout_ms(long ms);
  // Asks for gzip (Accept-Encoding) and hands back the decoded body; the
  // response's Content-Encoding header still tells what was sent.
  void set_accept_gzip(bool accept);

  // path_and_query is appended to the base URL. A non-empty body is sent with
  // Content-Type application/json unless content_type says otherwise. Errors
  // are transport failures only (connection refused, timeout); any HTTP
  // status is a response.
  Result<ClientResponse> request(std::string_view method, std::string_view path_and_query,
                                 std::string_view body = {}, std::string_view content_type = "application/json");

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sindri::http
