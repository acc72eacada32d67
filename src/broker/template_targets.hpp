#pragma once
// Which stacks a template may be instantiated into (seed 000), kept in
// template_targets. A template with no labels and no annotations may go to
// any stack; otherwise the stack must carry every label of the template and
// every annotation (key and value). The table follows every change of either
// side's labels and annotations, inside the same write transaction, and a
// background job recomputes it all periodically; instantiation itself checks
// the labels directly, so the table is for users asking "where may this go".

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "broker/context.hpp"

namespace sindri::broker {

ApiResult<Ok> sync_template_targets_for_template(store::Connection& connection, std::string_view template_id);
ApiResult<Ok> sync_template_targets_for_stack(store::Connection& connection, std::string_view stack_id);

struct TemplateMismatch {
  std::vector<std::string> missing_labels;
  std::vector<std::pair<std::string, std::string>> missing_annotations;  // key, value
  bool empty() const { return missing_labels.empty() && missing_annotations.empty(); }
};
// What the stack lacks of the template's labels and annotations.
ApiResult<TemplateMismatch> template_mismatch(store::Connection& connection, std::string_view template_id,
                                              std::string_view stack_id);
// 422 template_labels_mismatch listing what is missing.
ApiError mismatch_error(const TemplateMismatch& mismatch, std::string_view template_id, std::string_view stack_id);

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
