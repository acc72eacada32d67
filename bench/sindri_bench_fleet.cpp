// sindri-bench-fleet: the fleet simulation of bench/fleet_bench.sh, many
// agents in one process, each holding a WebSocket to the broker's agent
// channel and polling its target state, as Brokkr's agent does.
//
//   sindri-bench-fleet AGENTS_FILE --change-pak PAK [--change NAME METHOD URL BODY_FILE TOKEN]...
//                      [--poll-interval S] [--settle S] [--rest S] [--timeout S] [--open-timeout S]
//                      [--min-via-push N]
//                      [--broker-pid PID]... [--database-pid PID]
//
// AGENTS_FILE has a line per agent: its id, its PAK and the broker it talks
// to (HOST:PORT). In turn: the sockets are opened (64 openings at a time);
// after --settle seconds (default 2) the agents start polling every
// --poll-interval seconds (default 10), their first polls spread evenly over
// it; after one interval and --settle more the fleet is at rest and its
// brokers' CPU time and this process's are measured over --rest seconds
// (default 10). Then each change in turn: the agents watch for TOKEN, the
// change is sent with PAK (BODY_FILE's JSON, "-" for none) and timed from
// just before it is sent until every agent has fetched a target state
// holding TOKEN (at most --timeout seconds, default 60). The brokers'
// resident memory (VmRSS, summed over --broker-pid) is read before the
// sockets open, once they are open, and once the agents poll; CPU times
// are theirs, this process's and the database server's with its backends
// (--database-pid, PostgreSQL's postmaster). Prints lines of key=value pairs:
//   fleet agents=.. opened_s=.. rss_before_kb=.. rss_sockets_kb=.. rss_polling_kb=..
//   rest seconds=.. broker_cpu_s=.. simulator_cpu_s=.. database_cpu_s=.. polls=..
//   change name=.. status=.. request_ms=.. fetched=.. via_push=.. via_poll=.. p50_ms=.. p99_ms=.. max_ms=..
//          broker_cpu_s=.. simulator_cpu_s=.. database_cpu_s=.. pushed=.. push_p50_ms=.. push_p99_ms=..
//          push_max_ms=.. brokerN_fetched=.. brokerN_p50_ms=.. brokerN_p99_ms=.. brokerN_push_p99_ms=..
// where push_ is the time until the agent's first frame after the change,
// and N counts from 1 the brokers in the order AGENTS_FILE first names them.
//   health sockets_open=.. sockets_lost=.. handshake_failures=.. polls=.. polls_changed=.. poll_failures=..
//          frames_TYPE=..
// Exits 1 when sockets could not all be opened, an agent never fetched a
// change, or fewer than --min-via-push fetched one after its push; 2 on bad
// arguments. Needs two open files per agent and a few more.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "fleet/fleet.hpp"
#include "fleet/proc_stats.hpp"
#include "http/client.hpp"

namespace {

using sindri::bench::Clock;
using namespace std::chrono_literals;

struct Change {
  std::string name, method, url, body, token;
};

struct Options {
  std::vector<sindri::bench::AgentCredentials> agents;
  std::vector<Change> changes;
  std::vector<std::string> broker_pids;
  std::string change_pak, database_pid;
  double poll_interval = 10, settle = 2, rest = 10, timeout = 60, open_timeout = 120;
  // Fewer agents than this fetching a change after its push fails the run:
  // a smoke test's polls alone would bring every change in time.
  size_t min_via_push = 0;
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "sindri-bench-fleet: %s\nusage: sindri-bench-fleet AGENTS_FILE --change-pak PAK "
               "[--change NAME METHOD URL BODY_FILE TOKEN]... [--poll-interval S] [--settle S] [--rest S] "
               "[--timeout S] [--open-timeout S] [--broker-pid PID]... [--database-pid PID]\n",
               problem.c_str());
  std::exit(2);
}

double seconds_flag(const char* text) {
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || value < 0) usage(std::string("not a number of seconds: ") + text);
  return value;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) usage("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

boost::asio::ip::tcp::endpoint endpoint_of(const std::string& host_port) {
  const auto colon = host_port.rfind(':');
  if (colon == std::string::npos) usage("not HOST:PORT: " + host_port);
  boost::system::error_code error;
  const auto address = boost::asio::ip::make_address(host_port.substr(0, colon), error);
  if (error) usage("not an IP address: " + host_port);
  return {address, static_cast<unsigned short>(std::stoi(host_port.substr(colon + 1)))};
}

std::vector<sindri::bench::AgentCredentials> read_agents(const std::string& path) {
  std::ifstream in(path);
  if (!in) usage("cannot read " + path);
  std::vector<sindri::bench::AgentCredentials> agents;
  std::string id, pak, broker;
  while (in >> id >> pak >> broker) agents.push_back({id, pak, endpoint_of(broker)});
  if (agents.empty()) usage(path + " names no agent");
  return agents;
}

Options parse(int argc, char** argv) {
  if (argc < 2) usage("AGENTS_FILE is needed");
  Options options;
  options.agents = read_agents(argv[1]);
  for (int i = 2; i < argc; ++i) {
    const std::string_view flag = argv[i];
    const int values = flag == "--change" ? 5 : 1;
    if (i + values >= argc) usage("a flag without its values: " + std::string(flag));
    const char* value = argv[i + 1];
    if (flag == "--change") {
      const std::string body_file = argv[i + 4];
      options.changes.push_back({argv[i + 1], argv[i + 2], argv[i + 3],
                                 body_file == "-" ? std::string() : file_text(body_file), argv[i + 5]});
    } else if (flag == "--change-pak") {
      options.change_pak = value;
    } else if (flag == "--broker-pid") {
      options.broker_pids.emplace_back(value);
    } else if (flag == "--database-pid") {
      options.database_pid = value;
    } else if (flag == "--poll-interval") {
      options.poll_interval = seconds_flag(value);
    } else if (flag == "--settle") {
      options.settle = seconds_flag(value);
    } else if (flag == "--rest") {
      options.rest = seconds_flag(value);
    } else if (flag == "--timeout") {
      options.timeout = seconds_flag(value);
    } else if (flag == "--min-via-push") {
      options.min_via_push = static_cast<size_t>(seconds_flag(value));
    } else if (flag == "--open-timeout") {
      options.open_timeout = seconds_flag(value);
    } else {
      usage("unknown flag " + std::string(flag));
    }
    i += values;
  }
  if (options.poll_interval <= 0) usage("--poll-interval must be more than 0");
  if (!options.changes.empty() && options.change_pak.empty()) usage("--change needs --change-pak");
  return options;
}

Clock::duration seconds(double value) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(value));
}

double milliseconds(Clock::duration duration) { return std::chrono::duration<double, std::milli>(duration).count(); }

long brokers_resident_kb(const Options& options) {
  long total = 0;
  for (const auto& pid : options.broker_pids) total += sindri::bench::resident_kb(pid);
  return total;
}

double brokers_cpu_seconds(const Options& options) {
  double total = 0;
  for (const auto& pid : options.broker_pids) total += sindri::bench::cpu_seconds(pid);
  return total;
}

double database_cpu_seconds(const Options& options) {
  return options.database_pid.empty() ? 0 : sindri::bench::server_cpu_seconds(options.database_pid);
}

// Waits until `done` holds, checking every 10 ms; false when `limit` passed first.
template <typename Condition>
bool wait_for(Condition done, Clock::duration limit) {
  const auto end = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() >= end) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// Times since a change, in milliseconds, and their nearest-rank percentiles.
class Latencies {
 public:
  void add(Clock::duration since_change) {
    values_.push_back(milliseconds(since_change));
    sorted_ = false;
  }
  size_t size() const { return values_.size(); }
  double at(double share) {
    if (values_.empty()) return 0;
    if (!sorted_) std::sort(values_.begin(), values_.end());
    sorted_ = true;
    const auto rank = static_cast<size_t>(std::ceil(share * static_cast<double>(values_.size())));
    return values_[std::clamp<size_t>(rank, 1, values_.size()) - 1];
  }

 private:
  std::vector<double> values_;
  bool sorted_ = true;
};

// Sends one change and follows it until every agent has fetched it; false
// when the broker refused it or some agent never fetched it.
bool run_change(const Options& options, const Change& change, sindri::bench::Fleet& fleet) {
  const auto path_start = change.url.find('/', change.url.find("://") + 3);
  sindri::http::Client client(change.url.substr(0, path_start));
  client.set_authorization("Bearer " + options.change_pak);
  client.set_timeout_ms(60'000);
  fleet.watch(change.token);
  const double broker_cpu_before = brokers_cpu_seconds(options);
  const double simulator_cpu_before = sindri::bench::cpu_seconds("self");
  const double database_cpu_before = database_cpu_seconds(options);
  const auto start = Clock::now();
  auto answer = client.request(change.method, change.url.substr(path_start), change.body);
  const auto answered = Clock::now();
  const int status = answer.ok() ? answer->status : 0;
  if (!answer.ok()) std::fprintf(stderr, "sindri-bench-fleet: %s: %s\n", change.name.c_str(), answer.error().message.c_str());
  if (answer.ok() && status >= 300) {
    std::fprintf(stderr, "sindri-bench-fleet: %s answered %d: %.300s\n", change.name.c_str(), status,
                 answer->body.c_str());
  }
  const auto& counters = fleet.counters();
  wait_for([&] { return counters.watched_seen == fleet.size(); }, seconds(options.timeout));
  const auto result = fleet.end_watch();
  const double broker_cpu = brokers_cpu_seconds(options) - broker_cpu_before;
  const double simulator_cpu = sindri::bench::cpu_seconds("self") - simulator_cpu_before;
  const double database_cpu = database_cpu_seconds(options) - database_cpu_before;

  Latencies fetched, pushed;
  std::vector<boost::asio::ip::tcp::endpoint> brokers;
  std::vector<Latencies> fetched_by_broker, pushed_by_broker;
  size_t via_push = 0;
  for (size_t i = 0; i < result.sightings.size(); ++i) {
    const auto& broker = options.agents[i].broker;
    auto known = std::find(brokers.begin(), brokers.end(), broker);
    if (known == brokers.end()) {
      brokers.push_back(broker);
      fetched_by_broker.emplace_back();
      pushed_by_broker.emplace_back();
      known = brokers.end() - 1;
    }
    const auto b = static_cast<size_t>(known - brokers.begin());
    const auto& sighting = result.sightings[i];
    if (sighting.pushed_at) {
      pushed.add(*sighting.pushed_at - start);
      pushed_by_broker[b].add(*sighting.pushed_at - start);
    }
    if (!sighting.at) continue;
    fetched.add(*sighting.at - start);
    fetched_by_broker[b].add(*sighting.at - start);
    if (sighting.cause == sindri::bench::PollCause::push) ++via_push;
  }
  std::printf(
      "change name=%s status=%d request_ms=%.1f agents=%zu fetched=%zu via_push=%zu via_poll=%zu p50_ms=%.1f "
      "p99_ms=%.1f max_ms=%.1f broker_cpu_s=%.2f simulator_cpu_s=%.2f database_cpu_s=%.2f pushed=%zu "
      "push_p50_ms=%.1f push_p99_ms=%.1f push_max_ms=%.1f",
      change.name.c_str(), status, milliseconds(answered - start), fleet.size(), fetched.size(), via_push,
      fetched.size() - via_push, fetched.at(0.5), fetched.at(0.99), fetched.at(1), broker_cpu, simulator_cpu,
      database_cpu, pushed.size(), pushed.at(0.5), pushed.at(0.99), pushed.at(1));
  for (size_t b = 0; b < brokers.size(); ++b) {
    std::printf(" broker%zu_fetched=%zu broker%zu_p50_ms=%.1f broker%zu_p99_ms=%.1f broker%zu_push_p99_ms=%.1f", b + 1,
                fetched_by_broker[b].size(), b + 1, fetched_by_broker[b].at(0.5), b + 1,
                fetched_by_broker[b].at(0.99), b + 1, pushed_by_broker[b].at(0.99));
  }
  std::printf("\n");
  std::fflush(stdout);
  if (via_push < options.min_via_push) {
    std::fprintf(stderr, "sindri-bench-fleet: %s: %zu agents fetched it after a push, fewer than %zu\n",
                 change.name.c_str(), via_push, options.min_via_push);
  }
  return status >= 200 && status < 300 && fetched.size() == fleet.size() && via_push >= options.min_via_push;
}

void print_health(sindri::bench::Fleet& fleet) {
  const auto& counters = fleet.counters();
  const auto result = fleet.end_watch();
  std::printf("health sockets_open=%zu sockets_lost=%zu handshake_failures=%zu polls=%zu polls_changed=%zu "
              "poll_failures=%zu",
              counters.sockets_open.load(), counters.sockets_lost.load(), counters.handshake_failures.load(),
              counters.polls.load(), counters.polls_changed.load(), counters.poll_failures.load());
  for (const auto& [type, count] : result.frames) std::printf(" frames_%s=%zu", type.c_str(), count);
  std::printf("\n");
  if (!result.last_loss.empty()) std::fprintf(stderr, "sindri-bench-fleet: last socket failure: %s\n", result.last_loss.c_str());
  if (!result.last_poll_failure.empty()) {
    std::fprintf(stderr, "sindri-bench-fleet: last poll failure: %s\n", result.last_poll_failure.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  sindri::bench::Fleet fleet(options.agents);
  const auto& counters = fleet.counters();

  const long rss_before = brokers_resident_kb(options);
  const auto opening = Clock::now();
  fleet.open_sockets(64);
  if (!wait_for([&] { return counters.sockets_open == fleet.size(); }, seconds(options.open_timeout))) {
    std::fprintf(stderr, "sindri-bench-fleet: %zu of %zu sockets open after %.0f s\n", counters.sockets_open.load(),
                 fleet.size(), options.open_timeout);
    print_health(fleet);
    return 1;
  }
  const auto opened = Clock::now();
  std::this_thread::sleep_for(seconds(options.settle));
  const long rss_sockets = brokers_resident_kb(options);

  fleet.start_polling(seconds(options.poll_interval));
  std::this_thread::sleep_for(seconds(options.poll_interval + options.settle));
  const long rss_polling = brokers_resident_kb(options);
  std::printf("fleet agents=%zu opened_s=%.2f rss_before_kb=%ld rss_sockets_kb=%ld rss_polling_kb=%ld\n", fleet.size(),
              milliseconds(opened - opening) / 1000, rss_before, rss_sockets, rss_polling);

  const double broker_cpu_before = brokers_cpu_seconds(options);
  const double simulator_cpu_before = sindri::bench::cpu_seconds("self");
  const double database_cpu_before = database_cpu_seconds(options);
  const size_t polls_before = counters.polls;
  std::this_thread::sleep_for(seconds(options.rest));
  std::printf("rest seconds=%.1f broker_cpu_s=%.3f simulator_cpu_s=%.3f database_cpu_s=%.3f polls=%zu\n",
              options.rest, brokers_cpu_seconds(options) - broker_cpu_before,
              sindri::bench::cpu_seconds("self") - simulator_cpu_before,
              database_cpu_seconds(options) - database_cpu_before, counters.polls - polls_before);
  std::fflush(stdout);

  bool all_fetched = true;
  for (const auto& change : options.changes) {
    all_fetched = run_change(options, change, fleet) && all_fetched;
    std::this_thread::sleep_for(seconds(options.settle));
  }
  print_health(fleet);
  fleet.close_sockets();
  wait_for([&] { return counters.sockets_open == 0; }, 3s);
  return all_fetched ? 0 : 1;
}
