// The periodic-pass runner on a real SQLite database: passes run on their
// interval and stop with the runner, a reload's interval applies at once,
// and of brokers sharing a database one takes each turn.

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "scratch_database.hpp"

#include "broker/db/jobs.hpp"
#include "broker/ids.hpp"
#include "broker/jobs.hpp"

namespace sindri::broker {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

class JobRunnerTest : public ::testing::Test {
 protected:
  // Waits up to 5 s for `done`.
  static bool eventually(const std::function<bool()>& done) {
    for (int waited = 0; waited < 500; ++waited) {
      if (done()) return true;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return done();
  }

  PeriodicJob counting_job(std::string name, bool one_broker, std::atomic<int>& count) {
    return PeriodicJob{std::move(name),
                       [](const BrokerConfig& config) { return config.work_orders_maintenance_interval; },
                       one_broker, [&count]() -> ApiResult<size_t> {
                         ++count;
                         return size_t{1};
                       }};
  }

  LiveConfig config_with_interval(double seconds) {
    BrokerConfig config;
    config.work_orders_maintenance_interval = seconds;
    return LiveConfig(config);
  }

  ScratchDatabase db_{"sindri-jobs"};
  Logger log_{LogLevel::Error};
};

TEST_F(JobRunnerTest, APassRunsOnItsIntervalUntilTheRunnerStops) {
  std::atomic<int> count{0};
  LiveConfig config = config_with_interval(0.01);
  {
    std::vector<PeriodicJob> jobs;
    jobs.push_back(counting_job("local", false, count));
    JobRunner runner(*db_, log_, config, "b1", std::move(jobs));
    EXPECT_TRUE(eventually([&] { return count.load() >= 3; }));
    EXPECT_GE(runner.passes("local"), 2u);
  }
  const int after_stop = count.load();
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(count.load(), after_stop);
}

TEST_F(JobRunnerTest, AReloadedIntervalAppliesWithoutWaitingOutTheOldOne) {
  std::atomic<int> count{0};
  LiveConfig config = config_with_interval(3600);
  std::vector<PeriodicJob> jobs;
  jobs.push_back(counting_job("reloaded", false, count));
  JobRunner runner(*db_, log_, config, "b1", std::move(jobs));
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(count.load(), 0);
  BrokerConfig faster = *config.current();
  faster.work_orders_maintenance_interval = 0.01;
  config.replace(faster);
  runner.reschedule();
  EXPECT_TRUE(eventually([&] { return count.load() >= 2; }));
}

TEST_F(JobRunnerTest, OneBrokerTakesEachTurn) {
  const std::string now = now_timestamp();
  const std::string later = timestamp_at(std::chrono::system_clock::now() + std::chrono::hours(1));
  auto take = [&](const std::string& broker) {
    auto taken = in_write<bool>(*db_, [&](store::Connection& connection) {
      return db::take_job_turn(connection, "pass", now, later, broker);
    });
    EXPECT_TRUE(taken.ok());
    return taken.ok() && *taken;
  };
  EXPECT_TRUE(take("b1"));
  EXPECT_FALSE(take("b2"));
  EXPECT_FALSE(take("b1"));

  // The interval was shortened since: a next run past the new one is stale.
  const std::string sooner = timestamp_at(std::chrono::system_clock::now() + std::chrono::minutes(1));
  auto shortened = in_write<bool>(*db_, [&](store::Connection& connection) {
    return db::take_job_turn(connection, "pass", now_timestamp(), sooner, "b2");
  });
  ASSERT_TRUE(shortened.ok());
  EXPECT_TRUE(*shortened);
}

// A one-broker pass asks for its turn on start: a broker restarted more
// often than a daily pass's interval still runs it when it is due.
TEST_F(JobRunnerTest, AOneBrokerPassAsksForItsTurnAtOnce) {
  std::atomic<int> count{0};
  LiveConfig config = config_with_interval(3600);
  std::vector<PeriodicJob> jobs;
  jobs.push_back(counting_job("daily", true, count));
  JobRunner runner(*db_, log_, config, "b1", std::move(jobs));
  EXPECT_TRUE(eventually([&] { return count.load() == 1; }));
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(count.load(), 1);
}

// Two runners on one database with a one-broker job: each round is run by
// one of them, so together they run it no more often than one would.
TEST_F(JobRunnerTest, BrokersSharingADatabaseTakeTurns) {
  std::atomic<int> shared{0};
  std::atomic<int> everywhere{0};
  LiveConfig config = config_with_interval(0.05);
  {
    std::vector<PeriodicJob> first_jobs;
    first_jobs.push_back(counting_job("shared", true, shared));
    first_jobs.push_back(counting_job("everywhere", false, everywhere));
    std::vector<PeriodicJob> second_jobs;
    second_jobs.push_back(counting_job("shared", true, shared));
    second_jobs.push_back(counting_job("everywhere", false, everywhere));
    JobRunner first(*db_, log_, config, "b1", std::move(first_jobs));
    JobRunner second(*db_, log_, config, "b2", std::move(second_jobs));
    EXPECT_TRUE(eventually([&] { return first.passes("everywhere") >= 10 && second.passes("everywhere") >= 10; }));
    const size_t rounds_of_one = std::max(first.passes("everywhere"), second.passes("everywhere"));
    // A turn lasts 0.9 of the interval, so rounds out of phase may take a
    // few more than one broker's rounds; both taking every round would be
    // twice as many.
    EXPECT_LE(static_cast<size_t>(shared.load()), rounds_of_one + rounds_of_one / 4 + 2);
    EXPECT_GT(shared.load(), 0);
  }
}

}  // namespace
}  // namespace sindri::broker
