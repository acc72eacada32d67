#include "postgres_admin.hpp"

#include <gtest/gtest.h>
#include <libpq-fe.h>

namespace sindri_test {

void run_on_postgres_server(const std::string& url, const std::string& sql) {
  PGconn* connection = PQconnectdb(url.c_str());
  PQsetNoticeProcessor(connection, [](void*, const char*) {}, nullptr);  // "does not exist, skipping"
  if (PQstatus(connection) != CONNECTION_OK) {
    ADD_FAILURE() << "cannot connect to " << url << ": " << PQerrorMessage(connection);
  } else {
    PGresult* result = PQexec(connection, sql.c_str());
    if (PQresultStatus(result) != PGRES_COMMAND_OK) ADD_FAILURE() << sql << ": " << PQerrorMessage(connection);
    PQclear(result);
  }
  PQfinish(connection);
}

}  // namespace sindri_test
