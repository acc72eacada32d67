#pragma once
// The broker's tables, as versioned migrations for SQLite and PostgreSQL.

#include <span>

#include "store/migrations.hpp"

namespace sindri::broker {

std::span<const store::Migration> broker_migrations();

}  // namespace sindri::broker
