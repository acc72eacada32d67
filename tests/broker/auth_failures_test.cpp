// Refused authentications in the audit log, on a real SQLite database: a
// flood from one source is one entry with its count, a later failure in the
// same minute waits for the minute's end (or the broker's stop), and many
// sources fill a batch.

#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "scratch_database.hpp"

#include "broker/auth_failures.hpp"
#include "broker/db/audit.hpp"
#include "broker/context.hpp"

namespace sindri::broker {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::system_clock;

class AuthFailureLogTest : public ::testing::Test {
 protected:
  // The auth.failed entries, newest first.
  Value entries() {
    auto logs = in_read<Value>(*db_, [](store::Connection& connection) {
      db::AuditQuery query;
      query.action = "auth.failed";
      return db::query_audit(connection, query);
    });
    EXPECT_TRUE(logs.ok());
    return logs.ok() ? *logs->find("logs") : Value();
  }

  static int64_t count_of(const Value& entry) { return entry.find("details")->find("count")->get_int(); }

  // The start of a minute, so that a test's seconds stay in it.
  static Clock::time_point minute_start() {
    return std::chrono::floor<std::chrono::minutes>(Clock::now()) + std::chrono::minutes(1);
  }

  // One failure from 10.0.0.1 at `minute`, written as its first entry, then
  // `more` failures a second later, not written yet.
  void first_entry_then(Clock::time_point minute, int more) {
    log_.record("10.0.0.1", "/a", "", "unauthorized", minute);
    ASSERT_EQ(*log_.flush(*db_, minute + std::chrono::seconds(1)), 1u);
    for (int i = 0; i < more; ++i) log_.record("10.0.0.1", "/a", "", "unauthorized", minute + std::chrono::seconds(2));
  }

  ScratchDatabase db_{"sindri-auth-failures"};
  AuthFailureLog log_;
};

TEST_F(AuthFailureLogTest, AFloodFromOneSourceIsOneEntryWithItsCount) {
  const auto minute = minute_start();
  for (int i = 0; i < 500; ++i) EXPECT_FALSE(log_.record("10.0.0.1", "/api/v1/stacks", "curl/8", "unauthorized", minute));
  auto written = log_.flush(*db_, minute + std::chrono::seconds(1));
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(*written, 1u);
  const Value logs = entries();
  ASSERT_EQ(logs.size(), 1u);
  const Value& entry = *logs.at(0);
  EXPECT_EQ(count_of(entry), 500);
  EXPECT_EQ(entry.find("ip_address")->get_string(), "10.0.0.1");
  EXPECT_EQ(entry.find("user_agent")->get_string(), "curl/8");
  EXPECT_EQ(entry.find("actor_type")->get_string(), "system");
  EXPECT_EQ(entry.find("details")->find("path")->get_string(), "/api/v1/stacks");
}

TEST_F(AuthFailureLogTest, FailuresAfterTheFirstEntryWaitForTheMinutesEnd) {
  const auto minute = minute_start();
  ASSERT_NO_FATAL_FAILURE(first_entry_then(minute, 7));
  EXPECT_EQ(*log_.flush(*db_, minute + std::chrono::seconds(3)), 0u);
  EXPECT_EQ(*log_.flush(*db_, minute + std::chrono::seconds(61)), 1u);
  const Value logs = entries();
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_EQ(count_of(*logs.at(0)), 7);  // newest first
  EXPECT_TRUE(logs.at(0)->find("details")->find("continued")->get_bool());
  EXPECT_EQ(count_of(*logs.at(1)), 1);
  // Nothing more is due, and the finished minute is forgotten.
  EXPECT_EQ(*log_.flush(*db_, minute + std::chrono::seconds(62)), 0u);
}

TEST_F(AuthFailureLogTest, EverythingWritesTheRestOfAMinuteStillRunning) {
  const auto minute = minute_start();
  ASSERT_NO_FATAL_FAILURE(first_entry_then(minute, 4));
  log_.record("10.0.0.2", "/b", "", "unauthorized", minute + std::chrono::seconds(2));
  EXPECT_EQ(*log_.flush(*db_, minute + std::chrono::seconds(3), AuthFailureLog::Due::everything), 2u);
  const Value logs = entries();
  ASSERT_EQ(logs.size(), 3u);
  int64_t total = 0;
  for (size_t i = 0; i < logs.size(); ++i) total += count_of(*logs.at(i));
  EXPECT_EQ(total, 6);
  EXPECT_EQ(*log_.flush(*db_, minute + std::chrono::seconds(4), AuthFailureLog::Due::everything), 0u);
}

TEST_F(AuthFailureLogTest, AMinuteEndedBeforeAFlushKeepsItsRest) {
  const auto minute = minute_start();
  ASSERT_NO_FATAL_FAILURE(first_entry_then(minute, 3));
  log_.record("10.0.0.1", "/a", "", "unauthorized", minute + std::chrono::seconds(61));
  EXPECT_EQ(*log_.flush(*db_, minute + std::chrono::seconds(62)), 2u);
  const Value logs = entries();
  ASSERT_EQ(logs.size(), 3u);
  int64_t continued = 0;
  for (size_t i = 0; i < logs.size(); ++i) {
    if (logs.at(i)->find("details")->find("continued")->get_bool()) continued += count_of(*logs.at(i));
  }
  EXPECT_EQ(continued, 3);
  EXPECT_EQ(*log_.flush(*db_, minute + std::chrono::seconds(63)), 0u);
}

TEST_F(AuthFailureLogTest, AHundredSourcesMakeAFlushDue) {
  const auto minute = minute_start();
  for (int i = 0; i < 99; ++i) {
    EXPECT_FALSE(log_.record("10.0.1." + std::to_string(i), "/a", "", "unauthorized", minute));
  }
  EXPECT_TRUE(log_.record("10.0.1.99", "/a", "", "unauthorized", minute));
  EXPECT_EQ(*log_.flush(*db_, minute), 100u);
  EXPECT_FALSE(log_.record("10.0.2.1", "/a", "", "unauthorized", minute));
}

TEST_F(AuthFailureLogTest, SourcesPastTheCapAreCountedTogether) {
  const auto minute = minute_start();
  for (size_t i = 0; i < AuthFailureLog::kMaxSources + 50; ++i) {
    log_.record("s" + std::to_string(i), "/a", "", "unauthorized", minute);
  }
  auto written = log_.flush(*db_, minute);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(*written, AuthFailureLog::kMaxSources + 1);
  auto other = db_->read_statement("SELECT details FROM audit_logs WHERE ip_address IS NULL");
  ASSERT_TRUE(other.ok());
  ASSERT_EQ(other->size(), 1u);
  EXPECT_NE(other->rows[0][0].get_string().find("\"count\":50"), std::string::npos) << other->rows[0][0].get_string();
}

}  // namespace
}  // namespace sindri::broker
