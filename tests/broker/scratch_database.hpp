#pragma once
// A broker database of a unit test's own: a migrated SQLite file in the
// temporary directory, removed with the test.

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "broker/db/tables.hpp"
#include "store/migrations.hpp"

namespace sindri::broker {

class ScratchDatabase {
 public:
  explicit ScratchDatabase(std::string_view name)
      : path_(std::filesystem::temp_directory_path() /
              (std::string(name) + "-" + std::to_string(getpid()) + ".db")) {
    std::filesystem::remove(path_);
    auto db = store::Database::open("sqlite://" + path_.string());
    if (!db.ok()) throw std::runtime_error("cannot open " + path_.string() + ": " + db.error().message);
    db_ = std::move(db).value();
    auto migrated = store::migrate(*db_, broker_migrations());
    if (!migrated.ok()) throw std::runtime_error("cannot migrate " + path_.string() + ": " + migrated.error().message);
  }
  ~ScratchDatabase() {
    db_.reset();
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + suffix, ignored);
  }
  ScratchDatabase(const ScratchDatabase&) = delete;
  ScratchDatabase& operator=(const ScratchDatabase&) = delete;

  store::Database& operator*() const { return *db_; }
  store::Database* operator->() const { return db_.get(); }

  // One statement in a write transaction; a failure fails the test.
  void execute(const std::string& sql) const {
    auto status = db_->write([&](store::Connection& connection) -> store::DbStatus {
      auto rows = connection.query(sql);
      if (!rows.ok()) return std::move(rows).error();
      return Ok{};
    });
    EXPECT_TRUE(status.ok()) << sql << ": " << (status.ok() ? "" : status.error().message);
  }

 private:
  std::filesystem::path path_;
  std::unique_ptr<store::Database> db_;
};

}  // namespace sindri::broker
