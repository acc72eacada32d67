// Work orders, black box over HTTP on both databases, in the scenarios of
// Brokkr's own tests: targeting by id, label and annotation; claim and
// complete with retries and max retries; abandoned claims; the log and its
// filters; bad input and identities the operations leave out. Waits are
// the work orders' own settings of one second, polled.

#include <atomic>
#include <set>
#include <thread>

#include "broker_process.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

const std::string kUnknownId = "00000000-0000-4000-8000-000000000000";

int64_t int_of(const Value& object, std::string_view key) {
  const Value* value = object.find(key);
  return value != nullptr && value->is_int() ? value->get_int() : -1;
}

class WorkOrders : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(GetParam());
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
    broker_->start();
    admin_ = broker_->client(broker_->admin_pak());
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"g"})");
    ASSERT_EQ(generator.status, 201) << generator.body;
    generator_ = broker_->client(text_of(generator.json, "pak"));
    for (const char* name : {"a1", "a2", "a3"}) {
      Reply agent = call(*admin_, "POST", "/api/v1/agents", std::string(R"({"name":")") + name + R"(","cluster_name":"c"})");
      ASSERT_EQ(agent.status, 201) << agent.body;
      agent_ids_.push_back(text_of(*agent.json.find("agent"), "id"));
      agent_paks_.push_back(text_of(agent.json, "initial_pak"));
      agents_.push_back(broker_->client(agent_paks_.back()));
    }
    // a1 carries a label and an annotation; the others nothing.
    ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_ids_[0] + "/labels", R"("gpu")").status, 201);
    ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_ids_[0] + "/annotations",
                   R"({"key":"zone","value":"eu"})")
                  .status,
              201);
  }

  // Creates a work order with `fields` (JSON members, no braces; work_type
  // build unless they name one) and answers it.
  Value create(const std::string& fields) {
    const std::string work_type = fields.find("\"work_type\"") == std::string::npos ? R"("work_type":"build",)" : "";
    Reply created = call(*admin_, "POST", "/api/v1/work-orders",
                         "{" + work_type + R"("yaml_content":"kind: Build\n",)" + fields + "}");
    EXPECT_EQ(created.status, 201) << created.body;
    return created.json;
  }
  std::string targeting_agents(std::initializer_list<size_t> agents) const {
    std::string list;
    for (size_t agent : agents) list += (list.empty() ? "\"" : ",\"") + agent_ids_[agent] + "\"";
    return R"("targeting":{"agent_ids":[)" + list + "]}";
  }
  Reply claim(size_t agent, const std::string& id) {
    return call(*agents_[agent], "POST", "/api/v1/work-orders/" + id + "/claim",
                R"({"agent_id":")" + agent_ids_[agent] + R"("})");
  }
  Reply complete(size_t agent, const std::string& id, const std::string& body) {
    return call(*agents_[agent], "POST", "/api/v1/work-orders/" + id + "/complete", body);
  }
  std::set<std::string> pending_ids(size_t agent, const std::string& query = "") {
    Reply pending = call(*agents_[agent], "GET", "/api/v1/agents/" + agent_ids_[agent] + "/work-orders/pending" + query);
    EXPECT_EQ(pending.status, 200) << pending.body;
    std::set<std::string> ids;
    if (pending.json.is_array()) {
      for (const Value& order : pending.json.get_array()) {
        EXPECT_EQ(text_of(order, "status"), "PENDING") << pending.body;
        ids.insert(text_of(order, "id"));
      }
    }
    return ids;
  }
  // Claims until it succeeds or `limit` passes: for a backoff or a claim
  // timeout of a second or two.
  Reply claim_when_due(size_t agent, const std::string& id, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    Reply reply = claim(agent, id);
    while (reply.status == 404 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      reply = claim(agent, id);
    }
    return reply;
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_;
  std::unique_ptr<sindri::http::Client> generator_;
  std::vector<std::string> agent_ids_;
  std::vector<std::string> agent_paks_;
  std::vector<std::unique_ptr<sindri::http::Client>> agents_;
};

TEST_P(WorkOrders, CreatedListedFoundAndDeleted) {
  const Value order = create(targeting_agents({0}));
  EXPECT_EQ(text_of(order, "status"), "PENDING");
  EXPECT_EQ(text_of(order, "work_type"), "build");
  EXPECT_EQ(int_of(order, "max_retries"), 3);
  EXPECT_EQ(int_of(order, "backoff_seconds"), 60);
  EXPECT_EQ(int_of(order, "claim_timeout_seconds"), 3600);
  EXPECT_EQ(int_of(order, "retry_count"), 0);
  EXPECT_TRUE(order.find("claimed_by")->is_null());
  const std::string id = text_of(order, "id");
  create(R"("work_type":"test","targeting":{"labels":["gpu"]})");

  EXPECT_EQ(call(*admin_, "GET", "/api/v1/work-orders").json.size(), 2u);
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/work-orders?status=PENDING").json.size(), 2u);
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/work-orders?status=CLAIMED").json.size(), 0u);
  Reply tests = call(*admin_, "GET", "/api/v1/work-orders?work_type=test");
  ASSERT_EQ(tests.json.size(), 1u) << tests.body;
  EXPECT_EQ(text_of(*tests.json.at(0), "work_type"), "test");
  Reply bad_status = call(*admin_, "GET", "/api/v1/work-orders?status=DONE");
  EXPECT_EQ(bad_status.status, 400) << bad_status.body;

  Reply found = call(*admin_, "GET", "/api/v1/work-orders/" + id);
  ASSERT_EQ(found.status, 200) << found.body;
  EXPECT_EQ(text_of(found.json, "id"), id);
  EXPECT_EQ(call(*admin_, "DELETE", "/api/v1/work-orders/" + id).status, 204);
  Reply gone = call(*admin_, "GET", "/api/v1/work-orders/" + id);
  EXPECT_EQ(gone.status, 404) << gone.body;
  EXPECT_EQ(text_of(gone.json, "code"), "work_order_not_found");
  EXPECT_EQ(call(*admin_, "DELETE", "/api/v1/work-orders/" + id).status, 404);
  EXPECT_TRUE(pending_ids(0).size() == 1u);
}

TEST_P(WorkOrders, SomeTargetingIsRequired) {
  for (const char* fields : {"", R"(,"targeting":{})", R"(,"targeting":{"agent_ids":[],"labels":[]})",
                             R"(,"target_agent_ids":[])", R"(,"targeting":null)"}) {
    Reply reply = call(*admin_, "POST", "/api/v1/work-orders",
                       std::string(R"({"work_type":"build","yaml_content":"x")") + fields + "}");
    EXPECT_EQ(reply.status, 400) << fields << " -> " << reply.body;
    EXPECT_EQ(text_of(reply.json, "code"), "no_targeting_specified") << reply.body;
  }
  // Brokkr's older field still targets.
  const Value legacy = create(R"("target_agent_ids":[")" + agent_ids_[1] + R"("])");
  EXPECT_EQ(pending_ids(1), std::set<std::string>{text_of(legacy, "id")});
}

TEST_P(WorkOrders, BadInputIsAClientErrorNamingTheField) {
  const std::string target = targeting_agents({0});
  const std::pair<std::string, std::string> cases[] = {
      {R"({"work_type":5,"yaml_content":"x",)" + target + "}", "/work_type"},
      {R"({"yaml_content":"x",)" + target + "}", "/work_type"},
      {R"({"work_type":"build",)" + target + "}", "/yaml_content"},
      {R"({"work_type":"build","yaml_content":"  \n",)" + target + "}", "/yaml_content"},
      {R"({"work_type":")" + std::string(51, 'w') + R"(","yaml_content":"x",)" + target + "}", "/work_type"},
      {R"({"work_type":"build","yaml_content":"x","max_retries":-1,)" + target + "}", "/max_retries"},
      {R"({"work_type":"build","yaml_content":"x","max_retries":2147483648,)" + target + "}", "/max_retries"},
      {R"({"work_type":"build","yaml_content":"x","backoff_seconds":0,)" + target + "}", "/backoff_seconds"},
      {R"({"work_type":"build","yaml_content":"x","claim_timeout_seconds":"1",)" + target + "}",
       "/claim_timeout_seconds"},
      {R"({"work_type":"build","yaml_content":"x","targeting":{"agent_ids":["nope"]}})", "/targeting/agent_ids/0"},
      {R"({"work_type":"build","yaml_content":"x","targeting":{"agent_ids":[")" + kUnknownId + R"("]}})",
       "/targeting/agent_ids"},
      {R"({"work_type":"build","yaml_content":"x","targeting":{"labels":[5]}})", "/targeting/labels/0"},
      {R"({"work_type":"build","yaml_content":"x","targeting":{"labels":["a b"]}})", "/targeting/labels/0"},
      {R"({"work_type":"build","yaml_content":"x","targeting":{"annotations":{"k":1}}})", "/targeting/annotations/k"},
      {R"({"work_type":"build","yaml_content":"x","targeting":{"colour":"red"}})", "/targeting/colour"},
      {R"({"work_type":"build","yaml_content":"x","targeting":[1]})", "/targeting"},
      {R"({"work_type":"build","yaml_content":"x","priority":1,)" + target + "}", "/priority"},
  };
  for (const auto& [body, pointer] : cases) {
    Reply reply = call(*admin_, "POST", "/api/v1/work-orders", body);
    EXPECT_EQ(reply.status, 400) << body << " -> " << reply.body;
    const Value* details = reply.json.find("details");
    EXPECT_TRUE(details != nullptr && text_of(*details, "pointer") == pointer) << body << " -> " << reply.body;
  }
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/work-orders").json.size(), 0u);

  const std::string id = text_of(create(target), "id");
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/work-orders/not-a-uuid").status, 400);
  EXPECT_EQ(call(*agents_[0], "POST", "/api/v1/work-orders/" + id + "/claim", R"({"agent_id":"x"})").status, 400);
  EXPECT_EQ(call(*agents_[0], "POST", "/api/v1/work-orders/" + id + "/claim", "{}").status, 400);
  ASSERT_EQ(claim(0, id).status, 200);
  Reply no_success = complete(0, id, R"({"message":"done"})");
  EXPECT_EQ(no_success.status, 400) << no_success.body;
  EXPECT_EQ(complete(0, id, R"({"success":"yes"})").status, 400);
  EXPECT_EQ(complete(0, id, R"({"success":true,"retryable":1})").status, 400);
  for (const char* query : {"?limit=0", "?limit=x", "?success=maybe", "?agent_id=nope"}) {
    EXPECT_EQ(call(*admin_, "GET", std::string("/api/v1/work-order-log") + query).status, 400) << query;
  }
  Reply no_entry = call(*admin_, "GET", "/api/v1/work-order-log/" + kUnknownId);
  EXPECT_EQ(no_entry.status, 404);
  EXPECT_EQ(text_of(no_entry.json, "code"), "work_order_log_entry_not_found");
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/work-orders/" + kUnknownId).status, 404);
  Reply unknown_claim = claim(0, kUnknownId);
  EXPECT_EQ(unknown_claim.status, 404);
  EXPECT_EQ(text_of(unknown_claim.json, "code"), "work_order_not_claimable");
  EXPECT_EQ(complete(0, kUnknownId, R"({"success":true})").status, 404);
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/agents/" + kUnknownId + "/work-orders/pending").status, 404);
}

TEST_P(WorkOrders, OnlyTheIdentitiesTheOperationsAllow) {
  const std::string id = text_of(create(targeting_agents({0})), "id");
  const std::string body = R"({"work_type":"b","yaml_content":"x",)" + targeting_agents({0}) + "}";
  EXPECT_EQ(call(*generator_, "POST", "/api/v1/work-orders", body).status, 403);
  EXPECT_EQ(call(*agents_[0], "POST", "/api/v1/work-orders", body).status, 403);
  EXPECT_EQ(call(*agents_[0], "GET", "/api/v1/work-orders").status, 403);
  EXPECT_EQ(call(*agents_[0], "GET", "/api/v1/work-orders/" + id).status, 403);
  EXPECT_EQ(call(*agents_[0], "DELETE", "/api/v1/work-orders/" + id).status, 403);
  EXPECT_EQ(call(*agents_[0], "GET", "/api/v1/work-order-log").status, 403);
  EXPECT_EQ(call(*generator_, "GET", "/api/v1/agents/" + agent_ids_[0] + "/work-orders/pending").status, 403);
  EXPECT_EQ(call(*generator_, "POST", "/api/v1/work-orders/" + id + "/claim",
                 R"({"agent_id":")" + agent_ids_[0] + R"("})")
                .status,
            403);
  EXPECT_EQ(call(*broker_->client(""), "GET", "/api/v1/work-orders").status, 401);
  // An agent acts only for itself.
  Reply others_pending = call(*agents_[1], "GET", "/api/v1/agents/" + agent_ids_[0] + "/work-orders/pending");
  EXPECT_EQ(others_pending.status, 403);
  EXPECT_EQ(text_of(others_pending.json, "code"), "agent_pak_mismatch");
  Reply for_another = call(*agents_[1], "POST", "/api/v1/work-orders/" + id + "/claim",
                           R"({"agent_id":")" + agent_ids_[0] + R"("})");
  EXPECT_EQ(for_another.status, 403);
  EXPECT_EQ(text_of(for_another.json, "code"), "agent_pak_mismatch");
  // An admin sees any agent's and claims for any.
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/agents/" + agent_ids_[0] + "/work-orders/pending").json.size(), 1u);
  Reply by_admin = call(*admin_, "POST", "/api/v1/work-orders/" + id + "/claim",
                        R"({"agent_id":")" + agent_ids_[0] + R"("})");
  ASSERT_EQ(by_admin.status, 200) << by_admin.body;
  EXPECT_EQ(text_of(by_admin.json, "claimed_by"), agent_ids_[0]);
}

TEST_P(WorkOrders, AgentsMatchByIdOrAnyLabelOrAnyAnnotation) {
  const std::string by_id = text_of(create(targeting_agents({1})), "id");
  const std::string by_label = text_of(create(R"("targeting":{"labels":["gpu","arm"]})"), "id");
  const std::string by_annotation =
      text_of(create(R"("work_type":"backup","targeting":{"annotations":{"zone":"eu","tier":"gold"}})"), "id");
  const std::string by_other_value = text_of(create(R"("targeting":{"annotations":{"zone":"us"}})"), "id");

  EXPECT_EQ(pending_ids(0), (std::set<std::string>{by_label, by_annotation}));
  EXPECT_EQ(pending_ids(0, "?work_type=backup"), std::set<std::string>{by_annotation});
  EXPECT_EQ(pending_ids(1), std::set<std::string>{by_id});
  EXPECT_TRUE(pending_ids(2).empty());

  Reply not_targeted = claim(0, by_id);
  EXPECT_EQ(not_targeted.status, 404) << not_targeted.body;
  EXPECT_EQ(text_of(not_targeted.json, "code"), "work_order_not_claimable");
  EXPECT_EQ(claim(0, by_other_value).status, 404);
  Reply claimed = claim(0, by_label);
  ASSERT_EQ(claimed.status, 200) << claimed.body;
  EXPECT_EQ(text_of(claimed.json, "status"), "CLAIMED");
  EXPECT_EQ(text_of(claimed.json, "claimed_by"), agent_ids_[0]);
  EXPECT_FALSE(text_of(claimed.json, "claimed_at").empty());
  EXPECT_EQ(claim(0, by_label).status, 404);
  EXPECT_EQ(pending_ids(0), std::set<std::string>{by_annotation});
  EXPECT_EQ(claim(0, by_annotation).status, 200);
  EXPECT_EQ(claim(1, by_id).status, 200);
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/work-orders?status=CLAIMED").json.size(), 3u);
}

TEST_P(WorkOrders, SuccessMovesTheOrderToTheLog) {
  const std::string id = text_of(create(targeting_agents({0, 1})), "id");
  ASSERT_EQ(claim(0, id).status, 200);
  Reply by_other = complete(1, id, R"({"success":true})");
  EXPECT_EQ(by_other.status, 403) << by_other.body;
  EXPECT_EQ(text_of(by_other.json, "code"), "work_order_not_claimed_by_agent");

  Reply done = complete(0, id, R"({"success":true,"message":"sha256:abc123"})");
  ASSERT_EQ(done.status, 200) << done.body;
  EXPECT_EQ(text_of(done.json, "id"), id);
  EXPECT_EQ(done.json.find("success")->get_bool(), true);
  EXPECT_EQ(text_of(done.json, "result_message"), "sha256:abc123");
  EXPECT_EQ(text_of(done.json, "claimed_by"), agent_ids_[0]);
  EXPECT_EQ(int_of(done.json, "retries_attempted"), 0);
  EXPECT_FALSE(text_of(done.json, "completed_at").empty());

  EXPECT_EQ(call(*admin_, "GET", "/api/v1/work-orders").json.size(), 0u);
  Reply shown = call(*admin_, "GET", "/api/v1/work-orders/" + id);
  ASSERT_EQ(shown.status, 200) << shown.body;
  EXPECT_EQ(text_of(shown.json, "status"), "COMPLETED");
  EXPECT_TRUE(shown.json.find("last_error")->is_null());
  Reply entry = call(*admin_, "GET", "/api/v1/work-order-log/" + id);
  ASSERT_EQ(entry.status, 200) << entry.body;
  EXPECT_EQ(text_of(entry.json, "yaml_content"), "kind: Build\n");
  Reply again = complete(0, id, R"({"success":true})");
  EXPECT_EQ(again.status, 404);
  EXPECT_EQ(text_of(again.json, "code"), "work_order_not_found");
}

TEST_P(WorkOrders, AFailureRetriesAfterBackoffUntilMaxRetries) {
  const std::string id =
      text_of(create(R"("max_retries":1,"backoff_seconds":1,)" + targeting_agents({0})), "id");
  ASSERT_EQ(claim(0, id).status, 200);
  Reply retry = complete(0, id, R"({"success":false,"message":"registry down"})");
  ASSERT_EQ(retry.status, 202) << retry.body;
  EXPECT_EQ(text_of(retry.json, "status"), "retry_scheduled");
  Reply waiting = call(*admin_, "GET", "/api/v1/work-orders/" + id);
  EXPECT_EQ(text_of(waiting.json, "status"), "RETRY_PENDING");
  EXPECT_EQ(int_of(waiting.json, "retry_count"), 1);
  EXPECT_EQ(text_of(waiting.json, "last_error"), "registry down");
  EXPECT_FALSE(text_of(waiting.json, "next_retry_after").empty());
  EXPECT_TRUE(waiting.json.find("claimed_by")->is_null());
  // Backing off 1 s x 2^1: not claimable at once, then claimable again.
  EXPECT_EQ(claim(0, id).status, 404);
  Reply reclaimed = claim_when_due(0, id, std::chrono::seconds(10));
  ASSERT_EQ(reclaimed.status, 200) << reclaimed.body;
  EXPECT_EQ(int_of(reclaimed.json, "retry_count"), 1);
  EXPECT_TRUE(reclaimed.json.find("next_retry_after")->is_null());

  Reply final = complete(0, id, R"({"success":false,"message":"still down"})");
  ASSERT_EQ(final.status, 200) << final.body;
  EXPECT_EQ(final.json.find("success")->get_bool(), false);
  EXPECT_EQ(int_of(final.json, "retries_attempted"), 1);
  Reply shown = call(*admin_, "GET", "/api/v1/work-orders/" + id);
  EXPECT_EQ(text_of(shown.json, "status"), "FAILED");
  EXPECT_EQ(text_of(shown.json, "last_error"), "still down");

  // A failure that may not be retried goes to the log at once; so does any
  // failure when max_retries is 0.
  const std::string fatal = text_of(create(targeting_agents({0})), "id");
  ASSERT_EQ(claim(0, fatal).status, 200);
  Reply not_retryable = complete(0, fatal, R"({"success":false,"retryable":false})");
  ASSERT_EQ(not_retryable.status, 200) << not_retryable.body;
  EXPECT_EQ(text_of(not_retryable.json, "result_message"), "Unknown error");
  const std::string once = text_of(create(R"("max_retries":0,)" + targeting_agents({0})), "id");
  ASSERT_EQ(claim(0, once).status, 200);
  EXPECT_EQ(complete(0, once, R"({"success":false})").status, 200);
}

TEST_P(WorkOrders, AnAbandonedClaimReturnsAfterItsTimeout) {
  const std::string id =
      text_of(create(R"("claim_timeout_seconds":1,)" + targeting_agents({0, 1})), "id");
  ASSERT_EQ(claim(0, id).status, 200);
  EXPECT_EQ(claim(1, id).status, 404);
  Reply taken_over = claim_when_due(1, id, std::chrono::seconds(10));
  ASSERT_EQ(taken_over.status, 200) << taken_over.body;
  EXPECT_EQ(text_of(taken_over.json, "claimed_by"), agent_ids_[1]);
  Reply late = complete(0, id, R"({"success":true})");
  EXPECT_EQ(late.status, 403) << late.body;
  EXPECT_EQ(text_of(late.json, "code"), "work_order_not_claimed_by_agent");
  EXPECT_EQ(complete(1, id, R"({"success":true})").status, 200);
}

TEST_P(WorkOrders, TheLogFiltersAndLimits) {
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    const std::string type = i % 2 == 0 ? "build" : "test";
    ids.push_back(text_of(create(R"("work_type":")" + type + R"(",)" + targeting_agents({0, 1})), "id"));
  }
  ASSERT_EQ(claim(0, ids[0]).status, 200);
  ASSERT_EQ(complete(0, ids[0], R"({"success":true})").status, 200);
  ASSERT_EQ(claim(1, ids[1]).status, 200);
  ASSERT_EQ(complete(1, ids[1], R"({"success":false,"retryable":false})").status, 200);
  ASSERT_EQ(claim(0, ids[2]).status, 200);
  ASSERT_EQ(complete(0, ids[2], R"({"success":false,"retryable":false})").status, 200);

  auto count = [&](const std::string& query) {
    Reply reply = call(*admin_, "GET", "/api/v1/work-order-log" + query);
    EXPECT_EQ(reply.status, 200) << query << " -> " << reply.body;
    return reply.json.size();
  };
  EXPECT_EQ(count(""), 3u);
  EXPECT_EQ(count("?success=true"), 1u);
  EXPECT_EQ(count("?success=false"), 2u);
  EXPECT_EQ(count("?work_type=build"), 2u);
  EXPECT_EQ(count("?agent_id=" + agent_ids_[0]), 2u);
  EXPECT_EQ(count("?agent_id=" + agent_ids_[1] + "&success=false"), 1u);
  EXPECT_EQ(count("?work_type=build&success=false&agent_id=" + agent_ids_[0]), 1u);
  EXPECT_EQ(count("?limit=2"), 2u);
  Reply newest = call(*admin_, "GET", "/api/v1/work-order-log?limit=1");
  ASSERT_EQ(newest.json.size(), 1u);
  EXPECT_EQ(text_of(*newest.json.at(0), "id"), ids[2]);
}

// Every agent claims through each of two brokers sharing the database at
// once: one claim wins.
TEST_P(WorkOrders, RacingAgentsClaimAnOrderOnce) {
  BrokerProcess second(*broker_, BrokerProcess::SharedDatabase{});
  second.start();
  for (int round = 0; round < 3; ++round) {
    const std::string id = text_of(create(targeting_agents({0, 1, 2})), "id");
    std::atomic<int> won{0}, lost{0};
    std::vector<std::thread> racers;
    for (const BrokerProcess* broker : {broker_.get(), &second}) {
      for (size_t agent = 0; agent < agent_ids_.size(); ++agent) {
        racers.emplace_back([&, broker, agent] {
          auto client = broker->client(agent_paks_[agent]);
          const int status = call(*client, "POST", "/api/v1/work-orders/" + id + "/claim",
                                  R"({"agent_id":")" + agent_ids_[agent] + R"("})")
                                 .status;
          (status == 200 ? won : lost)++;
          EXPECT_TRUE(status == 200 || status == 404) << status;
        });
      }
    }
    for (auto& racer : racers) racer.join();
    EXPECT_EQ(won.load(), 1);
    EXPECT_EQ(lost.load(), 5);
  }
}

// Each transition writes an audit entry in its own transaction and the
// workorder.* events reach webhook subscriptions as deliveries.
TEST_P(WorkOrders, TransitionsAreAuditedAndRaiseEvents) {
  // Deliveries an agent carries out stay pending here: nothing delivers them.
  Reply webhook = call(*admin_, "POST", "/api/v1/webhooks",
                       R"({"name":"orders","url":"https://hooks.example/in","event_types":["workorder.*"],)"
                       R"("target_labels":["nowhere"]})");
  ASSERT_EQ(webhook.status, 201) << webhook.body;
  const std::string done = text_of(create(targeting_agents({0})), "id");
  const std::string failed = text_of(create(R"("max_retries":0,)" + targeting_agents({0})), "id");
  const std::string deleted = text_of(create(targeting_agents({0})), "id");
  ASSERT_EQ(claim(0, done).status, 200);
  ASSERT_EQ(complete(0, done, R"({"success":true})").status, 200);
  ASSERT_EQ(claim(0, failed).status, 200);
  ASSERT_EQ(complete(0, failed, R"({"success":false})").status, 200);
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/work-orders/" + deleted).status, 204);

  Reply deliveries = call(*admin_, "GET", "/api/v1/webhooks/" + text_of(webhook.json, "id") + "/deliveries");
  ASSERT_EQ(deliveries.status, 200) << deliveries.body;
  std::multiset<std::string> events;
  for (const Value& delivery : deliveries.json.get_array()) {
    const std::string type = text_of(delivery, "event_type");
    events.insert(type);
    const Value* payload = delivery.find("payload");
    ASSERT_NE(payload, nullptr) << deliveries.body;
    Value parsed = payload->is_string() ? sindri::parse_json(payload->get_string()).value() : *payload;
    const Value& data = *parsed.find("data");
    EXPECT_EQ(text_of(data, "work_type"), "build") << type;
    EXPECT_FALSE(text_of(data, "work_order_id").empty()) << type;
    if (type != "workorder.created") {
      EXPECT_EQ(text_of(data, "agent_id"), agent_ids_[0]) << type;
    }
  }
  EXPECT_EQ(events, (std::multiset<std::string>{"workorder.created", "workorder.created", "workorder.created",
                                                "workorder.claimed", "workorder.claimed", "workorder.completed",
                                                "workorder.failed"}));

  auto actions = [&](const std::string& resource_id) {
    Reply logs = call(*admin_, "GET", "/api/v1/admin/audit-logs?resource_type=work_order&resource_id=" + resource_id);
    EXPECT_EQ(logs.status, 200) << logs.body;
    std::multiset<std::string> out;
    for (const Value& entry : logs.json.find("logs")->get_array()) {
      out.insert(text_of(entry, "action"));
      if (text_of(entry, "action") == "workorder.claimed") {
        EXPECT_EQ(text_of(entry, "actor_type"), "agent");
        EXPECT_EQ(text_of(entry, "actor_id"), agent_ids_[0]);
      }
    }
    return out;
  };
  EXPECT_EQ(actions(done), (std::multiset<std::string>{"workorder.created", "workorder.claimed", "workorder.completed"}));
  EXPECT_EQ(actions(failed), (std::multiset<std::string>{"workorder.created", "workorder.claimed", "workorder.failed"}));
  EXPECT_EQ(actions(deleted), (std::multiset<std::string>{"workorder.created", "workorder.deleted"}));
}

INSTANTIATE_TEST_SUITE_P(Backends, WorkOrders, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
