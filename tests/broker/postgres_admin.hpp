#pragma once
// Statements the tests run on the PostgreSQL server itself, outside any
// transaction (CREATE and DROP DATABASE need that). libpq stays in the .cpp.

#include <string>

namespace sindri_test {

// Runs one statement on the database `url` names; fails the test and returns
// false on an error.
bool run_on_postgres_server(const std::string& url, const std::string& sql);

// A postgres:// URL naming another database on the same server (its query,
// such as ?sslmode=..., kept).
std::string with_database(const std::string& url, const std::string& database);

}  // namespace sindri_test
