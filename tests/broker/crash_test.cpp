// Crash safety: a broker killed with SIGKILL in the middle of a stream of
// writes must, once restarted on the same database, still hold every
// deployment object it acknowledged with a 201, byte for byte, with sequence
// ids that only grow. Writes in flight at the kill may or may not be there;
// acknowledged ones must be.

#include <atomic>
#include <map>
#include <mutex>

#include "broker_process.hpp"
#include "value/digest.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

constexpr int kWriters = 4;
constexpr auto kWriteTimeBeforeKill = std::chrono::milliseconds(1500);

// What a 201 answer promised.
struct Acknowledged {
  std::string yaml;
  std::string checksum;
  int64_t sequence_id = 0;
};

// A distinct manifest per writer and request, so that every object has its
// own checksum.
std::string manifest(int writer, int counter) {
  const std::string name = "crash-" + std::to_string(writer) + "-" + std::to_string(counter);
  return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name +
         "\n  labels:\n    app: crash-test\ndata:\n  writer: \"" + std::to_string(writer) + "\"\n  counter: \"" +
         std::to_string(counter) + "\"\n";
}

std::string create_body(const std::string& yaml) {
  std::string body = R"({"yaml_content":)";
  sindri::append_json_string(body, yaml);
  body += '}';
  return body;
}

class CrashSafety : public ::testing::TestWithParam<Backend> {};

TEST_P(CrashSafety, AcknowledgedWritesSurviveASigkill) {
  BrokerProcess broker(GetParam());
  if (!broker.usable()) return;
  broker.start();
  const std::string admin_pak = broker.admin_pak();
  ASSERT_FALSE(admin_pak.empty());
  auto admin = broker.client(admin_pak);

  Reply generator = call(*admin, "POST", "/api/v1/generators", R"({"name":"crash-writer"})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  const std::string generator_id = text_of(*generator.json.find("generator"), "id");
  const std::string generator_pak = text_of(generator.json, "pak");
  Reply stack = call(*broker.client(generator_pak), "POST", "/api/v1/stacks",
                     R"({"name":"crash","generator_id":")" + generator_id + R"("})");
  ASSERT_EQ(stack.status, 201) << stack.body;
  const std::string stack_id = text_of(stack.json, "id");
  const std::string objects_path = "/api/v1/stacks/" + stack_id + "/deployment-objects";

  // Each writer posts until the broker stops answering. Anything but a 201 or
  // a transport error before the kill is a failure of its own.
  std::mutex mutex;
  std::map<std::string, Acknowledged> acknowledged;  // by deployment object id
  std::vector<std::string> unexpected;
  std::atomic<int> started{0};
  auto write_until_killed = [&](int writer) {
    auto client = broker.client(generator_pak);
    client->set_timeout_ms(20'000);  // a hung broker fails the test instead of blocking it
    int64_t last_sequence = 0;
    started.fetch_add(1);
    for (int counter = 0;; ++counter) {
      const std::string yaml = manifest(writer, counter);
      auto response = client->request("POST", objects_path, create_body(yaml));
      if (!response.ok()) return;  // the broker is gone
      if (response->status != 201) {
        std::lock_guard lock(mutex);
        unexpected.push_back(std::to_string(response->status) + " " + response->body);
        return;
      }
      auto parsed = sindri::parse_json(response->body);
      std::lock_guard lock(mutex);
      if (!parsed.ok() || parsed->find("id") == nullptr || parsed->find("sequence_id") == nullptr) {
        unexpected.push_back("201 without id and sequence_id: " + response->body);
        return;
      }
      const int64_t sequence = parsed->find("sequence_id")->get_int();
      // One writer's requests are sequential: each is committed after the last.
      if (sequence <= last_sequence) {
        unexpected.push_back("sequence id " + std::to_string(sequence) + " after " + std::to_string(last_sequence));
      }
      last_sequence = sequence;
      acknowledged[text_of(*parsed, "id")] = Acknowledged{yaml, text_of(*parsed, "yaml_checksum"), sequence};
    }
  };
  std::vector<std::thread> writers;
  for (int writer = 0; writer < kWriters; ++writer) writers.emplace_back(write_until_killed, writer);
  while (started.load() < kWriters) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(kWriteTimeBeforeKill);
  EXPECT_EQ(broker.kill(), 128 + SIGKILL);
  for (auto& thread : writers) thread.join();

  for (const auto& problem : unexpected) ADD_FAILURE() << problem;
  ASSERT_GT(acknowledged.size(), 0u) << "no write was acknowledged before the kill:\n" << broker.log();
  std::cout << "[          ] " << acknowledged.size() << " writes acknowledged before SIGKILL\n";

  // Restarted on the same database: no new bootstrap, the same admin PAK.
  broker.start();
  EXPECT_EQ(broker.admin_pak(), admin_pak);
  admin = broker.client(admin_pak);
  Reply me = call(*admin, "POST", "/api/v1/auth/pak");
  ASSERT_EQ(me.status, 200) << me.body;
  EXPECT_TRUE(me.json.find("admin")->get_bool());

  Reply listed = call(*admin, "GET", objects_path);
  ASSERT_EQ(listed.status, 200) << listed.body;
  ASSERT_TRUE(listed.json.is_array()) << listed.body;
  // In flight at the kill: possibly stored without an answer, never more.
  EXPECT_GE(listed.json.size(), acknowledged.size());
  EXPECT_LE(listed.json.size(), acknowledged.size() + kWriters);
  std::cout << "[          ] " << listed.json.size() << " stored after the restart\n";

  std::map<std::string, const Value*> stored;
  int64_t previous_sequence = 0;
  for (size_t i = 0; i < listed.json.size(); ++i) {
    const Value& object = *listed.json.at(i);
    const int64_t sequence = object.find("sequence_id")->get_int();
    EXPECT_GT(sequence, previous_sequence) << "at position " << i;
    previous_sequence = sequence;
    // Every stored object, acknowledged or not, is whole.
    EXPECT_EQ(text_of(object, "yaml_checksum"), sindri::sha256_hex(text_of(object, "yaml_content")));
    stored[text_of(object, "id")] = &object;
  }
  size_t missing = 0;
  for (const auto& [id, promised] : acknowledged) {
    auto found = stored.find(id);
    if (found == stored.end()) {
      if (++missing <= 5) ADD_FAILURE() << "acknowledged deployment object " << id << " is gone after the restart";
      continue;
    }
    const Value& object = *found->second;
    EXPECT_EQ(promised.checksum, sindri::sha256_hex(promised.yaml)) << id;
    EXPECT_EQ(text_of(object, "yaml_checksum"), promised.checksum) << id;
    EXPECT_EQ(text_of(object, "yaml_content"), promised.yaml) << id;
    EXPECT_EQ(object.find("sequence_id")->get_int(), promised.sequence_id) << id;
  }
  EXPECT_EQ(missing, 0u) << "of " << acknowledged.size() << " acknowledged writes";

  // The restarted broker carries on numbering after everything it holds.
  Reply next = call(*broker.client(generator_pak), "POST", objects_path, create_body(manifest(kWriters, 0)));
  ASSERT_EQ(next.status, 201) << next.body;
  EXPECT_GT(next.json.find("sequence_id")->get_int(), previous_sequence);
}

INSTANTIATE_TEST_SUITE_P(Backends, CrashSafety, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
