#include "http/client.hpp"

#include <curl/curl.h>

#include <mutex>

namespace sindri::http {

namespace {

void initialize_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t collect_body(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' || text.back() == '\n')) {
    text.remove_suffix(1);
  }
  return text;
}

// curl hands over one header line at a time, status lines included. A new
// status line (after "100 Continue", say) starts a fresh set of headers.
size_t collect_header(char* data, size_t size, size_t count, void* user) {
  auto& headers = *static_cast<std::vector<Header>*>(user);
  const std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) {
    headers.clear();
  } else if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
    headers.push_back({std::string(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1)))});
  }
  return size * count;
}

// On allocation failure the list stays as it was; the request goes without that header.
void append_header(curl_slist*& list, const std::string& line) {
  if (curl_slist* grown = curl_slist_append(list, line.c_str())) list = grown;
}

bool sends_body(std::string_view method, std::string_view body) {
  // POST, PUT and PATCH always carry a body, if only an empty one (Content-Length: 0).
  return !body.empty() || method == "POST" || method == "PUT" || method == "PATCH";
}

}  // namespace

std::string_view ClientResponse::header(std::string_view name) const { return find_header(headers, name); }

struct Client::Impl {
  std::string base_url;
  std::string authorization;
  long timeout_ms = 30'000;
  CURL* handle = nullptr;
  char error_text[CURL_ERROR_SIZE] = {};
  bool accept_gzip = false;
};

Client::Client(std::string base_url) : impl_(std::make_unique<Impl>()) {
  initialize_curl_once();
  while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();
  impl_->base_url = std::move(base_url);
  impl_->handle = curl_easy_init();
}

Client::~Client() {
  if (impl_->handle) curl_easy_cleanup(impl_->handle);
}

void Client::set_authorization(std::string value) { impl_->authorization = std::move(value); }

void Client::set_timeout_ms(long ms) { impl_->timeout_ms = ms; }

void Client::set_accept_gzip(bool accept) { impl_->accept_gzip = accept; }

Result<ClientResponse> Client::request(std::string_view method, std::string_view path_and_query, std::string_view body,
                                       std::string_view content_type) {
  const std::string url = impl_->base_url + std::string(path_and_query);
  const std::string method_text(method);
  CURL* handle = impl_->handle;
  if (!handle) return make_error(method_text + " " + url + ": cannot create a curl handle");

  // Reset clears every option of the previous request but keeps the open
  // connection, so the next request reuses it.
  curl_easy_reset(handle);
  ClientResponse response;
  impl_->error_text[0] = '\0';
  curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, impl_->timeout_ms);
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, impl_->error_text);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, collect_body);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, collect_header);
  curl_easy_setopt(handle, CURLOPT_HEADERDATA, &response.headers);
  if (impl_->accept_gzip) curl_easy_setopt(handle, CURLOPT_ACCEPT_ENCODING, "gzip");

  const bool with_body = method != "HEAD" && sends_body(method, body);
  if (method == "HEAD") {
    curl_easy_setopt(handle, CURLOPT_NOBODY, 1L);
  } else if (method != "POST" && (method != "GET" || with_body)) {
    // Other methods go by name, and so does a GET with a body (curl would send a POST).
    curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, method_text.c_str());
  }
  curl_slist* headers = nullptr;
  // curl would otherwise wait for "100 Continue" before sending larger bodies.
  append_header(headers, "Expect:");
  if (!impl_->authorization.empty()) append_header(headers, "Authorization: " + impl_->authorization);
  if (with_body) {
    curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(handle, CURLOPT_POSTFIELDS, body.empty() ? "" : body.data());
    // An empty body has no type; "Content-Type:" stops curl adding its form default.
    append_header(headers, body.empty() ? std::string("Content-Type:") : "Content-Type: " + std::string(content_type));
  }
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);

  const CURLcode code = curl_easy_perform(handle);
  curl_slist_free_all(headers);
  if (code != CURLE_OK) {
    const char* reason = impl_->error_text[0] != '\0' ? impl_->error_text : curl_easy_strerror(code);
    return make_error(method_text + " " + url + ": " + reason);
  }
  long status = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  return response;
}

}  // namespace sindri::http
