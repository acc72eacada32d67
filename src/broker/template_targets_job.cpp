#include "broker/template_targets_job.hpp"

#include "broker/db/template_targets.hpp"
#include "broker/db/templates.hpp"

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
  SINDRI_TRY(template_ids, in_read<std::vector<std::string>>(db_, db::live_template_ids));
  SINDRI_CHECK(in_write<Ok>(db_, db::drop_dead_template_targets));
  for (const std::string& id : template_ids) {
    SINDRI_CHECK(in_write<Ok>(db_, [&](store::Connection& connection) {
      return db::sync_template_targets_for_template(connection, id);
    }));
  }
  return template_ids.size();
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
