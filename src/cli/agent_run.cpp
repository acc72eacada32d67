// sindri agent run [--config FILE] [--broker-url URL] [--pak-file FILE] --agent-name NAME --cluster-name NAME
//                  [--sink kubernetes|dir:PATH] [--kubeconfig FILE] [--kube-context NAME] ...
//
// Runs the agent until SIGTERM or SIGINT (exit 0 once the current apply is
// done), or until it cannot go on (exit 1: a broker never ready, a refused
// PAK, an unknown agent). Every setting is in docs/settings.md.

#include "cli/agent_run.hpp"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "agent/agent.hpp"
#include "agent/dir_sink.hpp"
#include "agent/kube_wiring.hpp"
#include "agent/settings.hpp"
#include "value/rfc3339.hpp"
#include "cli/errors.hpp"

namespace sindri::cli {
namespace {

void log_line(const std::string& line) {
  static std::mutex mutex;
  const std::string now = rfc3339::now();
  std::lock_guard lock(mutex);
  std::cerr << now << " agent: " << line << std::endl;
}

// The directory sink's cluster check: the directory can be made.
Status check_directory(const std::filesystem::path& root) {
  std::error_code error;
  std::filesystem::create_directories(root, error);
  if (error) return make_error("cannot create " + root.string() + ": " + error.message());
  return Ok{};
}

int run(const agent::GivenFlags& flags) {
  auto settings = agent::load_settings(flags, ::getenv);
  if (!settings.ok()) return fail(settings.error().message, 2);

  agent::AgentRun run;
  run.settings = std::move(*settings);
  run.version = SINDRI_VERSION;
  run.log = log_line;
  std::unique_ptr<agent::KubeWiring> kube;
  if (run.settings.sink.starts_with("dir:")) {
    const std::filesystem::path root = run.settings.sink.substr(4);
    const std::string watch_namespace = run.settings.watch_namespace;
    run.make_sink = [root, watch_namespace](const std::string& agent_id) -> Result<std::unique_ptr<agent::Sink>> {
      SINDRI_CHECK(check_directory(root));
      return std::unique_ptr<agent::Sink>(std::make_unique<agent::DirSink>(root, agent_id, watch_namespace));
    };
    run.hooks.probe_sink = [root]() -> Result<int64_t> {
      SINDRI_CHECK(check_directory(root));
      return int64_t{0};
    };
  } else {
    auto wired = agent::KubeWiring::connect(run.settings, log_line);
    if (!wired.ok()) return fail(wired.error().message);
    kube = std::move(*wired);
    run.make_sink = [&kube](const std::string& agent_id) { return kube->make_sink(agent_id); };
    run.hooks = kube->hooks();
  }

  // The stop signals are taken by sigwait on one thread, not by whichever
  // thread the kernel would pick; threads started later inherit the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::atomic<bool> stopping{false};
  if (kube) kube->stop_when(&stopping);
  std::thread watcher([&] {
    int received = 0;
    sigwait(&stop_signals, &received);
    if (!stopping)
      log_line(std::string(received == SIGTERM ? "SIGTERM" : "SIGINT") + ": stopping after the current apply");
    stopping = true;
  });
  const int code = agent::run_agent(run, stopping);
  if (!stopping) {
    stopping = true;
    pthread_kill(watcher.native_handle(), SIGTERM);  // wakes the watcher's sigwait
  }
  watcher.join();
  return code;
}

}  // namespace

AgentRunVerb add_agent_run(CLI::App& agent_command) {
  auto flags = std::make_shared<agent::GivenFlags>();
  CLI::App* command = agent_command.add_subcommand(
      "run", "Run the agent: apply the broker's target state to Kubernetes (or a directory) until stopped");
  for (const agent::AgentSetting& setting : agent::settings()) {
    std::string description(setting.description);
    if (!setting.unit.empty()) description += " (" + std::string(setting.unit) + ")";
    description += "; " + std::string(setting.variable);
    CLI::Option* option = command->add_option_function<std::string>(
        std::string(setting.flag), [flags, &setting](const std::string& text) { flags->emplace_back(&setting, text); },
        description);
    // A switch alone means true (`--once`), as its value may still be given (`--once false`).
    if (setting.is_bool()) option->expected(0, 1)->default_str("true");
  }
  return {command, [flags] { return run(*flags); }};
}

}  // namespace sindri::cli
