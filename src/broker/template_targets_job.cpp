#include "broker/template_targets_job.hpp"

#include "broker/template_targets.hpp"

namespace sindri::broker {

TemplateTargetsJob::TemplateTargetsJob(store::Database& db, Logger& log, std::chrono::seconds interval)
    : db_(db), log_(log), interval_(interval), thread_([this] { loop(); }) {}

TemplateTargetsJob::~TemplateTargetsJob() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

ApiResult<size_t> TemplateTargetsJob::run_once() {
  BROKER_TRY(templates, in_read<store::Rows>(db_, [](store::Connection& connection) -> ApiResult<store::Rows> {
    BROKER_TRY(rows, connection.query("SELECT id FROM stack_templates WHERE deleted_at IS NULL ORDER BY id"));
    return rows;
  }));
  // Rows of templates deleted since the last pass, and of deleted stacks.
  BROKER_CHECK(in_write<Ok>(db_, [](store::Connection& connection) -> ApiResult<Ok> {
    BROKER_CHECK(connection.query(
        "DELETE FROM template_targets WHERE template_id IN (SELECT id FROM stack_templates WHERE deleted_at IS NOT NULL) "
        "OR stack_id IN (SELECT id FROM stacks WHERE deleted_at IS NOT NULL)"));
    return Ok{};
  }));
  for (const auto& row : templates.rows) {
    const std::string id(row[0].get_string());
    BROKER_CHECK(in_write<Ok>(db_, [&](store::Connection& connection) {
      return sync_template_targets_for_template(connection, id);
    }));
  }
  return templates.size();
}

void TemplateTargetsJob::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) {
    lock.unlock();
    auto synced = run_once();
    if (!synced.ok()) {
      const ApiError& error = synced.error();
      log_.warn("template targets pass failed", {{"cause", Value(error.cause ? error.cause->message : error.message)}});
    } else {
      log_.debug("template targets recomputed", {{"templates", Value(static_cast<int64_t>(*synced))}});
    }
    lock.lock();
  }
}

}  // namespace sindri::broker
