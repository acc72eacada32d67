#pragma once
// The moment a report was made, as the broker reads it back: RFC 3339 in UTC
// with microseconds ("2026-11-26T18:40:00.123456Z").

#include <string>

namespace sindri::agent {

std::string utc_now_rfc3339();

}  // namespace sindri::agent
