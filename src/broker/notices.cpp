#include "broker/notices.hpp"

#include "value/json.hpp"

namespace sindri::broker {

void Notices::publish(const Value& notice) const {
  deliver_(notice);
  if (carry_) carry_(notice);
}

ApiResult<Ok> Notices::stage(store::Connection& connection, const Value& notice) const {
  if (!stage_) return Ok{};
  return stage_(connection, notice);
}

ApiResult<Ok> StagedNotices::stage(store::Connection& connection, Value notice) {
  SINDRI_CHECK(notices_.stage(connection, notice));
  if (texts_.insert(to_json(notice)).second) staged_.push_back(std::move(notice));
  return Ok{};
}

void StagedNotices::deliver() const {
  for (const Value& notice : staged_) notices_.deliver_here(notice);
}

}  // namespace sindri::broker
