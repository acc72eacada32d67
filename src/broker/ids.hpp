#pragma once
// Identifiers and timestamps the broker hands out.

#include <chrono>
#include <string>
#include <string_view>

#include "value/uuid.hpp"

namespace sindri::broker {

// A time-ordered UUID (version 7, RFC 9562: the Unix time in milliseconds,
// then 74 random bits), lower-case. Ids made one after another sort together,
// so a new row lands at the end of every index on an id, in SQLite and
// PostgreSQL alike, instead of on a random page.
std::string new_uuid();
// Now, UTC, RFC 3339 with microseconds: "2026-11-21T09:30:00.123456Z". The
// fixed width makes text order the same as time order.
std::string now_timestamp();
// The same form for any moment.
std::string timestamp_at(std::chrono::system_clock::time_point moment);
// The same form for `seconds` (fractions allowed) before now.
std::string timestamp_seconds_ago(double seconds);
// Random text of `length` characters from [A-Za-z0-9].
std::string random_alphanumeric(size_t length);

}  // namespace sindri::broker
