#pragma once
// What the SQLite and PostgreSQL back ends share: error texts and the key of
// their per-connection statement caches.

#include <functional>
#include <string_view>

#include "store/database.hpp"

namespace sindri::store {

// The first non-blank line of a statement, for error messages.
std::string_view first_line(std::string_view sql);

// "<what> (statement: <first line of sql>)".
DbError statement_error(DbError::Kind kind, std::string_view what, std::string_view sql);

// Lets a cache keyed by std::string be searched with the caller's
// string_view, without building a string on every query.
struct TextHash {
  using is_transparent = void;
  size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

}  // namespace sindri::store
