// `sindri serve`: the broker. Settings come from defaults, a configuration
// file, SINDRI_* variables and flags, all named in broker::settings(); SIGTERM or
// SIGINT stops it gracefully, and a second one ends the stop's grace.

#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>
#include <vector>

#include "broker/broker.hpp"
#include "broker/config.hpp"
#include "cli/errors.hpp"
#include "cli/programs.hpp"
#include "cli/verbs.hpp"
#include "http/server.hpp"
#include "store/database.hpp"

namespace sindri::cli {
namespace {

struct ServeFlags {
  std::optional<std::string> config_file, address_file;
  // By position in broker::settings(): the value each flag gave.
  std::vector<std::optional<Value>> given = std::vector<std::optional<Value>>(broker::settings().size());
  bool rotate_admin_pak = false;
};

// --config, else SINDRI_CONFIG_FILE, if either.
std::optional<std::string> config_file(const ServeFlags& flags) {
  if (flags.config_file) return flags.config_file;
  if (const char* from_environment = std::getenv("SINDRI_CONFIG_FILE")) return from_environment;
  return std::nullopt;
}

Result<broker::BrokerConfig> load_config(const ServeFlags& flags) {
  broker::BrokerConfig config;
  const std::optional<std::string> file = config_file(flags);
  if (file) {
    if (auto status = broker::apply_config_file(config, *file); !status.ok()) return status.error();
  }
  if (auto status = broker::apply_environment(config, [](const char* name) { return std::getenv(name); });
      !status.ok()) {
    return status.error();
  }
  const auto settings = broker::settings();
  for (size_t i = 0; i < settings.size(); ++i) {
    if (!flags.given[i]) continue;
    if (auto status = broker::apply_setting(config, settings[i], *flags.given[i], std::string(settings[i].flag));
        !status.ok()) {
      return status.error();
    }
  }
  if (auto status = broker::validate_config(config); !status.ok()) return status.error();
  return config;
}

// A server allocates and frees the same sizes request after request. glibc's
// defaults hand freed memory back to the kernel (madvise, munmap) almost
// every time and fault it in again on the next request, and each unmapping
// interrupts the other cores to flush their TLBs: a quarter of the broker's
// CPU under load. Keep up to 64 MB free per malloc arena, and serve blocks
// up to 16 MB (a large target state, a request body) from the heap.
void keep_freed_memory() {
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 16 << 20);
}

// The soft limit on open descriptors is often 1024 where the hard one is far
// higher; every connection takes one, and so does every large cached answer.
void raise_descriptor_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

const char* signal_name(int signal_number) { return signal_number == SIGTERM ? "SIGTERM" : "SIGINT"; }

// Stops the server; a second stop signal meanwhile, from someone who will
// not wait out the grace, ends it.
void stop_on_signal(http::Server& server, const sigset_t& stop_signals, broker::Logger& log) {
  int received = 0;
  sigwait(&stop_signals, &received);
  log.info("stopping", {{"signal", Value(signal_name(received))}});
  std::atomic<bool> stopped{false};
  std::thread impatience([&] {
    int again = 0;
    sigwait(&stop_signals, &again);
    if (stopped.load()) return;
    log.warn("second signal: closing every connection now", {{"signal", Value(signal_name(again))}});
    server.end_grace();
  });
  server.stop();
  stopped.store(true);
  pthread_kill(impatience.native_handle(), SIGTERM);
  impatience.join();
}

// Out of band, on the database a broker made: brokers running on it may
// stay up.
int rotate_admin_pak(const broker::BrokerConfig& config) {
  store::OpenOptions options;
  options.pool_size = 1;
  options.tenant_schema = config.database_schema;
  options.create_if_missing = false;
  auto db = store::Database::open(config.database_url, options);
  if (!db.ok()) {
    print_error("cannot open the database " + config.database_url + ": " + db.error().message);
    return 1;
  }
  if (auto status = broker::rotate_admin_pak(**db, config.admin_pak_file); !status.ok()) {
    print_error("cannot rotate the admin PAK: " + status.error().message);
    return 1;
  }
  std::cout << "admin PAK rotated: the new one is in " << config.admin_pak_file
            << "; brokers on the database refuse the old one within their peer-change delay\n";
  return 0;
}

int serve(const ServeFlags& flags) {
  auto config = load_config(flags);
  if (!config.ok()) {
    print_error(config.error().message);
    return 2;
  }
  if (flags.rotate_admin_pak) return rotate_admin_pak(*config);
  keep_freed_memory();
  raise_descriptor_limit();
  broker::Logger log(config->log_level);
  const auto address = broker::parse_listen_address(config->listen).value();

  // The signals are taken by sigwait below, not by whichever thread the
  // kernel would pick; the server's threads inherit this mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  store::OpenOptions options;
  options.pool_size = static_cast<size_t>(config->database_pool_size);
  options.tenant_schema = config->database_schema;
  auto db = store::Database::open(config->database_url, options);
  if (!db.ok()) {
    log.error("cannot open the database", {{"url", Value(config->database_url)}, {"error", Value(db.error().message)}});
    return 1;
  }
  broker::LiveConfig live_config(*config);
  broker::Broker broker(**db, log, live_config);
  if (auto status = broker.initialize(config->admin_pak_file); !status.ok()) {
    log.error("cannot start", {{"error", Value(status.error().message)}});
    return 1;
  }
  broker.start_background_jobs();
  // A reload reads the settings as this start did; the file is watched.
  broker.enable_reload([&flags] { return load_config(flags); }, config_file(flags));

  http::ServerOptions server_options;
  server_options.host = address.host;
  server_options.port = address.port;
  server_options.threads = static_cast<unsigned>(config->threads);
  server_options.body_limit = static_cast<size_t>(config->body_limit);
  server_options.stop_grace = std::chrono::seconds(config->shutdown_grace);
  server_options.on_refused = [&broker](std::string_view method, int status, std::chrono::nanoseconds elapsed) {
    broker.observe_refused(method, status, elapsed);
  };
  server_options.refuse_before_body = [&broker](const http::Request& head) { return broker.refuse_before_body(head); };
  http::Server server(server_options, [&broker](http::Request& request) { return broker.handle(request); },
                      broker::Broker::render_error);
  if (auto status = server.start(); !status.ok()) {
    log.error("cannot listen", {{"listen", Value(config->listen)}, {"error", Value(status.error().message)}});
    return 1;
  }
  broker.add_gauge_source([&server](std::vector<http::Metrics::Gauge>& gauges) {
    gauges.push_back({"sindri_http_open_connections", "HTTP connections open",
                      static_cast<double>(server.open_connections())});
    gauges.push_back({"sindri_http_receiving_requests", "Connections with a request begun and not yet read whole",
                      static_cast<double>(server.receiving_requests())});
    gauges.push_back({"sindri_http_busy_workers", "Worker threads handling a request",
                      static_cast<double>(server.busy_workers())});
  });
  const std::string bound = address.host + ":" + std::to_string(server.port());
  if (flags.address_file) {
    std::ofstream(*flags.address_file) << bound << "\n";
  }
  log.info("listening", {{"address", Value(bound)},
                         {"database", Value(config->database_url.substr(0, config->database_url.find(':')))},
                         {"threads", Value(config->threads)}});

  stop_on_signal(server, stop_signals, log);
  log.info("stopped");
  return 0;
}

}  // namespace

Verb add_serve(CLI::App& app) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* command = app.add_subcommand(std::string(kServeVerb.name), std::string(kServeVerb.description));
  const auto settings = broker::settings();
  for (size_t i = 0; i < settings.size(); ++i) {
    const broker::Setting& setting = settings[i];
    if (setting.flag.empty()) continue;
    const std::string flag(setting.flag);
    const std::string default_value = broker::default_text(setting);
    const std::string help = std::string(setting.description) +
                             (default_value.empty() ? "" : "; default " + default_value) + "; also " +
                             std::string(setting.variable);
    if (setting.names_the_file()) {
      command->add_option_function<std::string>(
          flag, [flags](const std::string& value) { flags->config_file = value; }, help);
    } else if (setting.is_integer()) {
      command->add_option_function<int64_t>(
          flag, [flags, i](int64_t value) { flags->given[i] = Value(value); }, help);
    } else if (setting.is_duration()) {
      command->add_option_function<double>(
          flag, [flags, i](double value) { flags->given[i] = Value(value); }, help);
    } else {
      command->add_option_function<std::string>(
          flag, [flags, i](const std::string& value) { flags->given[i] = Value(value); }, help);
    }
  }
  command->add_option_function<std::string>(
      "--address-file", [flags](const std::string& value) { flags->address_file = value; },
      "Write the bound HOST:PORT here once listening");
  command->add_flag("--rotate-admin-pak", flags->rotate_admin_pak,
                    "Replace the admin PAK of the database and write the new one to the admin PAK file, then exit "
                    "(brokers running on the database may stay up)");
  return Verb{command, [flags] { return serve(*flags); }};
}

}  // namespace sindri::cli
