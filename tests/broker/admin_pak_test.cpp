// `sindri serve --rotate-admin-pak`: an operator who lost the admin PAK, or
// must revoke it, gets a new one without stopping the brokers, and a
// rotation that cannot finish changes nothing.

#include <sys/stat.h>

#include "broker_process.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

int who_am_i_status(const BrokerProcess& broker, const std::string& pak) {
  auto client = broker.client(pak);
  return call(*client, "POST", "/api/v1/auth/pak").status;
}

class AdminPakRotation : public ::testing::TestWithParam<Backend> {};

TEST_P(AdminPakRotation, ARunningBrokerRefusesTheOldPakAndTakesTheNewOne) {
  BrokerProcess broker(GetParam());
  ASSERT_TRUE(broker.usable());
  broker.start();
  const std::string old_pak = broker.admin_pak();
  auto admin = broker.client(old_pak);
  const Reply generator = call(*admin, "POST", "/api/v1/generators", R"({"name":"ci"})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  const std::string generator_pak = text_of(generator.json, "pak");

  const auto rotated = broker.run_serve_command({"--rotate-admin-pak"});
  ASSERT_EQ(rotated.status, 0) << rotated.output;
  EXPECT_NE(rotated.output.find((broker.dir() / "admin.pak").string()), std::string::npos) << rotated.output;
  const std::string new_pak = broker.admin_pak();
  EXPECT_NE(new_pak, old_pak);
  struct stat file {};
  ASSERT_EQ(::stat((broker.dir() / "admin.pak").c_str(), &file), 0);
  EXPECT_EQ(file.st_mode & 0777, 0600u);

  EXPECT_EQ(who_am_i_status(broker, old_pak), 401);
  auto rotated_admin = broker.client(new_pak);
  const Reply who = call(*rotated_admin, "POST", "/api/v1/auth/pak");
  ASSERT_EQ(who.status, 200) << who.body;
  EXPECT_TRUE(who.json.find("admin")->get_bool());
  EXPECT_EQ(who_am_i_status(broker, generator_pak), 200) << "only the admin PAK changes";

  // It is stored, not only seen by the broker that was running.
  EXPECT_EQ(broker.stop(), 0);
  broker.start();
  EXPECT_EQ(who_am_i_status(broker, new_pak), 200);
  EXPECT_EQ(who_am_i_status(broker, old_pak), 401);
}

TEST_P(AdminPakRotation, WhenTheNewPakCannotBeWrittenTheOldOneStays) {
  BrokerProcess broker(GetParam());
  ASSERT_TRUE(broker.usable());
  broker.start();
  const std::string old_pak = broker.admin_pak();
  // The new PAK is staged in admin.pak.new: a directory there refuses it.
  fs::create_directory(broker.dir() / "admin.pak.new");

  const auto rotated = broker.run_serve_command({"--rotate-admin-pak"});
  EXPECT_EQ(rotated.status, 1);
  EXPECT_NE(rotated.output.find("admin.pak.new"), std::string::npos) << rotated.output;
  EXPECT_EQ(broker.admin_pak(), old_pak);
  EXPECT_EQ(who_am_i_status(broker, old_pak), 200);
}

TEST_P(AdminPakRotation, ADatabaseNoBrokerStartedOnHasNothingToRotate) {
  BrokerProcess broker(GetParam());
  ASSERT_TRUE(broker.usable());
  const auto rotated = broker.run_serve_command({"--rotate-admin-pak"});
  EXPECT_EQ(rotated.status, 1);
  EXPECT_FALSE(fs::exists(broker.dir() / "admin.pak"));
  if (GetParam() == Backend::Sqlite) {
    // A mistyped path is not made into a new, empty database.
    EXPECT_NE(rotated.output.find("no SQLite database at"), std::string::npos) << rotated.output;
    EXPECT_FALSE(fs::exists(broker.dir() / "sindri.db"));
  } else if (GetParam() == Backend::Postgres) {
    EXPECT_NE(rotated.output.find("no such schema"), std::string::npos) << rotated.output;
  } else {
    EXPECT_NE(rotated.output.find("no broker has started on this database"), std::string::npos) << rotated.output;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, AdminPakRotation,
                         ::testing::Values(Backend::Sqlite, Backend::Postgres, Backend::PostgresPublic),
                         backend_name);

TEST(AdminPakRotationOnSqlite, AnEmptyDatabaseFileHasNothingToRotate) {
  BrokerProcess broker(Backend::Sqlite);
  std::ofstream(broker.dir() / "sindri.db").flush();
  const auto rotated = broker.run_serve_command({"--rotate-admin-pak"});
  EXPECT_EQ(rotated.status, 1);
  EXPECT_NE(rotated.output.find("no broker has started on this database"), std::string::npos) << rotated.output;
  EXPECT_FALSE(fs::exists(broker.dir() / "admin.pak"));
}

}  // namespace
}  // namespace sindri_test
