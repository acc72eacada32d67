#pragma once
// The broker's tables, as versioned migrations for SQLite and PostgreSQL.

#include <span>

#include "store/migrations.hpp"

namespace sindri::broker {

std::span<const store::Migration> broker_migrations();

// The target-state generation is the sum of this many rows of
// target_state_generations (migration 3).
constexpr int kTargetStateShards = 64;

}  // namespace sindri::broker
