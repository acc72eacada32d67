// The retention passes on a real SQLite database: audit entries and agent
// events older than their settings' days go, newer ones stay; streamed
// telemetry older than telemetry.retention goes, by the broker's clock,
// and so do lapsed live-view tickets.

#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "scratch_database.hpp"

#include "broker/ids.hpp"
#include "broker/passes.hpp"

namespace sindri::broker {
namespace {

namespace fs = std::filesystem;

class RetentionPass : public ::testing::Test {
 protected:
  void execute(const std::string& sql) { db_.execute(sql); }

  int64_t count(const std::string& table) {
    auto rows = db_->read_statement("SELECT COUNT(*) FROM " + table);
    EXPECT_TRUE(rows.ok());
    return rows.ok() ? rows->rows[0][0].get_int() : -1;
  }

  static std::string days_ago(int days) {
    return timestamp_at(std::chrono::system_clock::now() - std::chrono::days(days));
  }

  void audit_entry(const std::string& id, const std::string& when) {
    execute("INSERT INTO audit_logs (id, timestamp, actor_type, action, resource_type, created_at) VALUES ('" + id +
            "', '" + when + "', 'system', 'test.entry', 'test', '" + when + "')");
  }

  void agent_event(const std::string& id, const std::string& when) {
    execute("INSERT INTO agent_events (id, agent_id, deployment_object_id, event_type, status, created_at, "
            "updated_at) VALUES ('" + id + "', 'a', 'd', 'DEPLOY', 'SUCCESS', '" + when + "', '" + when + "')");
  }

  ScratchDatabase db_{"sindri-retention"};
};

TEST_F(RetentionPass, DeletesWhatIsPastEachRetentionAndKeepsTheRest) {
  execute("INSERT INTO generators (id, name, created_at, updated_at) VALUES ('g', 'g', 't', 't')");
  execute("INSERT INTO stacks (id, name, generator_id, created_at, updated_at) VALUES ('s', 's', 'g', 't', 't')");
  execute("INSERT INTO deployment_objects (id, stack_id, yaml_content, yaml_checksum, submitted_at, created_at, "
          "updated_at) VALUES ('d', 's', 'x', 'c', 't', 't', 't')");
  execute("INSERT INTO agents (id, name, cluster_name, created_at, updated_at) VALUES ('a', 'a', 'c', 't', 't')");
  audit_entry("old-audit", days_ago(91));
  audit_entry("recent-audit", days_ago(89));
  agent_event("old-event", days_ago(31));
  agent_event("recent-event", days_ago(29));
  BrokerConfig config;  // 90 and 30 days
  auto deleted = delete_past_retention(*db_, config);
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  EXPECT_EQ(*deleted, 2u);
  EXPECT_EQ(count("audit_logs"), 1);
  EXPECT_EQ(count("agent_events"), 1);

  config.audit_retention_days = 1;
  config.agent_events_retention_days = 1;
  deleted = delete_past_retention(*db_, config);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 2u);
  EXPECT_EQ(count("audit_logs"), 0);
  EXPECT_EQ(count("agent_events"), 0);
}

TEST_F(RetentionPass, TelemetryPastItsWindowIsTrimmedByWhenTheBrokerStoredIt) {
  execute("INSERT INTO generators (id, name, created_at, updated_at) VALUES ('g', 'g', 't', 't')");
  execute("INSERT INTO stacks (id, name, generator_id, created_at, updated_at) VALUES ('s', 's', 'g', 't', 't')");
  execute("INSERT INTO agents (id, name, cluster_name, created_at, updated_at) VALUES ('a', 'a', 'c', 't', 't')");
  const auto seconds_ago = [](int seconds) {
    return timestamp_at(std::chrono::system_clock::now() - std::chrono::seconds(seconds));
  };
  // Observed long ago but stored just now: kept.
  for (const auto& [id, stored] : {std::pair{"old", seconds_ago(7200)}, {"recent", seconds_ago(60)}}) {
    execute(std::string("INSERT INTO agent_k8s_events (id, agent_id, stack_id, observed_at, reason, message, "
                        "event_type, involved_object, created_at) VALUES ('") +
            id + "', 'a', 's', '2020-01-01T00:00:00.000000Z', 'Pulled', 'm', 'Normal', '{}', '" + stored + "')");
    execute(std::string("INSERT INTO agent_pod_logs (id, agent_id, stack_id, namespace, pod, container, ts, line, "
                        "created_at) VALUES ('") +
            id + "', 'a', 's', 'n', 'p', 'c', '2020-01-01T00:00:00.000000Z', 'l', '" + stored + "')");
  }
  execute("INSERT INTO live_view_tickets (ticket_hash, identity_kind, identity_id, expires_at) VALUES ('lapsed', "
          "'admin', 'x', '" + seconds_ago(1) + "'), ('good', 'admin', 'x', '2999-01-01T00:00:00.000000Z')");
  BrokerConfig config;  // six hours
  auto trimmed = trim_telemetry(*db_, config);
  ASSERT_TRUE(trimmed.ok()) << trimmed.error().message;
  EXPECT_EQ(*trimmed, 1u);
  EXPECT_EQ(count("live_view_tickets"), 1);
  config.telemetry_retention = 3600;
  trimmed = trim_telemetry(*db_, config);
  ASSERT_TRUE(trimmed.ok());
  EXPECT_EQ(*trimmed, 2u);
  EXPECT_EQ(count("agent_k8s_events"), 1);
  EXPECT_EQ(count("agent_pod_logs"), 1);
}

}  // namespace
}  // namespace sindri::broker
