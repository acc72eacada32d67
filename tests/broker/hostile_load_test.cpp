// The broker under a connection flood without credentials (issue 27): with
// small caps, far more connections than the caps allow are held open, some
// idle after a request, some stuck in their request line, some trickling a
// header a byte at a time, and each one the broker closes is opened again.
// Meanwhile an agent polls its target state over one kept-alive connection
// and a prober asks /healthz on a new connection each time, as a kubelet
// does. Every poll and probe is answered, the agent's connection is never
// the one closed for room, and /metrics counts what the caps refused.
// Loopback only; the flood stops once the polls and probes are done and
// its idle connections have met the connection cap.

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <map>

#include "broker_process.hpp"
#include "support/raw_connection.hpp"

namespace sindri_test {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxConnections = 64;
constexpr int kMaxUnfinished = 16;
// Each kind of flood connection, 150 in all, opened in this order. The
// stuck and trickling ones come first: past kMaxUnfinished each new one
// closes the oldest of them. Then the idle ones, which, having sent a whole
// request, are closed for room only when no connection is still sending
// its first request: with the agent's they take most of the connection cap,
// and from then on each new connection closes the oldest unfinished one
// for that cap, the other dozen or so staying. A prober's new connection
// thus outlives a dozen arrivals before it is the oldest unfinished one.
constexpr int kIdleFlood = 50;
constexpr int kStuckFlood = 50;
constexpr int kTricklingFlood = 50;
constexpr int kFloodSize = kIdleFlood + kStuckFlood + kTricklingFlood;
constexpr int kPolls = 30;
constexpr int kProbes = 30;
constexpr auto kPause = std::chrono::milliseconds(50);
// New flood connections a second: the caps are reached within two seconds,
// and a prober's connection has some 130 ms to send its request.
constexpr double kOpensPerSecond = 100;
constexpr auto kTurn = std::chrono::milliseconds(10);  // the longest wait for the flood's sockets
constexpr auto kTrickleInterval = std::chrono::milliseconds(50);

// Connections held against the broker's port from one thread, with poll().
class Flood {
 public:
  enum class Kind { Idle, Stuck, Trickling };

  explicit Flood(uint16_t port) : port_(port) {
    for (int i = 0; i < kStuckFlood + kTricklingFlood; ++i) {
      slots_.push_back({i % 2 == 0 ? Kind::Stuck : Kind::Trickling});
    }
    for (int i = 0; i < kIdleFlood; ++i) slots_.push_back({Kind::Idle});
    for (Slot& slot : slots_) closed_.push_back(&slot);
  }
  ~Flood() {
    for (Slot& slot : slots_) close_slot(slot);
  }
  Flood(const Flood&) = delete;
  Flood& operator=(const Flood&) = delete;

  // Runs until `stop` is set.
  void run(const std::atomic<bool>& stop) {
    while (!stop.load()) turn();
  }
  // Connections the broker has closed so far.
  int closed_by_broker() const { return closed_by_broker_.load(); }
  int opened() const { return opened_.load(); }

 private:
  struct Slot {
    Kind kind;
    int fd = -1;
    bool connected = false;
    Clock::time_point last_byte{};
  };

  void turn() {
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - last_turn_).count();
    open_allowance_ = std::min(2.0, open_allowance_ + kOpensPerSecond * elapsed);
    last_turn_ = now;
    while (open_allowance_ >= 1 && !closed_.empty()) {
      Slot* slot = closed_.front();
      closed_.pop_front();
      open_allowance_ -= 1;
      open_slot(*slot);
    }
    std::vector<pollfd> watched;
    std::vector<Slot*> owners;
    for (Slot& slot : slots_) {
      if (slot.fd < 0) continue;
      watched.push_back({slot.fd, static_cast<short>(slot.connected ? POLLIN : POLLOUT), 0});
      owners.push_back(&slot);
    }
    ::poll(watched.data(), watched.size(), static_cast<int>(kTurn.count()));
    for (size_t i = 0; i < watched.size(); ++i) {
      Slot& slot = *owners[i];
      if ((watched[i].revents & (POLLERR | POLLHUP)) != 0) {
        lost(slot);
      } else if ((watched[i].revents & POLLOUT) != 0) {
        slot.connected = true;
        begin(slot);
      } else if ((watched[i].revents & POLLIN) != 0) {
        drain(slot);
      }
    }
    for (Slot& slot : slots_) {
      if (slot.fd >= 0 && slot.connected && slot.kind == Kind::Trickling &&
          Clock::now() - slot.last_byte >= kTrickleInterval) {
        send_text(slot, "a");
      }
    }
  }

  void open_slot(Slot& slot) {
    slot.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    slot.connected = false;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port_);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int result = ::connect(slot.fd, reinterpret_cast<const sockaddr*>(&address), sizeof address);
    if (result != 0 && errno != EINPROGRESS) {
      close_slot(slot);
      closed_.push_back(&slot);
      return;
    }
    opened_.fetch_add(1);
  }

  void begin(Slot& slot) {
    switch (slot.kind) {
      case Kind::Idle:
        send_text(slot, "GET /healthz HTTP/1.1\r\nHost: flood\r\n\r\n");
        break;
      case Kind::Stuck:
        send_text(slot, "GET / HTTP/1.1\r\n");
        break;
      case Kind::Trickling:
        send_text(slot, "GET / HTTP/1.1\r\nHost: flood\r\nX-Slow: ");
        break;
    }
  }

  void send_text(Slot& slot, std::string_view text) {
    slot.last_byte = Clock::now();
    if (::send(slot.fd, text.data(), text.size(), MSG_NOSIGNAL) < 0 && errno != EAGAIN) lost(slot);
  }

  // Reads what the broker sent (an idle connection's answer, or an error
  // before a close); end of stream is the broker closing it.
  void drain(Slot& slot) {
    char chunk[4096];
    const ssize_t got = ::recv(slot.fd, chunk, sizeof chunk, 0);
    if (got == 0 || (got < 0 && errno != EAGAIN)) lost(slot);
  }

  void lost(Slot& slot) {
    closed_by_broker_.fetch_add(1);
    close_slot(slot);
    closed_.push_back(&slot);
  }

  static void close_slot(Slot& slot) {
    if (slot.fd >= 0) ::close(slot.fd);
    slot.fd = -1;
    slot.connected = false;
  }

  uint16_t port_;
  std::vector<Slot> slots_;
  std::deque<Slot*> closed_;  // to open again, first closed first
  std::atomic<int> closed_by_broker_{0};
  std::atomic<int> opened_{0};
  double open_allowance_ = 0;
  Clock::time_point last_turn_ = Clock::now();
};

// The flood's connections, the agent's, the prober's and the broker's own
// descriptors (the broker inherits this limit), with room to spare.
void allow_enough_descriptors() {
  constexpr rlim_t kNeeded = 1024;
  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  if (limit.rlim_cur >= kNeeded) return;
  ASSERT_GE(limit.rlim_max, kNeeded) << "the hard limit on open files is too low for this test";
  limit.rlim_cur = kNeeded;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &limit), 0) << std::strerror(errno);
}

// The status of an answer's status line, 0 when there is none.
int status_of(const std::string& answer) {
  if (answer.rfind("HTTP/1.1 ", 0) != 0 || answer.size() < 12) return 0;
  return std::atoi(answer.c_str() + 9);
}

// sindri_http_connections_refused_total for each reason, from /metrics.
std::map<std::string, double> refusals_in(const std::string& metrics) {
  std::map<std::string, double> counts;
  const std::string prefix = "\nsindri_http_connections_refused_total{reason=\"";
  for (size_t at = metrics.find(prefix); at != std::string::npos; at = metrics.find(prefix, at + 1)) {
    const size_t name_start = at + prefix.size();
    const size_t name_end = metrics.find('"', name_start);
    const size_t value_start = metrics.find("} ", name_end);
    if (name_end == std::string::npos || value_start == std::string::npos) break;
    counts[metrics.substr(name_start, name_end - name_start)] = std::atof(metrics.c_str() + value_start + 2);
  }
  return counts;
}

TEST(HostileLoad, AnAgentAndAProberAreAnsweredThroughAConnectionFlood) {
  allow_enough_descriptors();
  BrokerProcess broker(Backend::Sqlite);
  broker.start({"--http-max-connections", std::to_string(kMaxConnections), "--http-max-unfinished-connections",
                std::to_string(kMaxUnfinished), "--http-header-timeout", "0.5"});
  auto admin = broker.client(broker.admin_pak());

  // A generator's stack with one deployment object, targeted by an agent.
  Reply generator = call(*admin, "POST", "/api/v1/generators", R"({"name":"ci"})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  auto ci = broker.client(text_of(generator.json, "pak"));
  Reply stack = call(*ci, "POST", "/api/v1/stacks",
                     R"({"name":"web","generator_id":")" + text_of(*generator.json.find("generator"), "id") + "\"}");
  ASSERT_EQ(stack.status, 201) << stack.body;
  const std::string stack_id = text_of(stack.json, "id");
  Reply object = call(*ci, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                      R"({"yaml_content":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n"})");
  ASSERT_EQ(object.status, 201) << object.body;
  Reply agent = call(*admin, "POST", "/api/v1/agents", R"({"name":"a1","cluster_name":"prod"})");
  ASSERT_EQ(agent.status, 201) << agent.body;
  const std::string agent_id = text_of(*agent.json.find("agent"), "id");
  ASSERT_EQ(call(*admin, "POST", "/api/v1/agents/" + agent_id + "/targets", R"({"stack_id":")" + stack_id + "\"}")
                .status,
            201);

  // The agent polls over a connection of its own making, not http::Client,
  // which would open a new one silently were this one closed. Its first
  // poll, before the flood, makes it an authenticated connection.
  const std::string poll_request = "GET /api/v1/agents/" + agent_id +
                                   "/target-state HTTP/1.1\r\nHost: broker\r\nAuthorization: Bearer " +
                                   text_of(agent.json, "initial_pak") + "\r\n\r\n";
  RawConnection agent_connection(broker.port());
  ASSERT_TRUE(agent_connection.connected());
  agent_connection.send(poll_request);
  const std::string first = agent_connection.read_answer(64 * 1024);
  ASSERT_EQ(status_of(first), 200) << first;
  ASSERT_NE(first.find("web"), std::string::npos) << first;

  Flood flood(broker.port());
  std::atomic<bool> stop_flood{false};
  std::thread flooding([&] { flood.run(stop_flood); });
  // The caps are reached once the broker closes flood connections itself.
  const auto reached_by = Clock::now() + std::chrono::seconds(20);
  while (flood.closed_by_broker() < kMaxUnfinished && Clock::now() < reached_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(flood.closed_by_broker(), kMaxUnfinished) << "the broker closed too few flood connections";

  int polls_answered = 0;
  std::string poll_failure;
  std::thread agent_polling([&] {
    for (int i = 0; i < kPolls; ++i) {
      agent_connection.send(poll_request);
      const std::string answer = agent_connection.read_answer(64 * 1024);
      if (status_of(answer) != 200) {
        poll_failure = "poll " + std::to_string(i + 1) + (answer.empty() ? ": the connection was closed or timed out"
                                                                         : " answered:\n" + answer);
        return;
      }
      ++polls_answered;
      std::this_thread::sleep_for(kPause);
    }
  });
  int probes_answered = 0;
  std::vector<std::string> probe_failures;
  std::thread probing([&] {
    for (int i = 0; i < kProbes; ++i) {
      sindri::http::Client prober(broker.url());
      prober.set_timeout_ms(5000);
      auto probe = prober.request("GET", "/healthz");
      if (probe.ok() && probe->status == 200) {
        ++probes_answered;
      } else {
        probe_failures.push_back(probe.ok() ? "status " + std::to_string(probe->status) + ": " + probe->body
                                            : probe.error().message);
      }
      std::this_thread::sleep_for(kPause);
    }
  });
  agent_polling.join();
  probing.join();
  // The flood runs on until its idle connections hold the connection cap
  // and new ones have met it.
  const auto steady_by = Clock::now() + std::chrono::seconds(20);
  while (flood.opened() < kFloodSize + kMaxConnections && Clock::now() < steady_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop_flood.store(true);
  flooding.join();

  EXPECT_EQ(polls_answered, kPolls) << poll_failure;
  EXPECT_EQ(probes_answered, kProbes) << ::testing::PrintToString(probe_failures);
  EXPECT_GT(flood.opened(), kFloodSize) << "the broker closed no flood connection";

  Reply metrics = call(*admin, "GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  const std::map<std::string, double> refused = refusals_in(metrics.body);
  for (const char* reason :
       {"connection_limit", "unfinished_limit", "header_timeout", "body_too_slow", "tls_handshake"}) {
    EXPECT_TRUE(refused.contains(reason)) << reason << " is not in /metrics:\n" << metrics.body;
  }
  // Both caps closed connections (see kIdleFlood).
  EXPECT_GT(refused.contains("connection_limit") ? refused.at("connection_limit") : 0, 0) << metrics.body;
  EXPECT_GT(refused.contains("unfinished_limit") ? refused.at("unfinished_limit") : 0, 0) << metrics.body;
  EXPECT_EQ(broker.stop(), 0);
}

}  // namespace
}  // namespace sindri_test
