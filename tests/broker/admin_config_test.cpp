// POST /admin/config/reload, the watch of the configuration file and
// GET /admin/ws/connections, black box over HTTP on both databases: the
// reloadable settings apply at once, the others are reported as needing a
// restart and left as they were, a file that no longer reads changes
// nothing, and only admins may reload.

#include <algorithm>
#include <set>

#include "broker_process.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

constexpr const char* kConsole = "https://console.example.com";

// Long enough that the watch never reloads under the tests that reload by
// request.
constexpr const char* kNoWatch = "config:\n  watch_debounce: 3600\n";

std::set<std::string> keys_of(const Value& changes) {
  std::set<std::string> keys;
  if (!changes.is_array()) return keys;
  for (const Value& change : changes.get_array()) keys.insert(text_of(change, "key"));
  return keys;
}

const Value* change_of(const Value& changes, std::string_view key) {
  if (!changes.is_array()) return nullptr;
  for (const Value& change : changes.get_array()) {
    if (text_of(change, "key") == key) return &change;
  }
  return nullptr;
}

std::set<std::string> strings_of(const Value* items) {
  std::set<std::string> strings;
  if (items == nullptr || !items->is_array()) return strings;
  for (const Value& item : items->get_array()) strings.insert(item.is_string() ? std::string(item.get_string()) : "");
  return strings;
}

class AdminConfig : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(GetParam());
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
    config_file_ = broker_->dir() / "sindri.yaml";
  }

  void write_config(const std::string& text) {
    // Written aside and renamed, as an editor or a ConfigMap does: the watch
    // never reads half a file.
    const fs::path written = broker_->dir() / "sindri.yaml.new";
    std::ofstream(written) << text;
    fs::rename(written, config_file_);
  }

  void start(const std::string& config_text) {
    write_config(config_text);
    broker_->start({"--config", config_file_.string()});
    admin_ = broker_->client(broker_->admin_pak());
  }

  Reply reload() { return call(*admin_, "POST", "/api/v1/admin/config/reload"); }

  // Whether a page of kConsole may read the broker's answers.
  bool console_allowed() {
    sindri::http::Client client(broker_->url());
    client.set_headers({{"Origin", kConsole}});
    auto response = client.request("GET", "/healthz");
    if (!response.ok()) throw std::runtime_error(response.error().message);
    return response->header("Access-Control-Allow-Origin") == kConsole;
  }

  std::unique_ptr<BrokerProcess> broker_;
  fs::path config_file_;
  std::unique_ptr<sindri::http::Client> admin_;
};

TEST_P(AdminConfig, AReloadAppliesReloadableSettingsAndReportsTheOthers) {
  start(std::string("log:\n  level: info\nthreads: 4\n") + kNoWatch);
  ASSERT_FALSE(console_allowed());
  write_config(std::string("log:\n  level: debug\nthreads: 8\n") + kNoWatch +
               "cors:\n  allowed_origins: [" + kConsole + "]\nwebhooks:\n  delivery_interval: 0.5\n");

  Reply reloaded = reload();
  ASSERT_EQ(reloaded.status, 200) << reloaded.body;
  EXPECT_EQ(reloaded.json.find("success")->is_bool() && reloaded.json.find("success")->get_bool(), true)
      << reloaded.body;
  EXPECT_FALSE(text_of(reloaded.json, "reloaded_at").empty()) << reloaded.body;
  const Value& changes = *reloaded.json.find("changes");
  EXPECT_EQ(keys_of(changes), (std::set<std::string>{"log.level", "threads", "cors.allowed_origins",
                                                      "webhooks.delivery_interval"}))
      << reloaded.body;
  ASSERT_NE(change_of(changes, "log.level"), nullptr);
  EXPECT_EQ(text_of(*change_of(changes, "log.level"), "old_value"), "info");
  EXPECT_EQ(text_of(*change_of(changes, "log.level"), "new_value"), "debug");
  EXPECT_EQ(text_of(*change_of(changes, "webhooks.delivery_interval"), "old_value"), "5");
  EXPECT_EQ(text_of(*change_of(changes, "webhooks.delivery_interval"), "new_value"), "0.5");
  EXPECT_EQ(text_of(*change_of(changes, "threads"), "new_value"), "8");
  EXPECT_EQ(strings_of(reloaded.json.find("restart_required")), std::set<std::string>{"threads"}) << reloaded.body;
  EXPECT_NE(text_of(reloaded.json, "message").find("threads"), std::string::npos) << reloaded.body;
  const Value* broker = reloaded.json.find("broker");
  ASSERT_NE(broker, nullptr) << reloaded.body;
  EXPECT_EQ(text_of(*broker, "id").size(), 36u) << reloaded.body;

  // Applied at once: CORS answers the console, requests are logged at debug.
  EXPECT_TRUE(console_allowed());
  EXPECT_NE(broker_->log().find(R"("level":"debug","message":"request")"), std::string::npos);

  // threads was not applied: the next reload still finds it changed, and
  // only it.
  Reply again = reload();
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(keys_of(*again.json.find("changes")), std::set<std::string>{"threads"}) << again.body;

  // Each reload leaves an audit entry naming its changes.
  Reply audit = call(*admin_, "GET", "/api/v1/admin/audit-logs?action=config.reloaded");
  ASSERT_EQ(audit.status, 200) << audit.body;
  ASSERT_EQ(audit.json.find("logs")->get_array().size(), 2u) << audit.body;
  const Value& oldest = audit.json.find("logs")->get_array()[1];
  EXPECT_EQ(text_of(oldest, "actor_type"), "admin") << audit.body;
  EXPECT_EQ(text_of(oldest, "resource_type"), "config") << audit.body;
  EXPECT_EQ(keys_of(*oldest.find("details")->find("changes")).size(), 4u) << audit.body;
}

TEST_P(AdminConfig, ASecretIsNeverShownInTheChanges) {
  start(kNoWatch);
  write_config(std::string(kNoWatch) + "webhooks:\n  encryption_key: " + std::string(64, 'a') + "\n");
  Reply reloaded = reload();
  ASSERT_EQ(reloaded.status, 200) << reloaded.body;
  EXPECT_EQ(reloaded.body.find(std::string(64, 'a')), std::string::npos) << reloaded.body;
  EXPECT_EQ(strings_of(reloaded.json.find("restart_required")), std::set<std::string>{"webhooks.encryption_key"});
}

TEST_P(AdminConfig, AFileThatNoLongerReadsChangesNothing) {
  start(std::string("log:\n  level: info\n") + kNoWatch);
  write_config(std::string(kNoWatch) + "cors:\n  allowed_origins: [" + kConsole + "\nlog:\n  level: debug\n");
  Reply broken = reload();
  ASSERT_EQ(broken.status, 200) << broken.body;
  EXPECT_TRUE(broken.json.find("success")->is_bool() && !broken.json.find("success")->get_bool()) << broken.body;
  // The file and the line: "FILE:LINE:COLUMN: problem".
  EXPECT_NE(text_of(broken.json, "message").find(config_file_.string() + ":"), std::string::npos) << broken.body;
  EXPECT_TRUE(broken.json.find("changes")->get_array().empty()) << broken.body;
  EXPECT_FALSE(console_allowed());

  write_config(std::string(kNoWatch) + "log:\n  levle: debug\n");
  Reply unknown = reload();
  ASSERT_EQ(unknown.status, 200) << unknown.body;
  EXPECT_NE(text_of(unknown.json, "message").find("log.levle: unknown setting"), std::string::npos) << unknown.body;

  write_config(std::string(kNoWatch) + "cors:\n  max_age_seconds: 100000\n");
  Reply out_of_range = reload();
  ASSERT_EQ(out_of_range.status, 200) << out_of_range.body;
  EXPECT_NE(text_of(out_of_range.json, "message").find("cors.max_age_seconds"), std::string::npos)
      << out_of_range.body;
  EXPECT_TRUE(out_of_range.json.find("changes")->get_array().empty()) << out_of_range.body;

  // Nothing was applied: a good file now shows every change from the start.
  write_config(std::string(kNoWatch) + "log:\n  level: warn\n");
  Reply fixed = reload();
  ASSERT_EQ(fixed.status, 200) << fixed.body;
  EXPECT_EQ(keys_of(*fixed.json.find("changes")), std::set<std::string>{"log.level"}) << fixed.body;
  EXPECT_EQ(text_of(*change_of(*fixed.json.find("changes"), "log.level"), "old_value"), "info") << fixed.body;
}

TEST_P(AdminConfig, TheWatchReloadsAChangedFileByItself) {
  start("config:\n  watch_debounce: 0.2\n");
  ASSERT_FALSE(console_allowed());
  write_config(std::string("config:\n  watch_debounce: 0.2\ncors:\n  allowed_origins: [") + kConsole + "]\n");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!console_allowed() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(console_allowed()) << broker_->log();
  Reply audit = call(*admin_, "GET", "/api/v1/admin/audit-logs?action=config.reloaded");
  ASSERT_EQ(audit.status, 200) << audit.body;
  ASSERT_EQ(audit.json.find("logs")->get_array().size(), 1u) << audit.body;
  EXPECT_EQ(text_of(audit.json.find("logs")->get_array()[0], "actor_type"), "system") << audit.body;
  EXPECT_NE(broker_->log().find("configuration reloaded"), std::string::npos);
}

TEST_P(AdminConfig, WithoutAFileAReloadFindsNoChanges) {
  broker_->start();
  admin_ = broker_->client(broker_->admin_pak());
  Reply reloaded = reload();
  ASSERT_EQ(reloaded.status, 200) << reloaded.body;
  EXPECT_TRUE(reloaded.json.find("success")->get_bool()) << reloaded.body;
  EXPECT_TRUE(reloaded.json.find("changes")->get_array().empty()) << reloaded.body;
  EXPECT_EQ(text_of(reloaded.json, "message"), "No changes detected");
}

TEST_P(AdminConfig, OnlyAdminsMayReloadOrListConnections) {
  start(kNoWatch);
  Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"g"})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  auto as_generator = broker_->client(text_of(generator.json, "pak"));
  auto anonymous = broker_->client("");
  for (const auto& [method, path] : {std::pair<std::string, std::string>{"POST", "/api/v1/admin/config/reload"},
                                     {"GET", "/api/v1/admin/ws/connections"}}) {
    Reply refused = call(*as_generator, method, path);
    EXPECT_EQ(refused.status, 403) << path;
    EXPECT_EQ(text_of(refused.json, "code"), "admin_required") << refused.body;
    EXPECT_EQ(call(*anonymous, method, path).status, 401) << path;
  }
  Reply audit = call(*admin_, "GET", "/api/v1/admin/audit-logs?action=config.reloaded");
  EXPECT_TRUE(audit.json.find("logs")->get_array().empty()) << audit.body;

  Reply connections = call(*admin_, "GET", "/api/v1/admin/ws/connections");
  ASSERT_EQ(connections.status, 200) << connections.body;
  EXPECT_EQ(connections.json.find("connected_agents")->get_int(), 0) << connections.body;
  EXPECT_EQ(connections.json.find("live_subscribers")->get_int(), 0) << connections.body;
  EXPECT_TRUE(connections.json.find("connections")->get_array().empty()) << connections.body;
}

INSTANTIATE_TEST_SUITE_P(Backends, AdminConfig, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
