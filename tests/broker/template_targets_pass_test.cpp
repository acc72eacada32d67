// The background pass over template targets, on a real SQLite database: it
// restores targets that went missing, drops those that no longer hold, and
// leaves the table alone when all is well.

#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "scratch_database.hpp"

#include "broker/template_targets_pass.hpp"

namespace sindri::broker {
namespace {

namespace fs = std::filesystem;

class TemplateTargetsPassTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* const rows[] = {
        "INSERT INTO generators (id, name, created_at, updated_at) VALUES ('g', 'g', 't', 't')",
        "INSERT INTO stacks (id, name, generator_id, created_at, updated_at) VALUES ('prod', 'prod', 'g', 't', 't')",
        "INSERT INTO stacks (id, name, generator_id, created_at, updated_at) VALUES ('dev', 'dev', 'g', 't', 't')",
        "INSERT INTO stack_labels (id, stack_id, label) VALUES ('l1', 'prod', 'env=prod')",
        "INSERT INTO stack_templates (id, name, version, template_content, parameters_schema, checksum, created_at, "
        "updated_at) VALUES ('anywhere', 'a', 1, 'x', '{}', 'c', 't', 't')",
        "INSERT INTO stack_templates (id, name, version, template_content, parameters_schema, checksum, created_at, "
        "updated_at) VALUES ('prod-only', 'p', 1, 'x', '{}', 'c', 't', 't')",
        "INSERT INTO template_labels (id, template_id, label, created_at) VALUES ('t1', 'prod-only', 'env=prod', 't')",
    };
    for (const char* sql : rows) execute(sql);
  }

  void execute(const std::string& sql) { db_.execute(sql); }

  // "template>stack" pairs, sorted.
  std::string targets() {
    std::string out;
    auto status = db_->read([&](store::Connection& connection) -> store::DbStatus {
      auto rows = connection.query("SELECT template_id, stack_id FROM template_targets ORDER BY template_id, stack_id");
      if (!rows.ok()) return std::move(rows).error();
      for (const auto& row : rows->rows) {
        out += std::string(row[0].get_string()) + ">" + std::string(row[1].get_string()) + " ";
      }
      return Ok{};
    });
    EXPECT_TRUE(status.ok());
    return out;
  }

  ScratchDatabase db_{"sindri-template-targets"};
};

TEST_F(TemplateTargetsPassTest, APassRepairsWhateverDrifted) {
  auto synced = sync_all_template_targets(*db_);
  ASSERT_TRUE(synced.ok()) << synced.error().message;
  EXPECT_EQ(*synced, 2u);
  EXPECT_EQ(targets(), "anywhere>dev anywhere>prod prod-only>prod ");

  execute("DELETE FROM template_targets WHERE template_id = 'anywhere'");
  execute("INSERT INTO template_targets (id, template_id, stack_id, created_at) VALUES ('x', 'prod-only', 'dev', 't')");
  ASSERT_TRUE(sync_all_template_targets(*db_).ok());
  EXPECT_EQ(targets(), "anywhere>dev anywhere>prod prod-only>prod ");

  execute("UPDATE stacks SET deleted_at = 't' WHERE id = 'prod'");
  execute("UPDATE stack_templates SET deleted_at = 't' WHERE id = 'anywhere'");
  ASSERT_TRUE(sync_all_template_targets(*db_).ok());
  EXPECT_EQ(targets(), "");
}

}  // namespace
}  // namespace sindri::broker
