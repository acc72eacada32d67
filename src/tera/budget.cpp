#include "tera/budget.hpp"

#include <algorithm>

#include "tera/tera.hpp"

namespace sindri::tera {

namespace {

// Reading the clock costs about as much as a few dozen steps: it is read
// once per this many, and so is the cancel flag.
constexpr uint64_t kStepsPerClockRead = 4096;

// The count of steps just past `steps`, which is where check() runs next.
uint64_t just_past(uint64_t steps) { return steps == UINT64_MAX ? steps : steps + 1; }

}  // namespace

Budget::Budget(const RenderOptions& options)
    : max_steps_(options.max_steps),
      max_value_bytes_(options.max_output_bytes),
      max_duration_(options.max_duration),
      cancel_(options.cancel) {
  if (max_duration_.count() > 0) deadline_ = std::chrono::steady_clock::now() + max_duration_;
  if (max_duration_.count() > 0 || cancel_ != nullptr) {
    next_check_ = just_past(std::min(max_steps_, kStepsPerClockRead));
  } else {
    next_check_ = just_past(max_steps_);
  }
}

bool Budget::check() {
  if (exceeded_ != Limit::None) return false;
  if (spent_ > max_steps_) {
    exceeded_ = Limit::Steps;
    next_check_ = 0;
    return false;
  }
  if (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) {
    exceeded_ = Limit::Cancelled;
    next_check_ = 0;
    return false;
  }
  if (max_duration_.count() > 0 && std::chrono::steady_clock::now() > deadline_) {
    exceeded_ = Limit::Duration;
    next_check_ = 0;
    return false;
  }
  if (max_duration_.count() > 0 || cancel_ != nullptr) {
    next_check_ = just_past(std::min(max_steps_, spent_ + kStepsPerClockRead));
  } else {
    next_check_ = just_past(max_steps_);
  }
  return true;
}

bool Budget::too_large() {
  if (exceeded_ == Limit::None) {
    exceeded_ = Limit::ValueSize;
    next_check_ = 0;  // every charge fails from now on
  }
  return false;
}

}  // namespace sindri::tera
