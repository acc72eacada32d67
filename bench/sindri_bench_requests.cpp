// sindri-bench-requests: one kind of caller of bench/hostile_bench.sh (an
// agent polling, a prober, a tenant listing, a heavy renderer), timed.
//
//   sindri-bench-requests NAME URL METHOD PATH SECONDS [--pak PAK] [--body-file FILE]
//                         [--concurrency N] [--interval S] [--new-connection] [--timeout S]
//
// N threads (default 1) each send METHOD URL+PATH (with the PAK as a bearer
// token, the file as a JSON body) over one kept-alive connection, or a new
// one per request with --new-connection (as a kubelet probes), pausing S
// seconds (default 0) after each answer, for SECONDS. Prints one line:
//   NAME requests=.. p50_ms=.. p99_ms=.. max_ms=.. failures=.. retry_after=.. status_200=.. ...
// where failures are requests without an answer (a timeout, default 10 s, or
// a connection closed) and retry_after counts answers carrying Retry-After.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "http/client.hpp"

namespace {

using Clock = std::chrono::steady_clock;

Clock::duration seconds_of(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

struct Options {
  std::string name, url, method, path;
  double seconds = 0;
  std::string pak, body;
  unsigned concurrency = 1;
  double interval = 0;
  bool new_connection = false;
  double timeout = 10;
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "sindri-bench-requests: %s\nusage: sindri-bench-requests NAME URL METHOD PATH SECONDS [--pak PAK] "
               "[--body-file FILE] [--concurrency N] [--interval S] [--new-connection] [--timeout S]\n",
               problem.c_str());
  std::exit(2);
}

double number(const char* text) {
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || value < 0) usage(std::string("not a number: ") + text);
  return value;
}

std::string file_text(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) usage(std::string("cannot read ") + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Options parse(int argc, char** argv) {
  if (argc < 6) usage("NAME, URL, METHOD, PATH and SECONDS are needed");
  Options options;
  options.name = argv[1];
  options.url = argv[2];
  options.method = argv[3];
  options.path = argv[4];
  options.seconds = number(argv[5]);
  for (int i = 6; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--new-connection") {
      options.new_connection = true;
      continue;
    }
    if (i + 1 >= argc) usage("a flag without its value");
    const char* value = argv[++i];
    if (flag == "--pak") {
      options.pak = value;
    } else if (flag == "--body-file") {
      options.body = file_text(value);
    } else if (flag == "--concurrency") {
      options.concurrency = static_cast<unsigned>(std::max(1.0, number(value)));
    } else if (flag == "--interval") {
      options.interval = number(value);
    } else if (flag == "--timeout") {
      options.timeout = number(value);
    } else {
      usage("unknown flag " + std::string(flag));
    }
  }
  return options;
}

// What the threads found, merged as each finishes.
struct Tally {
  std::vector<double> latencies_ms;  // answered requests only
  std::map<int, size_t> statuses;
  size_t failures = 0;
  size_t retry_after = 0;
  std::string first_failure;

  void add(const Tally& other) {
    latencies_ms.insert(latencies_ms.end(), other.latencies_ms.begin(), other.latencies_ms.end());
    for (const auto& [status, count] : other.statuses) statuses[status] += count;
    failures += other.failures;
    retry_after += other.retry_after;
    if (first_failure.empty()) first_failure = other.first_failure;
  }
};

std::unique_ptr<sindri::http::Client> client_for(const Options& options) {
  auto client = std::make_unique<sindri::http::Client>(options.url);
  client->set_timeout_ms(static_cast<long>(options.timeout * 1000));
  if (!options.pak.empty()) client->set_authorization("Bearer " + options.pak);
  return client;
}

Tally call_until(const Options& options, Clock::time_point end) {
  Tally tally;
  auto client = client_for(options);
  const Clock::duration pause = seconds_of(options.interval);
  while (Clock::now() < end) {
    if (options.new_connection) client = client_for(options);
    const auto start = Clock::now();
    auto answer = client->request(options.method, options.path, options.body);
    const double elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!answer.ok()) {
      ++tally.failures;
      if (tally.first_failure.empty()) tally.first_failure = answer.error().message;
    } else {
      tally.latencies_ms.push_back(elapsed_ms);
      ++tally.statuses[answer->status];
      if (!answer->header("Retry-After").empty()) ++tally.retry_after;
    }
    std::this_thread::sleep_for(pause);
  }
  return tally;
}

double percentile(const std::vector<double>& sorted, double share) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<size_t>(share * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(rank, sorted.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const auto end = Clock::now() + seconds_of(options.seconds);
  Tally total;
  std::mutex merging;
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < options.concurrency; ++i) {
    threads.emplace_back([&] {
      const Tally mine = call_until(options, end);
      const std::lock_guard lock(merging);
      total.add(mine);
    });
  }
  for (auto& thread : threads) thread.join();
  std::sort(total.latencies_ms.begin(), total.latencies_ms.end());
  std::printf("%s requests=%zu p50_ms=%.2f p99_ms=%.2f max_ms=%.2f failures=%zu retry_after=%zu", options.name.c_str(),
              total.latencies_ms.size() + total.failures, percentile(total.latencies_ms, 0.5),
              percentile(total.latencies_ms, 0.99), total.latencies_ms.empty() ? 0.0 : total.latencies_ms.back(),
              total.failures, total.retry_after);
  for (const auto& [status, count] : total.statuses) std::printf(" status_%d=%zu", status, count);
  std::printf("\n");
  if (!total.first_failure.empty()) {
    std::fprintf(stderr, "%s: first failure: %s\n", options.name.c_str(), total.first_failure.c_str());
  }
  return 0;
}
