#include "broker/template_targets_pass.hpp"

#include "broker/db/template_targets.hpp"
#include "broker/db/templates.hpp"

namespace sindri::broker {

ApiResult<size_t> sync_all_template_targets(store::Database& db) {
  SINDRI_TRY(template_ids, in_read<std::vector<std::string>>(db, db::live_template_ids));
  SINDRI_CHECK(in_write<Ok>(db, db::drop_dead_template_targets));
  for (const std::string& id : template_ids) {
    SINDRI_CHECK(in_write<Ok>(db, [&](store::Connection& connection) {
      return db::sync_template_targets_for_template(connection, id);
    }));
  }
  return template_ids.size();
}

}  // namespace sindri::broker
