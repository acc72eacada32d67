#pragma once
// Tests of the broker talk HTTP to a real `sindri serve` process. This runs
// one on a free loopback port, on SQLite (a file in a scratch directory) or
// on PostgreSQL (the server scripts/with-postgres.sh started): in
// multi-tenant mode, in a schema of its own so that tests never see each
// other's rows, or in the default mode, in a database of its own.

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
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "http/client.hpp"
#include "postgres_admin.hpp"
#include "support/test_postgres.hpp"
#include "value/json.hpp"

extern char** environ;

namespace sindri_test {

namespace fs = std::filesystem;

// Postgres: a tenant schema (--database-schema); PostgresPublic: no schema,
// the tables in `public` of a database created for the test.
enum class Backend { Sqlite, Postgres, PostgresPublic };

inline std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  switch (info.param) {
    case Backend::Sqlite:
      return "Sqlite";
    case Backend::Postgres:
      return "Postgres";
    case Backend::PostgresPublic:
      return "PostgresPublic";
  }
  return "Unknown";
}

inline std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

class BrokerProcess {
 public:
  // A scratch directory, and a database URL for the backend. On PostgreSQL
  // the server is test_postgres()'s, with a fresh tenant schema.
  explicit BrokerProcess(Backend backend) : backend_(backend), dir_(scratch_directory()) {
    if (backend == Backend::Sqlite) {
      database_ = "sqlite://" + (dir_ / "sindri.db").string();
    } else {
      const std::optional<TestPostgres> server = test_postgres();
      if (!server) {
        ADD_FAILURE() << kNoTestPostgres;
        database_.clear();
        return;
      }
      std::random_device random;
      const std::string name = "t" + std::to_string(random()) + std::to_string(::getpid());
      if (backend == Backend::Postgres) {
        database_ = server->url;
        schema_ = name;
      } else {
        admin_url_ = !server->admin_url.empty() ? server->admin_url : with_database(server->url, "postgres");
        if (run_on_postgres_server(admin_url_, "CREATE DATABASE " + name)) {
          database_ = with_database(server->url, name);
          owned_database_ = name;
        }
      }
    }
  }
  // Another broker on the database of `first`, as several brokers share one
  // PostgreSQL; its files go to a scratch directory of its own. The admin
  // PAK is first's: the database was initialised once. So is the webhook
  // encryption key, which every broker on a database must share.
  struct SharedDatabase {};
  BrokerProcess(const BrokerProcess& first, SharedDatabase)
      : backend_(first.backend_),
        dir_(scratch_directory()),
        database_(first.database_),
        schema_(first.schema_),
        webhook_key_file_(first.dir_ / "webhook.key") {}
  ~BrokerProcess() {
    report_unexpected_exit();
    stop();
    if (!owned_database_.empty()) {
      run_on_postgres_server(admin_url_, "DROP DATABASE IF EXISTS " + owned_database_ + " WITH (FORCE)");
    }
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  BrokerProcess(const BrokerProcess&) = delete;
  BrokerProcess& operator=(const BrokerProcess&) = delete;

  bool usable() const { return !database_.empty(); }
  const fs::path& dir() const { return dir_; }
  const std::string& database() const { return database_; }
  const std::string& schema() const { return schema_; }
  // The database created for this broker (PostgresPublic), else empty, and
  // the URL of the server's maintenance database that created it.
  const std::string& owned_database() const { return owned_database_; }
  const std::string& admin_url() const { return admin_url_; }
  std::string url() const { return "http://" + address_; }
  uint16_t port() const { return static_cast<uint16_t>(std::stoi(address_.substr(address_.rfind(':') + 1))); }
  std::string admin_pak() const { return trimmed(slurp(dir_ / "admin.pak")); }
  std::string log() const { return slurp(dir_ / "broker.log"); }

  // Starts `sindri serve` and waits until it listens. Extra flags go last;
  // `environment` ("NAME=value") is added to this process's.
  void start(const std::vector<std::string>& extra = {}, const std::vector<std::string>& environment = {}) {
    const fs::path address_file = dir_ / "address";
    std::error_code ignored;
    fs::remove(address_file, ignored);
    std::vector<std::string> args = serve_args();
    args.push_back("--address-file");
    args.push_back(address_file.string());
    for (const auto& arg : extra) args.push_back(arg);
    pid_ = spawn(args, "/dev/null", (dir_ / "broker.log").string(), environment);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      const std::string address = trimmed(slurp(address_file));
      if (!address.empty()) {
        address_ = address;
        return;
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("sindri serve exited before listening:\n" + log());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("sindri serve did not listen within 30 s:\n" + log());
  }

  // `sindri serve` with this broker's database and admin PAK file and
  // `extra` flags, run to its end as an operator's one-off command (while
  // this one runs or not): its exit status, and its stdout then stderr.
  struct Ran {
    int status = -1;
    std::string output;
  };
  Ran run_serve_command(const std::vector<std::string>& extra) const {
    std::vector<std::string> args = serve_args();
    for (const auto& arg : extra) args.push_back(arg);
    const fs::path out = dir_ / "command.out";
    const fs::path err = dir_ / "command.err";
    const pid_t pid = spawn(args, out.string(), err.string(), {});
    int status = 0;
    waitpid(pid, &status, 0);
    return Ran{exit_status(status), slurp(out) + slurp(err)};
  }

  // SIGTERM and wait; returns the exit status (-1 if not running).
  int stop() { return signal_and_wait(SIGTERM); }
  int kill() { return signal_and_wait(SIGKILL); }
  void send_signal(int signal_number) const {
    if (pid_ > 0) ::kill(pid_, signal_number);
  }
  // The exit status once the broker has exited, if it does within `limit`.
  std::optional<int> wait_for_exit(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (pid_ > 0) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return exit_status(status);
      }
      if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return std::nullopt;
  }
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // A client with a PAK set ("" for none).
  std::unique_ptr<sindri::http::Client> client(const std::string& pak) const {
    auto client = std::make_unique<sindri::http::Client>(url());
    if (!pak.empty()) client->set_authorization("Bearer " + pak);
    return client;
  }

 private:
  // A broker that died under a test takes its reason with it unless its log
  // is shown: a sanitizer's report or a crash message is there.
  void report_unexpected_exit() {
    if (pid_ <= 0) return;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) != pid_) return;
    pid_ = -1;
    ADD_FAILURE() << "sindri serve exited under the test ("
                  << (WIFEXITED(status) ? "status " + std::to_string(WEXITSTATUS(status))
                                        : "signal " + std::to_string(WTERMSIG(status)))
                  << "); its log:\n"
                  << log();
  }

  int signal_and_wait(int signal_number) {
    if (pid_ <= 0) return -1;
    ::kill(pid_, signal_number);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return exit_status(status);
  }

  std::vector<std::string> serve_args() const {
    std::vector<std::string> args = {SINDRI_BIN,  "serve",          "--listen",        "127.0.0.1:0",
                                     "--database", database_,       "--admin-pak-file", (dir_ / "admin.pak").string()};
    if (!schema_.empty()) {
      args.push_back("--database-schema");
      args.push_back(schema_);
    }
    if (!webhook_key_file_.empty()) {
      args.push_back("--webhooks-encryption-key-file");
      args.push_back(webhook_key_file_.string());
    }
    return args;
  }

  // stdout and stderr are appended to the files named.
  static pid_t spawn(std::vector<std::string> args, const std::string& out, const std::string& err,
                     std::vector<std::string> environment) {
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    std::vector<char*> envp;
    for (char** inherited = environ; *inherited != nullptr; ++inherited) envp.push_back(*inherited);
    for (auto& variable : environment) envp.push_back(variable.data());
    envp.push_back(nullptr);
    pid_t pid = -1;
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) throw std::runtime_error("cannot start sindri serve");
    return pid;
  }

  static int exit_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

  static fs::path scratch_directory() {
    std::string pattern = (fs::temp_directory_path() / "sindri-broker-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    return pattern;
  }

  Backend backend_;
  fs::path dir_;
  std::string database_;
  std::string schema_;
  fs::path webhook_key_file_;  // empty: the broker's own, beside its admin PAK
  std::string owned_database_;  // created for this broker, dropped with it
  std::string admin_url_;
  std::string address_;
  pid_t pid_ = -1;
};

// One call, its status and its body parsed as JSON (null for an empty body).
struct Reply {
  int status = 0;
  sindri::Value json;
  std::string body;
  std::string header_allow;
};

inline Reply call(sindri::http::Client& client, const std::string& method, const std::string& path,
                  const std::string& body = {}, const std::string& content_type = "application/json") {
  auto response = client.request(method, path, body, content_type);
  if (!response.ok()) throw std::runtime_error("transport error: " + response.error().message);
  Reply reply;
  reply.status = response->status;
  reply.body = response->body;
  reply.header_allow = std::string(response->header("Allow"));
  if (!reply.body.empty()) {
    auto parsed = sindri::parse_json(reply.body);
    if (parsed.ok()) reply.json = std::move(parsed).value();
  }
  return reply;
}

// `text` as a JSON string literal, quotes included.
inline std::string json_string(std::string_view text) {
  std::string out;
  sindri::append_json_string(out, text);
  return out;
}

inline std::string text_of(const sindri::Value& object, std::string_view key) {
  const sindri::Value* value = object.find(key);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

}  // namespace sindri_test
