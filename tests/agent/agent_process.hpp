#pragma once
// A real `sindri agent run` process for the whole-flow tests: started with
// flags (intervals in fractions of a second), its stderr kept in a file,
// stopped with SIGTERM or waited for.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "broker/broker_process.hpp"

namespace sindri_test {

class AgentProcess {
 public:
  // `log` is where the agent's stderr goes (appended).
  AgentProcess(std::vector<std::string> args, fs::path log, std::vector<std::string> environment = {})
      : log_(std::move(log)) {
    std::vector<std::string> argv = {SINDRI_BIN, "agent", "run"};
    for (auto& arg : args) argv.push_back(std::move(arg));
    std::vector<char*> raw;
    for (auto& arg : argv) raw.push_back(arg.data());
    raw.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    // Only what the agent needs: no SINDRI_AGENT_* or BROKKR_* of the caller.
    std::vector<std::string> variables = {"PATH=/usr/bin:/bin"};
    for (auto& variable : environment) variables.push_back(std::move(variable));
    std::vector<char*> envp;
    for (auto& variable : variables) envp.push_back(variable.data());
    envp.push_back(nullptr);
    const int spawned = posix_spawn(&pid_, raw[0], &actions, nullptr, raw.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) throw std::runtime_error("cannot start sindri agent run");
  }
  ~AgentProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  AgentProcess(const AgentProcess&) = delete;
  AgentProcess& operator=(const AgentProcess&) = delete;

  std::string log() const { return slurp(log_); }

  // SIGTERM, then its exit status.
  int stop() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    return wait().value_or(-1);
  }
  int kill() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGKILL);
    return wait().value_or(-1);
  }
  // Its exit status once it exits within `limit`.
  std::optional<int> wait(std::chrono::milliseconds limit = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (pid_ > 0) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return std::nullopt;
  }
  bool running() const { return pid_ > 0; }

 private:
  fs::path log_;
  pid_t pid_ = -1;
};

// A free loopback port (bound and closed again).
inline uint16_t free_port() {
  const int socket_fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ::bind(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::getsockname(socket_fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(socket_fd);
  return ntohs(address.sin_port);
}

// A second `sindri serve` on the SQLite database and admin PAK of a
// BrokerProcess's directory, on a given port: a broker that can stop and
// come back at the same address.
class ServeProcess {
 public:
  ServeProcess(const fs::path& broker_dir, uint16_t port) : port_(port) {
    std::vector<std::string> args = {SINDRI_BIN,         "serve",
                                     "--listen",         "127.0.0.1:" + std::to_string(port),
                                     "--database",       "sqlite://" + (broker_dir / "sindri.db").string(),
                                     "--admin-pak-file", (broker_dir / "admin.pak").string()};
    std::vector<char*> raw;
    for (auto& arg : args) raw.push_back(arg.data());
    raw.push_back(nullptr);
    const std::string log = (broker_dir / "serve.log").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const int spawned = posix_spawn(&pid_, raw[0], &actions, nullptr, raw.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) throw std::runtime_error("cannot start sindri serve");
    sindri::http::Client client(url());
    const bool ready = [&] {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (std::chrono::steady_clock::now() < deadline) {
        auto answer = client.request("GET", "/readyz");
        if (answer.ok() && answer->status == 200) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      return false;
    }();
    if (!ready) throw std::runtime_error("sindri serve did not answer /readyz:\n" + slurp(log));
  }
  ~ServeProcess() { stop(); }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int stop() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  uint16_t port_;
  pid_t pid_ = -1;
};

// Polls `condition` every 10 ms until it holds or `limit` passes; whether it held.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

}  // namespace sindri_test
