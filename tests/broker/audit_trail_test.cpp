// The broker's own audit trail, black box over HTTP on both databases:
// changes through the API are written with their actor and resource, and
// refused PAKs are written as one counted entry per source address.

#include <chrono>
#include <thread>

#include "broker_process.hpp"

namespace sindri_test {
namespace {

class AuditTrail : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(GetParam());
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
    broker_->start({"--audit-flush-interval", "0.05"});
    admin_ = broker_->client(broker_->admin_pak());
  }

  Reply logs(const std::string& query) {
    Reply reply = call(*admin_, "GET", "/api/v1/admin/audit-logs" + query);
    EXPECT_EQ(reply.status, 200) << reply.body;
    return reply;
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_;
};

TEST_P(AuditTrail, ChangesAreWrittenWithTheirActorAndResource) {
  Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"team-a"})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  const std::string generator_id = text_of(*generator.json.find("generator"), "id");
  auto team = broker_->client(text_of(generator.json, "pak"));
  Reply stack = call(*team, "POST", "/api/v1/stacks", R"({"name":"web","generator_id":")" + generator_id + R"("})");
  ASSERT_EQ(stack.status, 201) << stack.body;
  const std::string stack_id = text_of(stack.json, "id");
  ASSERT_EQ(call(*team, "DELETE", "/api/v1/stacks/" + stack_id).status, 204);

  Reply stacks = logs("?resource_type=stack&resource_id=" + stack_id);
  const sindri::Value& entries = *stacks.json.find("logs");
  ASSERT_EQ(entries.size(), 2u) << stacks.body;
  EXPECT_EQ(text_of(*entries.at(0), "action"), "stack.deleted");
  EXPECT_EQ(text_of(*entries.at(1), "action"), "stack.created");
  for (size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(text_of(*entries.at(i), "actor_type"), "generator");
    EXPECT_EQ(text_of(*entries.at(i), "actor_id"), generator_id);
    EXPECT_EQ(text_of(*entries.at(i), "actor_name"), "team-a");
    EXPECT_EQ(text_of(*entries.at(i), "ip_address"), "127.0.0.1");
  }
  Reply paks = logs("?action=pak.*&resource_id=" + generator_id);
  ASSERT_EQ(paks.json.find("logs")->size(), 1u) << paks.body;
  EXPECT_EQ(text_of(*paks.json.find("logs")->at(0), "action"), "pak.created");
  EXPECT_EQ(text_of(*paks.json.find("logs")->at(0), "actor_type"), "admin");
}

TEST_P(AuditTrail, ARefusedPaksFirstFailureIsWrittenWhileTheBrokerRuns) {
  auto stranger = broker_->client("brokkr_BRnotreal_0000000000000000000000000000");
  ASSERT_EQ(call(*stranger, "GET", "/api/v1/stacks").status, 401);
  size_t written = 0;
  for (int waited = 0; waited < 500 && written == 0; ++waited) {
    written = logs("?action=auth.failed").json.find("logs")->size();
    if (written == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Reply failed = logs("?action=auth.failed");
  ASSERT_EQ(failed.json.find("logs")->size(), 1u) << failed.body;
  const sindri::Value& details = *failed.json.find("logs")->at(0)->find("details");
  EXPECT_EQ(details.find("count")->get_int(), 1);
  EXPECT_EQ(text_of(details, "reason"), "unauthorized");
}

// No flush is due before the stop (the batch is far off, the interval an
// hour), so what the stop writes is all there is: every failure, counted
// once, in one entry per minute they fell in.
TEST_P(AuditTrail, ARefusedPaksFailuresAreWrittenWhenTheBrokerStops) {
  ASSERT_EQ(broker_->stop(), 0) << broker_->log();
  broker_->start({"--audit-flush-interval", "3600"});
  auto stranger = broker_->client("brokkr_BRnotreal_0000000000000000000000000000");
  for (int i = 0; i < 5; ++i) ASSERT_EQ(call(*stranger, "GET", "/api/v1/stacks").status, 401);
  ASSERT_EQ(broker_->stop(), 0) << broker_->log();
  broker_->start();
  admin_ = broker_->client(broker_->admin_pak());
  Reply failed = logs("?action=auth.failed");
  const sindri::Value& entries = *failed.json.find("logs");
  ASSERT_GE(entries.size(), 1u) << failed.body;
  EXPECT_LE(entries.size(), 2u) << failed.body;
  int64_t counted = 0;
  for (const sindri::Value& entry : entries.get_array()) {
    EXPECT_EQ(text_of(entry, "actor_type"), "system");
    EXPECT_EQ(text_of(entry, "ip_address"), "127.0.0.1");
    const sindri::Value& details = *entry.find("details");
    EXPECT_EQ(text_of(details, "path"), "/api/v1/stacks");
    EXPECT_FALSE(details.find("continued")->get_bool()) << failed.body;
    counted += details.find("count")->get_int();
  }
  EXPECT_EQ(counted, 5);
}

INSTANTIATE_TEST_SUITE_P(Backends, AuditTrail, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
