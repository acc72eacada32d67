#include "agent/workloads/utc_now.hpp"

#include <chrono>

#include "broker/rfc3339.hpp"

namespace sindri::agent {

std::string utc_now_rfc3339() {
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return broker::rfc3339::format_micros(std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count());
}

}  // namespace sindri::agent
