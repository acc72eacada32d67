#include "kube/exec_credential.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>
#include <vector>

#include "value/rfc3339.hpp"
#include "value/json.hpp"
#include "value/value.hpp"

extern char** environ;

namespace sindri::kube {
namespace {

// A plugin printing more than this is not printing a credential.
constexpr size_t kMaxOutputBytes = 1 << 20;

// The agent's own secrets, which no credential plugin has any use for.
constexpr std::string_view kWithheldVariables[] = {"SINDRI_AGENT_PAK", "BROKKR__AGENT__PAK"};

std::string_view variable_name(std::string_view entry) { return entry.substr(0, entry.find('=')); }

// Our environment without what the plugin's env sets (glibc's getenv would
// find our entry first) and without the agent's secrets, then the plugin's.
std::vector<std::string> plugin_environment(const ExecPlugin& plugin, const std::string& exec_info) {
  auto set_by_us = [&](std::string_view name) {
    if (name == "KUBERNETES_EXEC_INFO") return true;
    for (std::string_view withheld : kWithheldVariables) {
      if (name == withheld) return true;
    }
    for (const auto& [plugin_name, value] : plugin.env) {
      if (name == plugin_name) return true;
    }
    return false;
  };
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (!set_by_us(variable_name(*entry))) environment.emplace_back(*entry);
  }
  for (const auto& [name, value] : plugin.env) environment.push_back(name + "=" + value);
  environment.push_back("KUBERNETES_EXEC_INFO=" + exec_info);
  return environment;
}

struct Pipe {
  int read_end = -1, write_end = -1;
  ~Pipe() {
    if (read_end >= 0) close(read_end);
    if (write_end >= 0) close(write_end);
  }
  bool open() {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return false;
    read_end = ends[0];
    write_end = ends[1];
    return true;
  }
};

struct Output {
  std::string out, err;
  bool timed_out = false;
};

// Reads both pipes until the plugin closes them or the deadline passes.
Output collect(Pipe& out, Pipe& err, double timeout_seconds) {
  Output output;
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_seconds));
  pollfd fds[2] = {{out.read_end, POLLIN, 0}, {err.read_end, POLLIN, 0}};
  std::string* targets[2] = {&output.out, &output.err};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      output.timed_out = true;
      break;
    }
    const int ready = poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      const ssize_t got = read(fds[i].fd, buffer, sizeof(buffer));
      if (got > 0 && targets[i]->size() < kMaxOutputBytes) {
        targets[i]->append(buffer, static_cast<size_t>(got));
      } else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
        fds[i].fd = -1;
      }
    }
  }
  return output;
}

std::string exec_info(const ExecPlugin& plugin) {
  Value spec = Object{};
  spec.set("interactive", false);
  Value info = Object{};
  info.set("apiVersion", plugin.api_version);
  info.set("kind", "ExecCredential");
  info.set("spec", spec);
  return to_json(info);
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

Result<ExecCredential> parse_exec_credential(std::string_view json, std::string_view api_version) {
  auto parsed = parse_json(json);
  if (!parsed.ok()) return make_error("its output is not an ExecCredential: " + parsed.error().describe());
  const Value& credential = parsed.value();
  const Value* kind = credential.find("kind");
  if (kind == nullptr || !kind->is_string() || kind->get_string() != "ExecCredential") {
    return make_error("its output is not an ExecCredential (kind)");
  }
  const Value* version = credential.find("apiVersion");
  if (version == nullptr || !version->is_string() || version->get_string() != api_version) {
    return make_error("its output has apiVersion " + (version != nullptr ? to_json(*version) : "(none)") +
                      ", not the " + std::string(api_version) + " it was asked for");
  }
  const Value* status = credential.find("status");
  if (status == nullptr || !status->is_object()) return make_error("its ExecCredential has no status");
  ExecCredential out;
  auto text_of = [&](std::string_view key) -> Result<std::string> {
    const Value* member = status->find(key);
    if (member == nullptr || member->is_null()) return std::string();
    if (!member->is_string()) return make_error("its ExecCredential's status." + std::string(key) + " is not a string");
    return std::string(member->get_string());
  };
  SINDRI_TRY(token, text_of("token"));
  SINDRI_TRY(certificate, text_of("clientCertificateData"));
  SINDRI_TRY(key, text_of("clientKeyData"));
  SINDRI_TRY(expiry, text_of("expirationTimestamp"));
  if (token.empty() && certificate.empty()) {
    return make_error("its ExecCredential has neither status.token nor status.clientCertificateData");
  }
  if (certificate.empty() != key.empty()) {
    return make_error("its ExecCredential needs both status.clientCertificateData and status.clientKeyData");
  }
  if (!expiry.empty()) {
    const auto micros = rfc3339::parse_micros(expiry);
    if (!micros) return make_error("its ExecCredential's expirationTimestamp " + expiry + " is not RFC 3339");
    out.expires_micros = *micros;
  }
  out.token = std::move(token);
  out.client_certificate_pem = std::move(certificate);
  out.client_key_pem = std::move(key);
  return out;
}

Result<ExecCredential> run_exec_plugin(const ExecPlugin& plugin) {
  const std::string what = "exec plugin " + plugin.command + ": ";
  std::vector<std::string> environment = plugin_environment(plugin, exec_info(plugin));
  std::vector<char*> envp;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> arguments = {plugin.command};
  arguments.insert(arguments.end(), plugin.args.begin(), plugin.args.end());
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);

  Pipe out, err;
  if (!out.open() || !err.open()) return make_error(what + "cannot make a pipe: " + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write_end, 1);
  posix_spawn_file_actions_adddup2(&actions, err.write_end, 2);
  // The agent blocks its stop signals in every thread (a signal thread
  // waits for them) and a child would inherit the mask: a plugin that
  // hangs must still die of the SIGTERM a timeout or an operator sends.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t nothing_blocked;
  sigemptyset(&nothing_blocked);
  posix_spawnattr_setsigmask(&attributes, &nothing_blocked);
  sigset_t default_pipe;
  sigemptyset(&default_pipe);
  sigaddset(&default_pipe, SIGPIPE);
  posix_spawnattr_setsigdefault(&attributes, &default_pipe);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, plugin.command.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return make_error(what + "cannot run it: " + std::strerror(spawned));
  close(out.write_end);
  out.write_end = -1;
  close(err.write_end);
  err.write_end = -1;

  Output output = collect(out, err, plugin.timeout_seconds);
  if (output.timed_out) kill(pid, SIGKILL);
  int wait_status = 0;
  while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  const std::string stderr_text = trimmed(output.err);
  const std::string stderr_part = stderr_text.empty() ? "" : ": " + stderr_text;
  if (output.timed_out) {
    return make_error(what + "no answer within " + std::to_string(plugin.timeout_seconds) + " s" + stderr_part);
  }
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
    const std::string how = WIFEXITED(wait_status) ? "exit status " + std::to_string(WEXITSTATUS(wait_status))
                                                   : "signal " + std::to_string(WTERMSIG(wait_status));
    return make_error(what + "failed (" + how + ")" + stderr_part);
  }
  auto credential = parse_exec_credential(output.out, plugin.api_version);
  if (!credential.ok()) return make_error(what + credential.error().message + stderr_part);
  return credential;
}

}  // namespace sindri::kube
