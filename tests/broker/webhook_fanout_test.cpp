// Webhook fan-out across brokers: two `sindri serve` processes on one
// database, both running the delivery pass often with small batches, so
// that they race for the same pending deliveries. Every event reaches the
// receiver exactly once (it always answers 200, so no retry is ever due),
// and each delivery ends `success`.

#include <map>
#include <sstream>
#include <thread>

#include "broker_process.hpp"
#include "webhook_receiver.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

// Creating this many deployment objects through two brokers and delivering
// their events takes a few seconds on a two-core machine on both databases.
constexpr size_t kObjects = 1000;
constexpr const char* kWebhooks = "/api/v1/webhooks";

class WebhookFanout : public ::testing::TestWithParam<Backend> {
 protected:
  static std::vector<std::string> serve_flags() {
    // A batch of 10 against 1,000 deliveries: many rounds for each broker,
    // so both take part. At debug level each pass logs what it handled.
    return {"--webhooks-delivery-interval", "0.05", "--webhooks-delivery-batch-size", "10", "--log-level", "debug"};
  }

  // The deliveries a broker's passes claimed, summed from its log.
  static int64_t deliveries_claimed(const BrokerProcess& broker) {
    int64_t claimed = 0;
    std::istringstream lines(broker.log());
    for (std::string line; std::getline(lines, line);) {
      auto entry = sindri::parse_json(line);
      if (!entry.ok() || text_of(*entry, "job") != "webhook_delivery") continue;
      EXPECT_EQ(text_of(*entry, "message"), "periodic pass") << line;
      if (const Value* handled = entry->find("handled"); handled != nullptr) claimed += handled->get_int();
    }
    return claimed;
  }

  void SetUp() override {
    first_ = std::make_unique<BrokerProcess>(GetParam());
    if (!first_->usable()) GTEST_FAIL() << "no database for this backend";
    first_->start(serve_flags());
    second_ = std::make_unique<BrokerProcess>(*first_, BrokerProcess::SharedDatabase{});
    second_->start(serve_flags());
    admin_ = first_->client(first_->admin_pak());
  }

  // Deliveries of the subscription with `status`, read page by page.
  std::vector<Value> deliveries(const std::string& subscription, const std::string& status) {
    std::vector<Value> out;
    for (size_t offset = 0;; offset += 1000) {
      Reply page = call(*admin_, "GET",
                        std::string(kWebhooks) + "/" + subscription + "/deliveries?status=" + status +
                            "&limit=1000&offset=" + std::to_string(offset));
      EXPECT_EQ(page.status, 200) << page.body;
      if (page.status != 200 || page.json.size() == 0) return out;
      for (const Value& delivery : page.json.get_array()) out.push_back(delivery);
    }
  }

  std::unique_ptr<BrokerProcess> first_;
  std::unique_ptr<BrokerProcess> second_;
  std::unique_ptr<sindri::http::Client> admin_;
};

TEST_P(WebhookFanout, TwoBrokersDeliverEachEventExactlyOnce) {
  WebhookReceiver receiver;
  Reply subscription = call(*admin_, "POST", kWebhooks,
                            R"({"name":"fanout","url":")" + receiver.url() + R"(","event_types":["deployment.created"]})");
  ASSERT_EQ(subscription.status, 201) << subscription.body;
  const std::string subscription_id = text_of(subscription.json, "id");

  Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"g"})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  const std::string generator_pak = text_of(generator.json, "pak");
  std::unique_ptr<sindri::http::Client> through[] = {first_->client(generator_pak), second_->client(generator_pak)};
  Reply stack = call(*through[0], "POST", "/api/v1/stacks", R"({"name":"fanout"})");
  ASSERT_EQ(stack.status, 201) << stack.body;
  const std::string objects_path = "/api/v1/stacks/" + text_of(stack.json, "id") + "/deployment-objects";

  // Created through either broker in turn while both deliver.
  for (size_t i = 0; i < kObjects; ++i) {
    Reply created = call(*through[i % 2], "POST", objects_path,
                         R"({"yaml_content":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c)" +
                             std::to_string(i) + R"(\n"})");
    ASSERT_EQ(created.status, 201) << created.body;
  }

  // Success is final: once every delivery is, nothing more is sent.
  size_t succeeded = 0;
  for (int round = 0; round < 1000 && succeeded < kObjects; ++round) {
    succeeded = deliveries(subscription_id, "success").size();
    if (succeeded < kObjects) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(succeeded, kObjects);
  EXPECT_EQ(deliveries(subscription_id, "pending").size() + deliveries(subscription_id, "acquired").size() +
                deliveries(subscription_id, "failed").size() + deliveries(subscription_id, "dead").size(),
            0u);
  // A few more rounds of both passes, for a stray second send to show.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));

  const std::vector<WebhookReceiver::Received> got = receiver.received();
  EXPECT_EQ(got.size(), kObjects);
  std::map<std::string, int> arrivals;
  for (const auto& request : got) {
    EXPECT_EQ(request.header("X-Brokkr-Event-Type"), "deployment.created");
    ++arrivals[std::string(request.header("X-Brokkr-Delivery-Id"))];
  }
  EXPECT_EQ(arrivals.size(), kObjects);
  for (const auto& [id, count] : arrivals) EXPECT_EQ(count, 1) << "delivery " << id;
  // Both brokers delivered, and no delivery was claimed twice.
  const int64_t first_claimed = deliveries_claimed(*first_);
  const int64_t second_claimed = deliveries_claimed(*second_);
  EXPECT_GT(first_claimed, 0);
  EXPECT_GT(second_claimed, 0);
  EXPECT_EQ(first_claimed + second_claimed, static_cast<int64_t>(kObjects));
  for (const Value& delivery : deliveries(subscription_id, "success")) {
    const std::string id = text_of(delivery, "id");
    EXPECT_EQ(arrivals.count(id), 1u) << "delivery " << id << " is success but never arrived";
    EXPECT_EQ(delivery.find("attempts")->get_int(), 1) << id;
  }
}

// A receiver that never answers holds back no other delivery: each is
// recorded as soon as it is sent, not when the slowest of its batch ends
// (which let a claim run out and another broker send it again).
TEST_P(WebhookFanout, AHangingReceiverHoldsBackNoOtherDelivery) {
  WebhookReceiver hanging;
  hanging.set_hang(true);
  WebhookReceiver working;
  Reply slow = call(*admin_, "POST", kWebhooks,
                    R"({"name":"slow","url":")" + hanging.url() +
                        R"(","event_types":["stack.created"],"timeout_seconds":30,"max_retries":1})");
  ASSERT_EQ(slow.status, 201) << slow.body;
  Reply fast = call(*admin_, "POST", kWebhooks,
                    R"({"name":"fast","url":")" + working.url() + R"(","event_types":["stack.created"]})");
  ASSERT_EQ(fast.status, 201) << fast.body;
  Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"g"})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  ASSERT_EQ(call(*first_->client(text_of(generator.json, "pak")), "POST", "/api/v1/stacks", R"({"name":"s"})").status,
            201);

  ASSERT_EQ(working.wait_for(1).size(), 1u);
  size_t succeeded = 0;
  for (int round = 0; round < 250 && succeeded == 0; ++round) {
    succeeded = deliveries(text_of(fast.json, "id"), "success").size();
    if (succeeded == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(succeeded, 1u) << "the working receiver's delivery waits for the hanging one";
  EXPECT_EQ(deliveries(text_of(slow.json, "id"), "acquired").size(), 1u);
  EXPECT_EQ(working.received().size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, WebhookFanout, ::testing::Values(Backend::Sqlite, Backend::Postgres),
                         backend_name);

}  // namespace
}  // namespace sindri_test
