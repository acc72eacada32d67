#pragma once
// The agent's waits: interruptible by a stop, in slices short enough that a
// SIGTERM is answered at once.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

namespace sindri::agent {

using Clock = std::chrono::steady_clock;

inline Clock::duration seconds(double value) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(value));
}

// Waits until `deadline`, until `stopping` is set or until `woken` says so;
// false when stopping.
inline bool wait_until(Clock::time_point deadline, const std::atomic<bool>& stopping,
                       const std::function<bool()>& woken = {}) {
  constexpr auto kSlice = std::chrono::milliseconds(20);
  while (!stopping) {
    const auto now = Clock::now();
    if (now >= deadline || (woken && woken())) return true;
    std::this_thread::sleep_for(std::min<Clock::duration>(deadline - now, kSlice));
  }
  return false;
}

}  // namespace sindri::agent
