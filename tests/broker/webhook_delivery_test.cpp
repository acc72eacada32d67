// The webhook secrets' encryption and its key, and the delivery pass against
// a receiver on loopback, on a real SQLite database.

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <set>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "broker/context.hpp"
#include "broker/db/events.hpp"
#include "broker/db/tables.hpp"
#include "broker/db/webhooks.hpp"
#include "broker/jobs.hpp"
#include "broker/webhook_crypto.hpp"
#include "broker/webhook_delivery.hpp"
#include "store/migrations.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"
#include "support/test_postgres.hpp"
#include "webhook_receiver.hpp"

namespace sindri::broker {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST(WebhookCryptoTest, SecretsRoundTripUnderTheirKeyOnly) {
  const WebhookKey key = random_webhook_key();
  const std::string stored = encrypt_secret(key, "https://hooks.example/x?token=abc");
  EXPECT_EQ(stored.find("hooks"), std::string::npos);
  EXPECT_EQ(stored.substr(0, 2), "01");  // the format's version byte
  EXPECT_EQ(stored.size(), 2 * (1 + 12 + 33 + 16));
  EXPECT_NE(encrypt_secret(key, "https://hooks.example/x?token=abc"), stored);  // a fresh nonce each time
  auto plain = decrypt_secret(key, stored);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(*plain, "https://hooks.example/x?token=abc");
  EXPECT_FALSE(decrypt_secret(random_webhook_key(), stored).ok());
  std::string altered = stored;
  altered[40] = altered[40] == '0' ? '1' : '0';
  EXPECT_FALSE(decrypt_secret(key, altered).ok());
  EXPECT_FALSE(decrypt_secret(key, "zz").ok());
  auto empty = decrypt_secret(key, encrypt_secret(key, ""));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "");
}

TEST(WebhookCryptoTest, KeysAreSixtyFourHexDigits) {
  const std::string hex(64, 'a');
  auto key = parse_webhook_key(" " + hex + "\n");
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(webhook_key_hex(*key), hex);
  EXPECT_TRUE(parse_webhook_key(std::string(64, 'F')).ok());
  EXPECT_FALSE(parse_webhook_key(std::string(63, 'a')).ok());
  EXPECT_FALSE(parse_webhook_key(std::string(66, 'a')).ok());
  EXPECT_FALSE(parse_webhook_key(std::string(64, 'g')).ok());
  // The check value is not the key, and is the same for the same key.
  EXPECT_NE(webhook_key_check(*key), hex);
  EXPECT_EQ(webhook_key_check(*key), webhook_key_check(*parse_webhook_key(hex)));
}

TEST(WebhookCryptoTest, SignatureIsHmacSha256) {
  // RFC 4231, test case 2.
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(WebhookDeliveryRulesTest, RetryableStatusesAndBackoff) {
  for (int status : {408, 425, 429, 301, 302, 500, 502, 503}) EXPECT_TRUE(is_retryable_status(status)) << status;
  for (int status : {400, 401, 403, 404, 410, 422}) EXPECT_FALSE(is_retryable_status(status)) << status;
  EXPECT_EQ(retry_delay(1s, 1), 2s);
  EXPECT_EQ(retry_delay(1s, 3), 8s);
  EXPECT_EQ(retry_delay(50ms, 2), 200ms);
}

enum class Backend { Sqlite, Postgres };

// On PostgreSQL, in a schema of its own, dropped afterwards.
class WebhookDatabaseTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sindri-webhook-delivery-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::string url = "sqlite://" + (dir_ / "sindri.db").string();
    store::OpenOptions options;
    if (GetParam() == Backend::Postgres) {
      const auto server = sindri_test::test_postgres();
      ASSERT_TRUE(server.has_value()) << sindri_test::kNoTestPostgres;
      url = server->url;
      std::random_device random;
      schema_ = "webhooks_" + std::to_string(random()) + "_" + std::to_string(getpid());
      options.tenant_schema = schema_;
    }
    auto db = store::Database::open(url, options);
    ASSERT_TRUE(db.ok()) << db.error().message;
    db_ = std::move(db).value();
    ASSERT_TRUE(store::migrate(*db_, broker_migrations()).ok());
  }

  void TearDown() override {
    if (db_ && !schema_.empty()) {
      auto dropped = db_->write([&](store::Connection& connection) -> store::DbStatus {
        return connection.execute_script("DROP SCHEMA " + schema_ + " CASCADE");
      });
      EXPECT_TRUE(dropped.ok());
    }
    db_.reset();
    fs::remove_all(dir_);
  }

  std::string subscribe(const WebhookKey& key, const std::string& url, int64_t max_retries = 5,
                        int64_t timeout_seconds = 30, std::optional<std::string> secret = std::nullopt) {
    db::SubscriptionFields fields;
    fields.name = "receiver";
    fields.url_encrypted = encrypt_secret(key, url);
    fields.auth_header_encrypted = encrypt_secret(key, "Bearer s3cret");
    if (secret) fields.signing_secret_encrypted = encrypt_secret(key, *secret);
    fields.event_types = {"*"};
    fields.max_retries = max_retries;
    fields.timeout_seconds = timeout_seconds;
    auto inserted = in_write<db::Subscription>(*db_, [&](store::Connection& connection) {
      return db::insert_subscription(connection, fields, std::nullopt);
    });
    EXPECT_TRUE(inserted.ok());
    return inserted.ok() ? inserted->id : "";
  }

  void emit(std::string_view type) {
    auto emitted = in_write<Ok>(*db_, [&](store::Connection& connection) {
      return db::emit_event(connection, type, make_object({{"agent_id", Value("a1")}}));
    });
    ASSERT_TRUE(emitted.ok()) << emitted.error().message;
  }

  Value deliveries(const std::string& subscription) {
    auto listed = in_read<Value>(*db_, [&](store::Connection& connection) {
      return db::list_deliveries(connection, subscription, std::nullopt, 100, 0);
    });
    EXPECT_TRUE(listed.ok());
    return listed.ok() ? *listed : Value();
  }

  int64_t count(const std::string& sql) {
    auto rows = db_->read_statement(sql);
    EXPECT_TRUE(rows.ok());
    return rows.ok() ? rows->rows[0][0].get_int() : -1;
  }

  // Runs passes until one attempts something (a retry becomes due after
  // its backoff); never more than `limit`.
  size_t pass_until_attempt(const WebhookKey& key, const DeliverySettings& settings,
                            std::chrono::milliseconds limit = 5s) {
    const auto give_up = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < give_up) {
      auto attempted = deliver_due_webhooks(*db_, key, settings, log_);
      EXPECT_TRUE(attempted.ok()) << attempted.error().message;
      if (!attempted.ok() || *attempted > 0) return attempted.ok() ? *attempted : 0;
      std::this_thread::sleep_for(10ms);
    }
    return 0;
  }

  fs::path dir_;
  std::string schema_;
  std::unique_ptr<store::Database> db_;
  Logger log_{LogLevel::Error};
};

TEST_P(WebhookDatabaseTest, FirstStartWritesTheKeyFileAndLaterStartsNeedTheSameKey) {
  const std::string file = (dir_ / "webhook.key").string();
  auto first = establish_webhook_key(*db_, std::nullopt, file, log_);
  ASSERT_TRUE(first.ok()) << first.error().message;
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  EXPECT_EQ(count("SELECT COUNT(*) FROM webhook_key_check"), 1);
  auto stored = db_->read_statement("SELECT check_value FROM webhook_key_check");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->rows[0][0].get_string().find(webhook_key_hex(*first)), std::string::npos);

  auto again = establish_webhook_key(*db_, std::nullopt, file, log_);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(webhook_key_hex(*again), webhook_key_hex(*first));
  auto configured = establish_webhook_key(*db_, webhook_key_hex(*first), file, log_);
  EXPECT_TRUE(configured.ok());

  auto other = establish_webhook_key(*db_, std::string(64, '7'), file, log_);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("does not match"), std::string::npos) << other.error().message;
  fs::remove(file);
  auto lost = establish_webhook_key(*db_, std::nullopt, file, log_);
  ASSERT_FALSE(lost.ok());
  EXPECT_NE(lost.error().message.find("does not have"), std::string::npos) << lost.error().message;
  EXPECT_FALSE(fs::exists(file));
  auto malformed = establish_webhook_key(*db_, std::string("xyz"), file, log_);
  ASSERT_FALSE(malformed.ok());
  EXPECT_NE(malformed.error().message.find("64 hex digits"), std::string::npos);
}

TEST_P(WebhookDatabaseTest, ADeliveryArrivesWithItsHeadersAndSignature) {
  sindri_test::WebhookReceiver receiver;
  const WebhookKey key = random_webhook_key();
  const std::string subscription = subscribe(key, receiver.url("/hook?x=1"), 5, 30, "signing key");
  emit("agent.registered");
  EXPECT_EQ(pass_until_attempt(key, {}), 1u);
  auto got = receiver.wait_for(1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].target, "/hook?x=1");
  EXPECT_EQ(got[0].header("Content-Type"), "application/json");
  EXPECT_EQ(got[0].header("X-Brokkr-Event-Type"), "agent.registered");
  EXPECT_EQ(got[0].header("Authorization"), "Bearer s3cret");
  EXPECT_EQ(got[0].header("X-Sindri-Signature"), "sha256=" + hmac_sha256_hex("signing key", got[0].body));
  auto payload = parse_json(got[0].body);
  ASSERT_TRUE(payload.ok());
  EXPECT_EQ(payload->find("event_type")->get_string(), "agent.registered");
  const Value listed = deliveries(subscription);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed.at(0)->find("status")->get_string(), "success");
  EXPECT_EQ(listed.at(0)->find("attempts")->get_int(), 1);
  EXPECT_EQ(got[0].header("X-Brokkr-Delivery-Id"), listed.at(0)->find("id")->get_string());
  // Nothing is left to send.
  EXPECT_EQ(*deliver_due_webhooks(*db_, key, {}, log_), 0u);
}

TEST_P(WebhookDatabaseTest, AServerErrorIsRetriedAfterTheBackoff) {
  sindri_test::WebhookReceiver receiver({500, 200});
  const WebhookKey key = random_webhook_key();
  const std::string subscription = subscribe(key, receiver.url());
  emit("stack.created");
  DeliverySettings settings;
  settings.backoff_unit = 50ms;
  EXPECT_EQ(pass_until_attempt(key, settings), 1u);
  Value listed = deliveries(subscription);
  EXPECT_EQ(listed.at(0)->find("status")->get_string(), "failed");
  EXPECT_EQ(listed.at(0)->find("last_error")->get_string(), "HTTP 500: {\"received\":true}");
  const std::string next_retry(listed.at(0)->find("next_retry_at")->get_string());
  const std::string last_attempt(listed.at(0)->find("last_attempt_at")->get_string());
  EXPECT_GT(next_retry, last_attempt);
  EXPECT_EQ(pass_until_attempt(key, settings), 1u);
  listed = deliveries(subscription);
  EXPECT_EQ(listed.at(0)->find("status")->get_string(), "success");
  EXPECT_EQ(listed.at(0)->find("attempts")->get_int(), 2);
  auto got = receiver.received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].header("X-Brokkr-Delivery-Id"), got[1].header("X-Brokkr-Delivery-Id"));
  EXPECT_EQ(got[0].body, got[1].body);
}

TEST_P(WebhookDatabaseTest, NotFoundIsDeadAtOnceWithAnAuditEntry) {
  sindri_test::WebhookReceiver receiver({404});
  const WebhookKey key = random_webhook_key();
  const std::string subscription = subscribe(key, receiver.url());
  emit("stack.deleted");
  EXPECT_EQ(pass_until_attempt(key, {}), 1u);
  const Value listed = deliveries(subscription);
  EXPECT_EQ(listed.at(0)->find("status")->get_string(), "dead");
  EXPECT_TRUE(listed.at(0)->find("completed_at")->is_string());
  EXPECT_EQ(count("SELECT COUNT(*) FROM audit_logs WHERE action = 'webhook.delivery_failed' AND actor_type = "
                  "'system' AND resource_id = '" + subscription + "'"),
            1);
  EXPECT_EQ(*deliver_due_webhooks(*db_, key, {}, log_), 0u);
}

TEST_P(WebhookDatabaseTest, RetriesStopAtMaxRetries) {
  sindri_test::WebhookReceiver receiver({503});
  const WebhookKey key = random_webhook_key();
  const std::string subscription = subscribe(key, receiver.url(), 2);
  emit("stack.created");
  DeliverySettings settings;
  settings.backoff_unit = 10ms;
  EXPECT_EQ(pass_until_attempt(key, settings), 1u);
  EXPECT_EQ(pass_until_attempt(key, settings), 1u);
  const Value listed = deliveries(subscription);
  EXPECT_EQ(listed.at(0)->find("status")->get_string(), "dead");
  EXPECT_EQ(listed.at(0)->find("attempts")->get_int(), 2);
  EXPECT_EQ(count("SELECT COUNT(*) FROM audit_logs WHERE action = 'webhook.delivery_failed'"), 1);
}

TEST_P(WebhookDatabaseTest, AReceiverThatNeverAnswersTimesOut) {
  sindri_test::WebhookReceiver receiver;
  receiver.set_hang(true);
  const WebhookKey key = random_webhook_key();
  const std::string subscription = subscribe(key, receiver.url(), 5, 1);
  emit("stack.created");
  EXPECT_EQ(pass_until_attempt(key, {}), 1u);
  const Value listed = deliveries(subscription);
  EXPECT_EQ(listed.at(0)->find("status")->get_string(), "failed");
  EXPECT_NE(listed.at(0)->find("last_error")->get_string().find("POST"), std::string::npos);
}

TEST_P(WebhookDatabaseTest, AClaimedDeliveryIsClaimedAgainOnlyOnceItsLeaseRanOut) {
  const WebhookKey key = random_webhook_key();
  subscribe(key, "http://127.0.0.1:9/never");
  emit("stack.created");
  const auto claim = [&](std::chrono::microseconds lease) {
    auto claimed = in_write<std::vector<db::ClaimedDelivery>>(*db_, [&](store::Connection& connection) {
      return db::claim_broker_deliveries(connection, 10, lease);
    });
    EXPECT_TRUE(claimed.ok());
    return claimed.ok() ? claimed->size() : 0;
  };
  // A lease already over: as if the broker that claimed it had died.
  EXPECT_EQ(claim(-std::chrono::seconds(1)), 1u);
  EXPECT_EQ(claim(std::chrono::seconds(60)), 1u);
  EXPECT_EQ(claim(std::chrono::seconds(60)), 0u);
}

TEST_P(WebhookDatabaseTest, AnAgentClaimsOnlyDeliveriesWhoseTargetLabelsItHasAll) {
  for (const char* sql : {"INSERT INTO agents (id, name, cluster_name, created_at, updated_at) VALUES "
                          "('edge', 'edge', 'c', 't', 't')",
                          "INSERT INTO agents (id, name, cluster_name, created_at, updated_at) VALUES "
                          "('core', 'core', 'c', 't', 't')",
                          "INSERT INTO agent_labels (id, agent_id, label) VALUES ('l1', 'edge', 'env=prod')",
                          "INSERT INTO agent_labels (id, agent_id, label) VALUES ('l2', 'edge', 'zone=eu')",
                          "INSERT INTO agent_labels (id, agent_id, label) VALUES ('l3', 'core', 'env=prod')"}) {
    auto inserted = db_->write([&](store::Connection& connection) -> store::DbStatus {
      SINDRI_CHECK(connection.query(sql));
      return Ok{};
    });
    ASSERT_TRUE(inserted.ok()) << inserted.error().message;
  }
  const WebhookKey key = random_webhook_key();
  db::SubscriptionFields fields;
  fields.name = "in-cluster";
  fields.url_encrypted = encrypt_secret(key, "http://inside.cluster/hook");
  fields.event_types = {"stack.*"};
  fields.target_labels = {"env=prod", "zone=eu"};
  ASSERT_TRUE(in_write<db::Subscription>(*db_, [&](store::Connection& connection) {
                return db::insert_subscription(connection, fields, std::nullopt);
              }).ok());
  emit("stack.created");
  const auto claim = [&](const char* agent) {
    auto claimed = in_write<std::vector<db::ClaimedDelivery>>(*db_, [&](store::Connection& connection) {
      return db::claim_agent_deliveries(connection, agent, 10, std::chrono::seconds(60));
    });
    EXPECT_TRUE(claimed.ok()) << claimed.error().message;
    return claimed.ok() ? claimed->size() : 0;
  };
  // The broker never sends it; an agent lacking a label never gets it.
  EXPECT_EQ(*deliver_due_webhooks(*db_, key, {}, log_), 0u);
  EXPECT_EQ(claim("core"), 0u);
  EXPECT_EQ(claim("edge"), 1u);
  EXPECT_EQ(claim("edge"), 0u);
}

TEST_P(WebhookDatabaseTest, TheJobRunnerDeliversAndCleansUp) {
  BrokerConfig settings;
  settings.webhooks_encryption_key = std::string(64, 'c');
  settings.webhooks_delivery_interval = 0.02;
  settings.webhooks_backoff_unit = 0.02;
  settings.webhooks_cleanup_interval = 0.02;
  settings.webhooks_retention_days = 0;
  LiveConfig config(settings);
  auto key = establish_webhook_key(*db_, settings, (dir_ / "admin.pak").string(), log_);
  ASSERT_TRUE(key.ok()) << key.error().message;
  sindri_test::WebhookReceiver receiver({503, 200});
  const std::string subscription = subscribe(*key, receiver.url());
  emit("agent.registered");
  {
    const std::optional<WebhookKey> established = *key;
    JobRunner runner(*db_, log_, config, "b1", webhook_jobs(*db_, log_, config, established));
    EXPECT_EQ(receiver.wait_for(2).size(), 2u);
    // Delivered, then aged out at once (a retention of 0 days).
    const auto give_up = std::chrono::steady_clock::now() + 5s;
    while (count("SELECT COUNT(*) FROM webhook_deliveries") > 0 && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(10ms);
    }
  }
  EXPECT_EQ(count("SELECT COUNT(*) FROM webhook_deliveries"), 0);
  EXPECT_EQ(receiver.received().size(), 2u);
}

TEST_P(WebhookDatabaseTest, TwoBrokersDeliverEachDeliveryOnce) {
  constexpr int kEvents = 1000;
  sindri_test::WebhookReceiver receiver;
  const WebhookKey key = random_webhook_key();
  subscribe(key, receiver.url());
  for (int written = 0; written < kEvents; written += 100) {
    auto emitted = in_write<Ok>(*db_, [&](store::Connection& connection) -> ApiResult<Ok> {
      for (int i = 0; i < 100; ++i) {
        SINDRI_CHECK(db::emit_event(connection, "stack.created", make_object({{"n", Value(written + i)}})));
      }
      return Ok{};
    });
    ASSERT_TRUE(emitted.ok()) << emitted.error().message;
  }
  // A second broker: a pool of its own on the same database.
  store::OpenOptions options;
  options.tenant_schema = schema_;
  auto other = store::Database::open(schema_.empty() ? "sqlite://" + (dir_ / "sindri.db").string()
                                                     : sindri_test::test_postgres()->url,
                                     options);
  ASSERT_TRUE(other.ok()) << other.error().message;
  const auto broker = [&](store::Database& db) {
    while (count("SELECT COUNT(*) FROM webhook_deliveries WHERE status <> 'success'") > 0) {
      auto attempted = deliver_due_webhooks(db, key, {}, log_);
      EXPECT_TRUE(attempted.ok()) << attempted.error().message;
      if (!attempted.ok()) return;
    }
  };
  std::thread second([&] { broker(**other); });
  broker(*db_);
  second.join();
  const auto got = receiver.received();
  std::set<std::string> ids;
  for (const auto& request : got) ids.insert(std::string(request.header("X-Brokkr-Delivery-Id")));
  EXPECT_EQ(got.size(), size_t{kEvents});
  EXPECT_EQ(ids.size(), size_t{kEvents});
}

INSTANTIATE_TEST_SUITE_P(Databases, WebhookDatabaseTest, ::testing::Values(Backend::Sqlite, Backend::Postgres),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::Sqlite ? "Sqlite" : "Postgres";
                         });

}  // namespace
}  // namespace sindri::broker
