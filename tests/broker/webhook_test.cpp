// Webhooks over HTTP against a real `sindri serve` on both databases:
// subscriptions and their validation, the synchronous test delivery, the
// in-cluster delivery by agents, the secrets never stored in clear, a
// broker refusing to start with another encryption key, and the broker's
// delivery pass against a receiver on loopback.

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <set>
#include <thread>

#include "broker_process.hpp"
#include "store/database.hpp"
#include "webhook_receiver.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

constexpr const char* kWebhooks = "/api/v1/webhooks";

std::string webhook_body(const std::string& url, const std::string& extra = "") {
  return R"({"name":"receiver","url":")" + url + R"(","event_types":["stack.*","agent.registered"])" + extra + "}";
}

class Webhooks : public ::testing::TestWithParam<Backend> {
 protected:
  virtual std::vector<std::string> serve_flags() const { return {}; }

  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(GetParam());
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
    broker_->start(serve_flags());
    admin_ = broker_->client(broker_->admin_pak());
    Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"edge","cluster_name":"c"})");
    ASSERT_EQ(agent.status, 201) << agent.body;
    agent_id_ = text_of(*agent.json.find("agent"), "id");
    agent_ = broker_->client(text_of(agent.json, "initial_pak"));
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"g"})");
    ASSERT_EQ(generator.status, 201) << generator.body;
    generator_ = broker_->client(text_of(generator.json, "pak"));
  }

  std::string create(const std::string& body) {
    Reply created = call(*admin_, "POST", kWebhooks, body);
    EXPECT_EQ(created.status, 201) << created.body;
    return text_of(created.json, "id");
  }

  // The broker's database, opened beside it.
  std::unique_ptr<sindri::store::Database> database() const {
    sindri::store::OpenOptions options;
    options.tenant_schema = broker_->schema();
    auto db = sindri::store::Database::open(broker_->database(), options);
    EXPECT_TRUE(db.ok()) << db.error().message;
    return db.ok() ? std::move(db).value() : nullptr;
  }

  // A stack the generator creates: a stack.created event.
  std::string create_stack() {
    Reply stack = call(*generator_, "POST", "/api/v1/stacks", R"({"name":"s)" + std::to_string(++stacks_) + R"("})");
    EXPECT_EQ(stack.status, 201) << stack.body;
    return text_of(stack.json, "id");
  }

  int stacks_ = 0;
  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_;
  std::string agent_id_;
  std::unique_ptr<sindri::http::Client> agent_;
  std::unique_ptr<sindri::http::Client> generator_;
};

TEST_P(Webhooks, SubscriptionsAreCreatedReadUpdatedAndDeletedWithoutShowingSecrets) {
  Reply created = call(*admin_, "POST", kWebhooks, webhook_body("https://hooks.example/in?token=t0p"));
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = text_of(created.json, "id");
  EXPECT_EQ(created.json.find("has_url")->get_bool(), true);
  EXPECT_EQ(created.json.find("has_auth_header")->get_bool(), false);
  EXPECT_EQ(created.json.find("enabled")->get_bool(), true);
  EXPECT_EQ(created.json.find("max_retries")->get_int(), 5);
  EXPECT_EQ(created.json.find("timeout_seconds")->get_int(), 30);
  EXPECT_TRUE(created.json.find("target_labels")->is_null());
  EXPECT_EQ(created.json.find("filters"), nullptr);
  EXPECT_EQ(created.body.find("hooks.example"), std::string::npos) << created.body;

  Reply full = call(*admin_, "POST", kWebhooks,
                    webhook_body("https://hooks.example/in?token=t0p",
                                 R"(,"auth_header":"Bearer zz-secret","filters":{"stack_id":")" + id +
                                     R"("},"target_labels":["env=prod"],"signing_secret":"sign-me",)"
                                     R"("max_retries":0,"timeout_seconds":300,"enabled":false)"));
  ASSERT_EQ(full.status, 201) << full.body;
  const std::string full_id = text_of(full.json, "id");
  EXPECT_EQ(full.json.find("has_auth_header")->get_bool(), true);
  EXPECT_EQ(full.json.find("has_signing_secret")->get_bool(), true);
  EXPECT_EQ(text_of(*full.json.find("filters"), "stack_id"), id);
  EXPECT_EQ(full.json.find("target_labels")->at(0)->get_string(), "env=prod");
  EXPECT_EQ(full.json.find("max_retries")->get_int(), 0);
  EXPECT_EQ(full.json.find("timeout_seconds")->get_int(), 300);
  EXPECT_EQ(full.json.find("enabled")->get_bool(), false);
  for (const char* secret : {"hooks.example", "zz-secret", "sign-me"}) {
    EXPECT_EQ(full.body.find(secret), std::string::npos) << full.body;
  }

  Reply listed = call(*admin_, "GET", kWebhooks);
  ASSERT_EQ(listed.status, 200) << listed.body;
  ASSERT_EQ(listed.json.size(), 2u);
  EXPECT_EQ(text_of(*listed.json.at(0), "id"), id);
  Reply got = call(*admin_, "GET", std::string(kWebhooks) + "/" + full_id);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.json, full.json);

  // Absent fields stay; null clears the optional ones.
  Reply updated = call(*admin_, "PUT", std::string(kWebhooks) + "/" + full_id,
                       R"({"name":"renamed","auth_header":null,"filters":null,"target_labels":null,"enabled":true})");
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(text_of(updated.json, "name"), "renamed");
  EXPECT_EQ(updated.json.find("has_auth_header")->get_bool(), false);
  EXPECT_EQ(updated.json.find("has_signing_secret")->get_bool(), true);
  EXPECT_EQ(updated.json.find("filters"), nullptr);
  EXPECT_TRUE(updated.json.find("target_labels")->is_null());
  EXPECT_EQ(updated.json.find("enabled")->get_bool(), true);
  EXPECT_EQ(updated.json.find("timeout_seconds")->get_int(), 300);
  EXPECT_EQ(*updated.json.find("event_types"), *full.json.find("event_types"));

  Reply types = call(*admin_, "GET", std::string(kWebhooks) + "/event-types");
  ASSERT_EQ(types.status, 200) << types.body;
  EXPECT_EQ(types.json.size(), 13u);

  EXPECT_EQ(call(*admin_, "DELETE", std::string(kWebhooks) + "/" + full_id).status, 204);
  Reply gone = call(*admin_, "GET", std::string(kWebhooks) + "/" + full_id);
  EXPECT_EQ(gone.status, 404);
  EXPECT_EQ(text_of(gone.json, "code"), "webhook_not_found");
  EXPECT_EQ(call(*admin_, "DELETE", std::string(kWebhooks) + "/" + full_id).status, 404);
  EXPECT_EQ(call(*admin_, "GET", kWebhooks).json.size(), 1u);

  // Each change left an audit entry.
  auto db = database();
  auto audited = db->read_statement(
      "SELECT action FROM audit_logs WHERE resource_type = 'webhook_subscription' ORDER BY sequence_id");
  ASSERT_TRUE(audited.ok()) << audited.error().message;
  std::vector<std::string> actions;
  for (const auto& row : audited->rows) actions.emplace_back(row[0].get_string());
  EXPECT_EQ(actions, (std::vector<std::string>{"webhook.created", "webhook.created", "webhook.updated",
                                               "webhook.deleted"}));
}

TEST_P(Webhooks, BadInputIsRefusedNamingTheFieldOrRule) {
  struct Case {
    std::string body;
    int status;
    std::string code;
  };
  const std::string url = "https://hooks.example/x";
  const std::vector<Case> creates = {
      {R"({"url":"https://h/x","event_types":["*"]})", 400, "missing_field"},
      {R"({"name":"n","event_types":["*"]})", 400, "missing_field"},
      {R"({"name":"n","url":"https://h/x"})", 400, "invalid_webhook"},
      {R"({"name":"n","url":"https://h/x","event_types":[]})", 400, "invalid_webhook"},
      {R"({"name":"n","url":"https://h/x","event_types":["dep*"]})", 400, "invalid_field"},
      {R"({"name":"n","url":"https://h/x","event_types":"*"})", 400, "invalid_field"},
      {R"({"name":"n","url":"ftp://h/x","event_types":["*"]})", 400, "invalid_url_scheme"},
      {R"({"name":"n","url":"https://","event_types":["*"]})", 400, "invalid_field"},
      {R"({"name":")" + std::string(256, 'n') + R"(","url":"https://h/x","event_types":["*"]})", 400,
       "invalid_field"},
      {R"({"name":"n","url":"https://h/x","event_types":["*"],"max_retries":11})", 422, "invalid_webhook"},
      {R"({"name":"n","url":"https://h/x","event_types":["*"],"max_retries":-1})", 422, "invalid_webhook"},
      {R"({"name":"n","url":"https://h/x","event_types":["*"],"timeout_seconds":0})", 422, "invalid_webhook"},
      {R"({"name":"n","url":"https://h/x","event_types":["*"],"timeout_seconds":301})", 422, "invalid_webhook"},
      {R"({"name":"n","url":"https://h/x","event_types":["*"],"timeout_seconds":"30"})", 400, "invalid_field"},
      {R"({"name":"n","url":"https://h/x","event_types":["*"],"validate":true})", 422, "unsupported_field"},
      {R"({"name":"n","url":"https://h/x","event_types":["*"],"filters":{"labels":{}}})", 422,
       "unsupported_field"},
      {R"({"name":"n","url":"https://h/x","event_types":["*"],"filters":{"agent_id":"nope"}})", 400,
       "invalid_field"},
      {R"({"name":"n","url":"https://h/x","event_types":["*"],"filters":{"cluster":"x"}})", 400, "unknown_field"},
      {R"({"name":"n","url":"https://h/x","event_types":["*"],"auth_header":"a\nb"})", 400, "invalid_field"},
      {R"({"name":"n","url":"https://h/x","event_types":["*"],"target_labels":["has space"]})", 400,
       "invalid_field"},
      {R"({"name":"n","url":"https://h/x","event_types":["*"],"colour":"red"})", 400, "unknown_field"},
      {R"(["not an object"])", 400, "invalid_body"},
      {R"({"name":)", 400, "invalid_json"},
  };
  for (const Case& bad : creates) {
    Reply reply = call(*admin_, "POST", kWebhooks, bad.body);
    EXPECT_EQ(reply.status, bad.status) << bad.body << " -> " << reply.body;
    EXPECT_EQ(text_of(reply.json, "code"), bad.code) << bad.body << " -> " << reply.body;
    EXPECT_FALSE(text_of(reply.json, "message").empty()) << reply.body;
  }
  EXPECT_EQ(call(*admin_, "GET", kWebhooks).json.size(), 0u);

  const std::string id = create(webhook_body(url));
  const std::string path = std::string(kWebhooks) + "/" + id;
  const std::string unknown = std::string(kWebhooks) + "/00000000-0000-4000-8000-000000000000";
  const std::vector<Case> updates = {
      {R"({"max_retries":100})", 422, "invalid_webhook"},
      {R"({"timeout_seconds":-5})", 422, "invalid_webhook"},
      {R"({"url":"mailto:x"})", 400, "invalid_url_scheme"},
      {R"({"event_types":[]})", 400, "invalid_webhook"},
      {R"({"enabled":"yes"})", 400, "invalid_field"},
      {R"({"filters":{"labels":null}})", 422, "unsupported_field"},
      {R"({"filters":"x"})", 400, "invalid_field"},
      {R"({"name":""})", 400, "invalid_field"},
      {R"({"id":"x"})", 400, "unknown_field"},
  };
  for (const Case& bad : updates) {
    Reply reply = call(*admin_, "PUT", path, bad.body);
    EXPECT_EQ(reply.status, bad.status) << bad.body << " -> " << reply.body;
    EXPECT_EQ(text_of(reply.json, "code"), bad.code) << bad.body << " -> " << reply.body;
  }
  EXPECT_EQ(text_of(call(*admin_, "GET", path).json, "name"), "receiver");

  // Unknown and malformed ids, on every operation that takes one.
  EXPECT_EQ(call(*admin_, "GET", unknown).status, 404);
  EXPECT_EQ(call(*admin_, "PUT", unknown, R"({"name":"x"})").status, 404);
  EXPECT_EQ(call(*admin_, "DELETE", unknown).status, 404);
  EXPECT_EQ(call(*admin_, "GET", unknown + "/deliveries").status, 404);
  EXPECT_EQ(call(*admin_, "POST", unknown + "/test").status, 404);
  EXPECT_EQ(call(*admin_, "GET", std::string(kWebhooks) + "/not-a-uuid").status, 400);
  EXPECT_EQ(call(*admin_, "DELETE", std::string(kWebhooks) + "/not-a-uuid").status, 400);
  for (const char* query : {"?status=lost", "?limit=0", "?limit=1001", "?limit=x", "?offset=-1"}) {
    Reply reply = call(*admin_, "GET", path + "/deliveries" + query);
    EXPECT_EQ(reply.status, 400) << query << " -> " << reply.body;
    EXPECT_EQ(text_of(reply.json, "code"), "invalid_query_parameter") << reply.body;
  }
  EXPECT_EQ(call(*admin_, "GET", path + "/deliveries?status=dead&limit=5&offset=0").status, 200);

  // Only an admin manages subscriptions.
  for (auto* other : {agent_.get(), generator_.get()}) {
    EXPECT_EQ(call(*other, "GET", kWebhooks).status, 403);
    EXPECT_EQ(call(*other, "POST", kWebhooks, webhook_body(url)).status, 403);
    EXPECT_EQ(call(*other, "GET", path).status, 403);
    EXPECT_EQ(call(*other, "PUT", path, R"({"name":"x"})").status, 403);
    EXPECT_EQ(call(*other, "DELETE", path).status, 403);
    EXPECT_EQ(call(*other, "GET", path + "/deliveries").status, 403);
    EXPECT_EQ(call(*other, "POST", path + "/test").status, 403);
    EXPECT_EQ(call(*other, "GET", std::string(kWebhooks) + "/event-types").status, 403);
  }
  auto anonymous = broker_->client("");
  EXPECT_EQ(call(*anonymous, "GET", kWebhooks).status, 401);

  // An agent's pending deliveries are its own; results come from agents.
  Reply other_agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"other","cluster_name":"c"})");
  const std::string other_id = text_of(*other_agent.json.find("agent"), "id");
  Reply mismatch = call(*agent_, "GET", "/api/v1/agents/" + other_id + "/webhooks/pending");
  EXPECT_EQ(mismatch.status, 403);
  EXPECT_EQ(text_of(mismatch.json, "code"), "agent_pak_mismatch");
  EXPECT_EQ(call(*generator_, "GET", "/api/v1/agents/" + agent_id_ + "/webhooks/pending").status, 403);
  Reply no_agent = call(*admin_, "GET", "/api/v1/agents/00000000-0000-4000-8000-000000000000/webhooks/pending");
  EXPECT_EQ(no_agent.status, 404);
  EXPECT_EQ(text_of(no_agent.json, "code"), "agent_not_found");
  const std::string no_delivery = "/api/v1/webhook-deliveries/00000000-0000-4000-8000-000000000000/result";
  Reply missing = call(*agent_, "POST", no_delivery, R"({"success":true})");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(text_of(missing.json, "code"), "delivery_not_found");
  EXPECT_EQ(call(*admin_, "POST", no_delivery, R"({"success":true})").status, 403);
  for (const char* body : {R"({})", R"({"success":"yes"})", R"({"success":false,"status_code":99})",
                           R"({"success":false,"duration_ms":-1})", R"({"success":true,"extra":1})"}) {
    Reply reply = call(*agent_, "POST", no_delivery, body);
    EXPECT_EQ(reply.status, 400) << body << " -> " << reply.body;
  }
}

TEST_P(Webhooks, TheTestDeliveryAnswersWhatTheReceiverSaid) {
  WebhookReceiver receiver({200, 503});
  const std::string id = create(webhook_body(receiver.url("/hook"), R"(,"auth_header":"Token abc","signing_secret":"k")"));
  Reply ok = call(*admin_, "POST", std::string(kWebhooks) + "/" + id + "/test");
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.json.find("success")->get_bool(), true);
  EXPECT_EQ(ok.json.find("status_code")->get_int(), 200);
  auto got = receiver.wait_for(1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].target, "/hook");
  EXPECT_EQ(got[0].header("X-Brokkr-Event-Type"), "webhook.test");
  EXPECT_EQ(got[0].header("Authorization"), "Token abc");
  EXPECT_EQ(got[0].header("Content-Type"), "application/json");
  EXPECT_EQ(got[0].header("X-Brokkr-Delivery-Id").size(), 36u);
  EXPECT_EQ(got[0].header("X-Sindri-Signature").substr(0, 7), "sha256=");
  auto payload = sindri::parse_json(got[0].body);
  ASSERT_TRUE(payload.ok());
  EXPECT_EQ(text_of(*payload, "event_type"), "webhook.test");
  EXPECT_EQ(text_of(*payload->find("data"), "subscription_id"), id);

  Reply failed = call(*admin_, "POST", std::string(kWebhooks) + "/" + id + "/test");
  EXPECT_EQ(failed.status, 400) << failed.body;
  EXPECT_EQ(text_of(failed.json, "code"), "webhook_test_failed");
  EXPECT_EQ(failed.json.find("details")->find("status_code")->get_int(), 503);

  const std::string unreachable = create(webhook_body("http://127.0.0.1:9/closed"));
  Reply refused = call(*admin_, "POST", std::string(kWebhooks) + "/" + unreachable + "/test");
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(text_of(refused.json, "code"), "webhook_test_failed");
}

TEST_P(Webhooks, AnAgentWithTheTargetLabelsDeliversInsideItsCluster) {
  ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/labels", R"("env=prod")").status, 201);
  const std::string id = create(webhook_body(
      "http://inside.cluster/hook", R"(,"auth_header":"Bearer in","target_labels":["env=prod"],"max_retries":2)"));
  const std::string pending_path = "/api/v1/agents/" + agent_id_ + "/webhooks/pending";
  // The next pending delivery, claimed by the agent.
  const auto claim_one = [&]() -> Value {
    Reply pending = call(*agent_, "GET", pending_path);
    EXPECT_EQ(pending.status, 200) << pending.body;
    EXPECT_EQ(pending.json.size(), 1u) << pending.body;
    return pending.json.size() == 1 ? *pending.json.at(0) : Value();
  };
  const auto report = [&](const Value& delivery, const std::string& body) {
    return call(*agent_, "POST", "/api/v1/webhook-deliveries/" + text_of(delivery, "id") + "/result", body);
  };

  const std::string stack = create_stack();
  const Value first = claim_one();
  EXPECT_EQ(text_of(first, "subscription_id"), id);
  EXPECT_EQ(text_of(first, "url"), "http://inside.cluster/hook");
  EXPECT_EQ(text_of(first, "auth_header"), "Bearer in");
  EXPECT_EQ(text_of(first, "event_type"), "stack.created");
  EXPECT_EQ(first.find("max_retries")->get_int(), 2);
  EXPECT_EQ(first.find("timeout_seconds")->get_int(), 30);
  EXPECT_EQ(first.find("attempts")->get_int(), 0);
  auto payload = sindri::parse_json(text_of(first, "payload"));
  ASSERT_TRUE(payload.ok());
  EXPECT_EQ(text_of(*payload, "event_type"), "stack.created");
  EXPECT_EQ(text_of(*payload->find("data"), "stack_id"), stack) << text_of(first, "payload");
  // Claimed: not handed out twice.
  EXPECT_EQ(call(*agent_, "GET", pending_path).json.size(), 0u);

  Reply retry = report(first, R"({"success":false,"status_code":503,"error":"busy","duration_ms":12})");
  ASSERT_EQ(retry.status, 200) << retry.body;
  EXPECT_EQ(text_of(retry.json, "status"), "failed");
  EXPECT_EQ(retry.json.find("attempts")->get_int(), 1);
  EXPECT_TRUE(retry.json.find("next_retry_at")->is_string());
  // Reported once: the delivery is no longer this agent's.
  Reply again = report(first, R"({"success":true})");
  EXPECT_EQ(again.status, 403);
  EXPECT_EQ(text_of(again.json, "code"), "delivery_not_acquired_by_agent");

  create_stack();
  Reply dead = report(claim_one(), R"({"success":false,"status_code":404})");
  ASSERT_EQ(dead.status, 200) << dead.body;
  EXPECT_EQ(text_of(dead.json, "status"), "dead");

  create_stack();
  Reply done = report(claim_one(), R"({"success":true})");
  ASSERT_EQ(done.status, 200) << done.body;
  EXPECT_EQ(text_of(done.json, "status"), "success");

  Reply deliveries = call(*admin_, "GET", std::string(kWebhooks) + "/" + id + "/deliveries");
  ASSERT_EQ(deliveries.status, 200) << deliveries.body;
  ASSERT_EQ(deliveries.json.size(), 3u);
  EXPECT_EQ(text_of(*deliveries.json.at(0), "status"), "success");
  EXPECT_EQ(text_of(*deliveries.json.at(0), "acquired_by"), agent_id_);
  EXPECT_EQ(deliveries.json.at(0)->find("target_labels")->at(0)->get_string(), "env=prod");
  EXPECT_EQ(text_of(*deliveries.json.at(1), "status"), "dead");
  EXPECT_EQ(text_of(*deliveries.json.at(2), "status"), "failed");
  Reply only_dead = call(*admin_, "GET", std::string(kWebhooks) + "/" + id + "/deliveries?status=dead");
  ASSERT_EQ(only_dead.json.size(), 1u);
  EXPECT_EQ(text_of(*only_dead.json.at(0), "last_error"), "HTTP 404");
  EXPECT_EQ(call(*admin_, "GET", std::string(kWebhooks) + "/" + id + "/deliveries?limit=1&offset=1").json.size(),
            1u);

  // An agent without the label gets nothing.
  Reply bare = call(*admin_, "POST", "/api/v1/agents", R"({"name":"bare","cluster_name":"c"})");
  auto bare_agent = broker_->client(text_of(bare.json, "initial_pak"));
  create_stack();
  Reply nothing = call(*bare_agent, "GET", "/api/v1/agents/" + text_of(*bare.json.find("agent"), "id") +
                                               "/webhooks/pending");
  ASSERT_EQ(nothing.status, 200) << nothing.body;
  EXPECT_EQ(nothing.json.size(), 0u);
}

TEST_P(Webhooks, SecretsAreStoredEncryptedAndAnotherKeyIsRefused) {
  WebhookReceiver receiver;
  const std::string id = create(webhook_body(receiver.url("/clear-path-marker"),
                                             R"(,"auth_header":"Bearer clear-auth-marker","signing_secret":"clear-secret-marker")"));
  if (GetParam() == Backend::Sqlite) {
    broker_->stop();
    std::string bytes;
    for (const char* name : {"sindri.db", "sindri.db-wal"}) {
      if (fs::exists(broker_->dir() / name)) bytes += slurp(broker_->dir() / name);
    }
    ASSERT_FALSE(bytes.empty());
    EXPECT_NE(bytes.find("receiver"), std::string::npos);  // the name, in clear
    for (const char* secret : {"clear-path-marker", "clear-auth-marker", "clear-secret-marker"}) {
      EXPECT_EQ(bytes.find(secret), std::string::npos) << secret;
    }
  } else {
    auto db = database();
    auto rows = db->read_statement(
        "SELECT url_encrypted, auth_header_encrypted, signing_secret_encrypted FROM webhook_subscriptions");
    ASSERT_TRUE(rows.ok());
    for (const Value& cell : rows->rows[0]) {
      EXPECT_EQ(cell.get_string().find("marker"), std::string::npos);
      EXPECT_EQ(cell.get_string().substr(0, 2), "01");
    }
    broker_->stop();
  }
  // The first start wrote the key beside the admin PAK.
  const std::string key = trimmed(slurp(broker_->dir() / "webhook.key"));
  ASSERT_EQ(key.size(), 64u);
  EXPECT_EQ(fs::status(broker_->dir() / "webhook.key").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);

  // Another key: the broker refuses to start, saying why.
  const std::string other(64, key[0] == 'a' ? 'b' : 'a');
  try {
    broker_->start({}, {"SINDRI_WEBHOOKS_ENCRYPTION_KEY=" + other});
    ADD_FAILURE() << "the broker started with another webhook key";
  } catch (const std::runtime_error& refused) {
    EXPECT_NE(std::string(refused.what()).find("does not match"), std::string::npos) << refused.what();
  }
  // The same key, given as the setting, and the file: the secrets still decrypt.
  broker_->start({}, {"SINDRI_WEBHOOKS_ENCRYPTION_KEY=" + key});
  admin_ = broker_->client(broker_->admin_pak());
  EXPECT_EQ(call(*admin_, "POST", std::string(kWebhooks) + "/" + id + "/test").status, 200);
  broker_->stop();
  broker_->start();
  admin_ = broker_->client(broker_->admin_pak());
  EXPECT_EQ(call(*admin_, "POST", std::string(kWebhooks) + "/" + id + "/test").status, 200);
  EXPECT_EQ(receiver.received().size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Backends, Webhooks, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

// The delivery pass of a served broker: every event type reaches a receiver
// with its headers and a valid signature, a 500 is retried once and then
// delivered, and a 404 goes dead at once with an audit entry.
class WebhookDelivery : public Webhooks {
 protected:
  std::vector<std::string> serve_flags() const override {
    return {"--webhooks-delivery-interval", "0.05", "--webhooks-backoff-unit", "0.05"};
  }

  // Polls (at most 10 s) until the subscription's one delivery has `status`.
  bool settles(const std::string& subscription, const std::string& status) {
    for (int round = 0; round < 500; ++round) {
      Reply listed = call(*admin_, "GET", std::string(kWebhooks) + "/" + subscription + "/deliveries");
      if (listed.json.size() == 1 && text_of(*listed.json.at(0), "status") == status) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
};

std::string hmac_sha256_hex(const std::string& key, const std::string& message) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
       message.size(), digest, &size);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < size; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0xf]);
  }
  return out;
}

TEST_P(WebhookDelivery, EveryEventTypeArrivesSignedWithItsHeaders) {
  WebhookReceiver receiver;
  create(R"({"name":"all","url":")" + receiver.url() + R"(","event_types":["*"],"signing_secret":"sign"})");
  const auto ok = [](const Reply& reply, int status) {
    EXPECT_EQ(reply.status, status) << reply.body;
    return text_of(reply.json, "id");
  };
  Reply other = call(*admin_, "POST", "/api/v1/agents", R"({"name":"leaving","cluster_name":"c"})");
  ASSERT_EQ(other.status, 201) << other.body;
  const std::string stack = create_stack();
  const std::string object = ok(call(*generator_, "POST", "/api/v1/stacks/" + stack + "/deployment-objects",
                                     R"({"yaml_content":"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\n"})"),
                                201);
  ok(call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/targets", R"({"stack_id":")" + stack + "\"}"), 201);
  for (const char* status : {"SUCCESS", "FAILURE"}) {
    ok(call(*agent_, "POST", "/api/v1/agents/" + agent_id_ + "/events",
            R"({"deployment_object_id":")" + object + R"(","event_type":"DEPLOYMENT","status":")" + status + "\"}"),
       201);
  }
  ok(call(*agent_, "PATCH", "/api/v1/agents/" + agent_id_ + "/health-status",
          R"({"deployment_objects":[{"id":")" + object +
              R"(","status":"degraded","checked_at":"2026-01-02T03:04:05Z"}]})"),
     200);
  for (const char* outcome : {R"({"success":true})", R"({"success":false,"message":"no"})"}) {
    const std::string order =
        ok(call(*admin_, "POST", "/api/v1/work-orders",
                R"({"work_type":"build","yaml_content":"kind: Job","max_retries":0,"targeting":{"agent_ids":[")" +
                    agent_id_ + "\"]}}"),
           201);
    ok(call(*agent_, "POST", "/api/v1/work-orders/" + order + "/claim", R"({"agent_id":")" + agent_id_ + "\"}"), 200);
    ok(call(*agent_, "POST", "/api/v1/work-orders/" + order + "/complete", outcome), 200);
  }
  ok(call(*generator_, "DELETE", "/api/v1/stacks/" + stack), 204);
  ok(call(*admin_, "DELETE", "/api/v1/agents/" + text_of(*other.json.find("agent"), "id")), 204);

  Reply types = call(*admin_, "GET", std::string(kWebhooks) + "/event-types");
  std::set<std::string> expected;
  for (const Value& type : types.json.get_array()) expected.insert(std::string(type.get_string()));
  std::set<std::string> arrived;
  std::vector<WebhookReceiver::Received> got;
  for (int round = 0; round < 500 && arrived != expected; ++round) {
    got = receiver.wait_for(got.size() + 1, std::chrono::milliseconds(20));
    arrived.clear();
    for (const auto& request : got) arrived.insert(std::string(request.header("X-Brokkr-Event-Type")));
  }
  EXPECT_EQ(arrived, expected);
  std::set<std::string> delivery_ids;
  for (const auto& request : got) {
    const std::string type(request.header("X-Brokkr-Event-Type"));
    EXPECT_EQ(request.header("Content-Type"), "application/json") << type;
    EXPECT_EQ(request.header("X-Sindri-Signature"), "sha256=" + hmac_sha256_hex("sign", request.body)) << type;
    delivery_ids.insert(std::string(request.header("X-Brokkr-Delivery-Id")));
    auto payload = sindri::parse_json(request.body);
    ASSERT_TRUE(payload.ok()) << request.body;
    EXPECT_EQ(text_of(*payload, "event_type"), type);
    EXPECT_FALSE(text_of(*payload, "id").empty());
    EXPECT_FALSE(text_of(*payload, "timestamp").empty());
    EXPECT_TRUE(payload->find("data")->is_object()) << request.body;
  }
  EXPECT_EQ(delivery_ids.size(), got.size());
}

TEST_P(WebhookDelivery, AServerErrorIsRetriedAndANotFoundGoesDead) {
  WebhookReceiver flaky({500, 200});
  WebhookReceiver gone({404});
  const std::string retried =
      create(R"({"name":"flaky","url":")" + flaky.url() + R"(","event_types":["stack.created"]})");
  const std::string dead = create(R"({"name":"gone","url":")" + gone.url() + R"(","event_types":["stack.*"]})");
  create_stack();
  EXPECT_TRUE(settles(retried, "success"));
  EXPECT_TRUE(settles(dead, "dead"));
  auto first = flaky.received();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].header("X-Brokkr-Delivery-Id"), first[1].header("X-Brokkr-Delivery-Id"));
  EXPECT_EQ(gone.received().size(), 1u);
  Reply listed = call(*admin_, "GET", std::string(kWebhooks) + "/" + retried + "/deliveries");
  EXPECT_EQ(listed.json.at(0)->find("attempts")->get_int(), 2);
  Reply audit = call(*admin_, "GET", "/api/v1/admin/audit-logs?action=webhook.delivery_failed&resource_id=" + dead);
  ASSERT_EQ(audit.status, 200) << audit.body;
  ASSERT_EQ(audit.json.find("total")->get_int(), 1) << audit.body;
  EXPECT_EQ(text_of(*audit.json.find("logs")->at(0), "actor_type"), "system");
}

TEST_P(WebhookDelivery, AReceiverThatNeverAnswersTimesOut) {
  WebhookReceiver silent;
  silent.set_hang(true);
  const std::string id = create(R"({"name":"silent","url":")" + silent.url() +
                                R"(","event_types":["stack.created"],"timeout_seconds":1,"max_retries":1})");
  create_stack();
  EXPECT_TRUE(settles(id, "dead"));
  Reply listed = call(*admin_, "GET", std::string(kWebhooks) + "/" + id + "/deliveries");
  EXPECT_NE(text_of(*listed.json.at(0), "last_error").find("POST"), std::string::npos) << listed.body;
}

INSTANTIATE_TEST_SUITE_P(Backends, WebhookDelivery, ::testing::Values(Backend::Sqlite, Backend::Postgres),
                         backend_name);

}  // namespace
}  // namespace sindri_test
