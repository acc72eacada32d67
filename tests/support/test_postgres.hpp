#pragma once
// Where the tests' PostgreSQL server is. scripts/with-postgres.sh exports
// SINDRI_TEST_POSTGRES_URL (and _ADMIN_URL); under a bare ctest the
// `postgres` fixture (scripts/postgres-fixture.sh) starts one and writes its
// two URLs to the file SINDRI_TEST_POSTGRES_URLS names.

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

namespace sindri_test {

struct TestPostgres {
  std::string url;        // the sindri_test database
  std::string admin_url;  // the server's postgres database; empty when unknown
};

inline std::optional<TestPostgres> test_postgres() {
  if (const char* url = std::getenv("SINDRI_TEST_POSTGRES_URL"); url != nullptr && *url != '\0') {
    const char* admin = std::getenv("SINDRI_TEST_POSTGRES_ADMIN_URL");
    return TestPostgres{url, admin != nullptr ? admin : ""};
  }
  const char* file = std::getenv("SINDRI_TEST_POSTGRES_URLS");
  if (file == nullptr) return std::nullopt;
  std::ifstream in(file);
  TestPostgres found;
  if (!std::getline(in, found.url) || found.url.empty()) return std::nullopt;
  std::getline(in, found.admin_url);
  return found;
}

// Why there is no server, for the failure message.
constexpr const char* kNoTestPostgres =
    "no PostgreSQL for the tests: run them with ctest (its `postgres` fixture starts one) or under "
    "scripts/with-postgres.sh, or set SINDRI_TEST_POSTGRES_URL";

}  // namespace sindri_test
