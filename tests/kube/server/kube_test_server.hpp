#pragma once
// A Kubernetes API test server for one test: kube_test_server.py (beside this
// header) run by Debian's python3 on a free loopback port, with a CA, a server
// certificate and a client certificate made by the openssl command in a
// scratch directory, and two kubeconfigs pointing at it. The destructor stops
// the server and removes the directory.
//
// What the server models is written at the top of kube_test_server.py. The
// test control calls here use its /_test/ endpoints, which need no client
// certificate (sindri::http::Client with the CA file).
//
// The constructor throws std::runtime_error when the server cannot start;
// the control calls throw when the server does not answer as expected.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "http/client.hpp"
#include "support/test_certificates.hpp"
#include "value/json.hpp"
#include "value/value.hpp"

extern char** environ;

namespace sindri_test {

// Outside the class so that it can be a default argument of the constructor.
struct KubeTestServerOptions {
  // true: API requests need the client certificate or the bearer token
  // (401 otherwise; without any credentials GET /version, /healthz, /readyz
  // and /livez answer, as for a real cluster's anonymous user); false:
  // anonymous requests are served everywhere.
  bool require_client_certificate = true;
  std::string token = "test-token";
  // Seconds a created CRD's kinds stay out of discovery, and a deleted
  // namespace stays Terminating before it and its contents are gone.
  double crd_discovery_delay = 0;
  double namespace_termination_delay = 0;
};

class KubeTestServer {
 public:
  using Options = KubeTestServerOptions;

  explicit KubeTestServer(Options options = {}) : options_(std::move(options)), dir_(scratch_directory()) {
    ca_file = (dir_ / "ca.crt").string();
    client_cert_file = (dir_ / "client.crt").string();
    client_key_file = (dir_ / "client.key").string();
    try {
      make_certificates();
      start();
      write_kubeconfigs();
    } catch (...) {
      stop();
      std::error_code ignored;
      std::filesystem::remove_all(dir_, ignored);
      throw;
    }
  }
  ~KubeTestServer() {
    stop();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  KubeTestServer(const KubeTestServer&) = delete;
  KubeTestServer& operator=(const KubeTestServer&) = delete;

  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  // Client certificate authentication, context "test".
  std::string kubeconfig_path() const { return (dir_ / "kubeconfig").string(); }
  // Bearer token authentication, context "test-token".
  std::string token_kubeconfig_path() const { return (dir_ / "token-kubeconfig").string(); }
  const std::filesystem::path& directory() const { return dir_; }
  // What the server wrote to stderr (its tracebacks, if any).
  std::string log() const { return slurp(dir_ / "server.log"); }

  std::string ca_file, client_cert_file, client_key_file;  // PEM files

  // Every API request seen (all but /_test/), answered or refused, in order:
  // [{method, path, query, content_type, body}].
  sindri::Value requests() const { return control("GET", "/_test/requests"); }
  void clear_requests() { control("DELETE", "/_test/requests"); }
  // The next `count` API requests with this method ("*": any) and a path
  // starting with path_prefix answer `status` with a Status body; status 0
  // closes the connection without an answer.
  void inject_failures(std::string_view method, std::string_view path_prefix, int status, int count) {
    sindri::Object failure;
    failure.push_back({"method", sindri::Value(method)});
    failure.push_back({"path_prefix", sindri::Value(path_prefix)});
    failure.push_back({"status", sindri::Value(status)});
    failure.push_back({"count", sindri::Value(count)});
    control("POST", "/_test/failures", sindri::to_json(sindri::Value(std::move(failure))));
  }
  // The next `count` matching API requests are answered as usual but
  // `seconds` late: a client to kill in the middle of an apply, or to time out.
  void hold_requests(std::string_view method, std::string_view path_prefix, double seconds, int count) {
    sindri::Object hold;
    hold.push_back({"method", sindri::Value(method)});
    hold.push_back({"path_prefix", sindri::Value(path_prefix)});
    hold.push_back({"hold_seconds", sindri::Value(seconds)});
    hold.push_back({"count", sindri::Value(count)});
    control("POST", "/_test/failures", sindri::to_json(sindri::Value(std::move(hold))));
  }
  // Stores the object as given, status included: uid and creationTimestamp
  // are filled in when absent, resourceVersion is the next one. Its kind must
  // be served (or its CRD stored) and it needs a name (and a namespace when
  // namespaced); nothing else is checked.
  void put_object(const sindri::Value& object) { control("POST", "/_test/objects", sindri::to_json(object)); }
  // Appends `lines` (newline-separated) to the log of a container of a pod
  // that exists, each line stamped now.
  void append_log(std::string_view ns, std::string_view pod, std::string_view container, std::string_view lines) {
    control("POST", "/_test/logs/" + std::string(ns) + "/" + std::string(pod) + "/" + std::string(container), lines);
  }
  // Every stored object, as a JSON array.
  sindri::Value objects() const { return control("GET", "/_test/objects"); }
  // Back to a fresh server: the default namespaces only, no requests, no failures.
  void reset() { control("POST", "/_test/reset"); }

 private:
  static std::filesystem::path scratch_directory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "sindri-kube-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("KubeTestServer: mkdtemp failed");
    return pattern;
  }

  static std::string slurp(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  // The script beside this header, unless the build names another.
  static std::string script_path() {
#ifdef SINDRI_KUBE_TEST_SERVER_SCRIPT
    return SINDRI_KUBE_TEST_SERVER_SCRIPT;
#else
    return (std::filesystem::path(__FILE__).parent_path() / "kube_test_server.py").string();
#endif
  }

  // The server's certificate and the client's, both signed by one CA.
  void make_certificates() const {
    const CertificateFiles authority = make_certificate_authority(dir_, "ca");
    make_server_certificate(dir_, "server", authority);
    make_client_certificate(dir_, "client", authority, "/O=system:masters/CN=sindri-test-user");
    run_openssl(dir_, "base64 -A -in ca.crt -out ca.crt.base64");
  }

  void start() {
    const std::filesystem::path port_file = dir_ / "port";
    // Debian's python3 (with python3-yaml), not whatever is first on PATH.
    std::vector<std::string> args = {"/usr/bin/python3",
                                     script_path(),
                                     "--port-file",
                                     port_file.string(),
                                     "--cert",
                                     (dir_ / "server.crt").string(),
                                     "--key",
                                     (dir_ / "server.key").string(),
                                     "--client-ca",
                                     ca_file,
                                     "--token",
                                     options_.token,
                                     "--crd-discovery-delay",
                                     std::to_string(options_.crd_discovery_delay),
                                     "--namespace-termination-delay",
                                     std::to_string(options_.namespace_termination_delay)};
    if (!options_.require_client_certificate) args.push_back("--allow-anonymous");
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    const std::string log_file = (dir_ / "server.log").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const int spawned = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
      pid_ = -1;
      throw std::runtime_error("KubeTestServer: cannot start /usr/bin/python3");
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      const std::string port = slurp(port_file);
      if (!port.empty()) {
        port_ = std::stoi(port);
        return;
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("KubeTestServer: the server exited before listening:\n" + log());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    throw std::runtime_error("KubeTestServer: the server did not listen within 30 s:\n" + log());
  }

  void stop() {
    control_client_.reset();
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  void write_kubeconfigs() const {
    const std::string ca_data = slurp(dir_ / "ca.crt.base64");
    const auto write = [&](const std::filesystem::path& path, const std::string& context, const std::string& user) {
      std::ofstream out(path);
      out << "apiVersion: v1\nkind: Config\n"
          << "clusters:\n- name: sindri-test\n  cluster:\n    server: " << url()
          << "\n    certificate-authority-data: " << ca_data << "\n"
          << "users:\n- name: " << context << "\n  user:\n" << user
          << "contexts:\n- name: " << context << "\n  context:\n    cluster: sindri-test\n    user: " << context
          << "\n    namespace: default\n"
          << "current-context: " << context << "\n";
    };
    write(kubeconfig_path(), "test",
          "    client-certificate: " + client_cert_file + "\n    client-key: " + client_key_file + "\n");
    write(token_kubeconfig_path(), "test-token", "    token: " + options_.token + "\n");
  }

  // One connection for the control calls, kept alive: a new client loads
  // the system's CA store again, tens of milliseconds each time.
  sindri::Value control(std::string_view method, std::string_view path, std::string_view body = {}) const {
    const std::lock_guard<std::mutex> lock(control_mutex_);
    if (!control_client_) {
      control_client_ = std::make_unique<sindri::http::Client>(url());
      control_client_->set_ca_file(ca_file);
      control_client_->set_timeout_ms(30000);
    }
    auto response = control_client_->request(method, path, body);
    if (!response.ok()) throw std::runtime_error("KubeTestServer: " + response.error().message);
    if (response->status / 100 != 2) {
      throw std::runtime_error("KubeTestServer: " + std::string(method) + " " + std::string(path) + " answered " +
                               std::to_string(response->status) + ": " + response->body);
    }
    auto parsed = sindri::parse_json(response->body);
    if (!parsed.ok()) throw std::runtime_error("KubeTestServer: " + std::string(path) + " answered no JSON");
    return std::move(parsed).value();
  }

  Options options_;
  std::filesystem::path dir_;
  mutable std::mutex control_mutex_;
  mutable std::unique_ptr<sindri::http::Client> control_client_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace sindri_test
