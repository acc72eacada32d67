// GET /admin/audit-logs, black box over HTTP on both databases: filters
// (actor, an action or a prefix of one, resource, a time window whatever the
// offset it is written with), pagination, actor names, and bad parameters.
// The entries are written straight into the broker's database, each at a
// timestamp of the test's choosing, so that no assertion reads the clock.

#include <cstdio>
#include <map>

#include "broker_process.hpp"
#include "store/database.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

struct Entry {
  std::string timestamp, actor_type, actor_id, action, resource_type, resource_id;
};

class AuditLog : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(GetParam());
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
    broker_->start();
    admin_ = broker_->client(broker_->admin_pak());
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"team-payments"})");
    ASSERT_EQ(generator.status, 201) << generator.body;
    generator_ = broker_->client(text_of(generator.json, "pak"));
    generator_id_ = text_of(*generator.json.find("generator"), "id");
    Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"edge-1","cluster_name":"c"})");
    ASSERT_EQ(agent.status, 201) << agent.body;
    agent_ = broker_->client(text_of(agent.json, "initial_pak"));
    agent_id_ = text_of(*agent.json.find("agent"), "id");

    sindri::store::OpenOptions options;
    options.tenant_schema = broker_->schema();
    auto db = sindri::store::Database::open(broker_->database(), options);
    ASSERT_TRUE(db.ok()) << db.error().message;
    db_ = std::move(db).value();
    // Oldest first; the broker answers newest first.
    seed({{"2026-01-01T00:00:00.000000Z", "admin", "", "generator.created", "generator", generator_id_},
          {"2026-01-01T01:00:00.000000Z", "generator", generator_id_, "stack.created", "stack", kStackId},
          {"2026-01-01T02:00:00.000000Z", "generator", generator_id_, "stack.deleted", "stack", kStackId},
          {"2026-01-01T03:00:00.000000Z", "agent", agent_id_, "agent.registered", "agent", agent_id_},
          {"2026-01-01T04:00:00.000000Z", "system", "", "webhook.delivery_dead", "webhook_delivery", ""},
          {"2026-01-01T05:00:00.000000Z", "generator", kGoneId, "stacking.done", "stack", kStackId}});
  }

  void seed(const std::vector<Entry>& entries) {
    for (const Entry& entry : entries) {
      auto written = db_->write([&](sindri::store::Connection& connection) -> sindri::store::DbStatus {
        auto inserted = connection.query(
            "INSERT INTO audit_logs (id, timestamp, actor_type, actor_id, action, resource_type, resource_id, "
            "details, ip_address, user_agent, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, '127.0.0.1', "
            "'test', $2)",
            {Value(next_id()), Value(entry.timestamp), Value(entry.actor_type),
             entry.actor_id.empty() ? Value() : Value(entry.actor_id), Value(entry.action),
             Value(entry.resource_type), entry.resource_id.empty() ? Value() : Value(entry.resource_id),
             Value(R"({"note":")" + entry.action + "\"}")});
        if (!inserted.ok()) return std::move(inserted).error();
        return sindri::Ok{};
      });
      ASSERT_TRUE(written.ok()) << written.error().message;
    }
  }

  std::string next_id() {
    char id[40];
    std::snprintf(id, sizeof id, "10000000-0000-4000-8000-%012d", ++seeded_);
    return id;
  }

  // The actions of the entries GET /admin/audit-logs?`query` answers, in
  // its order, of those the test wrote (the broker may write its own).
  std::vector<std::string> actions(const std::string& query) {
    Reply reply = call(*admin_, "GET", "/api/v1/admin/audit-logs" + query);
    EXPECT_EQ(reply.status, 200) << query << " -> " << reply.body;
    std::vector<std::string> found;
    const Value* logs = reply.json.find("logs");
    if (logs == nullptr) return found;
    for (const Value& log : logs->get_array()) {
      if (text_of(log, "user_agent") == "test") found.push_back(text_of(log, "action"));
    }
    return found;
  }

  static constexpr const char* kStackId = "20000000-0000-4000-8000-000000000001";
  static constexpr const char* kGoneId = "30000000-0000-4000-8000-000000000001";

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_, generator_, agent_;
  std::string generator_id_, agent_id_;
  std::unique_ptr<sindri::store::Database> db_;
  int seeded_ = 0;
};

using Actions = std::vector<std::string>;

TEST_P(AuditLog, FiltersSelectEntries) {
  EXPECT_EQ(actions("?actor_type=generator"), (Actions{"stacking.done", "stack.deleted", "stack.created"}));
  EXPECT_EQ(actions("?actor_id=" + agent_id_), Actions{"agent.registered"});
  EXPECT_EQ(actions("?action=stack.created"), Actions{"stack.created"});
  // A trailing * is a prefix; anything else is taken literally.
  EXPECT_EQ(actions("?action=stack.*"), (Actions{"stack.deleted", "stack.created"}));
  EXPECT_EQ(actions("?action=stack*"), (Actions{"stacking.done", "stack.deleted", "stack.created"}));
  EXPECT_EQ(actions("?action=stack.%25"), Actions{});
  EXPECT_EQ(actions("?action=stack._reated"), Actions{});
  EXPECT_EQ(actions("?resource_type=stack&resource_id=" + std::string(kStackId)),
            (Actions{"stacking.done", "stack.deleted", "stack.created"}));
  EXPECT_EQ(actions("?actor_type=generator&action=stack.*&resource_type=stack"),
            (Actions{"stack.deleted", "stack.created"}));
}

TEST_P(AuditLog, TimeWindowsFromInclusiveToExclusive) {
  EXPECT_EQ(actions("?from=2026-01-01T01:00:00Z&to=2026-01-01T03:00:00Z"), (Actions{"stack.deleted", "stack.created"}));
  // The same instants written with offsets and fewer or more digits.
  EXPECT_EQ(actions("?from=2026-01-01T02:00:00%2B01:00&to=2026-01-01T04:00:00.000000001%2B01:00"),
            (Actions{"stack.deleted", "stack.created"}));
  EXPECT_EQ(actions("?from=2025-12-31T22:30:00.5-05:00"), (Actions{"stacking.done", "webhook.delivery_dead"}));
  // An unencoded + arrives as a space, and still reads as +.
  EXPECT_EQ(actions("?to=2026-01-01T01:00:00.000001+01:00"), Actions{"generator.created"});
  EXPECT_EQ(actions("?to=2026-01-01T00:00:00Z"), Actions{});
  EXPECT_EQ(actions("?from=2026-01-02T00:00:00Z"), Actions{});
}

TEST_P(AuditLog, PagesCountTheWholeMatch) {
  Reply page = call(*admin_, "GET", "/api/v1/admin/audit-logs?actor_type=generator&limit=2&offset=1");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(page.json.find("total")->get_int(), 3);
  EXPECT_EQ(page.json.find("count")->get_int(), 2);
  EXPECT_EQ(page.json.find("limit")->get_int(), 2);
  EXPECT_EQ(page.json.find("offset")->get_int(), 1);
  ASSERT_EQ(page.json.find("logs")->size(), 2u);
  EXPECT_EQ(text_of(*page.json.find("logs")->at(0), "action"), "stack.deleted");
  EXPECT_EQ(text_of(*page.json.find("logs")->at(1), "action"), "stack.created");
  Reply past = call(*admin_, "GET", "/api/v1/admin/audit-logs?actor_type=generator&offset=3");
  EXPECT_EQ(past.json.find("total")->get_int(), 3);
  EXPECT_EQ(past.json.find("count")->get_int(), 0);
  Reply defaults = call(*admin_, "GET", "/api/v1/admin/audit-logs");
  EXPECT_EQ(defaults.json.find("limit")->get_int(), 100);
  EXPECT_EQ(defaults.json.find("offset")->get_int(), 0);
}

TEST_P(AuditLog, EntriesCarryTheirActorsNames) {
  Reply reply = call(*admin_, "GET", "/api/v1/admin/audit-logs?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z");
  ASSERT_EQ(reply.status, 200) << reply.body;
  std::map<std::string, Value> by_action;
  for (const Value& log : reply.json.find("logs")->get_array()) by_action[text_of(log, "action")] = log;
  ASSERT_EQ(by_action.size(), 6u) << reply.body;
  EXPECT_EQ(text_of(by_action["generator.created"], "actor_name"), "admin");
  EXPECT_TRUE(by_action["generator.created"].find("actor_id")->is_null());
  EXPECT_EQ(text_of(by_action["stack.created"], "actor_name"), "team-payments");
  EXPECT_EQ(text_of(by_action["agent.registered"], "actor_name"), "edge-1");
  EXPECT_EQ(text_of(by_action["webhook.delivery_dead"], "actor_name"), "system");
  EXPECT_TRUE(by_action["webhook.delivery_dead"].find("resource_id")->is_null());
  EXPECT_TRUE(by_action["stacking.done"].find("actor_name")->is_null()) << reply.body;
  // Details come back as JSON, not as its text.
  const Value& entry = by_action["stack.created"];
  ASSERT_TRUE(entry.find("details")->is_object()) << reply.body;
  EXPECT_EQ(text_of(*entry.find("details"), "note"), "stack.created");
  for (const char* key : {"id", "timestamp", "actor_type", "resource_type", "created_at", "ip_address"}) {
    EXPECT_FALSE(text_of(entry, key).empty()) << key;
  }
}

// Entries the broker writes itself: a work order created by the admin and
// claimed by an agent, each with its actor, name, address and user agent.
TEST_P(AuditLog, TheBrokersOwnEntriesNameTheirActors) {
  Reply order = call(*admin_, "POST", "/api/v1/work-orders",
                     R"({"work_type":"build","yaml_content":"kind: Job","targeting":{"agent_ids":[")" + agent_id_ +
                         "\"]}}");
  ASSERT_EQ(order.status, 201) << order.body;
  const std::string order_id = text_of(order.json, "id");
  Reply claimed = call(*agent_, "POST", "/api/v1/work-orders/" + order_id + "/claim",
                       R"({"agent_id":")" + agent_id_ + "\"}");
  ASSERT_EQ(claimed.status, 200) << claimed.body;

  Reply reply = call(*admin_, "GET", "/api/v1/admin/audit-logs?action=workorder.*&resource_id=" + order_id);
  ASSERT_EQ(reply.status, 200) << reply.body;
  const Value& logs = *reply.json.find("logs");
  ASSERT_EQ(logs.size(), 2u) << reply.body;
  EXPECT_EQ(text_of(*logs.at(0), "action"), "workorder.claimed");
  EXPECT_EQ(text_of(*logs.at(0), "actor_type"), "agent");
  EXPECT_EQ(text_of(*logs.at(0), "actor_id"), agent_id_);
  EXPECT_EQ(text_of(*logs.at(0), "actor_name"), "edge-1");
  EXPECT_EQ(text_of(*logs.at(0), "ip_address"), "127.0.0.1");
  EXPECT_FALSE(text_of(*logs.at(0), "user_agent").empty()) << reply.body;
  EXPECT_EQ(text_of(*logs.at(1), "action"), "workorder.created");
  EXPECT_EQ(text_of(*logs.at(1), "actor_type"), "admin");
  EXPECT_EQ(text_of(*logs.at(1), "actor_name"), "admin");
  EXPECT_EQ(text_of(*logs.at(1), "resource_type"), "work_order");

  Reply by_agent = call(*admin_, "GET", "/api/v1/admin/audit-logs?actor_type=agent&actor_id=" + agent_id_ +
                                            "&resource_type=work_order");
  ASSERT_EQ(by_agent.status, 200) << by_agent.body;
  ASSERT_EQ(by_agent.json.find("total")->get_int(), 1) << by_agent.body;
  EXPECT_EQ(text_of(*by_agent.json.find("logs")->at(0), "action"), "workorder.claimed");
}

TEST_P(AuditLog, BadParametersAreNamed) {
  for (const std::string& query :
       {std::string("limit=0"), std::string("limit=1001"), std::string("limit=ten"), std::string("limit=1.5"),
        std::string("offset=-1"), std::string("offset=99999999999999999999"), std::string("from=yesterday"),
        std::string("to=2026-13-01T00:00:00Z"), std::string("actor_id=me"), std::string("resource_id=x"),
        std::string("actor_type=robot"), std::string("action=")}) {
    Reply reply = call(*admin_, "GET", "/api/v1/admin/audit-logs?" + query);
    EXPECT_EQ(reply.status, 400) << query << " -> " << reply.body;
    EXPECT_NE(reply.body.find(query.substr(0, query.find('='))), std::string::npos) << query << " -> " << reply.body;
  }
}

TEST_P(AuditLog, OnlyAdminsReadIt) {
  EXPECT_EQ(call(*generator_, "GET", "/api/v1/admin/audit-logs").status, 403);
  EXPECT_EQ(call(*agent_, "GET", "/api/v1/admin/audit-logs").status, 403);
  EXPECT_EQ(call(*broker_->client(""), "GET", "/api/v1/admin/audit-logs").status, 401);
}

INSTANTIATE_TEST_SUITE_P(Backends, AuditLog, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
