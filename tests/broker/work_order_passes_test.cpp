// The background passes over work orders and diagnostics, on a real SQLite
// database, with deadlines moved into the past by hand: lapsed claims and
// finished backoffs return to PENDING (and are claimable before the pass
// runs); diagnostics past their retention go with their results.

#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "scratch_database.hpp"

#include "broker/db/diagnostics.hpp"
#include "broker/db/work_orders.hpp"

namespace sindri::broker {
namespace {

namespace fs = std::filesystem;

const char* const kAgent = "0190d0a0-0000-7000-8000-000000000001";
const char* const kOtherAgent = "0190d0a0-0000-7000-8000-000000000002";
const char* const kPast = "2000-01-01T00:00:00.000000Z";

class WorkOrderPasses : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* agent : {kAgent, kOtherAgent}) {
      execute(std::string("INSERT INTO agents (id, name, cluster_name, created_at, updated_at) VALUES ('") + agent +
              "', '" + agent + "', 'c', 't', 't')");
    }
    execute("INSERT INTO generators (id, name, created_at, updated_at) VALUES ('g', 'g', 't', 't')");
    execute("INSERT INTO stacks (id, name, generator_id, created_at, updated_at) VALUES ('s', 's', 'g', 't', 't')");
    execute("INSERT INTO deployment_objects (id, stack_id, yaml_content, yaml_checksum, submitted_at, created_at, "
            "updated_at) VALUES ('d', 's', 'x', 'c', 't', 't', 't')");
  }

  void execute(const std::string& sql) { db_.execute(sql); }

  // Runs `work` (Connection& -> ApiResult<T>) in a write transaction.
  template <class T, class Work>
  T in_write(Work work) {
    std::optional<T> out;
    auto status = db_->write([&](store::Connection& connection) -> store::DbStatus {
      auto result = work(connection);
      if (!result.ok()) return store::DbError{store::DbError::Kind::Invalid, result.error().message};
      out.emplace(std::move(result).value());
      return Ok{};
    });
    EXPECT_TRUE(status.ok()) << (status.ok() ? "" : status.error().message);
    return out.value_or(T{});
  }

  std::string work_order_for(std::vector<std::string> agents) {
    db::NewWorkOrder order;
    order.work_type = "build";
    order.yaml_content = "x";
    order.agent_ids = std::move(agents);
    Value created = in_write<Value>([&](store::Connection& c) { return db::insert_work_order(c, order); });
    return std::string(created.find("id")->get_string());
  }
  bool claim(const std::string& id, const char* agent) {
    return in_write<std::optional<Value>>([&](store::Connection& c) { return db::claim_work_order(c, id, agent); })
        .has_value();
  }
  std::string status_of(const std::string& id) {
    Value order = in_write<std::optional<Value>>([&](store::Connection& c) { return db::find_work_order(c, id); })
                      .value_or(Value());
    const Value* status = order.find("status");
    return status != nullptr ? std::string(status->get_string()) : "";
  }
  int64_t release() {
    return in_write<int64_t>([](store::Connection& c) { return db::release_expired_work_order_claims(c); });
  }

  ScratchDatabase db_{"sindri-work-order-passes"};
};

TEST_F(WorkOrderPasses, ALapsedClaimIsReleasedAndClaimableBeforeThePass) {
  const std::string lapsed = work_order_for({kAgent, kOtherAgent});
  const std::string held = work_order_for({kAgent});
  ASSERT_TRUE(claim(lapsed, kAgent));
  ASSERT_TRUE(claim(held, kAgent));
  EXPECT_FALSE(claim(lapsed, kOtherAgent));
  execute("UPDATE work_orders SET claim_expires_at = '" + std::string(kPast) + "' WHERE id = '" + lapsed + "'");
  // Claimable at once, without the pass.
  EXPECT_TRUE(claim(lapsed, kOtherAgent));
  execute("UPDATE work_orders SET claim_expires_at = '" + std::string(kPast) + "' WHERE id = '" + lapsed + "'");
  EXPECT_EQ(release(), 1);
  EXPECT_EQ(status_of(lapsed), "PENDING");
  EXPECT_EQ(status_of(held), "CLAIMED");
  EXPECT_EQ(release(), 0);
}

TEST_F(WorkOrderPasses, AFinishedBackoffReturnsToPending) {
  const std::string id = work_order_for({kAgent});
  ASSERT_TRUE(claim(id, kAgent));
  Value order = in_write<std::optional<Value>>([&](store::Connection& c) { return db::find_work_order(c, id); })
                    .value_or(Value());
  db::CompletionOutcome outcome = in_write<db::CompletionOutcome>(
      [&](store::Connection& c) { return db::complete_work_order(c, order, db::Completion{false, "boom", true}); });
  EXPECT_FALSE(outcome.log_entry.has_value());
  EXPECT_EQ(status_of(id), "RETRY_PENDING");
  EXPECT_FALSE(claim(id, kAgent));
  EXPECT_EQ(release(), 0);
  execute("UPDATE work_orders SET next_retry_after = '" + std::string(kPast) + "' WHERE id = '" + id + "'");
  EXPECT_EQ(release(), 1);
  EXPECT_EQ(status_of(id), "PENDING");
  EXPECT_TRUE(claim(id, kAgent));
}

TEST_F(WorkOrderPasses, ExpiredDiagnosticsGoWithTheirResults) {
  auto request = [&] {
    Value created = in_write<Value>([](store::Connection& c) {
      return db::insert_diagnostic_request(c, db::NewDiagnosticRequest{kAgent, "d", std::nullopt, 60});
    });
    return std::string(created.find("id")->get_string());
  };
  const std::string expired = request();
  const std::string live = request();
  for (const std::string& id : {expired, live}) {
    ASSERT_TRUE(in_write<std::optional<Value>>([&](store::Connection& c) { return db::claim_diagnostic(c, id); }));
    ASSERT_TRUE(in_write<std::optional<Value>>([&](store::Connection& c) {
      return db::record_diagnostic_result(c, id, db::NewDiagnosticResult{"[]", "[]", std::nullopt, kPast});
    }));
  }
  const std::string unclaimed = request();
  execute("UPDATE diagnostic_requests SET expires_at = '" + std::string(kPast) + "' WHERE id IN ('" + expired +
          "', '" + unclaimed + "')");
  Value shown = in_write<std::optional<Value>>([&](store::Connection& c) {
                  return db::find_diagnostic_request(c, unclaimed);
                }).value_or(Value());
  EXPECT_EQ(shown.find("status")->get_string(), "expired");
  EXPECT_FALSE(in_write<std::optional<Value>>([&](store::Connection& c) { return db::claim_diagnostic(c, unclaimed); }));

  EXPECT_EQ(in_write<int64_t>([](store::Connection& c) { return db::delete_expired_diagnostics(c); }), 2);
  EXPECT_FALSE(in_write<std::optional<Value>>([&](store::Connection& c) {
    return db::find_diagnostic_result(c, expired);
  }));
  EXPECT_TRUE(in_write<std::optional<Value>>([&](store::Connection& c) { return db::find_diagnostic_result(c, live); }));
  EXPECT_EQ(in_write<int64_t>([](store::Connection& c) { return db::delete_expired_diagnostics(c); }), 0);
}

}  // namespace
}  // namespace sindri::broker
