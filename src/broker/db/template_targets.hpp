#pragma once
// Which stacks a template may be instantiated into (seed 000), kept in
// template_targets. A template with no labels and no annotations may go to
// any stack; otherwise the stack must carry every label of the template and
// every annotation (key and value). The table follows every change of either
// side's labels and annotations, inside the same write transaction, and a
// background pass (template_targets_pass.hpp) recomputes it all periodically;
// instantiation itself checks the labels directly, so the table is for users
// asking "where may this go".

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker/api_error.hpp"
#include "store/database.hpp"

// SQL: does stack `s` (by alias) carry every label and annotation of
// template `t`?
#define SINDRI_STACK_MATCHES_TEMPLATE                                                                \
  "NOT EXISTS (SELECT 1 FROM template_labels tl WHERE tl.template_id = t.id AND NOT EXISTS "         \
  "  (SELECT 1 FROM stack_labels sl WHERE sl.stack_id = s.id AND sl.label = tl.label)) "             \
  "AND NOT EXISTS (SELECT 1 FROM template_annotations ta WHERE ta.template_id = t.id AND NOT EXISTS " \
  "  (SELECT 1 FROM stack_annotations sa WHERE sa.stack_id = s.id AND sa.key = ta.key AND sa.value = ta.value))"

namespace sindri::broker::db {

ApiResult<Ok> sync_template_targets_for_template(store::Connection& connection, std::string_view template_id);
ApiResult<Ok> sync_template_targets_for_stack(store::Connection& connection, std::string_view stack_id);
// The periodic pass's first step: drops the rows of deleted templates and
// stacks.
ApiResult<Ok> drop_dead_template_targets(store::Connection& connection);

// The template's targets; with `generator_id` not empty, only among that
// generator's stacks.
ApiResult<Value> list_template_targets(store::Connection& connection, std::string_view template_id,
                                       std::string_view generator_id);

struct TemplateMismatch {
  std::vector<std::string> missing_labels;
  std::vector<std::pair<std::string, std::string>> missing_annotations;  // key, value
};
// What the stack lacks of the template's labels and annotations.
ApiResult<TemplateMismatch> template_mismatch(store::Connection& connection, std::string_view template_id,
                                              std::string_view stack_id);

}  // namespace sindri::broker::db
