// Issue 27's second "Shown by": one generator firing heavy dry runs at
// several times its limit of renders in flight takes the broker from no one
// else. While generator A's first render runs, generator B lists its stacks
// and instantiates, and a prober asks /healthz: each of their requests is
// answered 2xx before that render of A's is, so none waited behind it. A
// gets 200s, and 429 or 503 with Retry-After for what waited too long, never
// another 5xx. Order is read from a sequence of completions, never a clock.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "render_fixture.hpp"

namespace sindri_test {
namespace {

// About half a second of one core within the default step budget: a 2 MiB
// string, then replacements over all of it.
constexpr std::string_view kHeavyTemplate =
    R"({% set_global text = "ab" %}{% for i in range(end=20) %}{% set_global text = text ~ text %}{% endfor %})"
    R"({% for i in range(end=8) %}{% set_global text = text | replace(from="a", to="b") | replace(from="b", to="a") %}{% endfor %})"
    R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: heavy
data:
  size: "{{ text | length }}"
)";

constexpr int kHeavyCallers = 6;  // six times render.per_identity_limit

struct Answered {
  std::string who;  // "A", "B", "probe"
  std::string what;
  int status = 0;
  std::string retry_after;
  std::string code;
  uint64_t completed = 0;  // its place in the order of completions
};

class Completions {
 public:
  void record(Answered answered) {
    std::lock_guard<std::mutex> lock(mutex_);
    answered.completed = ++count_;
    all_.push_back(std::move(answered));
  }
  std::vector<Answered> all() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return all_;
  }

 private:
  mutable std::mutex mutex_;
  uint64_t count_ = 0;
  std::vector<Answered> all_;
};

void ask(sindri::http::Client& client, Completions& completions, const std::string& who, const std::string& method,
         const std::string& path, const std::string& body = {}) {
  Answered answered;
  answered.who = who;
  answered.what = method + " " + path;
  auto response = client.request(method, path, body, "application/json");
  if (response.ok()) {
    answered.status = response->status;
    answered.retry_after = std::string(response->header("Retry-After"));
    auto parsed = sindri::parse_json(response->body);
    if (parsed.ok() && parsed->is_object()) answered.code = text_of(*parsed, "code");
  } else {
    answered.code = response.error().message;  // status 0: no answer
  }
  completions.record(std::move(answered));
}

int64_t renders_running(sindri::http::Client& client) {
  auto metrics = client.request("GET", "/metrics", "", "");
  if (!metrics.ok()) return -1;
  const std::string name = "\nsindri_renders_running ";
  const size_t at = metrics->body.find(name);
  return at == std::string::npos ? -1 : std::stoll(metrics->body.substr(at + name.size()));
}

TEST(RenderIsolation, OtherCallersAreAnsweredWhileOneCallersRendersRun) {
  // No render deadline: on a slow machine A's renders take longer, which
  // only makes the order this test checks easier to meet.
  RenderBroker broker({"--render-threads", "2", "--render-per-identity-limit", "1", "--render-queue-wait", "0.2",
                       "--render-max-duration", "0"});
  RenderGenerator heavy = broker.make_generator("heavy");
  RenderGenerator other = broker.make_generator("other");
  const std::string heavy_path = "/api/v1/templates/" + broker.make_template(heavy, "heavy", kHeavyTemplate) + "/render";
  const std::string light_template = broker.make_template(other, "light", kConfigMapTemplate);
  const std::string stack = broker.make_stack(other, "other");

  Completions completions;
  std::atomic<bool> others_done{false};
  std::vector<std::thread> heavy_callers;
  for (int i = 0; i < kHeavyCallers; ++i) {
    heavy_callers.emplace_back([&] {
      auto client = broker.process().client(heavy.pak);
      // Bounded: each caller stops after its answer once the others are done.
      for (int round = 0; round < 20 && !others_done.load(); ++round) {
        ask(*client, completions, "A", "POST", heavy_path, R"({"parameters": {}})");
      }
    });
  }

  // The others start once one of A's renders runs.
  auto watcher = broker.process().client("");
  int64_t running = 0;
  for (int wait = 0; wait < 1000 && running < 1; ++wait) {
    running = renders_running(*watcher);
    if (running < 1) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_GE(running, 1) << "no render of A's started";

  std::thread prober([&] {
    auto client = broker.process().client("");
    for (int i = 0; i < 5; ++i) ask(*client, completions, "probe", "GET", "/healthz");
  });
  for (int i = 0; i < 3; ++i) {
    ask(*other.client, completions, "B", "GET", "/api/v1/stacks");
    ask(*other.client, completions, "B", "POST", "/api/v1/stacks/" + stack + "/deployment-objects/from-template",
        R"({"template_id": ")" + light_template + R"(", "parameters": {"name": "n)" + std::to_string(i) + R"("}})");
  }
  prober.join();
  others_done = true;
  for (auto& caller : heavy_callers) caller.join();

  const std::vector<Answered> answers = completions.all();
  uint64_t first_heavy_render = UINT64_MAX;
  uint64_t last_other = 0;
  int heavy_refused = 0;
  for (const Answered& answered : answers) {
    if (answered.who != "A") {
      EXPECT_GE(answered.status, 200) << answered.what << ": " << answered.code;
      EXPECT_LT(answered.status, 300) << answered.what << ": " << answered.code;
      last_other = std::max(last_other, answered.completed);
      continue;
    }
    if (answered.status == 200) {
      first_heavy_render = std::min(first_heavy_render, answered.completed);
      continue;
    }
    ++heavy_refused;
    EXPECT_TRUE(answered.status == 429 || answered.status == 503) << answered.status << " " << answered.code;
    EXPECT_EQ(answered.code, answered.status == 429 ? "too_many_renders" : "render_pool_busy");
    EXPECT_FALSE(answered.retry_after.empty()) << answered.status;
    if (!answered.retry_after.empty()) {
      EXPECT_GE(std::stoi(answered.retry_after), 1);
    }
  }
  EXPECT_EQ(std::count_if(answers.begin(), answers.end(), [](const Answered& a) { return a.who != "A"; }), 5 + 6);
  EXPECT_GT(heavy_refused, 0) << "A never went past its limit";
  // Every request of the others completed before A's first render did.
  ASSERT_NE(first_heavy_render, UINT64_MAX) << "none of A's renders was answered";
  EXPECT_LT(last_other, first_heavy_render);

  Reply objects = call(*other.client, "GET", "/api/v1/stacks/" + stack + "/deployment-objects");
  EXPECT_EQ(objects.json.size(), 3u) << objects.body;
}

}  // namespace
}  // namespace sindri_test
