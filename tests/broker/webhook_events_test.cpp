// Event emission on a real SQLite database: which subscriptions an event
// matches (patterns and filters) and the delivery rows it writes.

#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "broker/db/events.hpp"
#include "broker/db/tables.hpp"
#include "broker/db/webhooks.hpp"
#include "store/migrations.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

namespace fs = std::filesystem;

TEST(WebhookPatternTest, ExactWildcardAndPrefix) {
  EXPECT_TRUE(db::event_type_matches("agent.registered", "agent.registered"));
  EXPECT_FALSE(db::event_type_matches("agent.registered", "agent.deregistered"));
  EXPECT_TRUE(db::event_type_matches("*", "workorder.failed"));
  EXPECT_TRUE(db::event_type_matches("deployment.*", "deployment.applied"));
  EXPECT_FALSE(db::event_type_matches("deployment.*", "deployment"));
  EXPECT_FALSE(db::event_type_matches("deployment.*", "deployments.applied"));
  EXPECT_FALSE(db::event_type_matches("deploy*", "deployment.applied"));
  EXPECT_FALSE(db::event_type_matches("", "agent.registered"));
}

TEST(WebhookPatternTest, FiltersNeedTheFieldCarried) {
  const Value data = make_object({{"agent_id", Value("a1")}, {"stack_id", Value()}});
  EXPECT_TRUE(db::event_passes_filters(Value(), data));
  EXPECT_TRUE(db::event_passes_filters(make_object({{"agent_id", Value("a1")}}), data));
  EXPECT_FALSE(db::event_passes_filters(make_object({{"agent_id", Value("a2")}}), data));
  // A null field counts as absent.
  EXPECT_FALSE(db::event_passes_filters(make_object({{"stack_id", Value("s1")}}), data));
  EXPECT_FALSE(db::event_passes_filters(make_object({{"stack_id", Value("s1")}}), make_object({})));
  EXPECT_FALSE(db::event_passes_filters(make_object({{"agent_id", Value("a1")}, {"stack_id", Value("s1")}}), data));
}

class WebhookEmitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() / ("sindri-webhook-emit-" + std::to_string(getpid()) + ".db");
    TearDown();
    auto db = store::Database::open("sqlite://" + path_.string());
    ASSERT_TRUE(db.ok()) << db.error().message;
    db_ = std::move(db).value();
    ASSERT_TRUE(store::migrate(*db_, broker_migrations()).ok());
  }

  void TearDown() override {
    db_.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path_.string() + suffix);
  }

  std::string subscribe(std::vector<std::string> event_types, Value filters = Value(), bool enabled = true) {
    db::SubscriptionFields fields;
    fields.name = "s";
    fields.url_encrypted = "00";
    fields.event_types = std::move(event_types);
    fields.filters = std::move(filters);
    fields.enabled = enabled;
    std::string id;
    auto status = db_->write([&](store::Connection& connection) -> store::DbStatus {
      auto inserted = db::insert_subscription(connection, fields, std::nullopt);
      if (!inserted.ok()) return store::DbError{store::DbError::Kind::Invalid, inserted.error().message};
      id = inserted->id;
      return Ok{};
    });
    EXPECT_TRUE(status.ok());
    return id;
  }

  void emit(std::string_view type, const Value& data) {
    auto status = db_->write([&](store::Connection& connection) -> store::DbStatus {
      auto emitted = db::emit_event(connection, type, data);
      if (!emitted.ok()) return store::DbError{store::DbError::Kind::Invalid, emitted.error().message};
      return Ok{};
    });
    ASSERT_TRUE(status.ok()) << status.error().message;
  }

  // subscription id -> payloads, in insertion order.
  std::vector<std::pair<std::string, std::string>> deliveries() {
    std::vector<std::pair<std::string, std::string>> out;
    auto status = db_->read([&](store::Connection& connection) -> store::DbStatus {
      auto rows = connection.query("SELECT subscription_id, payload, status FROM webhook_deliveries ORDER BY id");
      if (!rows.ok()) return std::move(rows).error();
      for (const auto& row : rows->rows) {
        EXPECT_EQ(row[2].get_string(), "pending");
        out.emplace_back(row[0].get_string(), row[1].get_string());
      }
      return Ok{};
    });
    EXPECT_TRUE(status.ok());
    return out;
  }

  fs::path path_;
  std::unique_ptr<store::Database> db_;
};

TEST_F(WebhookEmitTest, NoSubscriptionsWritesNothing) {
  emit("agent.registered", make_object({{"agent_id", Value("a1")}}));
  EXPECT_TRUE(deliveries().empty());
}

TEST_F(WebhookEmitTest, OneDeliveryPerMatchingSubscription) {
  const std::string all = subscribe({"*"});
  const std::string agents = subscribe({"agent.*"});
  subscribe({"stack.created"});
  subscribe({"agent.*"}, Value(), false);
  const std::string filtered = subscribe({"agent.registered"}, make_object({{"agent_id", Value("a1")}}));
  subscribe({"agent.registered"}, make_object({{"agent_id", Value("a2")}}));
  subscribe({"agent.registered"}, make_object({{"stack_id", Value("s1")}}));

  emit("agent.registered", make_object({{"agent_id", Value("a1")}, {"name", Value("x")}}));
  auto written = deliveries();
  ASSERT_EQ(written.size(), 3u);
  std::set<std::string> to;
  for (const auto& [subscription, payload] : written) to.insert(subscription);
  EXPECT_EQ(to, (std::set<std::string>{all, agents, filtered}));

  auto payload = parse_json(written[0].second);
  ASSERT_TRUE(payload.ok());
  EXPECT_EQ(payload->find("event_type")->get_string(), "agent.registered");
  EXPECT_EQ(payload->find("data")->find("name")->get_string(), "x");
  EXPECT_TRUE(payload->find("id")->is_string());
  EXPECT_TRUE(payload->find("timestamp")->is_string());
  // One event, one id, whatever the number of deliveries.
  EXPECT_EQ(written[0].second, written[2].second);
}

}  // namespace
}  // namespace sindri::broker
