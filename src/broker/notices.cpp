#include "broker/notices.hpp"

namespace sindri::broker {

void Notices::publish(const Value& notice) const {
  deliver_(notice);
  if (carry_) carry_(notice);
}

}  // namespace sindri::broker
