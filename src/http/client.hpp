#pragma once
// A blocking HTTP and HTTPS client on Boost.Beast, for the `sindri` client
// verbs, the agent and the tests. One Client per thread; it keeps its
// connection alive between requests. HTTPS verifies the server's
// certificate against the system's store (and a CA file, when set), or
// against given PEM text, and that it names the host (or IP address).

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
  // base_url: "http://127.0.0.1:8080" or "https://host[:port][/prefix]"
  // (no trailing slash needed); any other URL fails each request.
  explicit Client(std::string base_url);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sets the Authorization header sent with every request ("" for none).
  void set_authorization(std::string value);
  // Further headers sent with every request (a webhook's event headers).
  void set_headers(std::vector<Header> headers);
  // The whole request, connecting included.
  void set_timeout_ms(long ms);
  // PEM certificates trusted besides the system's, for a broker whose
  // certificate a private CA signed.
  void set_ca_file(std::string path);
  // TLS as a kubeconfig describes it, certificates as PEM text: a CA that is
  // then the only one trusted, a client certificate and key for mutual TLS,
  // or no verification of the server at all.
  struct TlsSettings {
    std::string ca_pem;  // empty: the system's store (and set_ca_file's)
    std::string client_certificate_pem, client_key_pem;
    bool insecure_skip_verify = false;
  };
  void set_tls(TlsSettings settings);
  // How to mend a server certificate no trusted CA signed, ending that
  // error ("give its CA with --ca-file or SINDRI_CA_FILE"); by default
  // "give the CA that signed it".
  void set_untrusted_certificate_advice(std::string advice);
  // Asks for gzip (Accept-Encoding) and hands back the decoded body; the
  // response's Content-Encoding header still tells what was sent.
  void set_accept_gzip(bool accept);

  // path_and_query is appended to the base URL. A non-empty body is sent with
  // Content-Type application/json unless content_type says otherwise. Errors
  // are transport failures only (connection refused, timeout, a certificate
  // refused), as "METHOD URL: REASON"; any HTTP status is a response.
  // request_headers go with this request only (If-None-Match, say).
  Result<ClientResponse> request(std::string_view method, std::string_view path_and_query,
                                 std::string_view body = {}, std::string_view content_type = "application/json",
                                 const std::vector<Header>& request_headers = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sindri::http
