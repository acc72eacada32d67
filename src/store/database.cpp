#include "store/database.hpp"

#include <algorithm>
#include <cassert>

#include "store/backend.hpp"
#include "store/postgres.hpp"
#include "store/sqlite.hpp"

namespace sindri::store {

size_t Rows::column(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return i;
  }
  assert(false && "Rows::column: no such column");
  return columns.size();
}

bool is_valid_schema_name(std::string_view name) {
  auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (name.empty() || name.size() > 63 || !letter(name[0])) return false;
  for (char c : name) {
    if (!letter(c) && !digit(c) && c != '_') return false;
  }
  return true;
}

std::string_view first_line(std::string_view sql) {
  constexpr std::string_view kBlank = " \t\r\n";
  size_t begin = sql.find_first_not_of(kBlank);
  if (begin == std::string_view::npos) return {};
  std::string_view line = sql.substr(begin);
  line = line.substr(0, line.find('\n'));
  return line.substr(0, line.find_last_not_of(kBlank) + 1);
}

DbError statement_error(DbError::Kind kind, std::string_view what, std::string_view sql) {
  std::string message(what);
  message += " (statement: ";
  message += first_line(sql);
  message += ')';
  return DbError{kind, std::move(message)};
}

DbResult<Rows> Database::read_statement(std::string_view sql, std::span<const Value> params) {
  constexpr std::string_view kBlank = " \t\r\n";
  constexpr std::string_view kSelect = "select";
  const size_t start = std::min(sql.find_first_not_of(kBlank), sql.size());
  const std::string_view text = sql.substr(start);
  const bool select = text.size() > kSelect.size() && kBlank.find(text[kSelect.size()]) != std::string_view::npos &&
                      std::equal(kSelect.begin(), kSelect.end(), text.begin(),
                                 [](char want, char got) { return want == (got | 0x20); });
  if (!select) return statement_error(DbError::Kind::Invalid, "read_statement runs only a SELECT", sql);
  return query_alone(sql, params);
}

DbResult<std::unique_ptr<Listener>> Database::listen(std::string_view) {
  return DbError{DbError::Kind::Invalid, "this database carries no notices between processes"};
}

DbStatus Database::notify(std::string_view, std::string_view) {
  return DbError{DbError::Kind::Invalid, "this database carries no notices between processes"};
}

DbStatus Database::notify_in(Connection&, std::string_view, std::string_view) {
  return DbError{DbError::Kind::Invalid, "this database carries no notices between processes"};
}

DbResult<std::unique_ptr<Database>> Database::open(const std::string& url, const OpenOptions& options) {
  if (!options.tenant_schema.empty() && !is_valid_schema_name(options.tenant_schema)) {
    return DbError{DbError::Kind::Invalid,
                   "invalid tenant schema name '" + options.tenant_schema +
                       "': it must start with a letter, continue with letters, digits or underscores, "
                       "and be at most 63 bytes"};
  }
  std::string_view rest = url;
  if (rest.starts_with("sqlite://")) {
    return open_sqlite(rest.substr(std::string_view("sqlite://").size()), options);
  }
  if (rest.starts_with("postgres://") || rest.starts_with("postgresql://")) {
    return open_postgres(url, options);
  }
  std::string message = "unknown database URL scheme";
  // Name only the scheme: the rest of a URL may carry a password.
  if (size_t end = rest.find("://"); end != std::string_view::npos) {
    message += " '" + std::string(rest.substr(0, end)) + "'";
  }
  message += ": expected sqlite://PATH, postgres://... or postgresql://...";
  return DbError{DbError::Kind::Invalid, std::move(message)};
}

}  // namespace sindri::store
