#pragma once
// Statements the tests run on the PostgreSQL server itself, outside any
// transaction (CREATE and DROP DATABASE need that). libpq stays in the .cpp.

#include <string>

namespace sindri_test {

// Runs one statement on the database `url` names; fails the test on an error.
void run_on_postgres_server(const std::string& url, const std::string& sql);

}  // namespace sindri_test
