#include "postgres_admin.hpp"

#include <gtest/gtest.h>
#include <libpq-fe.h>

namespace sindri_test {

bool run_on_postgres_server(const std::string& url, const std::string& sql) {
  PGconn* connection = PQconnectdb(url.c_str());
  PQsetNoticeProcessor(connection, [](void*, const char*) {}, nullptr);  // "does not exist, skipping"
  bool done = false;
  if (PQstatus(connection) != CONNECTION_OK) {
    ADD_FAILURE() << "cannot connect to " << url << ": " << PQerrorMessage(connection);
  } else {
    PGresult* result = PQexec(connection, sql.c_str());
    done = PQresultStatus(result) == PGRES_COMMAND_OK;
    if (!done) ADD_FAILURE() << sql << ": " << PQerrorMessage(connection);
    PQclear(result);
  }
  PQfinish(connection);
  return done;
}

std::string with_database(const std::string& url, const std::string& database) {
  const size_t query = url.find('?');
  const std::string base = url.substr(0, query);
  const size_t authority = base.find("://");
  const size_t path = base.find('/', authority == std::string::npos ? 0 : authority + 3);
  return (path == std::string::npos ? base : base.substr(0, path)) + "/" + database +
         (query == std::string::npos ? "" : url.substr(query));
}

}  // namespace sindri_test
