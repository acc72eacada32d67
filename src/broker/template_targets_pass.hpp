#pragma once
// The periodic pass over template targets (see db/template_targets.hpp): it
// repairs whatever drifted, e.g. rows of templates or stacks deleted by a
// path that does not sync, or a pair another broker's pass raced.

#include "broker/context.hpp"

namespace sindri::broker {

// Recomputes every live template's targets, one template per transaction;
// safe on several brokers sharing a database, since each sync only deletes
// what does not match and inserts what is missing. Answers how many
// templates were synced.
ApiResult<size_t> sync_all_template_targets(store::Database& db);

}  // namespace sindri::broker
