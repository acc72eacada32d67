#pragma once
// The periodic pass over template targets (see db/template_targets.hpp): it
// repairs whatever drifted, e.g. rows of templates or stacks deleted by a
// path that does not sync, or a pair another broker's pass raced.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "broker/context.hpp"

namespace sindri::broker {

// Recomputes every live template's targets every `interval`, one template
// per transaction; safe on several brokers sharing a database, since each
// sync only deletes what does not match and inserts what is missing.
class TemplateTargetsJob {
 public:
  TemplateTargetsJob(store::Database& db, Logger& log, std::chrono::seconds interval);
  ~TemplateTargetsJob();
  TemplateTargetsJob(const TemplateTargetsJob&) = delete;
  TemplateTargetsJob& operator=(const TemplateTargetsJob&) = delete;

  // One full pass now; returns how many templates were synced.
  ApiResult<size_t> run_once();

 private:
  void loop();

  store::Database& db_;
  Logger& log_;
  std::chrono::seconds interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace sindri::broker
