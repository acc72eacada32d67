#include "kube/client.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "http/client.hpp"
#include "kube/exec_credential.hpp"
#include "kube/paths.hpp"
#include "value/file_text.hpp"
#include "value/json.hpp"

namespace sindri::kube {
namespace {

using Clock = std::chrono::steady_clock;

// A group version's discovery document is asked for this many times (with
// the policy's waits between) before a 503 counts as an aggregated API that is
// down: waiting out give_up_after for one would stall every discovery.
constexpr int kGroupDiscoveryAttempts = 3;

// send()'s attempts when the retry policy alone decides.
constexpr int kAttemptsUnlimited = 0;

// An exec credential this close to its expiry is fetched again.
constexpr int64_t kExpiryMarginMicros = 10'000'000;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

int64_t now_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

KubeError invalid(std::string message) { return KubeError{400, "Invalid", std::move(message)}; }

Result<Value, KubeError> parse_body(std::string_view what, const std::string& body) {
  auto parsed = parse_json(body);
  if (!parsed.ok())
    return KubeError{0, "", std::string(what) + ": the answer is not JSON: " + parsed.error().describe()};
  return std::move(parsed).value();
}

std::string query_part(std::string_view key, std::string_view value) {
  return std::string(key) + "=" + http::percent_encode(value);
}

}  // namespace

struct Client::Impl {
  ClusterConfig config;
  RetryPolicy retry;
  std::function<void(const OperationRecord&)> observer;
  size_t list_page_size = 500;
  const std::atomic<bool>* stopping = nullptr;

  std::mutex mutex;  // guards everything below
  http::Client http;
  std::optional<ExecCredential> exec_credential;
  std::string exec_certificate_in_use;  // the exec client certificate the TLS settings hold
  std::string token_file_text;
  std::filesystem::file_time_type token_file_time;
  std::optional<Discovery> discovery;

  Impl(ClusterConfig cluster, RetryPolicy policy) : config(std::move(cluster)), retry(policy), http(config.server) {
    http.set_timeout_ms(static_cast<long>(retry.request_timeout * 1000));
    set_tls("", "");
  }

  void set_tls(const std::string& certificate, const std::string& key) {
    http::Client::TlsSettings tls;
    tls.ca_pem = config.ca_pem;
    tls.insecure_skip_verify = config.insecure_skip_tls_verify;
    tls.client_certificate_pem = certificate.empty() ? config.client_certificate_pem : certificate;
    tls.client_key_pem = certificate.empty() ? config.client_key_pem : key;
    http.set_tls(std::move(tls));
  }

  void record(std::string_view operation, bool ok, Clock::time_point start) const {
    if (observer) observer(OperationRecord{operation, ok, seconds_since(start)});
  }

  // The bearer token to send, reading a token file again when it changed.
  Result<std::string, KubeError> token(std::string_view what) {
    if (config.exec) {
      const bool expired = exec_credential && exec_credential->expires_micros &&
                           *exec_credential->expires_micros - kExpiryMarginMicros <= now_micros();
      if (!exec_credential || expired) {
        auto credential = run_exec_plugin(*config.exec);
        if (!credential.ok()) return KubeError{401, "", std::string(what) + ": " + credential.error().message};
        exec_credential = std::move(credential).value();
      }
      if (exec_credential->client_certificate_pem != exec_certificate_in_use) {
        exec_certificate_in_use = exec_credential->client_certificate_pem;
        set_tls(exec_credential->client_certificate_pem, exec_credential->client_key_pem);
      }
      return exec_credential->token;
    }
    if (!config.token.empty() || config.token_file.empty()) return config.token;
    std::error_code error;
    const auto time = std::filesystem::last_write_time(config.token_file, error);
    if (token_file_text.empty() || error || time != token_file_time) {
      auto text = read_file_text(config.token_file, "token file");
      if (!text.ok()) return KubeError{401, "", std::string(what) + ": " + text.error().message};
      token_file_text = std::move(text).value();
      while (!token_file_text.empty() && (token_file_text.back() == '\n' || token_file_text.back() == '\r')) {
        token_file_text.pop_back();
      }
      token_file_time = time;
    }
    return token_file_text;
  }

  // One request (two when an exec credential is refused and a fresh one is fetched).
  Result<http::ClientResponse, KubeError> attempt(std::string_view method, std::string_view path, std::string_view body,
                                                  std::string_view content_type, std::string_view what) {
    std::lock_guard lock(mutex);
    for (int round = 0;; ++round) {
      SINDRI_TRY(bearer, token(what));
      http.set_authorization(bearer.empty() ? "" : "Bearer " + bearer);
      auto response = http.request(method, path, body, content_type);
      if (!response.ok()) return KubeError{0, "", std::string(what) + ": " + response.error().message};
      if (response->status == 401 && config.exec && round == 0) {
        exec_credential.reset();  // revoked or expired early: ask the plugin again
        continue;
      }
      if (response->status >= 400) return error_from_response(what, response->status, response->body);
      return std::move(response).value();
    }
  }

  Result<http::ClientResponse, KubeError> send(std::string_view method, std::string_view path, std::string_view what,
                                               std::string_view body = {},
                                               std::string_view content_type = "application/json",
                                               int attempts_allowed = kAttemptsUnlimited) {
    const auto start = Clock::now();
    double delay = retry.initial_delay;
    int attempts = 0;
    for (;;) {
      auto outcome = attempt(method, path, body, content_type, what);
      ++attempts;
      if (outcome.ok()) return outcome;
      KubeError error = std::move(outcome).error();
      if (!error.retryable()) return error;
      if (stopped() || attempts == attempts_allowed || seconds_since(start) + delay > retry.give_up_after) {
        error.message += " (gave up after " + std::to_string(attempts) + (attempts == 1 ? " attempt)" : " attempts)");
        return error;
      }
      wait(delay);
      delay = std::min(delay * 2, retry.max_delay);
    }
  }

  bool stopped() const { return stopping != nullptr && stopping->load(); }

  // Sleeps `seconds`, in slices of at most a tenth of a second while a stop flag is watched.
  void wait(double seconds) const {
    const auto until =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    while (!stopped()) {
      const auto left = until - Clock::now();
      if (left <= Clock::duration::zero()) return;
      std::this_thread::sleep_for(
          stopping == nullptr ? left : std::min<Clock::duration>(left, std::chrono::milliseconds(100)));
    }
  }

  Result<Discovery, KubeError> discover() {
    Discovery found;
    SINDRI_TRY(core_answer, send("GET", "/api", "discovery /api"));
    SINDRI_TRY(core, parse_body("discovery /api", core_answer.body));
    SINDRI_TRY(groups_answer, send("GET", "/apis", "discovery /apis"));
    SINDRI_TRY(groups, parse_body("discovery /apis", groups_answer.body));
    std::vector<GroupVersion> versions = parse_core_versions(core);
    for (GroupVersion& version : parse_group_list(groups)) versions.push_back(std::move(version));
    for (const GroupVersion& version : versions) {
      const std::string path =
          version.group.empty() ? "/api/" + version.version : "/apis/" + version.group + "/" + version.version;
      auto answer = send("GET", path, "discovery " + path, {}, "application/json", kGroupDiscoveryAttempts);
      if (!answer.ok()) {
        // An aggregated API that is down (metrics-server, say) leaves its
        // kinds out, as kubectl does, rather than failing all the others.
        const bool unavailable = answer.error().status == 503 || answer.error().reason == "ServiceUnavailable";
        if (version.group.empty() || !unavailable) return std::move(answer).error();
        found.unavailable.push_back(version.group + "/" + version.version);
        continue;
      }
      SINDRI_TRY(list, parse_body("discovery " + path, answer->body));
      for (ResourceType& type : parse_resource_list(list, version.group, version.version, version.preferred)) {
        found.types.push_back(std::move(type));
      }
    }
    return found;
  }

  Result<Discovery, KubeError> cached_discovery() {
    {
      std::lock_guard lock(mutex);
      if (discovery) return *discovery;
    }
    SINDRI_TRY(found, discover());
    std::lock_guard lock(mutex);
    discovery = found;
    return found;
  }
};

Client::Client(ClusterConfig config, RetryPolicy retry) : impl_(std::make_unique<Impl>(std::move(config), retry)) {}

Client::~Client() = default;

const ClusterConfig& Client::config() const { return impl_->config; }

void Client::on_operation(std::function<void(const OperationRecord&)> observer) {
  impl_->observer = std::move(observer);
}

void Client::stop_retrying_when(const std::atomic<bool>* stopping) { impl_->stopping = stopping; }

void Client::set_list_page_size(size_t items) { impl_->list_page_size = std::max<size_t>(items, 1); }

Result<Value, KubeError> Client::version(Retries retries) {
  const auto start = Clock::now();
  auto answer = impl_->send("GET", "/version", "GET /version", {}, "application/json",
                            retries == Retries::policy ? kAttemptsUnlimited : 1);
  Result<Value, KubeError> out =
      answer.ok() ? parse_body("GET /version", answer->body) : Result<Value, KubeError>(std::move(answer).error());
  impl_->record("version", out.ok(), start);
  return out;
}

Result<Discovery, KubeError> Client::discovery() {
  const auto start = Clock::now();
  auto out = impl_->cached_discovery();
  impl_->record("discovery", out.ok(), start);
  return out;
}

Result<std::vector<ResourceType>, KubeError> Client::resource_types() {
  SINDRI_TRY(found, discovery());
  return std::move(found.types);
}

void Client::forget_discovery() {
  std::lock_guard lock(impl_->mutex);
  impl_->discovery.reset();
}

Result<ResourceType, KubeError> Client::find_type(std::string_view api_version, std::string_view kind) {
  const size_t slash = api_version.find('/');
  const std::string_view group = slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
  const std::string_view version = slash == std::string_view::npos ? api_version : api_version.substr(slash + 1);
  for (int round = 0; round < 2; ++round) {
    if (round == 1) forget_discovery();
    SINDRI_TRY(types, resource_types());
    for (const ResourceType& type : types) {
      if (type.group == group && type.version == version && type.kind == kind) return type;
    }
  }
  return KubeError{404, "NotFound",
                   "kind " + std::string(kind) + " of " + std::string(api_version) +
                       " is not served by the API server (not in its discovery documents)"};
}

Result<Value, KubeError> Client::get(const ResourceType& type, std::string_view ns, std::string_view name) {
  const auto start = Clock::now();
  const std::string what = "GET " + describe_object(type, ns, name);
  auto answer = impl_->send("GET", object_path(type, ns, name), what);
  Result<Value, KubeError> out =
      answer.ok() ? parse_body(what, answer->body) : Result<Value, KubeError>(std::move(answer).error());
  impl_->record("get", out.ok(), start);
  return out;
}

Result<std::vector<Value>, KubeError> Client::list(const ResourceType& type, std::string_view ns,
                                                   std::string_view label_selector, std::string_view field_selector) {
  const auto start = Clock::now();
  const std::string what =
      "LIST " + type.api_version() + " " + type.kind + (ns.empty() ? "" : " in " + std::string(ns));
  auto pages = [&]() -> Result<std::vector<Value>, KubeError> {
    std::vector<Value> items;
    std::string continue_token;
    do {
      std::string path = collection_path(type, ns) + "?" + query_part("limit", std::to_string(impl_->list_page_size));
      if (!label_selector.empty()) path += "&" + query_part("labelSelector", label_selector);
      if (!field_selector.empty()) path += "&" + query_part("fieldSelector", field_selector);
      if (!continue_token.empty()) path += "&" + query_part("continue", continue_token);
      SINDRI_TRY(answer, impl_->send("GET", path, what));
      SINDRI_TRY(page, parse_body(what, answer.body));
      if (const Value* page_items = page.find("items"); page_items != nullptr && page_items->is_array()) {
        for (Value item : page_items->get_array()) {
          if (!item.is_object()) continue;
          // A list's items leave out their apiVersion and kind.
          item.set("apiVersion", type.api_version());
          item.set("kind", type.kind);
          items.push_back(std::move(item));
        }
      }
      continue_token.clear();
      if (const Value* metadata = page.find("metadata"); metadata != nullptr) {
        if (const Value* token = metadata->find("continue"); token != nullptr && token->is_string()) {
          continue_token = token->get_string();
        }
      }
    } while (!continue_token.empty());
    return items;
  };
  auto out = pages();
  impl_->record("list", out.ok(), start);
  return out;
}

Result<Value, KubeError> Client::apply(const ResourceType& type, std::string_view ns, const Value& object,
                                       const ApplyOptions& options) {
  const auto start = Clock::now();
  const Value* metadata = object.find("metadata");
  const Value* name = metadata != nullptr ? metadata->find("name") : nullptr;
  Result<Value, KubeError> out = invalid("PATCH " + type.api_version() + " " + type.kind + ": no metadata.name");
  if (name != nullptr && name->is_string() && !name->get_string().empty()) {
    const std::string what = "PATCH " + describe_object(type, ns, name->get_string());
    if (type.namespaced && ns.empty()) {
      out = invalid(what + ": a namespaced kind needs a namespace");
    } else {
      std::string path =
          object_path(type, ns, name->get_string()) + "?" + query_part("fieldManager", options.field_manager);
      if (options.force) path += "&force=true";
      if (options.dry_run) path += "&dryRun=All";
      // JSON is YAML: the API server reads an apply patch either way.
      auto answer = impl_->send("PATCH", path, what, to_json(object), "application/apply-patch+yaml");
      out = answer.ok() ? parse_body(what, answer->body) : Result<Value, KubeError>(std::move(answer).error());
    }
  }
  impl_->record("apply", out.ok(), start);
  return out;
}

Result<Ok, KubeError> Client::remove(const ResourceType& type, std::string_view ns, std::string_view name,
                                     std::string_view propagation) {
  const auto start = Clock::now();
  const std::string what = "DELETE " + describe_object(type, ns, name);
  Value options = Object{};
  options.set("apiVersion", "v1");
  options.set("kind", "DeleteOptions");
  options.set("propagationPolicy", propagation);
  auto answer = impl_->send("DELETE", object_path(type, ns, name), what, to_json(options));
  Result<Ok, KubeError> out = Ok{};
  if (!answer.ok() && answer.error().status != 404) out = std::move(answer).error();
  impl_->record("delete", out.ok(), start);
  return out;
}

Result<std::string, KubeError> Client::get_text(std::string_view path_and_query) {
  const auto start = Clock::now();
  auto answer = impl_->send("GET", path_and_query, "GET " + std::string(path_and_query));
  Result<std::string, KubeError> out =
      answer.ok() ? Result<std::string, KubeError>(std::move(answer->body)) : std::move(answer).error();
  impl_->record("get_text", out.ok(), start);
  return out;
}

}  // namespace sindri::kube
