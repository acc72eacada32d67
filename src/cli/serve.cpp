// `sindri serve`: the broker. Settings come from defaults, a configuration
// file, SINDRI_* variables and flags, all named in broker::settings(); SIGTERM or
// SIGINT stops it gracefully, and a second one ends the stop's grace.

#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <vector>

#include "broker/broker.hpp"
#include "broker/config.hpp"
#include "broker/refusal_log.hpp"
#include "cli/errors.hpp"
#include "cli/programs.hpp"
#include "cli/verbs.hpp"
#include "http/server.hpp"
#include "http/tls_server_context.hpp"
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

// A stop: the first SIGTERM or SIGINT begins it. A second one, from someone
// who will not wait out the grace, ends the server's grace; that signal or
// the grace's end cancels the renders still running, so that a render
// without limits never holds the stop without bound.
class StopSignals {
 public:
  StopSignals(const sigset_t& signals, broker::Logger& log) : signals_(signals), log_(log) {}
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  ~StopSignals() {
    disarm();
    if (!watcher_.joinable()) return;
    pthread_kill(watcher_.native_handle(), SIGTERM);
    watcher_.join();
  }

  // Blocks until the first signal, then watches for a second until the
  // grace is over.
  void wait(http::Server& server, std::chrono::seconds grace, std::function<void()> cancel_renders) {
    int received = 0;
    sigwait(&signals_, &received);
    log_.info("stopping", {{"signal", Value(signal_name(received))}});
    watcher_ = std::thread([this, &server, grace, cancel_renders = std::move(cancel_renders)] {
      const int again = wait_for_second(grace);
      std::lock_guard lock(mutex_);
      if (!armed_) return;
      if (again > 0) {
        log_.warn("second signal: closing every connection now", {{"signal", Value(signal_name(again))}});
        impatient_.store(true);
        server.end_grace();
      }
      cancel_renders();
    });
  }
  bool impatient() const { return impatient_.load(); }
  // From here on the watcher does nothing: what it would cancel is going.
  void disarm() {
    std::lock_guard lock(mutex_);
    armed_ = false;
  }

 private:
  // The second signal's number, or 0 once the grace is over.
  int wait_for_second(std::chrono::seconds grace) {
    const auto grace_end = std::chrono::steady_clock::now() + grace;
    while (true) {
      const auto left = std::max(std::chrono::steady_clock::duration::zero(), grace_end - std::chrono::steady_clock::now());
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(left);
      timespec timeout{static_cast<time_t>(seconds.count()),
                       static_cast<long>(std::chrono::duration_cast<std::chrono::nanoseconds>(left - seconds).count())};
      const int received = sigtimedwait(&signals_, nullptr, &timeout);
      if (received > 0) return received;
      if (errno != EINTR) return 0;
    }
  }

  sigset_t signals_;
  broker::Logger& log_;
  std::mutex mutex_;
  bool armed_ = true;
  std::atomic<bool> impatient_{false};
  std::thread watcher_;
};

// Renders answer into the stopped server: those left once it has stopped
// may finish within the grace, and are cancelled past it or at a second
// signal.
void finish_renders(broker::Broker& broker, const StopSignals& stop, std::chrono::steady_clock::time_point grace_end,
                    const std::function<void()>& cancel_renders) {
  while (broker.renders_in_flight() > 0) {
    if (stop.impatient() || std::chrono::steady_clock::now() >= grace_end) {
      cancel_renders();
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
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

std::chrono::milliseconds milliseconds_of(double seconds) {
  return std::chrono::milliseconds(std::llround(seconds * 1000));
}

// The server's limits, fixed for this run.
http::ServerOptions server_options_of(const broker::BrokerConfig& config, const broker::ListenAddress& address) {
  http::ServerOptions options;
  options.host = address.host;
  options.port = address.port;
  options.threads = static_cast<unsigned>(config.threads);
  options.body_limit = config.body_limit == 0 ? std::numeric_limits<size_t>::max()
                                              : static_cast<size_t>(config.body_limit);
  options.stop_grace = std::chrono::seconds(config.shutdown_grace);
  options.max_connections = static_cast<size_t>(config.http_max_connections);
  options.max_unfinished_connections = static_cast<size_t>(config.http_max_unfinished_connections);
  options.header_timeout = milliseconds_of(config.http_header_timeout);
  options.min_body_rate = static_cast<size_t>(config.http_min_body_rate);
  options.idle_timeout = std::chrono::ceil<decltype(options.idle_timeout)>(
      std::chrono::duration<double>(config.http_idle_timeout));
  options.max_connections_per_identity = static_cast<size_t>(config.http_max_connections_per_identity);
  options.websocket_idle_timeout = milliseconds_of(config.http_websocket_idle_timeout);
  return options;
}

// The HTTPS context when tls.cert_file is set; its reloads are logged.
Result<std::shared_ptr<http::TlsServerContext>> load_tls(const broker::BrokerConfig& config, broker::Logger& log) {
  if (config.tls_cert_file.empty()) return std::shared_ptr<http::TlsServerContext>();
  SINDRI_TRY(context, http::TlsServerContext::load({config.tls_cert_file, config.tls_key_file, config.tls_client_ca_file},
                                                   milliseconds_of(config.tls_reload_check_interval)));
  context->on_reload([&log, cert_file = config.tls_cert_file](const Status& reloaded) {
    if (reloaded.ok()) {
      log.info("tls certificate reloaded", {{"cert_file", Value(cert_file)}});
    } else {
      log.warn("tls certificate not reloaded: the files in use stay", {{"error", Value(reloaded.error().message)}});
    }
  });
  return context;
}

// Connections each of the server's limits refused, by reason.
void add_refusal_counters(const http::Server& server, std::vector<http::Metrics::Gauge>& gauges) {
  const http::ConnectionRefusals refused = server.refused_connections();
  const std::pair<const char*, uint64_t> by_reason[] = {{"connection_limit", refused.connection_limit},
                                                        {"unfinished_limit", refused.unfinished_limit},
                                                        {"header_timeout", refused.header_timeout},
                                                        {"body_too_slow", refused.body_too_slow},
                                                        {"tls_handshake", refused.tls_handshake}};
  for (const auto& [reason, count] : by_reason) {
    gauges.push_back({.name = "sindri_http_connections_refused_total",
                      .help = "Connections the server's limits closed or refused, by reason",
                      .value = static_cast<double>(count),
                      .counter = true,
                      .labels = std::string("reason=\"") + reason + "\""});
  }
}

void add_connection_gauges(const http::Server& server, std::vector<http::Metrics::Gauge>& gauges) {
  gauges.push_back({"sindri_http_open_connections", "HTTP connections open",
                    static_cast<double>(server.open_connections())});
  gauges.push_back({"sindri_http_receiving_requests", "Connections with a request begun and not yet read whole",
                    static_cast<double>(server.receiving_requests())});
  gauges.push_back({"sindri_http_busy_workers", "Worker threads handling a request",
                    static_cast<double>(server.busy_workers())});
  add_refusal_counters(server, gauges);
}

// The caps in effect: http.max_connections as the descriptor limit leaves
// it, so that an operator sees a cap lowered below the setting.
void log_connection_caps(const http::Server& server, const broker::BrokerConfig& config, broker::Logger& log) {
  const auto effective = static_cast<int64_t>(server.effective_max_connections());
  const bool lowered = effective != config.http_max_connections;
  log.log(lowered ? broker::LogLevel::Warn : broker::LogLevel::Info,
          lowered ? "http.max_connections lowered to what the open-file limit leaves" : "connection caps",
          {{"max_connections", Value(effective)},
           {"max_connections_setting", Value(config.http_max_connections)},
           {"max_unfinished_connections", Value(config.http_max_unfinished_connections)},
           {"max_connections_per_identity", Value(config.http_max_connections_per_identity)}});
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

  auto tls = load_tls(*config, log);
  if (!tls.ok()) {
    log.error("cannot load the TLS certificate", {{"error", Value(tls.error().message)}});
    return 1;
  }
  broker::RefusalLog refusal_log(
      [&log](std::string_view reason, const Value& since_last_line) {
        log.warn("connections refused", {{"reason", Value(reason)}, {"since_last_line", since_last_line}});
      },
      std::chrono::seconds(1));
  // The end of a burst is logged without waiting for another refusal.
  std::jthread refusal_log_timer([&refusal_log](std::stop_token stop) {
    std::mutex mutex;
    std::condition_variable_any tick;
    std::unique_lock lock(mutex);
    while (!tick.wait_for(lock, stop, std::chrono::seconds(1), [&stop] { return stop.stop_requested(); })) {
      refusal_log.flush_if_due();
    }
  });

  // The server takes its address before the database is opened or the
  // admin PAK written, so that a start that cannot listen leaves nothing
  // behind. It reaches the broker, made below, only once started.
  std::unique_ptr<store::Database> db;
  broker::LiveConfig live_config(*config);
  std::optional<broker::Broker> broker;
  http::ServerOptions server_options = server_options_of(*config, address);
  server_options.tls = *tls;
  server_options.on_connection_refused = [&refusal_log](std::string_view reason) { refusal_log.refused(reason); };
  server_options.on_refused = [&broker](std::string_view method, int status, std::chrono::nanoseconds elapsed) {
    broker->observe_refused(method, status, elapsed);
  };
  server_options.refuse_before_body = [&broker](const http::Request& head) { return broker->refuse_before_body(head); };
  http::Server server(server_options, [&broker](http::Request& request) { return broker->handle(request); },
                      broker::Broker::render_error);
  if (auto status = server.bind(); !status.ok()) {
    log.error("cannot listen", {{"listen", Value(config->listen)}, {"error", Value(status.error().message)}});
    return 1;
  }

  store::OpenOptions options;
  options.pool_size = static_cast<size_t>(config->database_pool_size);
  options.tenant_schema = config->database_schema;
  auto opened = store::Database::open(config->database_url, options);
  if (!opened.ok()) {
    log.error("cannot open the database",
              {{"url", Value(config->database_url)}, {"error", Value(opened.error().message)}});
    return 1;
  }
  db = std::move(*opened);
  broker.emplace(*db, log, live_config);
  if (auto status = broker->initialize(config->admin_pak_file); !status.ok()) {
    log.error("cannot start", {{"error", Value(status.error().message)}});
    return 1;
  }
  broker->start_background_jobs();
  // A reload reads the settings as this start did; the file is watched.
  broker->enable_reload([&flags] { return load_config(flags); }, config_file(flags));
  broker->add_gauge_source([&server](std::vector<http::Metrics::Gauge>& gauges) { add_connection_gauges(server, gauges); });

  if (auto status = server.start(); !status.ok()) {
    log.error("cannot listen", {{"listen", Value(config->listen)}, {"error", Value(status.error().message)}});
    return 1;
  }
  const std::string bound = address.host + ":" + std::to_string(server.port());
  if (flags.address_file) {
    std::ofstream(*flags.address_file) << bound << "\n";
  }
  log.info("listening", {{"address", Value(bound)},
                         {"database", Value(config->database_url.substr(0, config->database_url.find(':')))},
                         {"threads", Value(config->threads)},
                         {"tls", Value(*tls != nullptr)}});
  log_connection_caps(server, *config, log);
  if (!*tls && !address.is_loopback()) {
    log.warn("listening beyond this machine without TLS: PAKs cross the network in clear; set tls.cert_file and "
             "tls.key_file, or keep a TLS-terminating proxy in front",
             {{"address", Value(bound)}});
  }

  const auto cancel_renders = [&broker, &log] {
    const size_t renders = broker->renders_in_flight();
    if (renders == 0) return;
    log.warn("cancelling the renders still running", {{"renders", Value(static_cast<int64_t>(renders))}});
    broker->cancel_renders();
  };
  const std::chrono::seconds grace(config->shutdown_grace);
  StopSignals stop(stop_signals, log);
  stop.wait(server, grace, cancel_renders);
  const auto grace_end = std::chrono::steady_clock::now() + grace;
  server.stop();
  finish_renders(*broker, stop, grace_end, cancel_renders);
  stop.disarm();
  // Renders still under way answer into the stopped server, which outlives
  // them, before the database closes.
  broker.reset();
  refusal_log.flush();
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
