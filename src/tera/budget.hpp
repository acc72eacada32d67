#pragma once
// What one render may spend, shared by the renderer and the builtins: steps
// of work, the size of each string or list it builds, and time
// (RenderOptions sets them). Steps are charged for the work actually done,
// so that one filter call on a megabyte costs what a million loop
// iterations cost; builders check the size while they build, so that a
// value sharing one big list many times is refused before it is expanded.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::tera {

struct RenderOptions;

class Budget {
 public:
  enum class Limit : uint8_t { None, Steps, ValueSize, Duration, Cancelled };

  explicit Budget(const RenderOptions& options);

  // Charges `steps`: false once more than max_steps were charged, the
  // deadline has passed, the render was cancelled or a value passed its
  // limit, and on every call after.
  bool charge(uint64_t steps) {
    spent_ += steps;
    if (spent_ < next_check_) [[likely]] return true;
    return check();
  }

  // Charges `steps` without checking, for code that cannot stop where it
  // runs (a variable lookup): the next charge() counts them.
  void add(uint64_t steps) { spent_ += steps; }

  // The largest string a template may build, in bytes; a list counts
  // sizeof(Value) bytes an element.
  size_t max_value_bytes() const { return max_value_bytes_; }
  // Whether a value of `bytes` may be built; when not, the limit is recorded.
  bool fits(size_t bytes) {
    if (bytes <= max_value_bytes_) [[likely]] return true;
    return too_large();
  }
  bool fits_list(uint64_t elements) {
    if (elements <= max_value_bytes_ / sizeof(Value)) [[likely]] return true;
    return too_large();
  }

  Limit exceeded() const { return exceeded_; }
  uint64_t max_steps() const { return max_steps_; }
  std::chrono::milliseconds max_duration() const { return max_duration_; }

  // What a builtin returns when it stops for the budget: the renderer
  // reports the limit that was hit in place of its message.
  static Error stopped() { return Error{"stopped: the render's budget is spent"}; }
  // For a builder that stopped because its value passed max_value_bytes:
  // records that limit as hit, and returns stopped().
  Error refuse_value() {
    too_large();
    return stopped();
  }

 private:
  bool check();
  bool too_large();

  uint64_t spent_ = 0;
  uint64_t next_check_ = 0;  // the next count of steps at which check() runs
  uint64_t max_steps_;
  size_t max_value_bytes_;
  std::chrono::milliseconds max_duration_;
  std::chrono::steady_clock::time_point deadline_;
  const std::atomic<bool>* cancel_;
  Limit exceeded_ = Limit::None;
};

}  // namespace sindri::tera
